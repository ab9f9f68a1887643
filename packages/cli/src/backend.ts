// What the CLI's commands call: one implementation (api-backend.ts) over a SessionApi, the
// runtime in this process or a running Host over JSON-RPC (docs/protocol.md shapes).
import type {
  FileDiff,
  FileMode,
  HostInfoResult,
  SessionBoardResult,
  SessionCompactResult,
  SessionCompareResult,
  SessionDeleteResult,
  SessionEvent,
  SessionExploreParams,
  SessionExploreResult,
  SessionForkResult,
  SessionKeepResult,
  SessionPromptResult,
  SessionSummary,
  SessionUsage,
  SnapshotEntry,
  SnapshotRestoreResult,
} from '@tangent/protocol'

export type { FileDiff, FileMode, SessionEvent, SessionSummary, SessionUsage, SnapshotEntry }
export type TurnResult = SessionPromptResult
export type CompareResult = SessionCompareResult
export type RestoreResult = SnapshotRestoreResult
export type DeleteResult = SessionDeleteResult
export type ForkResult = SessionForkResult
export type HostInfo = HostInfoResult
export type CompactResult = SessionCompactResult
export type ModelStatus = HostInfoResult['models'][number]
export type ExploreRequest = SessionExploreParams
export type ExploreResult = SessionExploreResult
export type BoardResult = SessionBoardResult
export type KeepResult = SessionKeepResult

export interface TurnDelta {
  kind: 'text' | 'reasoning' | 'tool-input' | 'retry'
  text: string
}

/** Receives a running turn as it happens: every appended event in seq order, and live deltas. */
export interface TurnObserver {
  onEvent(event: SessionEvent): void
  onDelta(delta: TurnDelta): void
  /** Other sessions are running turns in the same directory (Host only): they share its files. */
  onSharedActivity?(activity: { cwd: string; sessionIds: string[] }): void
}

export interface ForkRequest {
  sessionId: string
  atSeq?: number | undefined
  before?: boolean | undefined
  title?: string | undefined
  files?: FileMode | undefined
  /** A session from another machine: this machine's folder of the project (worktree forks). */
  folder?: string | undefined
}

export interface Backend {
  /** `host` when commands go through a running Host, `local` when this process holds the store. */
  readonly kind: 'host' | 'local'
  /** With `kind` `host`: the Host's process id (its environment is the one models and tools get). */
  readonly hostPid?: number | undefined
  listSessions(options: { includeArchived: boolean }): Promise<SessionSummary[]>
  /**
   * The full id of the session a person named by its id or a unique prefix (docs/protocol.md
   * `session.resolve`): every command resolves its id arguments through this first.
   */
  resolveSession(idOrPrefix: string): Promise<string>
  /** The session, its events from `fromSeq` (default 0) and its usage. */
  getSession(
    sessionId: string,
    fromSeq?: number,
  ): Promise<{ session: SessionSummary; events: SessionEvent[]; usage?: SessionUsage | undefined }>
  createSession(options: {
    cwd: string
    title?: string | undefined
    model?: string | undefined
  }): Promise<SessionSummary>
  /** Runs one turn; resolves at `turn/end`. */
  prompt(sessionId: string, text: string, observer: TurnObserver): Promise<TurnResult>
  /** Answers a tool call waiting for approval (docs/protocol.md `session.answerPermission`). */
  answerPermission(
    sessionId: string,
    callId: string,
    answer: { decision: 'once' | 'always' | 'deny'; reason?: string; by?: 'user' | 'flag' | 'no-terminal' },
  ): Promise<void>
  /** Aborts the running turn of a session; false when none was running. */
  abort(sessionId: string): Promise<boolean>
  fork(request: ForkRequest): Promise<ForkResult>
  rename(sessionId: string, title: string): Promise<SessionSummary>
  setArchived(sessionId: string, archived: boolean): Promise<SessionSummary>
  /** `worktree`: what to do with a worktree the session owns (default: remove it when clean). */
  /** `keepTo`: with `keep`, the new folder a kept worktree is moved to (absolute). */
  delete(sessionId: string, worktree?: 'remove' | 'keep' | 'force', keepTo?: string): Promise<DeleteResult>
  setModel(sessionId: string, model: string, reasoningEffort?: string): Promise<SessionSummary>
  /** `host.info`: version, data dir, models and whether bash is sandboxed. */
  info(): Promise<HostInfo>
  compare(a: string, b: string): Promise<CompareResult>
  /** Forks N branches and starts their first turns; resolves once they started (docs/architecture.md §13). */
  explore(request: ExploreRequest): Promise<ExploreResult>
  /** The N-way compare board of branches (`session.board`). */
  board(sessionIds: string[]): Promise<BoardResult>
  /** Keeps a branch into its parent (`session.keep`); `files-conflict` writes nothing. */
  keep(sessionId: string, archiveOthers: boolean): Promise<KeepResult>
  /** Summarises the session's history now (docs/protocol.md `session.compact`). */
  compact(sessionId: string): Promise<CompactResult>
  snapshots(sessionId: string): Promise<SnapshotEntry[]>
  restore(sessionId: string, seq: number, force: boolean): Promise<RestoreResult>
  /** Undoes the restore at `seq` (default: the latest not undone yet that changed something). */
  undoRestore(sessionId: string, seq: number | undefined, force: boolean): Promise<RestoreResult>
  close(): Promise<void>
}
