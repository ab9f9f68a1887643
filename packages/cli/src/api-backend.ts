// The one Backend of the CLI: every command's calls over a SessionApi — the runtime in this
// process, or a running Host over JSON-RPC. Both return docs/protocol.md shapes, so every
// command's output code is shared and neither path can drift from the other.
import { TangentError } from '@tangent/core'
import type { ExportFormat, SessionModeId } from '@tangent/protocol'
import type { SessionApi } from '@tangent/runtime'
import type {
  AttachedMcpServer,
  AttachMcpServersResult,
  Backend,
  BoardResult,
  CompactResult,
  CompareResult,
  DeleteResult,
  ExploreRequest,
  ExploreResult,
  ExportPage,
  ForkRequest,
  ForkResult,
  HostInfo,
  ImportFile,
  ImportFromParams,
  ImportFromResult,
  ImportResult,
  KeepResult,
  PromptImage,
  RestoreResult,
  SessionEvent,
  SessionSummary,
  SessionUsage,
  SnapshotEntry,
  TurnObserver,
  TurnResult,
} from './backend.js'

export class ApiBackend implements Backend {
  readonly #api: SessionApi
  readonly #onClose: () => Promise<void>
  readonly #hostPid: () => number | undefined

  /** `hostPid`: the Host's pid, or how to read it when it can change (failover-api.ts). */
  constructor(
    api: SessionApi,
    onClose: () => Promise<void> = () => api.close(),
    hostPid?: number | (() => number | undefined),
  ) {
    this.#api = api
    this.#onClose = onClose
    this.#hostPid = typeof hostPid === 'function' ? hostPid : () => hostPid
  }

  get hostPid(): number | undefined {
    return this.#hostPid()
  }

  get kind(): 'host' | 'local' {
    return this.#api.kind
  }

  attachFileSource(
    sessionId: string,
    read: (absolutePath: string, signal?: AbortSignal) => Promise<string | null>,
  ): Promise<() => Promise<void>> {
    return this.#api.attachFileSource(sessionId, read)
  }

