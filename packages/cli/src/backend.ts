// What the CLI's commands call: one implementation (api-backend.ts) over a SessionApi, the
// runtime in this process or a running Host over JSON-RPC (docs/protocol.md shapes).
import type {
  AttachedMcpServer,
  ExportFormat,
  FileDiff,
  FileMode,
  HostInfoResult,
  PromptImage,
  SessionAttachMcpServersResult,
  SessionBoardResult,
  SessionCompactResult,
  SessionCompareResult,
  SessionDeleteResult,
  SessionEvent,
  SessionExploreParams,
  SessionExploreResult,
  SessionExportResult,
  SessionForkResult,
  SessionImportFromParams,
  SessionImportFromResult,
  SessionImportParams,
  SessionImportResult,
  SessionKeepResult,
  SessionModeId,
  SessionPromptResult,
  SessionSummary,
  SessionUsage,
  SnapshotEntry,
  SnapshotRestoreResult,
} from '@tangent/protocol'

export type { FileDiff, FileMode, PromptImage, SessionEvent, SessionSummary, SessionUsage, SnapshotEntry }
export type TurnResult = SessionPromptResult
export type CompareResult = SessionCompareResult
export type RestoreResult = SnapshotRestoreResult
export type DeleteResult = SessionDeleteResult
export type ForkResult = SessionForkResult
export type ImportResult = SessionImportResult
/** What `tangent import` sends: the file's text, and for another tool's session where it works here. */
export type ImportFile = SessionImportParams
/** `tangent import --from TOOL [--all]`: that tool's sessions of a folder (or all), read where the Host (or this process) runs. */
export type ImportFromParams = SessionImportFromParams
export type ImportFromResult = SessionImportFromResult
export type HostInfo = HostInfoResult
export type CompactResult = SessionCompactResult
export type ModelStatus = HostInfoResult['models'][number]
export type ExploreRequest = SessionExploreParams
export type ExploreResult = SessionExploreResult
export type BoardResult = SessionBoardResult
export type KeepResult = SessionKeepResult
export type { AttachedMcpServer }
export type AttachMcpServersResult = SessionAttachMcpServersResult

export interface TurnDelta {
  kind: 'text' | 'reasoning' | 'tool-input' | 'retry' | 'tool-start'
  text: string
  /** `tool-input` and `tool-start`: the tool call it belongs to. */
  toolCallId?: string | undefined
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
  /**
   * The session, its events from `fromSeq` (default 0) and its usage; with `usage: false` no
   * usage, and a session only on disk is read for those events alone (a long log's tail is cheap).
   */
  getSession(
    sessionId: string,
    fromSeq?: number,
    options?: { usage?: boolean },
  ): Promise<{ session: SessionSummary; events: SessionEvent[]; usage?: SessionUsage | undefined }>
  createSession(options: {
    cwd: string
    title?: string | undefined
    model?: string | undefined
  }): Promise<SessionSummary>
  /**
   * Runs one turn; resolves at `turn/end`. `images` go with the text (docs/protocol.md
   * `session.prompt`), which may then be empty.
   */
  prompt(
    sessionId: string,
    text: string,
    observer: TurnObserver,
    options?: { images?: readonly PromptImage[] | undefined },
  ): Promise<TurnResult>
  /** Answers a tool call waiting for approval (docs/protocol.md `session.answerPermission`). */
  answerPermission(
    sessionId: string,
    callId: string,
    answer: { decision: 'once' | 'always' | 'deny'; reason?: string; by?: 'user' | 'flag' | 'no-terminal' },
  ): Promise<void>
  /**
   * The caller's MCP servers (an editor's) join the session's tools until this Backend closes
   * (docs/protocol.md `session.attachMcpServers`); a second call for the session replaces the set,
   * `[]` detaches. Never written anywhere: their env and headers may hold secrets.
   */
  attachMcpServers(sessionId: string, servers: AttachedMcpServer[]): Promise<AttachMcpServersResult>
  /**
   * Follows a session (`session.subscribe`): its events from `fromSeq`, then every later one, no
   * gap, no duplicate, and its live deltas — whoever runs its turns (this process, the web UI,
   * another terminal). Resolves to the unsubscribe.
   */
  watch(sessionId: string, fromSeq: number, observer: TurnObserver): Promise<() => Promise<void>>
  /** Sessions created, forked, updated or deleted by anyone (the Host's `session.created`…). */
  onSessionsChanged(listener: () => void): () => void
  /** Aborts the running turn of a session; false when none was running. */
  abort(sessionId: string): Promise<boolean>
  fork(request: ForkRequest): Promise<ForkResult>
  rename(sessionId: string, title: string): Promise<SessionSummary>
  setArchived(sessionId: string, archived: boolean): Promise<SessionSummary>
  /** `worktree`: what to do with a worktree the session owns (default: remove it when clean). */
  /** `keepTo`: with `keep`, the new folder a kept worktree is moved to (absolute). */
  delete(sessionId: string, worktree?: 'remove' | 'keep' | 'force', keepTo?: string): Promise<DeleteResult>
  setModel(sessionId: string, model: string, reasoningEffort?: string): Promise<SessionSummary>
  /** `session.setMode`: allowed while a turn runs (its next tool call reads the mode). */
  setMode(sessionId: string, mode: SessionModeId): Promise<SessionSummary>
  /**
   * The session as a bundle, Markdown, HTML or another agent's session file, a page of whole lines
   * at a time (`session.export`); `tree` (html): every session of its tree.
   */
  exportSession(
    sessionId: string,
    format: ExportFormat,
    options?: { tree?: boolean },
  ): AsyncIterable<ExportPage>
  /**
   * Imports a Tangent bundle or another tool's session file (`session.import`, detected from its
   * first line); over a Host, a file larger than one message is uploaded in pieces.
   */
  importFile(file: ImportFile): Promise<ImportResult>
  /** `session.importFrom`: a tool's session files of a folder (or all), each imported; per-file problems. */
  importFrom(params: ImportFromParams): Promise<ImportFromResult>
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
  /**
   * Attaches a file source to the session (docs/architecture.md §6.1): while attached, the `read`
   * tool of its turns takes a file's text from `read` (an editor's unsaved buffer), or the disk's
   * when it answers null, fails or is silent past a few seconds. Only paths inside the session's
   * folder that the permission rules let `read` open are asked. Resolves to the detach.
   */
  attachFileSource(
    sessionId: string,
    read: (absolutePath: string) => Promise<string | null>,
  ): Promise<() => Promise<void>>
  close(): Promise<void>
}

/** One page of `session.export`: its text, and (`claude` / `codex` / `pi`) where the file belongs. */
export interface ExportPage {
  content: string
  file?: SessionExportResult['file']
}
