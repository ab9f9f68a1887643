// session.subscribe / session.unsubscribe. Gap-free delivery: with `fromSeq`, the events
// the client has not seen are sent first, and the subscription is registered in the same
// synchronous step, so every later append reaches it exactly once, in seq order.
import { TangentError } from '@tangent/core'
import { type HostContext, liveSession, sessionNotFound } from '../host-context.js'
import type { CallContext, MethodHandlers } from '../rpc-router.js'

export function subscriptionMethods(
  context: HostContext,
): Pick<MethodHandlers, 'session.subscribe' | 'session.unsubscribe'> {
  const { persistence, hub } = context
  return {
    'session.subscribe': async (params, call) => {
      const connection = requireConnection(call)
      const sessionId = params.sessionId
      if (params.fromSeq !== undefined) {
        const session = await liveSession(context, sessionId)
        // No await from here to `subscribe`: nothing can be appended in between.
        if (!hub.isSubscribed(connection, sessionId)) {
          for (const event of session.events.slice(params.fromSeq))
            connection.notify('session.event', { sessionId, event })
        }
        hub.subscribe(connection, sessionId)
        return {}
      }
      if (!persistence.store.get(sessionId) && !(await persistence.get(sessionId)))
        throw sessionNotFound(sessionId)
      hub.subscribe(connection, sessionId)
      return {}
    },

    'session.unsubscribe': async (params, call) => {
      hub.unsubscribe(requireConnection(call), params.sessionId)
      return {}
    },
  }
}

function requireConnection(call: CallContext) {
  if (!call.connection) {
    throw new TangentError(
      'invalid-request',
      'Subscriptions need a WebSocket (ws://HOST:PORT/rpc?token=TOKEN): HTTP requests get no notifications.',
    )
  }
  return call.connection
}
