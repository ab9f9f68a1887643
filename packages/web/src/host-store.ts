// The UI's single source of state: what the Host said (workspaces, sessions, the open
// session's log) plus view state (expanded rows, dialogs, errors). Components read it
// through `useHost` and change it only through the actions below.
import { RpcError } from '@tangent/protocol'
import { BoardFeed } from './board-feed.js'
import {
  type DialogState,
  type HostState,
  initialHostState,
  type Notice,
  type RestoreConflict,
  type TranscriptState,
} from './host-state.js'
import { ancestorsOf, explorationGroupKey } from './lineage.js'
import { OpenSessionMemory } from './open-session-memory.js'
import { isInheritedTitle } from './session-display.js'
import {
  applyDelta,
  applyLiveEvent,
  emptyStreaming,
  endSeqOf,
  fromTurnStart,
  mergeEvents,
  prependEvents,
} from './session-log.js'
import { randomId, titleFromMessage, writeHash } from './store-helpers.js'
import type {
  BrowseResult,
  ExploreRequest,
  FileAcrossResult,
  ForkRequest,
  KeepResult,
  RpcClient,
  SessionEvent,
  SessionSummary,
  Workspace,
} from './wire.js'

/** What `keep` came to: kept (the Host's account), refused with the conflicting paths, or failed (reported). */
export type KeepOutcome =
  | { readonly kind: 'kept'; readonly result: KeepResult }
  | { readonly kind: 'conflict'; readonly paths: readonly string[] }
  | { readonly kind: 'failed' }

/**
 * Events read per `session.get` page: a long log opens with its last page, and older pages come
 * as the reader scrolls up (docs/architecture.md §8).
 */
export const transcriptPageSize = 500

/** Events loaded before a jump's target, so the turn it is in usually starts on screen too. */
const jumpMargin = 200

/** Runs `flush` before the next paint; where there is no paint (tests in Node), at once. */
export function nextFrame(flush: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush)
  else flush()
}

/** Events after which the open session's usage figures change. */
const usageEventTypes: ReadonlySet<string> = new Set(['step/end', 'context/compacted', 'model/selection'])

