// The worktrees of sessions (docs/architecture.md §5, §7): which sessions work in a folder, whether
// removing a worktree would lose changes (`worktree-dirty`), removing the worktree of a deleted
// session or of a kept branch's sibling — never one another session still works in — and removing
// the worktrees no session owns (a crash in the middle of a worktree fork).
import { type Session, type SessionPersistence, TangentError } from '@tangent/core'
import type { FileState } from '@tangent/files'
import { latestTree } from './fork-point.js'
import { isInside } from './workspaces.js'

export interface SessionWorktreesDeps {
  store: SessionPersistence
  load(sessionId: string): Promise<Session>
  fileState(): Promise<FileState>
}

export class SessionWorktrees {
  readonly #deps: SessionWorktreesDeps
  readonly #store: SessionPersistence

  constructor(deps: SessionWorktreesDeps) {
    this.#deps = deps
    this.#store = deps.store
  }

  /** Sessions (loaded or only on disk) whose cwd is `folder` or inside it. */
  async sessionsWorkingIn(folder: string): Promise<string[]> {
    const ids = new Set<string>()
    for (const entry of await this.#store.listView()) if (isInside(entry.cwd, folder)) ids.add(entry.id)
    for (const session of this.#store.store.sessions())
      if (isInside(session.header.cwd, folder)) ids.add(session.id)
    return [...ids].sort()
  }

  /** Refuses (`worktree-dirty`) when removing the worktree of `sessionId` would lose changes. */
  async assertClean(sessionId: string, worktree: string): Promise<void> {
    // Kept anyway for the sessions working in it (shared forks): nothing is lost then.
    if ((await this.sessionsWorkingIn(worktree)).some((id) => id !== sessionId)) return
    let changes: { dirty: string[]; removeBy: string }
    try {
      changes = await (await this.#deps.fileState()).worktreeChanges(worktree)
    } catch (error) {
      // Not (or no longer) a worktree Tangent made: nothing of it is removed; the answer says so.
      if (TangentError.hasCode(error, 'not-a-worktree')) return
      throw error
    }
    const { dirty } = changes
    if (dirty.length === 0) return
    throw new TangentError(
      'worktree-dirty',
      `Session ${sessionId} was not deleted: its worktree ${worktree} has ${dirty.length} uncommitted change(s) that removing it would lose: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ', …' : ''}. Commit or copy them and delete again, or delete it with worktree "keep" (the folder stays) or "force" (removed with its changes).`,
      { sessionId, path: worktree, paths: dirty },
    )
  }

  /** The worktree of a deleted session, removed as asked; what was kept says why (never throws). */
  async removeDeleted(
    worktree: string,
    choice: 'remove' | 'force',
  ): Promise<{ removed: boolean; reason?: string }> {
    // A worktree other sessions work in (shared forks of this one) is never removed, even by force.
    const users = await this.sessionsWorkingIn(worktree)
    if (users.length > 0) return { removed: false, reason: `sessions ${users.join(', ')} still work in it` }
    try {
      // Without force only a clean worktree is removed (a change that landed since the check above
      // keeps it, and the reason says how to remove it by hand).
      const outcome = await (await this.#deps.fileState()).removeWorktree(worktree, {
        force: choice === 'force',
      })
      return { removed: outcome.removed, ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}) }
    } catch (error) {
      return { removed: false, reason: error instanceof Error ? error.message : String(error) }
    }
  }

  /**
   * Removes a branch's worktree when every file in it is as the branch's latest snapshot has it
   * (its own, else the fork point's tree in its header: a branch that ran no tool has none of its
   * own), so a fork of the branch brings it back; otherwise keeps it and says which files differ.
   */
  async removeCaptured(sessionId: string, worktree: string): Promise<{ removed: boolean; reason?: string }> {
    try {
      const files = await this.#deps.fileState()
      // No tree known at all (forked before any snapshot): the tree the worktree was made with.
      const since = latestTree(await this.#deps.load(sessionId)) ?? undefined
      const outcome = await files.removeWorktree(worktree, since !== undefined ? { since } : {})
      if (outcome.dirty !== undefined && outcome.dirty.length > 0) {
        const { dirty } = outcome
        return {
          removed: false,
          reason: `${dirty.length} file(s) changed since the branch's last snapshot were kept: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ', …' : ''}`,
        }
      }
      return { removed: outcome.removed, ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}) }
    } catch (error) {
      return { removed: false, reason: error instanceof Error ? error.message : String(error) }
    }
  }

  /** Removes worktrees no session owns (a crash in the middle of a worktree fork). */
  async reconcile(startedAt: number, log: (message: string) => void): Promise<void> {
    const known = new Set((await this.#store.list()).map((entry) => entry.id))
    const entries = await this.#store.listView()
    const result = await (await this.#deps.fileState()).reconcileWorktrees(
      (sessionId) => known.has(sessionId) || this.#store.store.has(sessionId),
      // Forks made since start are finishing or published: only older records can be orphans;
      // a worktree a session works in (a shared fork of a deleted one) is never removed.
      {
        createdBefore: startedAt,
        usersOf: (root) => entries.filter((entry) => isInside(entry.cwd, root)).map((entry) => entry.id),
      },
    )
    for (const removed of result.removed) log(`tangent: removed ${removed}, a worktree no session owns`)
    for (const kept of result.kept) log(`tangent: kept ${kept.path} (no session owns it): ${kept.reason}`)
  }
}
