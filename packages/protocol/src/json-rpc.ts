// JSON-RPC 2.0 envelopes (requests, responses, notifications) shared by Host and client.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { RpcErrorObject } from './errors.js'

export const RpcId = lazySchema((z) => z.union([z.string().max(200), z.number(), z.null()]))
export type RpcId = z.infer<typeof RpcId>

/** A request, or a notification when `id` is absent. */
export const RpcRequest = lazySchema((z) =>
  z.object({
    jsonrpc: z.literal('2.0'),
    id: RpcId.optional(),
    method: z.string().max(200),
    params: z.unknown().optional(),
  }),
)
export type RpcRequest = z.infer<typeof RpcRequest>

export const RpcSuccess = lazySchema((z) =>
  z.object({ jsonrpc: z.literal('2.0'), id: RpcId, result: z.unknown() }),
)
export type RpcSuccess = z.infer<typeof RpcSuccess>
export const RpcFailure = lazySchema((z) =>
  z.object({ jsonrpc: z.literal('2.0'), id: RpcId, error: RpcErrorObject }),
)
export type RpcFailure = z.infer<typeof RpcFailure>
export type RpcResponse = RpcSuccess | RpcFailure

export const RpcNotification = lazySchema((z) =>
  z.object({
    jsonrpc: z.literal('2.0'),
    method: z.string(),
    params: z.unknown(),
  }),
)
export type RpcNotification = z.infer<typeof RpcNotification>
