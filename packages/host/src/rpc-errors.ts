// The one place where errors become JSON-RPC error objects: a TangentError's `code`
// becomes `error.data.code`, zod issues become `invalid-params`, anything else `internal`.
import { TangentError } from '@tangent/core'
import { type RpcErrorObject, rpcErrorCodes } from '@tangent/protocol'
import { invalidParams } from '@tangent/runtime'
import type { z } from 'zod'

/** Data codes that have their own standard JSON-RPC code. */
const standardCodes: Record<string, number> = {
  'parse-error': rpcErrorCodes.parseError,
  'invalid-request': rpcErrorCodes.invalidRequest,
  'payload-too-large': rpcErrorCodes.invalidRequest,
  'method-not-found': rpcErrorCodes.methodNotFound,
  'invalid-params': rpcErrorCodes.invalidParams,
  // A malformed id or model name is a params problem, whoever noticed it.
  'invalid-session-id': rpcErrorCodes.invalidParams,
  'invalid-model': rpcErrorCodes.invalidParams,
  'images-unsupported': rpcErrorCodes.invalidParams,
  'folder-not-found': rpcErrorCodes.invalidParams,
}

export function rpcError(
  dataCode: string,
  message: string,
  data: Record<string, unknown> = {},
): RpcErrorObject {
  return {
    code: standardCodes[dataCode] ?? rpcErrorCodes.application,
    message,
    data: { ...data, code: dataCode },
  }
}

export function invalidParamsError(method: string, issues: readonly z.core.$ZodIssue[]): RpcErrorObject {
  const error = invalidParams(method, issues)
  return rpcError(error.code, error.message, error.data)
}

/**
 * Maps anything thrown by a method to an error object. TangentErrors keep their code,
 * message and data; other errors are `internal` and reported through `report`.
 */
export function toRpcError(error: unknown, report: (error: unknown) => void): RpcErrorObject {
  if (TangentError.isInstance(error)) {
    return rpcError(error.code, error.message, error.data)
  }
  report(error)
  const message = error instanceof Error ? error.message : String(error)
  return rpcError('internal', `Internal error: ${message}. The Host keeps running; see its log.`)
}
