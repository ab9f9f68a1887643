// The UI's single source of state: what the Host said (workspaces, sessions, the open
// session's log) plus view state (expanded rows, dialogs, errors). Components read it
// through `useHost` and change it only through the actions below.
//
// One store per concern, each owning its slice of the one `HostState` (docs/architecture.md §8):
// this class composes them, wires the Host's notifications to them, and keeps the API the
// components use.
import { ApprovalsStore } from './approvals-store.js'
import { BoardStore, type KeepOutcome } from './board-store.js'
import { CompareStore } from './compare-store.js'
import { ComposerStore } from './composer-store.js'
import { ConnectionStore, type HostSnapshot } from './connection-store.js'
import { ForkStore } from './fork-store.js'
import type { DialogState, HostState, Notice } from './host-state.js'
import {
  type ExportedFile,
  ImportExportStore,
  type ImportOutcome,
  type ImportTool,
} from './import-export-store.js'
import { NoticesStore } from './notices-store.js'
import { OpenSessionMemory } from './open-session-memory.js'
import { OpenSessionStore } from './open-session-store.js'
import { RestoreStore } from './restore-store.js'
import { SessionsStore } from './sessions-store.js'
import type { StoreDeps } from './store-deps.js'
import { nextFrame, StoreState } from './store-state.js'
import { TranscriptPages } from './transcript-pages.js'
import { ViewStore } from './view-store.js'
import type {
  BrowseResult,
  ExploreRequest,
  ExportFormat,
  FileAcrossResult,
  ForkRequest,
  RpcClient,
  SessionModeId,
  SessionSummary,
  Workspace,
} from './wire.js'
import { WorkspacesStore } from './workspaces-store.js'

export type { KeepOutcome } from './board-store.js'
export { transcriptPageSize } from './open-session-store.js'
export { nextFrame } from './store-state.js'
export { pickActiveWorkspace } from './workspaces-store.js'

export class HostStore {
  readonly #state: StoreState
  readonly #notices: NoticesStore
  readonly #connection: ConnectionStore
  readonly #view: ViewStore
  readonly #workspaces: WorkspacesStore
  readonly #sessions: SessionsStore
  readonly #open: OpenSessionStore
  readonly #pages: TranscriptPages
  readonly #composer: ComposerStore
  readonly #fork: ForkStore
  readonly #approvals: ApprovalsStore
  readonly #restore: RestoreStore
  readonly #compare: CompareStore
  readonly #board: BoardStore
  readonly #importExport: ImportExportStore

  constructor(
    connect: () => RpcClient,
    initialSessionId: string | null = null,
    /** The session open last in each workspace, reopened on coming back to it (docs/architecture.md §12.6). */
    memory: OpenSessionMemory = new OpenSessionMemory(null),
    schedule: (flush: () => void) => void = nextFrame,
    /** Asks the Host over HTTP whether it takes this page's token, when the socket will not stay open. */
    checkToken?: () => Promise<'accepted' | 'refused' | 'unreachable'>,
  ) {
    const state = new StoreState(initialSessionId, schedule)
    const notices = new NoticesStore(state)
    const connection = new ConnectionStore({
      state,
      notices,
      connect,
      checkToken,
      listen: (client) => this.#listen(client),
      opened: (snapshot) => this.#opened(snapshot),
    })
    const deps: StoreDeps = { state, notices, client: () => connection.client() }
    const openSession = (sessionId: string) => this.openSession(sessionId)
    const view = new ViewStore(state)
    const workspaces = new WorkspacesStore({ ...deps, view, memory, openSession })
    const sessions = new SessionsStore({
      ...deps,
      view,
      workspaces,
      openSession,
      closing: (sessionId) => this.#open.closing(sessionId),
    })
    const restore = new RestoreStore(deps)
    const board = new BoardStore({ ...deps, view, sessions, restore })
    const open = new OpenSessionStore({ ...deps, view, workspaces, sessions, board })
    const composer = new ComposerStore({ ...deps, sessions })
    this.#state = state
    this.#notices = notices
    this.#connection = connection
    this.#view = view
    this.#workspaces = workspaces
    this.#sessions = sessions
    this.#board = board
    this.#open = open
    this.#pages = new TranscriptPages({ ...deps, openSession })
    this.#composer = composer
    this.#fork = new ForkStore({ ...deps, view, sessions, composer, open })
    this.#approvals = new ApprovalsStore(deps)
    this.#restore = restore
    this.#compare = new CompareStore({ ...deps, board })
    this.#importExport = new ImportExportStore({ ...deps, sessions })
  }

