// The sessions this page knows (every one the Host lists, archived ones too) and the actions on
// one: create, rename, archive, delete, its model and mode, compaction. `treeVersion` is bumped only when
// the tree's shape can change (docs/architecture.md §8).
import { RpcError } from '@tangent/protocol'
import type { HostState } from './host-state.js'
import type { StoreDeps } from './store-deps.js'
import type { ViewStore } from './view-store.js'
import type { SessionModeId, SessionSummary } from './wire.js'
import type { WorkspacesStore } from './workspaces-store.js'

export interface SessionsDeps extends StoreDeps {
  readonly view: ViewStore
  readonly workspaces: WorkspacesStore
  /** Opens a session (one just created). */
  readonly openSession: (sessionId: string) => Promise<void>
  /** The patch that closes a session when it is the open one (it was deleted). */
  readonly closing: (sessionId: string) => Partial<HostState>
}

export class SessionsStore {
  readonly #deps: SessionsDeps

  constructor(deps: SessionsDeps) {
    this.#deps = deps
  }

  /** Takes in a session as the Host sent it, unless the page holds a newer account of it. */
  upsert(session: SessionSummary): void {
    const { state, workspaces } = this.#deps
    const current = state.get().sessions.get(session.id)
    if (current && current.updatedAt > session.updatedAt) return
    workspaces.know(session.workspaceId)
    const sessions = new Map(state.get().sessions)
    sessions.set(session.id, session)
    const reshaped =
      !current ||
      current.parentSession !== session.parentSession ||
      current.workspaceId !== session.workspaceId ||
      current.archived !== session.archived ||
      current.createdAt !== session.createdAt
    state.set({ sessions, ...(reshaped ? { treeVersion: state.get().treeVersion + 1 } : {}) })
  }

  /** A session the Host deleted: gone from the tree, and closed if it was open. */
  remove(sessionId: string): void {
    const { state } = this.#deps
    if (!state.get().sessions.has(sessionId)) return
    const sessions = new Map(state.get().sessions)
    sessions.delete(sessionId)
    // No unsubscribe: the Host drops the subscriptions of a deleted session itself.
    const closing = this.#deps.closing(sessionId)
    state.set({ sessions, treeVersion: state.get().treeVersion + 1, ...closing })
  }

  /** The patch for the whole list as the Host gave it (`session.list`). */
  listedPatch(list: readonly SessionSummary[]): Pick<HostState, 'sessions' | 'treeVersion'> {
    return {
      sessions: new Map(list.map((session) => [session.id, session])),
      treeVersion: this.#deps.state.get().treeVersion + 1,
    }
  }

  async createSession(workspaceId: string | null): Promise<SessionSummary | null> {
    const client = this.#deps.client()
    try {
      const { nextModel: model, nextMode: mode } = this.#deps.state.get()
      let session = await client.call('session.create', {
        ...(workspaceId !== null ? { workspaceId } : {}),
        ...(model !== null ? { model } : {}),
      })
      if (mode !== null && mode !== session.mode)
        session = await client.call('session.setMode', { sessionId: session.id, mode })
      this.upsert(session)
      await this.#deps.openSession(session.id)
      return session
    } catch (error) {
      this.#deps.notices.report(error)
      return null
    }
  }

  async rename(sessionId: string, title: string): Promise<void> {
    this.#deps.view.startRename(null)
    try {
      this.upsert(await this.#deps.client().call('session.rename', { sessionId, title }))
    } catch (error) {
      this.#deps.notices.report(error)
    }
  }

  async archive(sessionId: string, archived: boolean): Promise<void> {
    try {
      this.upsert(await this.#deps.client().call('session.archive', { sessionId, archived }))
    } catch (error) {
      this.#deps.notices.report(error)
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
    const { state, notices } = this.#deps
    const client = this.#deps.client()
    try {
      const result = await client.call('session.delete', { sessionId, ...(worktree ? { worktree } : {}) })
      this.remove(sessionId)
      // Children that got their prefix inline changed lineage: take the Host's word for it.
      state.set(this.listedPatch(await client.call('session.list', { includeArchived: true })))
      if (result.worktree) {
        const { path, removed, reason } = result.worktree
        notices.notify(
          'info',
          'worktree',
          removed
            ? `Removed its worktree ${path}.`
            : `Kept its worktree ${path}${reason ? `: ${reason}` : ''}.`,
          // The session is gone: its outcome belongs to the page.
          { sessionId: null },
        )
      }
      if (result.materialized.length > 0) {
        const n = result.materialized.length
        notices.notify(
          'info',
          'deleted',
          `Deleted. ${n} fork${n === 1 ? '' : 's'} kept ${n === 1 ? 'its' : 'their'} full history.`,
          { sessionId: null },
        )
      }
      return { deleted: true }
    } catch (error) {
      if (error instanceof RpcError && error.dataCode === 'worktree-dirty' && Array.isArray(error.data.paths))
        return { deleted: false, dirty: error.data.paths.map(String) }
      notices.report(error)
      return { deleted: false }
    }
  }

  /** The open session's model, or (none open) the model the next new session starts with. */
  async setModel(model: string): Promise<void> {
    const sessionId = this.#deps.state.get().openSessionId
    if (sessionId === null) {
      this.#deps.state.set({ nextModel: model })
      return
    }
    try {
      this.upsert(await this.#deps.client().call('session.setModel', { sessionId, model }))
    } catch (error) {
      this.#deps.notices.report(error)
    }
  }

  /** The open session's mode (allowed while a turn runs), or (none open) the next new session's. */
  async setMode(mode: SessionModeId): Promise<void> {
    const sessionId = this.#deps.state.get().openSessionId
    if (sessionId === null) {
      this.#deps.state.set({ nextMode: mode })
      return
    }
    try {
      this.upsert(await this.#deps.client().call('session.setMode', { sessionId, mode }))
    } catch (error) {
      this.#deps.notices.report(error)
    }
  }

  /**
   * Summarises the session's history with its model (`session.compact`); the event arrives
   * through the subscription. Resolves true when it was compacted.
   */
  async compact(sessionId: string): Promise<boolean> {
    try {
      const result = await this.#deps.client().call('session.compact', { sessionId })
      this.#deps.notices.notify(
        'info',
        'compacted',
        `Compacted: events 0–${result.throughSeq} are summarised for the model. Forks before #${result.seq} keep the full history.`,
        { sessionId },
      )
      return true
    } catch (error) {
      this.#deps.notices.report(error)
      return false
    }
  }
}
