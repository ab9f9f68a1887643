// The Backend while a Host runs on the data dir: every command is a JSON-RPC call over
// its WebSocket, so a second terminal works beside `tangent serve` instead of hitting the lock.
import { TangentError } from '@tangent/core'
import { connectHost } from '@tangent/host'
import { type RpcClient, RpcError } from '@tangent/protocol'
import type {
  Backend,
  CompareResult,
  DeleteResult,
  ForkRequest,
  ForkResult,
  ModelStatus,
  RestoreResult,
  SessionEvent,
  SessionSummary,
  SnapshotEntry,
  TurnObserver,
  TurnResult,
} from './backend.js'

export interface HostAddress {
  url: string
  token: string
}

export async function connectHostBackend(address: HostAddress): Promise<HostBackend> {
  return new HostBackend(await connectHost(address))
}

export class HostBackend implements Backend {
  readonly kind = 'host' as const
  readonly #rpc: RpcClient

  constructor(rpc: RpcClient) {
    this.#rpc = rpc
  }

  listSessions(options: { includeArchived: boolean }): Promise<SessionSummary[]> {
    return translate(this.#rpc.call('session.list', { includeArchived: options.includeArchived }))
  }

  getSession(sessionId: string): Promise<{ session: SessionSummary; events: SessionEvent[] }> {
    return translate(this.#rpc.call('session.get', { sessionId }))
  }

  createSession(options: { cwd: string; title?: string | undefined; model?: string | undefined }) {
    return translate(
      this.#rpc.call('session.create', {
        cwd: options.cwd,
        ...(options.title ? { title: options.title } : {}),
        ...(options.model ? { model: options.model } : {}),
      }),
    )
  }

  async prompt(sessionId: string, text: string, observer: TurnObserver): Promise<TurnResult> {
    const { events } = await this.getSession(sessionId)
    let nextSeq = events.length
    const offEvent = this.#rpc.onNotification('session.event', (params) => {
      // In seq order without gaps; skip anything already seen.
      if (params.sessionId !== sessionId || params.event.seq < nextSeq) return
      nextSeq = params.event.seq + 1
      observer.onEvent(params.event)
    })
    const offDelta = this.#rpc.onNotification('session.delta', (params) => {
      if (params.sessionId === sessionId) observer.onDelta({ kind: params.kind, text: params.text })
    })
    const offShared = this.#rpc.onNotification('files.sharedActivity', (params) => {
      if (params.sessionIds.includes(sessionId)) observer.onSharedActivity?.(params)
    })
    try {
      await translate(this.#rpc.call('session.subscribe', { sessionId, fromSeq: nextSeq }))
      const result = await translate(this.#rpc.call('session.prompt', { sessionId, text }))
      // Notifications may trail the response: fetch whatever the observer has not seen yet.
      if (nextSeq <= result.turnEndSeq) {
        const rest = await translate(this.#rpc.call('session.get', { sessionId, fromSeq: nextSeq }))
        for (const event of rest.events) {
          if (event.seq < nextSeq) continue
          nextSeq = event.seq + 1
          observer.onEvent(event)
        }
      }
      return result
    } finally {
      offEvent()
      offDelta()
      offShared()
      if (!this.#rpc.closed) await this.#rpc.call('session.unsubscribe', { sessionId }).catch(ignoreClosed)
    }
  }

  async abort(sessionId: string): Promise<boolean> {
    const result = await translate(this.#rpc.call('session.abort', { sessionId }))
    return result.aborted
  }

  fork(request: ForkRequest): Promise<ForkResult> {
    return translate(
      this.#rpc.call('session.fork', {
        sessionId: request.sessionId,
        ...(request.atSeq !== undefined ? { atSeq: request.atSeq } : {}),
        ...(request.before ? { before: true } : {}),
        ...(request.title ? { title: request.title } : {}),
        ...(request.files ? { files: request.files } : {}),
      }),
    )
  }

  rename(sessionId: string, title: string): Promise<SessionSummary> {
    return translate(this.#rpc.call('session.rename', { sessionId, title }))
  }

  setArchived(sessionId: string, archived: boolean): Promise<SessionSummary> {
    return translate(this.#rpc.call('session.archive', { sessionId, archived }))
  }

  delete(sessionId: string): Promise<DeleteResult> {
    return translate(this.#rpc.call('session.delete', { sessionId }))
  }

  setModel(sessionId: string, model: string, reasoningEffort?: string): Promise<SessionSummary> {
    return translate(
      this.#rpc.call('session.setModel', {
        sessionId,
        model,
        ...(reasoningEffort ? { reasoningEffort } : {}),
      }),
    )
  }

  async models(): Promise<ModelStatus[]> {
    const info = await translate(this.#rpc.call('host.info', {}))
    return info.models
  }

  compare(a: string, b: string): Promise<CompareResult> {
    return translate(this.#rpc.call('session.compare', { a, b }))
  }

  snapshots(sessionId: string): Promise<SnapshotEntry[]> {
    return translate(this.#rpc.call('snapshot.list', { sessionId }))
  }

  restore(sessionId: string, seq: number, force: boolean): Promise<RestoreResult> {
    return translate(this.#rpc.call('snapshot.restore', { sessionId, seq, force }))
  }

  async close(): Promise<void> {
    this.#rpc.close()
  }
}

/** Host errors become TangentErrors with the Host's `data.code`, so they print like local ones. */
async function translate<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (error) {
    if (error instanceof RpcError) {
      const { code, ...data } = error.data
      throw new TangentError(code, error.message, data, { cause: error })
    }
    throw error
  }
}

/** Unsubscribing from a Host that already went away has nothing left to undo. */
function ignoreClosed(error: unknown): void {
  if (error instanceof RpcError && error.data.code === 'connection-closed') return
  throw error
}
