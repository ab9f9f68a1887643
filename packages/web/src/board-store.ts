// Explore, the board and keep (docs/architecture.md §8, §13): "Try N ways" forks the branches,
// the board shows them side by side in place of the transcript — live through `board-feed.ts` —
// and keep takes one branch's files into the parent.
import { RpcError } from '@tangent/protocol'
import { BoardFeed } from './board-feed.js'
import { explorationGroupKey } from './lineage.js'
import type { RestoreStore } from './restore-store.js'
import type { SessionsStore } from './sessions-store.js'
import type { StoreDeps } from './store-deps.js'
import { randomId } from './store-helpers.js'
import type { ViewStore } from './view-store.js'
import type { ExploreRequest, FileAcrossResult, KeepResult, SessionSummary } from './wire.js'

/** What `keep` came to: kept (the Host's account), refused with the conflicting paths, or failed (reported). */
export type KeepOutcome =
  | { readonly kind: 'kept'; readonly result: KeepResult }
  | { readonly kind: 'conflict'; readonly paths: readonly string[] }
  | { readonly kind: 'failed' }

export interface BoardDeps extends StoreDeps {
  readonly view: ViewStore
  readonly sessions: SessionsStore
  readonly restore: RestoreStore
}

export class BoardStore {
  readonly #deps: BoardDeps
  /** Keeps the open exploration board live. */
  readonly #feed: BoardFeed

  constructor(deps: BoardDeps) {
    this.#deps = deps
    this.#feed = new BoardFeed({
      client: deps.client,
      refresh: () => this.#readBoard(),
      openSessionId: () => deps.state.get().transcript?.sessionId ?? null,
      report: (error) => deps.notices.report(error),
    })
  }

  /**
   * "Try N ways": forks the branches (`session.explore`, idempotent by its request id), shows
   * them grouped under their parent, and opens their board. False when it failed (reported).
   */
  async explore(request: Omit<ExploreRequest, 'requestId'>): Promise<boolean> {
    const { state, sessions, view } = this.#deps
    try {
      const result = await this.#deps.client().call('session.explore', { ...request, requestId: randomId() })
      for (const session of result.sessions) sessions.upsert(session)
      // The dialog goes in the same update the board comes in, so focus can move to the board.
      state.set({
        ...view.expanding([request.sessionId, explorationGroupKey(result.exploration)]),
        dialog: null,
      })
      this.#showBoard(result.exploration, request.sessionId, result.sessions, request.check ?? null)
      return true
    } catch (error) {
      this.#deps.notices.report(error)
      return false
    }
  }

  /** Opens the board of an exploration: every branch of it this page knows, archived ones too. */
  openBoard(exploration: string, check: string | null = null): void {
    const branches = [...this.#deps.state.get().sessions.values()]
      .filter((session) => session.exploration?.id === exploration)
      .sort((a, b) => (a.exploration!.label < b.exploration!.label ? -1 : 1))
      .slice(0, 8)
    if (branches.length === 0) {
      this.#deps.notices.notify('error', 'not-found', 'The branches of that exploration are gone (deleted).')
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
    const started = this.#deps.state
      .get()
      .transcript?.events.findLast(
        (event) =>
          event.type === 'exploration/started' &&
          (event.data as { exploration?: unknown } | null)?.exploration === exploration,
      )
    const check = (started?.data as { check?: unknown } | undefined)?.check
    return typeof check === 'string' ? check : null
  }

  closeBoard(): void {
    this.#feed.stop()
    this.#deps.state.set({ board: null })
  }

  /** A reconnect: a board still open follows its branches again (subscriptions died with the socket). */
  resume(): void {
    const { board, sessions } = this.#deps.state.get()
    if (board === null) return
    this.#feed.follow(board.sessionIds.flatMap((id) => sessions.get(id) ?? []))
    void this.#readBoard()
  }

  /** Something changed in a session: the board re-reads soon when it shows that session. */
  poke(sessionId: string): void {
    this.#feed.poke(sessionId)
  }

  #showBoard(
    exploration: string,
    parentId: string | null,
    branches: readonly SessionSummary[],
    check: string | null,
  ): void {
    // The board takes compare's place.
    this.#deps.state.set({
      compare: null,
      board: { exploration, parentId, sessionIds: branches.map((branch) => branch.id), check, result: null },
    })
    this.#feed.follow(branches)
    void this.#readBoard()
  }

  async #readBoard(): Promise<void> {
    const { state } = this.#deps
    const board = state.get().board
    if (!board) return
    try {
      const result = await this.#deps.client().call('session.board', { sessionIds: [...board.sessionIds] })
      const current = state.get().board
      if (current?.exploration === board.exploration) state.set({ board: { ...current, result } })
    } catch (error) {
      this.#deps.notices.report(error)
    }
  }

  /** One file as each branch has it, and at the fork point (a side-by-side diff). Throws the Host's error. */
  async fileAcross(sessionIds: readonly string[], path: string): Promise<FileAcrossResult> {
    return this.#deps.client().call('session.fileAcross', { sessionIds: [...sessionIds], path })
  }

  /**
   * Keeps a branch (`session.keep`): its files into the parent, the others archived with their
   * clean worktrees removed. A `files-conflict` comes back as the paths (nothing was written).
   */
  async keep(sessionId: string): Promise<KeepOutcome> {
    try {
      const result = await this.#deps.client().call('session.keep', { sessionId, archiveOthers: true })
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
      this.#deps.notices.report(error)
      return { kind: 'failed' }
    }
  }

  /**
   * Undoes a keep: the parent's `files/restored` that wrote the branch's files is undone
   * (`snapshot.undoRestore`; a conflict opens the restore's conflict dialog), so the branch is
   * no longer kept and may be kept again. The branches it archived stay archived (Unarchive).
   */
  async undoKeep(parentId: string, restoreSeq: number): Promise<boolean> {
    const undone = await this.#deps.restore.undoRestore(parentId, restoreSeq)
    await this.#readBoard()
    return undone
  }

  /** Brings an archived branch back (into the tree and the lists); the board shows it at once. */
  async unarchive(sessionId: string): Promise<void> {
    await this.#deps.sessions.archive(sessionId, false)
    await this.#readBoard()
  }
}
