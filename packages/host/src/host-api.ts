// The SessionApi of a running Host over JSON-RPC (docs/protocol.md): what the CLI uses when
// a Host serves the data dir, and the contract suite's second front-end. Host errors become
// TangentErrors with the Host's `data.code`, so callers see the same errors as in-process.
import { TangentError } from '@tangent/core'
import { type RpcClient, RpcError } from '@tangent/protocol'
import type { SessionApi, SessionListener } from '@tangent/runtime'
import { connectHost } from './connect-host.js'

export async function connectHostApi(address: { url: string; token: string }): Promise<SessionApi> {
  return hostApi(await connectHost(address))
}

/** A SessionApi over an open RPC client; `close` closes the client. */
export function hostApi(rpc: RpcClient): SessionApi {
  /** Per session: the listeners of this client and the next seq each has not seen yet. */
  const subscribed = new Map<string, Map<SessionListener, { nextSeq: number }>>()

  rpc.onNotification('session.event', ({ sessionId, event }) => {
    for (const [listener, state] of subscribed.get(sessionId) ?? []) {
      if (event.seq < state.nextSeq) continue
      state.nextSeq = event.seq + 1
      listener.onEvent(event)
    }
  })
  rpc.onNotification('session.delta', ({ sessionId, kind, text }) => {
    for (const listener of subscribed.get(sessionId)?.keys() ?? []) listener.onDelta?.({ kind, text })
  })

  return {
    kind: 'host',
    call(method, params) {
      return translate(rpc.call(method, ...([params] as never as [never])))
    },
    async subscribe(sessionId, options, listener) {
      let listeners = subscribed.get(sessionId)
      const first = listeners === undefined
      if (!listeners) {
        listeners = new Map()
        subscribed.set(sessionId, listeners)
      }
      const state = { nextSeq: options.fromSeq ?? Number.POSITIVE_INFINITY }
      if (options.fromSeq === undefined) {
        // Only later events: learn where the log ends now (a later one may already be on its way).
        const { events } = await translate(rpc.call('session.get', { sessionId, fromSeq: 0 }))
        state.nextSeq = events.length
      }
      listeners.set(listener, state)
      try {
        if (first) {
          await translate(rpc.call('session.subscribe', { sessionId, fromSeq: state.nextSeq }))
        } else {
          // Already subscribed on this connection: fetch what this listener has not seen.
          const rest = await translate(rpc.call('session.get', { sessionId, fromSeq: state.nextSeq }))
          for (const event of rest.events) {
            if (event.seq < state.nextSeq) continue
            state.nextSeq = event.seq + 1
            listener.onEvent(event)
          }
        }
      } catch (error) {
        listeners.delete(listener)
        if (listeners.size === 0) subscribed.delete(sessionId)
        throw error
      }
      return async () => {
        const current = subscribed.get(sessionId)
        current?.delete(listener)
        if (current?.size === 0) {
          subscribed.delete(sessionId)
          if (!rpc.closed) await rpc.call('session.unsubscribe', { sessionId }).catch(ignoreClosed)
        }
      }
    },
    onSharedActivity: (listener) => rpc.onNotification('files.sharedActivity', listener),
    async close() {
      rpc.close()
    },
  }
}

async function translate<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (error) {
    if (error instanceof RpcError) {
      const { code, ...data } = error.data
      throw new TangentError(code as never, error.message, data, { cause: error })
    }
    throw error
  }
}

/** Unsubscribing from a Host that already went away has nothing left to undo. */
function ignoreClosed(error: unknown): void {
  if (error instanceof RpcError && error.data.code === 'connection-closed') return
  throw error
}
