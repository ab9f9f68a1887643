// JSON-RPC 2.0 dispatch, independent of the transport: parse, validate the envelope and
// the params (zod schemas of @tangent/protocol), call the handler, map errors, batches.
import {
  isMethodName,
  type MethodName,
  type MethodResult,
  type Methods,
  maxMessageBytes,
  messageByteLimit,
  parseMethodParams,
  type RpcErrorObject,
  type RpcId,
  RpcRequest,
  type RpcResponse,
} from '@tangent/protocol'
import type { z } from 'zod'
import type { Connection } from './connections.js'
import { invalidParamsError, rpcError, toRpcError } from './rpc-errors.js'

/** Who is calling: a WebSocket connection (which can subscribe) or a plain HTTP request. */
export interface CallContext {
  connection: Connection | null
}

export type MethodHandler<M extends MethodName> = (
  params: z.output<Methods[M]['params']>,
  context: CallContext,
) => Promise<MethodResult<M>>

export type MethodHandlers = { [M in MethodName]: MethodHandler<M> }

export const maxBatchLength = 100

export interface RpcRouter {
  /**
   * Handles one message (request, notification or batch); null when nothing is to be answered.
   * A message over `maxMessageBytes` is answered `payload-too-large` unless it is a
   * `session.prompt` with images within `maxPromptMessageBytes` (the transports cut before that).
   */
  handleText(text: string, context: CallContext): Promise<RpcResponse | RpcResponse[] | null>
}

export function createRpcRouter(handlers: MethodHandlers, report: (error: unknown) => void): RpcRouter {
  async function handleOne(value: unknown, context: CallContext): Promise<RpcResponse | null> {
    const envelope = RpcRequest.safeParse(value)
    if (!envelope.success) {
      const id = idOf(value)
      return failure(
        id,
        rpcError(
          'invalid-request',
          'Invalid JSON-RPC request: expected {jsonrpc:"2.0", method, params?, id?}.',
        ),
      )
    }
    const { id, method, params } = envelope.data
    const result = await dispatch(method, params, context)
    if (id === undefined) return null
    return 'error' in result ? failure(id, result.error) : { jsonrpc: '2.0', id, result: result.value }
  }

  async function dispatch(
    method: string,
    params: unknown,
    context: CallContext,
  ): Promise<{ value: unknown } | { error: RpcErrorObject }> {
    if (!isMethodName(method)) {
      return {
        error: rpcError('method-not-found', `Unknown method ${JSON.stringify(method).slice(0, 100)}.`, {
          method: method.slice(0, 100),
        }),
      }
    }
    const parsed = parseMethodParams(method, params ?? {})
    if (!parsed.success) return { error: invalidParamsError(method, parsed.error.issues) }
    try {
      const handler = handlers[method] as (params: unknown, context: CallContext) => Promise<unknown>
      return { value: await handler(parsed.data, context) }
    } catch (error) {
      return { error: toRpcError(error, report) }
    }
  }

  return {
    async handleText(text, context) {
      // Past the ordinary limit only a session.prompt with images may go: anything else, JSON
      // or not, is too large.
      const over = text.length > maxMessageBytes / 3 && Buffer.byteLength(text) > maxMessageBytes
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        if (over) return failure(null, tooLargeError(maxMessageBytes))
        return failure(null, rpcError('parse-error', 'Parse error: the message is not valid JSON.'))
      }
      if (over) {
        const limit = messageByteLimit(value)
        if (Buffer.byteLength(text) > limit) return failure(null, tooLargeError(limit))
      }
      if (!Array.isArray(value)) return handleOne(value, context)
      if (value.length === 0)
        return failure(null, rpcError('invalid-request', 'Invalid request: empty batch.'))
      if (value.length > maxBatchLength) {
        return failure(
          null,
          rpcError('invalid-request', `Invalid request: a batch holds at most ${maxBatchLength} calls.`),
        )
      }
      const answers = await Promise.all(value.map((item) => handleOne(item, context)))
      const responses = answers.filter((answer): answer is RpcResponse => answer !== null)
      return responses.length > 0 ? responses : null
    },
  }
}

/** `payload-too-large` for a message over `limit` bytes (HTTP answers it with 413). */
export function tooLargeError(limit: number): RpcErrorObject {
  const prompt = limit > maxMessageBytes ? ' (a session.prompt with images)' : ''
  return rpcError('payload-too-large', `Message too large: the limit is ${limit} bytes${prompt}.`, { limit })
}

function failure(id: RpcId, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: '2.0', id, error }
}

/** The id of a malformed request, when it has a usable one (else null, per JSON-RPC). */
function idOf(value: unknown): RpcId {
  if (typeof value !== 'object' || value === null) return null
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}
