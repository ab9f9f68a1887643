// Deleting a session (docs/architecture.md §4, §7): also one whose log cannot be loaded; its agent
// stops, its log goes (children that read through it get their own copy), and its worktree is
// removed, kept, or removed by force as asked — refused beforehand when removing it would lose
// changes, since once the session is gone no Tangent command can remove it any more.
import { type Session, type SessionPersistence, TangentError } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type { SessionDeleteParams, SessionDeleteResult } from '@tangent/protocol'
import type { AgentPool } from './agent-pool.js'
import type { Announcements } from './announcements.js'
import type { Forks } from './forks.js'
import { headerMetaOf, type SessionHeaderMeta } from './header-meta.js'
import { keepDeletedWorktree, keepDestination } from './kept-worktree.js'
import type { RuntimeEmitter } from './runtime-events.js'
import type { SessionBusy } from './session-busy.js'
import type { SessionWorktrees } from './session-worktrees.js'
import type { WorkspaceFolders } from './workspace-folders.js'
import type { WriteAccess } from './write-access.js'

export interface SessionDeletionDeps {
  store: SessionPersistence
  access: WriteAccess
  busy: SessionBusy
  load(sessionId: string): Promise<Session>
  agents: AgentPool
  forks: Forks
  announcements: Announcements
  emitter: RuntimeEmitter
  worktrees: SessionWorktrees
  folders: WorkspaceFolders
  /** The data directory's real path: a kept worktree is never moved into it. */
  realHome: string
  fileState(): Promise<FileState>
}

export class SessionDeletion {
  readonly #deps: SessionDeletionDeps
  readonly #store: SessionPersistence

  constructor(deps: SessionDeletionDeps) {
    this.#deps = deps
    this.#store = deps.store
  }

  async delete(params: SessionDeleteParams): Promise<SessionDeleteResult> {
    const { access, busy } = this.#deps
    access.assertWritable('delete a session')
    let session: Session
    try {
      session = await this.#deps.load(params.sessionId)
    } catch (error) {
      // A session that cannot be loaded (its log or a parent's is damaged or missing) can still
      // be deleted: nothing can run in it, and its header (files mode, worktree) is in the index.
      if (!TangentError.hasCode(error, 'corrupt-log') && !TangentError.hasCode(error, 'parent-log-missing'))
        throw error
      const entry = await this.#store.get(params.sessionId)
      if (!entry && !this.#store.damaged().includes(params.sessionId)) throw error
      const meta = entry ? headerMetaOf(entry.header) : {}
      return access.claimed(params.sessionId, () => this.#deleteNow(params, params.sessionId, meta))
    }
    const takeover = access.takeOverAbandoned(session)
    if (takeover) await takeover
    busy.assertIdle(session, 'delete it')
    const meta = headerMetaOf(session.header)
    return busy.exclusively(session, 'being deleted', () =>
      access.claimed(session.id, () => this.#deleteNow(params, session.id, meta)),
    )
  }

  /**
   * Deletes a session's log, then its worktree as asked. A worktree with changes removing it
   * would lose is refused before anything is deleted (`worktree-dirty`), unless `worktree` is
   * `keep` or `force`: once the session is gone no Tangent command can remove it any more.
   */
  async #deleteNow(
    params: SessionDeleteParams,
    sessionId: string,
    meta: SessionHeaderMeta,
  ): Promise<SessionDeleteResult> {
    const { worktrees, announcements } = this.#deps
    const worktree = meta.files?.mode === 'worktree' ? meta.files.path : undefined
    const choice = params.worktree ?? 'remove'
    if (worktree !== undefined && choice === 'remove') await worktrees.assertClean(sessionId, worktree)
    const keepTo =
      params.keepTo !== undefined
        ? await keepDestination(params, worktree, {
            folders: this.#deps.folders.base(),
            realHome: this.#deps.realHome,
          })
        : undefined
    this.#deps.agents.remove(sessionId)
    const { materialized } = await this.#store.delete(sessionId)
    this.#deps.forks.forget(sessionId)
    announcements.dropSubscribers(sessionId)
    this.#deps.emitter.emit('session-deleted', sessionId)
    for (const childId of materialized) announcements.announce(childId, 'session-updated')
    if (worktree === undefined) return { deleted: true as const, materialized }
    const outcome =
      choice === 'keep'
        ? await keepDeletedWorktree(await this.#deps.fileState(), worktree, {
            to: keepTo,
            users: await worktrees.sessionsWorkingIn(worktree),
          })
        : await worktrees.removeDeleted(worktree, choice)
    return { deleted: true as const, materialized, worktree: { path: worktree, ...outcome } }
  }
}
