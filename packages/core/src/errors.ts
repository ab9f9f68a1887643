// Typed, serialisable errors. Every failure a caller can hit carries a stable
// kebab-case `code` from the closed list of error-codes.ts (the same string the Host puts
// in `error.data.code`).
import type { ErrorCode } from './error-codes.js'

/** @deprecated Use `ErrorCode`: the codes are one closed list now. */
export type TangentErrorCode = ErrorCode

const marker = Symbol.for('tangent.error')

export class TangentError extends Error {
  readonly [marker] = true
  readonly code: ErrorCode
  readonly data: Record<string, unknown>

  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options)
    this.name = 'TangentError'
    this.code = code
    this.data = data
  }

  /** True for any TangentError, also one thrown by another copy of this package. */
  static isInstance(value: unknown): value is TangentError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true
  }

  /** True when `value` is a TangentError with the given code. */
  static hasCode(value: unknown, code: ErrorCode): value is TangentError {
    return TangentError.isInstance(value) && value.code === code
  }

  toJSON(): { name: string; code: ErrorCode; message: string; data: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, data: this.data }
  }
}
