// Typed calls to the Host over one WebSocket (PROTOCOL.md "Methods"). The store talks to
// the Host only through this class, so the wire format lives in one place.
import type { FileDiff, HostInfo, SessionEvent, SessionSummary, SnapshotEntry, Workspace } from './wire.js'

/** What the UI needs of a JSON-RPC connection; `createRpcClient` of `@tangent/protocol` fits it. */
export interface RpcConnection {
  call(method: string, params: unknown): Promise<unknown>
  onNotification(method: string, listener: (params: unknown) => void): () => void
  close(): void
}

export interface ForkRequest {
  sessionId: string
  atSeq?: number
  before?: boolean
  files?: 'shared' | 'worktree'
  title?: string
  requestId?: string
}

export interface CompareResult {
  ancestor: string | null
  forkSeq: number | null
  a: { events: SessionEvent[] }
  b: { events: SessionEvent[] }
  files: FileDiff[]
}

export interface PromptResult {
  turnStartSeq: number
  turnEndSeq: number
  reason: string
}

export class HostClient {
  readonly #rpc: RpcConnection

  constructor(rpc: RpcConnection) {
    this.#rpc = rpc
  }

  on(method: string, listener: (params: unknown) => void): () => void {
    return this.#rpc.onNotification(method, listener)
  }

  close(): void {
    this.#rpc.close()
  }

  info(): Promise<HostInfo> {
    return this.#call('host.info', {})
  }
  listWorkspaces(): Promise<Workspace[]> {
    return this.#call('workspace.list', {})
  }
  openWorkspace(path: string): Promise<Workspace> {
    return this.#call('workspace.open', { path })
  }
  listSessions(includeArchived: boolean): Promise<SessionSummary[]> {
    return this.#call('session.list', { includeArchived })
  }
  createSession(params: { workspaceId?: string; title?: string; model?: string }): Promise<SessionSummary> {
    return this.#call('session.create', params)
  }
  getSession(sessionId: string, fromSeq = 0): Promise<{ session: SessionSummary; events: SessionEvent[] }> {
    return this.#call('session.get', { sessionId, fromSeq })
  }
  subscribe(sessionId: string): Promise<unknown> {
    return this.#call('session.subscribe', { sessionId })
  }
  unsubscribe(sessionId: string): Promise<unknown> {
    return this.#call('session.unsubscribe', { sessionId })
  }
  prompt(sessionId: string, text: string): Promise<PromptResult> {
    return this.#call('session.prompt', { sessionId, text })
  }
  abort(sessionId: string): Promise<{ aborted: boolean }> {
    return this.#call('session.abort', { sessionId })
  }
  fork(request: ForkRequest): Promise<{ session: SessionSummary; boundary: number }> {
    return this.#call('session.fork', request)
  }
  rename(sessionId: string, title: string): Promise<SessionSummary> {
    return this.#call('session.rename', { sessionId, title })
  }
  archive(sessionId: string, archived: boolean): Promise<SessionSummary> {
    return this.#call('session.archive', { sessionId, archived })
  }
  delete(sessionId: string): Promise<{ deleted: true; materialized: string[] }> {
    return this.#call('session.delete', { sessionId })
  }
  setModel(sessionId: string, model: string): Promise<SessionSummary> {
    return this.#call('session.setModel', { sessionId, model })
  }
  compare(a: string, b: string): Promise<CompareResult> {
    return this.#call('session.compare', { a, b })
  }
  snapshots(sessionId: string): Promise<SnapshotEntry[]> {
    return this.#call('snapshot.list', { sessionId })
  }
  restore(sessionId: string, seq: number, force: boolean): Promise<{ restored: string[]; undoTree: string }> {
    return this.#call('snapshot.restore', { sessionId, seq, force })
  }

  // The Host validates every result against the protocol schemas before sending it.
  #call<T>(method: string, params: unknown): Promise<T> {
    return this.#rpc.call(method, params) as Promise<T>
  }
}
