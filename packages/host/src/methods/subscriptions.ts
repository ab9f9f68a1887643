// session.subscribe / session.unsubscribe: a connection's subscription is the runtime's
// gap-free one (Runtime.subscribe): with `fromSeq`, the events the client has not seen come
// first, then every later append exactly once, in seq order, and the session's deltas.
import { TangentError } from '@tangent/core'
import type { HostContext } from '../host-context.js'
import type { CallContext, MethodHandlers } from '../rpc-router.js'

export function subscriptionMethods(
  context: HostContext,
): Pick<MethodHandlers, 'session.subscribe' | 'session.unsubscribe'> {
  const { runtime, hub } = context
  return {
    'session.subscribe': async (params, call) => {
      const connection = requireConnection(call)
      const { sessionId } = params
      await hub.subscribe(connection, sessionId, () =>
        runtime.subscribe(
          sessionId,
          { fromSeq: params.fromSeq },
          {
            onEvent: (event) => connection.notify('session.event', { sessionId, event }),
            onDelta: (delta) =>
              connection.notify('session.delta', { sessionId, kind: delta.kind, text: delta.text }),
          },
        ),
      )
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
