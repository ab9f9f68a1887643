// Error codes of docs/protocol.md ("Errors"): the standard JSON-RPC codes and the stable
// `error.data.code` strings every error carries. The strings are core's one closed list,
// imported from the dependency-free `@tangent/core/error-codes` (this package runs in browsers).
import { type ErrorCode, errorCodeList, isErrorCode } from '@tangent/core/error-codes'
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

export { type ErrorCode, errorCodeList, errorCodes, isErrorCode } from '@tangent/core/error-codes'

export const rpcErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  /** Every application error; `data.code` says which. */
  application: -32000,
} as const

/** Every `error.data.code` a client can receive (core's `errorCodeList`). */
export const ErrorDataCode = lazySchema((z) => z.enum(errorCodeList))
export type ErrorDataCode = z.infer<typeof ErrorDataCode>

/**
 * `error.data`: always a `code`; other fields depend on it (`sessionId`, `issues`, `paths`, …).
 * `code` stays a plain string on the wire so that a newer Host's codes still parse.
 */
export const RpcErrorData = lazySchema((z) => z.looseObject({ code: z.string() }))
export type RpcErrorData = z.infer<typeof RpcErrorData>

export const RpcErrorObject = lazySchema((z) =>
  z.object({
    code: z.number().int(),
    message: z.string(),
    data: RpcErrorData.optional(),
  }),
)
export type RpcErrorObject = z.infer<typeof RpcErrorObject>

/** A JSON-RPC error as the client sees it: `code` is the numeric code, `data.code` the stable string. */
export class RpcError extends Error {
  readonly code: number
  readonly data: RpcErrorData

  constructor(code: number, message: string, data?: RpcErrorData) {
    super(message)
    this.name = 'RpcError'
    this.code = code
    this.data = data ?? { code: 'internal' }
  }

  /**
   * The stable `data.code` (e.g. `session-busy`); `internal` for a code this client does not
   * know (a newer Host's), whose raw string stays in `data.code`.
   */
  get dataCode(): ErrorCode {
    return isErrorCode(this.data.code) ? this.data.code : 'internal'
  }

  /** True when `error` is an RpcError whose `data.code` is `code`: `RpcError.is(e, 'session-busy')`. */
  static is(error: unknown, code: ErrorCode): error is RpcError {
    return error instanceof RpcError && error.data.code === code
  }
}