  async *exportSession(
    sessionId: string,
    format: ExportFormat,
    options: { tree?: boolean } = {},
  ): AsyncIterable<ExportPage> {
    let cursor: string | undefined
    do {
      const page = await this.#api.call('session.export', {
        sessionId,
        format,
        ...(options.tree ? { tree: true } : {}),
        ...(cursor !== undefined ? { cursor } : {}),
      })
      yield { content: page.content, ...(page.file ? { file: page.file } : {}) }
      cursor = page.nextCursor
    } while (cursor !== undefined)
  }

  importFile(file: ImportFile): Promise<ImportResult> {
    // Over a Host a file larger than one message is uploaded in pieces (host-api.ts).
    return this.#api.call('session.import', file)
  }

  importFrom(params: ImportFromParams): Promise<ImportFromResult> {
    return this.#api.call('session.importFrom', params)
  }

  listSessions(options: { includeArchived: boolean }): Promise<SessionSummary[]> {
    return this.#api.call('session.list', { includeArchived: options.includeArchived })
  }

  async resolveSession(idOrPrefix: string): Promise<string> {
    try {
      return (await this.#api.call('session.resolve', { id: idOrPrefix })).sessionId
    } catch (error) {
      // A Host from before session.resolve (an extension): it takes whole ids only.
      if (TangentError.hasCode(error, 'method-not-found')) return idOrPrefix
      throw error
    }
  }

  getSession(
    sessionId: string,
    fromSeq?: number,
    options: { usage?: boolean } = {},
  ): Promise<{ session: SessionSummary; events: SessionEvent[]; usage?: SessionUsage | undefined }> {
    return this.#api.call('session.get', {
      sessionId,
      ...(fromSeq !== undefined ? { fromSeq } : {}),
      ...(options.usage === false ? { usage: false } : {}),
    })
  }

  createSession(options: { cwd: string; title?: string | undefined; model?: string | undefined }) {
    return this.#api.call('session.create', {
      cwd: options.cwd,
      ...(options.title ? { title: options.title } : {}),
      ...(options.model ? { model: options.model } : {}),
    })
  }

  async prompt(
    sessionId: string,
    text: string,
    observer: TurnObserver,
    options: { images?: readonly PromptImage[] | undefined } = {},
  ): Promise<TurnResult> {
    let nextSeq = 0
    const unsubscribe = await this.#api.subscribe(
      sessionId,
      {},
      {
        onEvent: (event) => {
          nextSeq = event.seq + 1
          observer.onEvent(event)
        },
        onDelta: (delta) => observer.onDelta(delta),
      },
    )
    const offShared = this.#api.onSharedActivity((activity) => {
      if (activity.sessionIds.includes(sessionId)) observer.onSharedActivity?.(activity)
    })
    try {
      const images = options.images ?? []
      const result = await this.#api.call('session.prompt', {
        sessionId,
        text,
        ...(images.length > 0 ? { images: [...images] } : {}),
      })
      // Over a socket, notifications may trail the answer: fetch what the observer has not seen.
      if (nextSeq <= result.turnEndSeq) {
        const rest = await this.#api.call('session.get', { sessionId, fromSeq: nextSeq })
        for (const event of rest.events) {
          if (event.seq < nextSeq || event.seq > result.turnEndSeq) continue
          nextSeq = event.seq + 1
          observer.onEvent(event)
        }
      }
      return result
    } finally {
      offShared()
      await unsubscribe()
    }
  }

  async answerPermission(
    sessionId: string,
    callId: string,
    answer: { decision: 'once' | 'always' | 'deny'; reason?: string; by?: 'user' | 'flag' | 'no-terminal' },
  ): Promise<void> {
    await this.#api.call('session.answerPermission', { sessionId, callId, ...answer })
  }

  attachMcpServers(sessionId: string, servers: AttachedMcpServer[]): Promise<AttachMcpServersResult> {
    return this.#api.call('session.attachMcpServers', { sessionId, servers })
  }

  watch(sessionId: string, fromSeq: number, observer: TurnObserver): Promise<() => Promise<void>> {
    return this.#api.subscribe(
      sessionId,
      { fromSeq },
      { onEvent: (event) => observer.onEvent(event), onDelta: (delta) => observer.onDelta(delta) },
    )
  }

  onSessionsChanged(listener: () => void): () => void {
    return this.#api.onSessionsChanged(() => listener())
  }

  async abort(sessionId: string): Promise<boolean> {
    return (await this.#api.call('session.abort', { sessionId })).aborted
  }

  fork(request: ForkRequest): Promise<ForkResult> {
    return this.#api.call('session.fork', {
      sessionId: request.sessionId,
      ...(request.atSeq !== undefined ? { atSeq: request.atSeq } : {}),
      ...(request.before ? { before: true } : {}),
      ...(request.title ? { title: request.title } : {}),
      ...(request.files ? { files: request.files } : {}),
      ...(request.folder !== undefined ? { folder: request.folder } : {}),
    })
  }

  rename(sessionId: string, title: string): Promise<SessionSummary> {
    return this.#api.call('session.rename', { sessionId, title })
  }

  setArchived(sessionId: string, archived: boolean): Promise<SessionSummary> {
    return this.#api.call('session.archive', { sessionId, archived })
  }

  delete(sessionId: string, worktree?: 'remove' | 'keep' | 'force', keepTo?: string): Promise<DeleteResult> {
    return this.#api.call('session.delete', {
      sessionId,
      ...(worktree ? { worktree } : {}),
      ...(keepTo !== undefined ? { keepTo } : {}),
    })
  }

  setModel(sessionId: string, model: string, reasoningEffort?: string): Promise<SessionSummary> {
    return this.#api.call('session.setModel', {
      sessionId,
      model,
      ...(reasoningEffort ? { reasoningEffort } : {}),
    })
  }

  setMode(sessionId: string, mode: SessionModeId): Promise<SessionSummary> {
    return this.#api.call('session.setMode', { sessionId, mode })
  }

  info(): Promise<HostInfo> {
    return this.#api.call('host.info', {})
  }

  compare(a: string, b: string): Promise<CompareResult> {
    return this.#api.call('session.compare', { a, b })
  }

  explore(request: ExploreRequest): Promise<ExploreResult> {
    return this.#api.call('session.explore', request)
  }

  board(sessionIds: string[]): Promise<BoardResult> {
    return this.#api.call('session.board', { sessionIds })
  }

  keep(sessionId: string, archiveOthers: boolean): Promise<KeepResult> {
    return this.#api.call('session.keep', { sessionId, archiveOthers })
  }

  compact(sessionId: string): Promise<CompactResult> {
    return this.#api.call('session.compact', { sessionId })
  }

  snapshots(sessionId: string): Promise<SnapshotEntry[]> {
    return this.#api.call('snapshot.list', { sessionId })
  }

  restore(sessionId: string, seq: number, force: boolean): Promise<RestoreResult> {
    return this.#api.call('snapshot.restore', { sessionId, seq, force })
  }

  undoRestore(sessionId: string, seq: number | undefined, force: boolean): Promise<RestoreResult> {
    return this.#api.call('snapshot.undoRestore', { sessionId, ...(seq !== undefined ? { seq } : {}), force })
  }

  close(): Promise<void> {
    return this.#onClose()
  }
}
