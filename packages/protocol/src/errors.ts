// Error codes of PROTOCOL.md ("Errors"): the standard JSON-RPC codes and the stable
// `error.data.code` strings every error carries.
import { z } from 'zod'

export const rpcErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  /** Every application error; `data.code` says which. */
  application: -32000,
} as const

/** The `data.code` strings of PROTOCOL.md, plus the ones of the standard codes. */
export const ErrorDataCode = z.enum([
  'parse-error',
  'invalid-request',
  'method-not-found',
  'invalid-params',
  'payload-too-large',
  /** HTTP 401 body: missing or wrong bearer token. */
  'unauthorized',
  'session-not-found',
  'session-busy',
  'fork-unavailable',
  'invalid-boundary',
  'open-turn',
  'session-exists',
  'workspace-attach-failed',
  'workspace-not-found',
  'files-conflict',
  'model-unavailable',
  /** A model id that is not `provider:model` of a known provider (code -32602). */
  'invalid-model',
  'internal',
  /** Client side: the socket closed before the answer came. */
  'connection-closed',
])
export type ErrorDataCode = z.infer<typeof ErrorDataCode>

/** `error.data`: always a `code`; other fields depend on it (`sessionId`, `issues`, `paths`, …). */
export const RpcErrorData = z.looseObject({ code: z.string() })
export type RpcErrorData = z.infer<typeof RpcErrorData>

export const RpcErrorObject = z.object({
  code: z.number().int(),
  message: z.string(),
  data: RpcErrorData.optional(),
})
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

  /** The stable `data.code` string (e.g. `session-busy`). */
  get dataCode(): string {
    return this.data.code
  }
}
