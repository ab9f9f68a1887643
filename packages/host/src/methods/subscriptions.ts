// session.subscribe / session.unsubscribe: a connection joins the session's fan-out
// (session-fanout.ts): with `fromSeq`, the events the client has not seen come first, then
// every later append exactly once, in seq order, and the session's (coalesced) deltas.
import { TangentError } from '@tangent/core'
import type { Connection } from '../connections.js'
import type { HostContext } from '../host-context.js'
import type { CallContext, MethodHandlers } from '../rpc-router.js'

export function subscriptionMethods(
  context: HostContext,
): Pick<MethodHandlers, 'session.subscribe' | 'session.unsubscribe'> {
  const { fanout, hub } = context
  return {
    'session.subscribe': async (params, call) => {
      const connection = requireConnection(call)
      const { sessionId } = params
      await hub.subscribe(connection, sessionId, () => fanout.join(connection, sessionId, params.fromSeq))
      return {}
    },

    'session.unsubscribe': async (params, call) => {
      hub.unsubscribe(requireConnection(call), params.sessionId)
      return {}
    },
  }
}

/** The caller's WebSocket; `invalid-request` over plain HTTP, which has no connection to hold anything. */
export function requireConnection(
  call: CallContext,
  why = 'Subscriptions need a WebSocket (ws://HOST:PORT/rpc?token=TOKEN): HTTP requests get no notifications.',
): Connection {
  if (!call.connection) {
    throw new TangentError(
      'invalid-request',
      why.includes('ws://') ? why : `${why} (ws://HOST:PORT/rpc?token=TOKEN): an HTTP request has none.`,
    )
  }
  return call.connection
}