export class HostStore {
  #state: HostState
  readonly #listeners = new Set<() => void>()
  readonly #connect: () => RpcClient
  #client: RpcClient | null = null
  #noticeId = 0
  #draftNonce = 0
  readonly #checkToken: (() => Promise<'accepted' | 'refused' | 'unreachable'>) | undefined
  /** Forks on their way, by request: a second identical one joins the first. */
  readonly #forking = new Map<string, Promise<SessionSummary | null>>()
  /** Changes whenever another session is opened, so late answers for the old one are dropped. */
  #openToken = 0
  /** Events that arrived while the open session's log was loading. */
  #buffered: SessionEvent[] = []
  #catchingUp = false
  /** A usage re-read is running; `#usageWanted` is the session to read next. */
  #usageReading = false
  #usageWanted: string | null = null
  #jumpNonce = 0
  /** The older page being read, if any. */
  #olderRead: Promise<boolean> | null = null
  /** Live changes (events, deltas) are in `#state` but not yet told to the listeners. */
  #frameQueued = false
  readonly #schedule: (flush: () => void) => void
  #retryDelay = 500
  #stopped = false
  /** Workspace ids already looked up once: a workspace that is really gone is asked for once. */
  readonly #askedWorkspaces = new Set<string>()
  /** Keeps the open exploration board live. */
  readonly #boardFeed = new BoardFeed({
    client: () => this.#need(),
    refresh: () => this.#readBoard(),
    openSessionId: () => this.#state.transcript?.sessionId ?? null,
    report: (error) => this.report(error),
  })

  /** The session open last in each workspace, reopened on coming back to it (docs/architecture.md §12.6). */
  readonly #memory: OpenSessionMemory

  constructor(
    connect: () => RpcClient,
    initialSessionId: string | null = null,
    memory: OpenSessionMemory = new OpenSessionMemory(null),
    schedule: (flush: () => void) => void = nextFrame,
    /** Asks the Host over HTTP whether it takes this page's token, when the socket will not stay open. */
    checkToken?: () => Promise<'accepted' | 'refused' | 'unreachable'>,
  ) {
    this.#checkToken = checkToken
    this.#connect = connect
    this.#schedule = schedule
    this.#state = initialHostState(initialSessionId)
    this.#memory = memory
  }

  readonly getState = (): HostState => this.#state

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Connects, loads everything, and reconnects (with backoff) whenever the socket drops. */
  async start(): Promise<void> {
    if (this.#stopped) return
    this.#set({ connection: 'connecting' })
    const client = this.#connect()
    this.#client = client
    this.#listen(client)
    client.onClose(() => {
      if (this.#client !== client) return
      // The closed client stays until the next one connects: its calls reject with
      // `connection-closed`, which the actions report like any other error.
      this.#set({ connection: 'closed' })
      if (this.#stopped) return
      // A socket the Host refuses looks like one it never answered: ask it, so the page can say
      // which (retrying stays on: a Host restarted with this token again is found).
      void this.#checkToken?.().then((answer) => {
        if (this.#client === client && this.#state.connection === 'closed')
          this.#set({ tokenRefused: answer === 'refused' })
      })
      setTimeout(() => void this.start(), this.#retryDelay)
      this.#retryDelay = Math.min(this.#retryDelay * 2, 10_000)
    })
    try {
      const [info, workspaces, sessions] = await Promise.all([
        client.call('host.info', {}),
        client.call('workspace.list', {}),
        client.call('session.list', { includeArchived: true }),
      ])
      this.#retryDelay = 500
      this.#set({
        connection: 'open',
        tokenRefused: false,
        info,
        workspaces,
        sessions: new Map(sessions.map((session) => [session.id, session])),
        treeVersion: this.#state.treeVersion + 1,
        activeWorkspaceId: pickActiveWorkspace(this.#state.activeWorkspaceId, workspaces, info.startFolder),
      })
      // A board open across a reconnect follows its branches again (subscriptions died with the socket).
      const board = this.#state.board
      if (board !== null) {
        this.#boardFeed.follow(board.sessionIds.flatMap((id) => this.#state.sessions.get(id) ?? []))
        void this.#readBoard()
      }
      // The address names a session (a reload), else the active workspace's last one, if it still exists.
      const open = this.#state.openSessionId ?? this.#recall(this.#state.activeWorkspaceId)
      if (open !== null) {
        if (this.#state.sessions.has(open)) await this.#load(open)
        else this.#set({ openSessionId: null, transcript: null })
      }
    } catch (error) {
      if (this.#client === client) this.report(error)
    }
  }

  stop(): void {
    this.#stopped = true
    this.#client?.close()
  }

  // ---- notices ----

  report(error: unknown): void {
    // A lost connection (calls in flight, retries) is shown once by the connection banner
    // and healed by reconnecting; a banner per failed call would only repeat it.
    if (error instanceof RpcError && error.dataCode === 'connection-closed') return
    // The code as sent (a newer Host's code this page does not know is still worth showing).
    const code = error instanceof RpcError ? error.data.code : 'internal'
    const message = error instanceof Error ? error.message : String(error)
    this.#notify('error', code, message)
  }

  dismiss(id: number): void {
    this.#set({ notices: this.#state.notices.filter((notice) => notice.id !== id) })
  }

  // ---- view state ----

  toggleExpanded(sessionId: string): void {
    const expanded = new Set(this.#state.expanded)
    if (!expanded.delete(sessionId)) expanded.add(sessionId)
    this.#set({ expanded })
  }

  toggleWorkspace(workspaceId: string): void {
    const collapsed = new Set(this.#state.collapsedWorkspaces)
    if (!collapsed.delete(workspaceId)) collapsed.add(workspaceId)
    this.#set({ collapsedWorkspaces: collapsed })
  }

  setShowArchived(showArchived: boolean): void {
    this.#set({ showArchived })
  }

  openDialog(dialog: DialogState | null): void {
    this.#set({ dialog })
  }

  startRename(sessionId: string | null): void {
    this.#set({ renaming: sessionId })
  }

  clearDraft(): void {
    this.#set({ draft: null })
  }

  // ---- workspaces and sessions ----

  /**
   * Opens a folder as a workspace (`~`, `~/x` and paths relative to the Host's start folder
   * work too) and selects it. Like `workspace.list`, the most recently opened comes first.
   * Resolves once the session remembered there is open too; `onOpened` is told as soon as the
   * workspace itself is (a form can take another folder while that session loads).
   */
  async openWorkspace(
    path: string,
    onError?: (error: unknown) => void,
    onOpened?: (workspace: Workspace) => void,
  ): Promise<Workspace | null> {
    const client = this.#need()
    try {
      const workspace = await client.call('workspace.open', { path })
      const others = this.#state.workspaces.filter((w) => w.id !== workspace.id)
      const collapsed = new Set(this.#state.collapsedWorkspaces)
      collapsed.delete(workspace.id)
      this.#set({
        workspaces: [workspace, ...others],
        activeWorkspaceId: workspace.id,
        collapsedWorkspaces: collapsed,
      })
      onOpened?.(workspace)
      const remembered = this.#recall(workspace.id)
      if (remembered !== null) await this.openSession(remembered)
      return workspace
    } catch (error) {
      if (onError) onError(error)
      else this.report(error)
      return null
    }
  }

  /**
   * The subfolders of `path` (default: the Host's start folder), for the folder browser.
   * Throws the Host's error (e.g. RpcError `folder-not-found`): the browser shows it in place.
   */
  async browse(path: string | undefined, hidden: boolean): Promise<BrowseResult> {
    return this.#need().call('workspace.browse', {
      ...(path !== undefined && path.trim() !== '' ? { path: path.trim() } : {}),
      ...(hidden ? { hidden } : {}),
    })
  }

  async createSession(workspaceId: string | null): Promise<SessionSummary | null> {
    const client = this.#need()
    try {
      const model = this.#state.nextModel
      const session = await client.call('session.create', {
        ...(workspaceId !== null ? { workspaceId } : {}),
        ...(model !== null ? { model } : {}),
      })
      this.#upsert(session)
      await this.openSession(session.id)
      return session
    } catch (error) {
      this.report(error)
      return null
    }
  }

  async openSession(sessionId: string): Promise<void> {
    // Choosing a session leaves the board for its transcript.
    if (this.#state.board !== null) this.closeBoard()
    if (this.#state.openSessionId === sessionId && this.#state.transcript?.sessionId === sessionId) return
    await this.#switchTo(sessionId)
  }

  /** Leaves the open session's live feed and loads another one. */
  async #switchTo(sessionId: string): Promise<void> {
    const previous = this.#state.transcript?.sessionId
    if (previous !== undefined && previous !== sessionId) {
      this.#need()
        .call('session.unsubscribe', { sessionId: previous })
        .catch((error: unknown) => this.report(error))
    }
    await this.#load(sessionId)
  }

  async send(text: string): Promise<void> {
    let sessionId = this.#state.openSessionId
    if (sessionId === null) {
      const created = await this.createSession(this.#state.activeWorkspaceId)
      if (!created) return
      sessionId = created.id
    }
    if (this.#needsTitle(sessionId)) {
      // A session is named after its first message, so the tree reads like a list of topics
      // rather than ids; a branch likewise after its first own message, not its parent's
      // name. A title is a standalone event: it goes in before the turn.
      await this.rename(sessionId, titleFromMessage(text))
    }
    try {
      await this.#need().call('session.prompt', { sessionId, text })
    } catch (error) {
      this.report(error)
      // Refused before the turn started (nothing was appended): the message goes back in the
      // box, so a refusal never costs the user what they typed.
      if (refusedBeforeTurn(error) && this.#state.openSessionId === sessionId) {
        this.#set({ draft: { sessionId, text, nonce: ++this.#draftNonce, returned: true } })
      }
    }
  }

  #needsTitle(sessionId: string): boolean {
    const summary = this.#state.sessions.get(sessionId)
    if (summary?.status !== 'idle') return false
    if (summary.title.trim() === '') return true
    const parent =
      summary.parentSession === null ? undefined : this.#state.sessions.get(summary.parentSession)
    if (!parent || !isInheritedTitle(summary.title, parent)) return false
    const transcript = this.#state.transcript
    if (!transcript || transcript.sessionId !== sessionId || transcript.loading) return false
    // A window that starts after the fork point holds a page of the branch's own events: it has turns.
    if (transcript.firstSeq > summary.inheritedEventCount) return false
    return !transcript.events.some(
      (event) => event.seq >= summary.inheritedEventCount && event.type === 'turn/start',
    )
  }

  async abort(): Promise<void> {
    const sessionId = this.#state.openSessionId
    if (sessionId === null) return
    try {
      await this.#need().call('session.abort', { sessionId })
    } catch (error) {
      this.report(error)
    }
  }

  /**
   * Answers a call the permission policy asked about (docs/protocol.md
   * `session.answerPermission`). The card goes when `permission/answered` arrives; an answer
   * that came too late (`permission-not-pending`: someone else answered, or the turn ended) is
   * no error for this person, so it is dropped. False when the answer failed (the card stays).
   */
  async answerPermission(
    sessionId: string,
    callId: string,
    decision: 'once' | 'always' | 'deny',
    reason?: string,
  ): Promise<boolean> {
    try {
      await this.#need().call('session.answerPermission', {
        sessionId,
        callId,
        decision,
        ...(reason !== undefined && reason !== '' ? { reason } : {}),
      })
      return true
    } catch (error) {
      if (error instanceof RpcError && error.dataCode === 'permission-not-pending') return true
      this.report(error)
      return false
    }
  }

  /**
   * Forks, then opens the child with its parent expanded. When the Host published the child
   * but could not attach it (`workspace-attach-failed`), the child is still added and opened
   * before the error is shown, so the tree never hides a session that exists.
   */
  /**
   * Forks and opens the child. The same request while one is on its way (a double click on
   * "Branch from here") is that one: one click, one branch.
   */
  fork(request: Omit<ForkRequest, 'requestId'>, draft?: string): Promise<SessionSummary | null> {
    const key = JSON.stringify(request)
    const pending = this.#forking.get(key)
    if (pending) return pending
    const started = this.#forkOnce(request, draft).finally(() => this.#forking.delete(key))
    this.#forking.set(key, started)
    return started
  }

  async #forkOnce(request: Omit<ForkRequest, 'requestId'>, draft?: string): Promise<SessionSummary | null> {
    const client = this.#need()
    let child: SessionSummary | null = null
    try {
      const result = await client.call('session.fork', { ...request, requestId: randomId() })
      child = result.session
      // Said once, in a notice the page's live region reads out: the worktree lacks these files.
      const leftOut = result.worktree?.leftOut ?? []
      if (leftOut.length > 0)
        this.#notify(
          'info',
          'files-left-out',
          `Not in the fork's worktree (too big to snapshot, or not a regular file): ${leftOut.join(', ')}. Copy them in yourself if it needs them.`,
        )
    } catch (error) {
      const attached = error instanceof RpcError && error.dataCode === 'workspace-attach-failed'
      const childId = attached ? error.data.sessionId : undefined
      if (typeof childId === 'string') {
        try {
          child = (await client.call('session.get', { sessionId: childId })).session
          this.#adoptChild(child, draft)
          await this.#switchTo(child.id)
        } catch (lookupError) {
          this.report(lookupError)
        }
      }
      this.report(error)
      return child
    }
    this.#adoptChild(child, draft)
    await this.#switchTo(child.id)
    return child
  }

  async rename(sessionId: string, title: string): Promise<void> {
    this.#set({ renaming: null })
    try {
      this.#upsert(await this.#need().call('session.rename', { sessionId, title }))
    } catch (error) {
      this.report(error)
    }
  }

  async archive(sessionId: string, archived: boolean): Promise<void> {
    try {
      this.#upsert(await this.#need().call('session.archive', { sessionId, archived }))
    } catch (error) {
      this.report(error)
    }
  }

  /**
   * `worktree` (for worktree sessions): remove it when clean (default), keep it, or force its
   * removal. Answers whether it was deleted, or — refused because removing the worktree would
   * lose uncommitted changes (`worktree-dirty`, nothing deleted) — those files, for the dialog.
   */
  async delete(
    sessionId: string,
    worktree?: 'remove' | 'keep' | 'force',
  ): Promise<{ deleted: boolean; dirty?: string[] }> {
    const client = this.#need()
    try {
      const result = await client.call('session.delete', { sessionId, ...(worktree ? { worktree } : {}) })
      this.#remove(sessionId)
      // Children that got their prefix inline changed lineage: take the Host's word for it.
      const sessions = await client.call('session.list', { includeArchived: true })
      this.#set({
        sessions: new Map(sessions.map((session) => [session.id, session])),
        treeVersion: this.#state.treeVersion + 1,
      })
      if (result.worktree) {
        const { path, removed, reason } = result.worktree
        this.#notify(
          'info',
          'worktree',
          removed
            ? `Removed its worktree ${path}.`
            : `Kept its worktree ${path}${reason ? `: ${reason}` : ''}.`,
        )
      }
      if (result.materialized.length > 0) {
        const n = result.materialized.length
        this.#notify(
          'info',
          'deleted',
          `Deleted. ${n} fork${n === 1 ? '' : 's'} kept ${n === 1 ? 'its' : 'their'} full history.`,
        )
      }
      return { deleted: true }
    } catch (error) {
      if (error instanceof RpcError && error.dataCode === 'worktree-dirty' && Array.isArray(error.data.paths))
        return { deleted: false, dirty: error.data.paths.map(String) }
      this.report(error)
      return { deleted: false }
    }
  }

  async setModel(model: string): Promise<void> {
    const sessionId = this.#state.openSessionId
    if (sessionId === null) {
      this.#set({ nextModel: model })
      return
    }
    try {
      this.#upsert(await this.#need().call('session.setModel', { sessionId, model }))
    } catch (error) {
      this.report(error)
    }
  }

  /**
   * Summarises the session's history with its model (`session.compact`); the event arrives
   * through the subscription. Resolves true when it was compacted.
   */
  async compact(sessionId: string): Promise<boolean> {
    try {
      const result = await this.#need().call('session.compact', { sessionId })
      this.#notify(
        'info',
        'compacted',
        `Compacted: events 0–${result.throughSeq} are summarised for the model. Forks before #${result.seq} keep the full history.`,
      )
      return true
    } catch (error) {
      this.report(error)
      return false
    }
  }

  // ---- files and compare ----

  /** Restores the session's files to the end of the turn at `seq` (recorded as a `files/restored` row). */
  async restore(sessionId: string, seq: number, force = false): Promise<void> {
    try {
      const result = await this.#need().call('snapshot.restore', { sessionId, seq, force })
      const n = result.restored.length
      this.#set({ restoreConflict: null })
      this.#notify(
        'info',
        'restored',
        n === 0
          ? 'Nothing to restore: no file this session changed differs from that point.'
          : result.seq !== undefined
            ? `Restored ${n} file${n === 1 ? '' : 's'}: ${result.restored.join(', ')}. Undo it from its row in the transcript.`
            : `Restored ${n} file${n === 1 ? '' : 's'}: ${result.restored.join(', ')}. The files as they were before are kept in snapshot ${result.undoTree.slice(0, 10)}.`,
      )
    } catch (error) {
      if (!this.#conflict(error, { kind: 'restore', sessionId, seq })) this.report(error)
    }
  }

  /**
   * Undoes the restore recorded at `seq` (a `files/restored` event): its files go back to
   * how they were just before it. A `files-conflict` opens the same dialog as a restore's.
   */
  async undoRestore(sessionId: string, seq: number, force = false): Promise<boolean> {
    try {
      const result = await this.#need().call('snapshot.undoRestore', {
        sessionId,
        seq,
        ...(force ? { force } : {}),
      })
      const n = result.restored.length
      this.#set({ restoreConflict: null })
      this.#notify(
        'info',
        'restore-undone',
        n === 0
          ? 'Undid the restore: no file needed changing.'
          : `Undid the restore: ${n} file${n === 1 ? '' : 's'} back as before it: ${result.restored.join(', ')}.`,
      )
      return true
    } catch (error) {
      if (!this.#conflict(error, { kind: 'undo', sessionId, seq })) this.report(error)
      return false
    }
  }

  /** A `files-conflict` from a restore or its undo: lists the paths in the conflict dialog. */
  #conflict(error: unknown, what: Omit<RestoreConflict, 'paths'>): boolean {
    if (!(error instanceof RpcError) || error.dataCode !== 'files-conflict') return false
    const paths = error.data.paths
    if (!Array.isArray(paths)) return false
    this.#set({ restoreConflict: { ...what, paths: paths.map(String) } })
    return true
  }

  dismissConflict(): void {
    this.#set({ restoreConflict: null })
  }

  async openCompare(a: string, b: string): Promise<void> {
    if (this.#state.board !== null) this.closeBoard()
    this.#set({ compare: { a, b, result: null } })
    try {
      const result = await this.#need().call('session.compare', { a, b })
      const current = this.#state.compare
      if (current && current.a === a && current.b === b) this.#set({ compare: { a, b, result } })
    } catch (error) {
      this.#set({ compare: null })
      this.report(error)
    }
  }

  closeCompare(): void {
    this.#set({ compare: null })
  }

  // ---- explore, board and keep (docs/architecture.md §8, §13) ----

  /**
   * "Try N ways": forks the branches (`session.explore`, idempotent by its request id), shows
   * them grouped under their parent, and opens their board. False when it failed (reported).
   */
  async explore(request: Omit<ExploreRequest, 'requestId'>): Promise<boolean> {
    try {
      const result = await this.#need().call('session.explore', { ...request, requestId: randomId() })
      for (const session of result.sessions) this.#upsert(session)
      const expanded = new Set(this.#state.expanded)
      expanded.add(request.sessionId)
      expanded.add(explorationGroupKey(result.exploration))
      // The dialog goes in the same update the board comes in, so focus can move to the board.
      this.#set({ expanded, dialog: null })
      this.#showBoard(result.exploration, request.sessionId, result.sessions, request.check ?? null)
      return true
    } catch (error) {
      this.report(error)
      return false
    }
  }

  /** Opens the board of an exploration: every branch of it this page knows, archived ones too. */
  openBoard(exploration: string, check: string | null = null): void {
    const branches = [...this.#state.sessions.values()]
      .filter((session) => session.exploration?.id === exploration)
      .sort((a, b) => (a.exploration!.label < b.exploration!.label ? -1 : 1))
      .slice(0, 8)
    if (branches.length === 0) {
      this.#notify('error', 'not-found', 'The branches of that exploration are gone (deleted).')
      return
    }
    this.#showBoard(
      exploration,
      branches[0]!.parentSession,
      branches,
      check ?? this.#explorationCheck(exploration),
    )
  }

  /** The exploration's check, when the open transcript holds its `exploration/started` (its source's log). */
  #explorationCheck(exploration: string): string | null {
    const started = this.#state.transcript?.events.findLast(
      (event) =>
        event.type === 'exploration/started' &&
        (event.data as { exploration?: unknown } | null)?.exploration === exploration,
    )
    const check = (started?.data as { check?: unknown } | undefined)?.check
    return typeof check === 'string' ? check : null
  }

  closeBoard(): void {
    this.#boardFeed.stop()
    this.#set({ board: null })
  }

  #showBoard(
    exploration: string,
    parentId: string | null,
    branches: readonly SessionSummary[],
    check: string | null,
  ): void {
    this.#set({
      compare: null,
      board: { exploration, parentId, sessionIds: branches.map((branch) => branch.id), check, result: null },
    })
    this.#boardFeed.follow(branches)
    void this.#readBoard()
  }

  async #readBoard(): Promise<void> {
    const board = this.#state.board
    if (!board) return
    try {
      const result = await this.#need().call('session.board', { sessionIds: [...board.sessionIds] })
      const current = this.#state.board
      if (current?.exploration === board.exploration) this.#set({ board: { ...current, result } })
    } catch (error) {
      this.report(error)
    }
  }

  /** One file as each branch has it, and at the fork point (a side-by-side diff). Throws the Host's error. */
  async fileAcross(sessionIds: readonly string[], path: string): Promise<FileAcrossResult> {
    return this.#need().call('session.fileAcross', { sessionIds: [...sessionIds], path })
  }

  /**
   * Keeps a branch (`session.keep`): its files into the parent, the others archived with their
   * clean worktrees removed. A `files-conflict` comes back as the paths (nothing was written).
   */
  async keep(sessionId: string): Promise<KeepOutcome> {
    try {
      const result = await this.#need().call('session.keep', { sessionId, archiveOthers: true })
      void this.#readBoard()
      return { kind: 'kept', result }
    } catch (error) {
      if (
        error instanceof RpcError &&
        error.dataCode === 'files-conflict' &&
        Array.isArray(error.data.paths)
      ) {
        return { kind: 'conflict', paths: error.data.paths.map(String) }
      }
      this.report(error)
      return { kind: 'failed' }
    }
  }

  // ---- the transcript's window ----

  /**
   * Puts the page of events before the loaded window in front of it (`session.get {beforeSeq,
   * last}`), or the events from `fromSeq` on when given. False when there is nothing older.
   */
  async loadOlder(fromSeq?: number): Promise<boolean> {
    // One read at a time: a scroll asking again meanwhile is answered by the read under way; a
    // jump waits for it, then reads on if it still needs to.
    if (this.#olderRead && fromSeq === undefined) return false
    while (this.#olderRead) await this.#olderRead
    const transcript = this.#state.transcript
    if (!transcript || transcript.loading || transcript.firstSeq === 0) return false
    if (fromSeq !== undefined && fromSeq >= transcript.firstSeq) return true
    const read = this.#readOlder(transcript, fromSeq)
    this.#olderRead = read
    try {
      return await read
    } finally {
      this.#olderRead = null
    }
  }

  async #readOlder(transcript: TranscriptState, fromSeq: number | undefined): Promise<boolean> {
    const { sessionId, firstSeq } = transcript
    this.#set({ transcript: { ...transcript, loadingOlder: true } })
    try {
      const { events } = await this.#need().call('session.get', {
        sessionId,
        beforeSeq: firstSeq,
        ...(fromSeq !== undefined ? { fromSeq: Math.max(0, fromSeq) } : { last: transcriptPageSize }),
      })
      const current = this.#state.transcript
      if (!current || current.sessionId !== sessionId) return false
      const grown = prependEvents({ ...current, loadingOlder: false }, fromTurnStart(events))
      this.#set({ transcript: grown ?? { ...current, loadingOlder: false } })
      return grown !== null
    } catch (error) {
      const current = this.#state.transcript
      if (current?.sessionId === sessionId) this.#set({ transcript: { ...current, loadingOlder: false } })
      this.report(error)
      return false
    }
  }

  /**
   * Brings event `seq` of a session into view: opens the session, loads the log back to it
   * (and a little before, so its turn starts on screen), and asks the transcript to show it.
   */
  async jumpTo(sessionId: string, seq: number): Promise<void> {
    await this.openSession(sessionId)
    const transcript = this.#state.transcript
    if (!transcript || transcript.sessionId !== sessionId || transcript.loading) return
    await this.loadOlder(seq - jumpMargin)
    this.#set({ jump: { sessionId, seq, nonce: ++this.#jumpNonce } })
  }

  // ---- internals ----

  #listen(client: RpcClient): void {
    client.onNotification('session.created', ({ session }) => this.#upsert(session))
    client.onNotification('session.updated', ({ session }) => {
      this.#upsert(session)
      this.#boardFeed.poke(session.id)
    })
    client.onNotification('session.deleted', ({ sessionId }) => this.#remove(sessionId))
    client.onNotification('session.event', ({ sessionId, event }) => {
      this.#onEvent(sessionId, event)
      this.#boardFeed.poke(sessionId)
    })
    client.onNotification('session.delta', ({ sessionId, kind, text }) => {
      const transcript = this.#state.transcript
      if (!transcript || transcript.sessionId !== sessionId || transcript.loading) return
      this.#setLive({ transcript: applyDelta(transcript, kind, text) })
    })
    client.onNotification('files.sharedActivity', ({ cwd, sessionIds }) => {
      this.#set({ sharedActivity: sessionIds.length >= 2 ? { cwd, sessionIds } : null })
    })
  }

  async #load(sessionId: string): Promise<void> {
    const token = ++this.#openToken
    const summary = this.#state.sessions.get(sessionId)
    const expanded = new Set(this.#state.expanded)
    for (const id of ancestorsOf(this.#state.sessions, sessionId)) expanded.add(id)
    if (summary?.exploration) expanded.add(explorationGroupKey(summary.exploration.id))
    this.#buffered = []
    this.#set({
      openSessionId: sessionId,
      activeWorkspaceId: summary?.workspaceId ?? this.#state.activeWorkspaceId,
      transcript: { sessionId, events: [], firstSeq: 0, loading: true, streaming: emptyStreaming },
      expanded,
      sharedActivity: null,
    })
    writeHash(sessionId)
    const client = this.#need()
    try {
      // get, then subscribe from where the log ended: the Host replays anything appended in
      // between, so there is no gap and no duplicate (duplicates are dropped anyway).
      // Tail first: the last page, older ones as the reader scrolls up (docs/protocol.md).
      const page = await client.call('session.get', { sessionId, last: transcriptPageSize })
      const { session, usage } = page
      const events = fromTurnStart(page.events)
      if (token !== this.#openToken) return
      const firstSeq = events[0]?.seq ?? 0
      await client.call('session.subscribe', { sessionId, fromSeq: firstSeq + events.length })
      if (token !== this.#openToken) {
        // Another session was opened meanwhile, and its unsubscribe may have gone out first.
        if (this.#state.transcript?.sessionId !== sessionId) {
          client.call('session.unsubscribe', { sessionId }).catch((error: unknown) => this.report(error))
        }
        return
      }
      this.#upsert(session)
      const merged = mergeEvents(events, this.#buffered, firstSeq)
      this.#buffered = []
      this.#set({
        transcript: { sessionId, events: merged, firstSeq, loading: false, streaming: emptyStreaming, usage },
      })
      const dataDir = this.#state.info?.dataDir
      if (dataDir !== undefined && session.workspaceId !== null)
        this.#memory.remember(dataDir, session.workspaceId, sessionId)
    } catch (error) {
      if (token === this.#openToken) {
        this.#set({ transcript: null, openSessionId: null })
        writeHash(null)
      }
      this.report(error)
    }
  }

  #onEvent(sessionId: string, event: SessionEvent): void {
    const transcript = this.#state.transcript
    if (!transcript || transcript.sessionId !== sessionId) return
    if (transcript.loading) {
      this.#buffered.push(event)
      return
    }
    const next = applyLiveEvent(transcript, event)
    if (next === 'gap') void this.#catchUp(sessionId)
    else if (next !== 'duplicate') this.#setLive({ transcript: next })
    if (next !== 'duplicate' && usageEventTypes.has(event.type)) void this.#readUsage(sessionId)
  }

  /**
   * Re-reads the open session's usage (session.get from the end of its log: no events, the
   * Host's one pass over them) after a step ends, a compaction or a model change: one read at
   * a time, then one more for the session that asked meanwhile.
   */
  async #readUsage(sessionId: string): Promise<void> {
    this.#usageWanted = sessionId
    if (this.#usageReading) return
    this.#usageReading = true
    try {
      while (this.#usageWanted !== null) {
        const wanted = this.#usageWanted
        this.#usageWanted = null
        const before = this.#state.transcript
        if (!before || before.sessionId !== wanted) continue
        const fromSeq = endSeqOf(before)
        const { usage } = await this.#need().call('session.get', { sessionId: wanted, fromSeq })
        const transcript = this.#state.transcript
        if (transcript && transcript.sessionId === wanted) this.#set({ transcript: { ...transcript, usage } })
      }
    } catch (error) {
      this.report(error)
    } finally {
      this.#usageReading = false
    }
  }

  /** Fills a gap in the open log (should not happen: the Host sends in order without gaps). */
  async #catchUp(sessionId: string): Promise<void> {
    if (this.#catchingUp) return
    this.#catchingUp = true
    try {
      const open = this.#state.transcript
      const from = open ? endSeqOf(open) : 0
      const { events } = await this.#need().call('session.get', { sessionId, fromSeq: from })
      const transcript = this.#state.transcript
      if (!transcript || transcript.sessionId !== sessionId) return
      this.#set({
        transcript: { ...transcript, events: mergeEvents(transcript.events, events, transcript.firstSeq) },
      })
    } catch (error) {
      this.report(error)
    } finally {
      this.#catchingUp = false
    }
  }

  #adoptChild(child: SessionSummary, draft: string | undefined): void {
    this.#upsert(child)
    const expanded = new Set(this.#state.expanded)
    if (child.parentSession !== null) expanded.add(child.parentSession)
    this.#set({
      expanded,
      draft: draft === undefined ? null : { sessionId: child.id, text: draft, nonce: ++this.#draftNonce },
    })
  }

  #upsert(session: SessionSummary): void {
    const current = this.#state.sessions.get(session.id)
    if (current && current.updatedAt > session.updatedAt) return
    const workspaceId = session.workspaceId
    if (workspaceId !== null && !this.#state.workspaces.some((workspace) => workspace.id === workspaceId)) {
      void this.#learnWorkspace(workspaceId)
    }
    const sessions = new Map(this.#state.sessions)
    sessions.set(session.id, session)
    const reshaped =
      !current ||
      current.parentSession !== session.parentSession ||
      current.workspaceId !== session.workspaceId ||
      current.archived !== session.archived ||
      current.createdAt !== session.createdAt
    this.#set({ sessions, ...(reshaped ? { treeVersion: this.#state.treeVersion + 1 } : {}) })
  }

  /** A session of a workspace opened elsewhere (another tab, the CLI): learn that workspace. */
  async #learnWorkspace(workspaceId: string): Promise<void> {
    if (this.#askedWorkspaces.has(workspaceId)) return
    this.#askedWorkspaces.add(workspaceId)
    try {
      const workspaces = await this.#need().call('workspace.list', {})
      this.#set({ workspaces })
    } catch (error) {
      this.report(error)
    }
  }

  /** The session open last in a workspace, when it still exists. */
  #recall(workspaceId: string | null): string | null {
    const dataDir = this.#state.info?.dataDir
    if (workspaceId === null || dataDir === undefined) return null
    const sessionId = this.#memory.recall(dataDir, workspaceId)
    return sessionId !== null && this.#state.sessions.has(sessionId) ? sessionId : null
  }

  #remove(sessionId: string): void {
    if (!this.#state.sessions.has(sessionId)) return
    const sessions = new Map(this.#state.sessions)
    sessions.delete(sessionId)
    const closing = this.#state.openSessionId === sessionId
    // No unsubscribe: the Host drops the subscriptions of a deleted session itself.
    if (closing) writeHash(null)
    this.#set({
      sessions,
      treeVersion: this.#state.treeVersion + 1,
      ...(closing ? { openSessionId: null, transcript: null } : {}),
    })
  }

  #notify(tone: Notice['tone'], code: string, message: string): void {
    const notice = { id: ++this.#noticeId, tone, code, message }
    this.#set({ notices: [...this.#state.notices.slice(-4), notice] })
  }

  #need(): RpcClient {
    if (!this.#client) throw new Error('HostStore.start() was not called.')
    return this.#client
  }

  #set(patch: Partial<HostState>): void {
    this.#state = { ...this.#state, ...patch }
    this.#frameQueued = false
    for (const listener of this.#listeners) listener()
  }

  /**
   * A live change (an event, a streamed delta): in the state at once, told to the listeners once
   * per frame, so a burst of deltas is one render (docs/architecture.md §8).
   */
  #setLive(patch: Partial<HostState>): void {
    this.#state = { ...this.#state, ...patch }
    if (this.#frameQueued) return
    this.#frameQueued = true
    this.#schedule(() => {
      if (!this.#frameQueued) return
      this.#frameQueued = false
      for (const listener of this.#listeners) listener()
    })
  }
}

/**
 * The workspace to select once connected: the one already selected, else the folder the Host
 * was started in (so a first run starts where the user is), else the most recently opened.
 */
/**
 * Codes with which `session.prompt` refuses before appending anything (docs/protocol.md): the
 * message was not taken. Any other failure may come after the turn started (a lost connection
 * mid-turn), when the message is already in the log.
 */
const refusedPromptCodes: ReadonlySet<string> = new Set([
  'session-busy',
  'session-elsewhere',
  'session-not-found',
  'model-unavailable',
  'invalid-model',
  'invalid-params',
  'payload-too-large',
  'store-read-only',
])

function refusedBeforeTurn(error: unknown): boolean {
  return error instanceof RpcError && error.dataCode !== undefined && refusedPromptCodes.has(error.dataCode)
}

export function pickActiveWorkspace(
  current: string | null,
  workspaces: readonly Workspace[],
  startFolder: string | undefined,
): string | null {
  if (current !== null && workspaces.some((workspace) => workspace.id === current)) return current
  const start = startFolder === undefined ? undefined : workspaces.find((w) => w.path === startFolder)
  return start?.id ?? workspaces[0]?.id ?? null
}
