// session.attachFileSource / session.detachFileSource / session.answerReadFile: a connection
// answers the file reads of a session (an editor's unsaved buffers, docs/architecture.md §6.1).
// The Host asks it with a `session.readFile` notification and waits for its answer; the runtime
// bounds the wait. The sources and open requests of a connection end with it.
import { randomUUID } from 'node:crypto'
import type { FileReader } from '@tangent/runtime'
import type { Connection } from '../connections.js'
import type { HostContext } from '../host-context.js'
import { encodeNotification } from '../outgoing.js'
import type { MethodHandlers } from '../rpc-router.js'
import { requireConnection } from './subscriptions.js'

interface PendingRead {
  readonly connection: Connection
  resolve(text: string | null): void
  reject(error: Error): void
}

export function fileSourceMethods(
  context: HostContext,
): Pick<MethodHandlers, 'session.attachFileSource' | 'session.detachFileSource' | 'session.answerReadFile'> {
  const { runtime, hub } = context
  /** Per connection: session id → the detach of its source. */
  const attached = new Map<Connection, Map<string, () => void>>()
  /** Reads sent and not answered yet, by request id. */
  const pending = new Map<string, PendingRead>()

  /** Asks `connection` for a file of `sessionId` (a FileReader for the runtime). */
  const readerOf =
    (connection: Connection, sessionId: string): FileReader =>
    (absolutePath, signal) =>
      new Promise<string | null>((resolve, reject) => {
        const requestId = randomUUID()
        const settled = () => {
          pending.delete(requestId)
          signal.removeEventListener('abort', onAbort)
        }
        const onAbort = () => {
          settled()
          reject(new Error('the read is no longer awaited'))
        }
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
        pending.set(requestId, {
          connection,
          resolve: (text) => {
            settled()
            resolve(text)
          },
          reject: (error) => {
            settled()
            reject(error)
          },
        })
        connection.send(encodeNotification('session.readFile', { requestId, sessionId, path: absolutePath }))
      })

  /** A closed connection: its sources detach and its open reads fall back to the disk at once. */
  const forget = (connection: Connection) => {
    for (const detach of attached.get(connection)?.values() ?? []) detach()
    attached.delete(connection)
    for (const request of [...pending.values()]) {
      if (request.connection === connection) request.reject(new Error('the client disconnected'))
    }
  }

  return {
    'session.attachFileSource': async ({ sessionId }, call) => {
      const connection = requireConnection(call)
      const detach = await runtime.attachFileSource(sessionId, readerOf(connection, sessionId))
      if (!hub.has(connection)) {
        // Closed while the session was looked up: nothing is left to answer.
        detach()
        return {}
      }
      let sessions = attached.get(connection)
      if (!sessions) {
        sessions = new Map()
        attached.set(connection, sessions)
        hub.onRemove(connection, () => forget(connection))
      }
      // Attaching again replaces this connection's earlier source of the session.
      sessions.get(sessionId)?.()
      sessions.set(sessionId, detach)
      return {}
    },

    'session.detachFileSource': async ({ sessionId }, call) => {
      const connection = requireConnection(call)
      const sessions = attached.get(connection)
      sessions?.get(sessionId)?.()
      sessions?.delete(sessionId)
      return {}
    },

    'session.answerReadFile': async ({ requestId, text, error }, call) => {
      const connection = requireConnection(call)
      const request = pending.get(requestId)
      // Only the connection asked may answer: another client cannot put text into this read.
      if (!request || request.connection !== connection) return { answered: false }
      if (text === null && error !== undefined) request.reject(new Error(error))
      else request.resolve(text)
      return { answered: true }
    },
  }
}
