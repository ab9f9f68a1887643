// The SessionApi of a running Host over JSON-RPC (docs/protocol.md): what the CLI uses when
// a Host serves the data dir, and the contract suite's second front-end. Host errors become
// TangentErrors with the Host's `data.code`, so callers see the same errors as in-process.
import { TangentError } from '@tangent/core'
import {
  fitsOneImportMessage,
  importChunks,
  maxMessageBytes,
  type RpcClient,
  RpcError,
  type SessionImportParams,
  type SessionImportResult,
} from '@tangent/protocol'
import type { FileReader, SessionApi, SessionListener } from '@tangent/runtime'
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
  /** Per session: the file source this client attached (docs/protocol.md `session.attachFileSource`). */
  const fileSources = new Map<string, FileReader>()
  rpc.onNotification('session.readFile', ({ requestId, sessionId, path }) => {
    void answerRead(rpc, requestId, fileSources.get(sessionId), path)
  })
  rpc.onNotification('session.delta', ({ sessionId, kind, text, toolCallId }) => {
    const delta = { kind, text, ...(toolCallId !== undefined ? { toolCallId } : {}) }
    for (const listener of subscribed.get(sessionId)?.keys() ?? []) listener.onDelta?.(delta)
  })

  return {
    kind: 'host',
    call(method, params) {
      // A file's text larger than one message goes up in pieces (session.importBegin/importChunk).
      if (method === 'session.import')
        return translate(importOverHost(rpc, params as SessionImportParams)) as Promise<never>
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
    async attachFileSource(sessionId, read) {
      fileSources.set(sessionId, read)
      try {
        await translate(rpc.call('session.attachFileSource', { sessionId }))
      } catch (error) {
        if (fileSources.get(sessionId) === read) fileSources.delete(sessionId)
        throw error
      }
      return async () => {
        if (fileSources.get(sessionId) !== read) return
        fileSources.delete(sessionId)
        if (!rpc.closed) await rpc.call('session.detachFileSource', { sessionId }).catch(ignoreClosed)
      }
    },
    onSharedActivity: (listener) => rpc.onNotification('files.sharedActivity', listener),
    onSessionsChanged(listener) {
      const offs = [
        rpc.onNotification('session.created', ({ session }) => listener({ kind: 'created', session })),
        rpc.onNotification('session.updated', ({ session }) => listener({ kind: 'updated', session })),
        rpc.onNotification('session.deleted', ({ sessionId }) => listener({ kind: 'deleted', sessionId })),
      ]
      return () => {
        for (const off of offs) off()
      }
    },
    async close() {
      rpc.close()
    },
  }
}

/**
 * `session.import` over a Host: `content` within one message goes as it is; a larger one is
 * uploaded in order (docs/protocol.md, `session.importBegin`) and imported by its upload id.
 */
async function importOverHost(rpc: RpcClient, params: SessionImportParams): Promise<SessionImportResult> {
  const { content, ...rest } = params
  const others = Buffer.byteLength(JSON.stringify(rest))
  if (others > maxMessageBytes - 4 * 1024)
    throw new TangentError(
      'payload-too-large',
      `The import's other params (subagent files) take ${others} bytes: more than a running Host takes in one message (${maxMessageBytes}).`,
      { limit: maxMessageBytes },
    )
  if (content === undefined || fitsOneImportMessage(content, others + 4 * 1024))
    return rpc.call('session.import', params)
  const { uploadId } = await rpc.call('session.importBegin', {
    size: content.length,
    ...(params.fileName !== undefined ? { fileName: params.fileName } : {}),
  })
  let index = 0
  for (const data of importChunks(content))
    await rpc.call('session.importChunk', { uploadId, index: index++, data })
  return rpc.call('session.import', { ...rest, uploadId })
}

/** Room left in one message for the answer's envelope (JSON-RPC fields, request id). */
const answerOverheadBytes = 1024

/**
 * Answers one `session.readFile` with what `read` gives: a failure, or a text too large for one
 * message, is answered as an error (the Host reads the disk and says why).
 */
async function answerRead(
  rpc: RpcClient,
  requestId: string,
  read: FileReader | undefined,
  path: string,
): Promise<void> {
  let answer: { text: string | null; error?: string }
  try {
    // The Host bounds the wait itself; this side has nothing to abort.
    const text = read ? await read(path, new AbortController().signal) : null
    answer =
      text !== null && Buffer.byteLength(JSON.stringify(text)) > maxMessageBytes - answerOverheadBytes
        ? { text: null, error: `the text is too large for one message (${maxMessageBytes} bytes)` }
        : { text }
  } catch (error) {
    answer = { text: null, error: (error instanceof Error ? error.message : String(error)).slice(0, 1000) }
  }
  // A read the Host stopped waiting for answers `answered: false`; a closed connection has nobody to tell.
  await rpc.call('session.answerReadFile', { requestId, ...answer }).catch(ignoreClosed)
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