  readonly getState = (): HostState => this.#state.get()

  readonly subscribe = (listener: () => void): (() => void) => this.#state.subscribe(listener)

  /** Connects, loads everything, and reconnects (with backoff) whenever the socket drops. */
  start(): Promise<void> {
    return this.#connection.start()
  }

  stop(): void {
    this.#connection.stop()
  }

  /** The Host's notifications, each to the stores it concerns. */
  #listen(client: RpcClient): void {
    const sessions = this.#sessions
    client.onNotification('session.created', ({ session }) => sessions.upsert(session))
    client.onNotification('session.updated', ({ session }) => {
      sessions.upsert(session)
      this.#board.poke(session.id)
    })
    client.onNotification('session.deleted', ({ sessionId }) => sessions.remove(sessionId))
    client.onNotification('session.event', ({ sessionId, event }) => {
      this.#open.onEvent(sessionId, event)
      this.#board.poke(sessionId)
    })
    client.onNotification('session.delta', ({ sessionId, kind, text }) =>
      this.#open.onDelta(sessionId, kind, text),
    )
    client.onNotification('files.sharedActivity', ({ cwd, sessionIds }) =>
      this.#open.onSharedActivity(cwd, sessionIds),
    )
  }

  /** The Host answered the first reads of a connection: show them, then what was open. */
  async #opened({ info, workspaces, sessions }: HostSnapshot): Promise<void> {
    this.#state.set({
      ...this.#connection.openPatch(info),
      ...this.#workspaces.listedPatch(workspaces, info.startFolder),
      ...this.#sessions.listedPatch(sessions),
    })
    this.#board.resume()
    // The address names a session (a reload), else the active workspace's last one, if it still exists.
    const { openSessionId, activeWorkspaceId } = this.#state.get()
    await this.#open.reopen(openSessionId ?? this.#workspaces.recall(activeWorkspaceId))
  }

  // ---- notices (notices-store.ts) ----

  report(error: unknown): void {
    this.#notices.report(error)
  }

  dismiss(id: number): void {
    this.#notices.dismiss(id)
  }

  /** The pointer or focus is on a notice: it does not go while they are (`releaseNotice` after). */
  holdNotice(id: number): void {
    this.#notices.hold(id)
  }

  releaseNotice(id: number): void {
    this.#notices.release(id)
  }

  /** A notice's button: carries out its action, and the notice goes. */
  async noticeAction(notice: Notice): Promise<void> {
    this.#notices.dismiss(notice.id)
    if (notice.action?.kind === 'undo-restore')
      await this.undoRestore(notice.action.sessionId, notice.action.seq)
  }

  // ---- view state (view-store.ts) ----

  toggleExpanded(sessionId: string): void {
    this.#view.toggleExpanded(sessionId)
  }

  toggleWorkspace(workspaceId: string): void {
    this.#view.toggleWorkspace(workspaceId)
  }

  setShowArchived(showArchived: boolean): void {
    this.#view.setShowArchived(showArchived)
  }

  openDialog(dialog: DialogState | null): void {
    this.#view.openDialog(dialog)
  }

  startRename(sessionId: string | null): void {
    this.#view.startRename(sessionId)
  }

  // ---- workspaces (workspaces-store.ts) ----

  openWorkspace(
    path: string,
    onError?: (error: unknown) => void,
    onOpened?: (workspace: Workspace) => void,
  ): Promise<Workspace | null> {
    return this.#workspaces.openWorkspace(path, onError, onOpened)
  }

  browse(path: string | undefined, hidden: boolean): Promise<BrowseResult> {
    return this.#workspaces.browse(path, hidden)
  }

  // ---- import and export (import-export-store.ts) ----

  importFiles(files: readonly { name: string; text: () => Promise<string> }[]): Promise<ImportOutcome[]> {
    return this.#importExport.importFiles(files)
  }

  importFrom(tool: ImportTool, cwd: string): Promise<ImportOutcome> {
    return this.#importExport.importFrom(tool, cwd)
  }

  exportSession(sessionId: string, format: ExportFormat, tree = false): Promise<ExportedFile> {
    return this.#importExport.exportSession(sessionId, format, tree)
  }

  // ---- sessions (sessions-store.ts, fork-store.ts) ----

  createSession(workspaceId: string | null): Promise<SessionSummary | null> {
    return this.#sessions.createSession(workspaceId)
  }

  fork(request: Omit<ForkRequest, 'requestId'>, draft?: string): Promise<SessionSummary | null> {
    return this.#fork.fork(request, draft)
  }

  rename(sessionId: string, title: string): Promise<void> {
    return this.#sessions.rename(sessionId, title)
  }

  archive(sessionId: string, archived: boolean): Promise<void> {
    return this.#sessions.archive(sessionId, archived)
  }

  delete(
    sessionId: string,
    worktree?: 'remove' | 'keep' | 'force',
  ): Promise<{ deleted: boolean; dirty?: string[] }> {
    return this.#sessions.delete(sessionId, worktree)
  }

  setModel(model: string): Promise<void> {
    return this.#sessions.setModel(model)
  }

  setMode(mode: SessionModeId): Promise<void> {
    return this.#sessions.setMode(mode)
  }

  compact(sessionId: string): Promise<boolean> {
    return this.#sessions.compact(sessionId)
  }

  // ---- the open session and its transcript (open-session-store.ts, transcript-pages.ts) ----

  openSession(sessionId: string): Promise<void> {
    return this.#open.openSession(sessionId)
  }

  loadOlder(fromSeq?: number): Promise<boolean> {
    return this.#pages.loadOlder(fromSeq)
  }

  jumpTo(sessionId: string, seq: number): Promise<void> {
    return this.#pages.jumpTo(sessionId, seq)
  }

  // ---- the composer (composer-store.ts) ----

  queueMessage(text: string): boolean {
    return this.#composer.queue(text)
  }

  unqueueMessage(sessionId: string): string | undefined {
    return this.#composer.unqueue(sessionId)
  }

  send(text: string): Promise<void> {
    return this.#composer.send(text)
  }

  abort(): Promise<void> {
    return this.#composer.abort()
  }

  clearDraft(): void {
    this.#composer.clearDraft()
  }

  // ---- approvals (approvals-store.ts) ----

  answerPermission(
    sessionId: string,
    callId: string,
    decision: 'once' | 'always' | 'deny',
    reason?: string,
  ): Promise<boolean> {
    return this.#approvals.answerPermission(sessionId, callId, decision, reason)
  }

  // ---- files and compare (restore-store.ts, compare-store.ts) ----

  restore(sessionId: string, seq: number, force = false): Promise<void> {
    return this.#restore.restore(sessionId, seq, force)
  }

  undoRestore(sessionId: string, seq: number, force = false): Promise<boolean> {
    return this.#restore.undoRestore(sessionId, seq, force)
  }

  dismissConflict(): void {
    this.#restore.dismissConflict()
  }

  openCompare(a: string, b: string): Promise<void> {
    return this.#compare.openCompare(a, b)
  }

  closeCompare(): void {
    this.#compare.closeCompare()
  }

  // ---- explore, board and keep (board-store.ts) ----

  explore(request: Omit<ExploreRequest, 'requestId'>): Promise<boolean> {
    return this.#board.explore(request)
  }

  openBoard(exploration: string, check: string | null = null): void {
    this.#board.openBoard(exploration, check)
  }

  closeBoard(): void {
    this.#board.closeBoard()
  }

  fileAcross(sessionIds: readonly string[], path: string): Promise<FileAcrossResult> {
    return this.#board.fileAcross(sessionIds, path)
  }

  keep(sessionId: string): Promise<KeepOutcome> {
    return this.#board.keep(sessionId)
  }

  undoKeep(parentId: string, restoreSeq: number): Promise<boolean> {
    return this.#board.undoKeep(parentId, restoreSeq)
  }

  unarchiveBranch(sessionId: string): Promise<void> {
    return this.#board.unarchive(sessionId)
  }
}
