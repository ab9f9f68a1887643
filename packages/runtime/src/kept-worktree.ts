// A worktree kept on purpose when its session is deleted (`worktree: 'keep'`, docs/architecture.md
// §5): it becomes the user's — a plain copy leaves the private data directory, what stays is
// recorded as kept so no start reports it again — and the answer says where it is.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type { SessionDeleteParams } from '@tangent/protocol'
import { type FolderPathOptions, realFolder, resolveFolderPath } from './folders.js'
import { isInside } from './workspaces.js'

export interface KeptWorktreeOutcome {
  removed: false
  reason: string
  /** Where the folder is now. */
  keptAt?: string
}

/**
 * Where `keepTo` moves a kept worktree: a new folder whose parent exists, outside the data
 * directory. Checked before anything is deleted (`invalid-params` otherwise).
 */
export async function keepDestination(
  params: SessionDeleteParams,
  worktree: string | undefined,
  options: { folders: FolderPathOptions; realHome: string },
): Promise<string> {
  const refuse = (message: string) =>
    new TangentError('invalid-params', `${message} Nothing was deleted.`, {
      issues: [{ path: ['keepTo'], message }],
    })
  if (params.worktree !== 'keep') throw refuse('keepTo needs worktree "keep".')
  if (worktree === undefined) throw refuse(`Session ${params.sessionId} has no worktree to keep.`)
  const resolved = resolveFolderPath(params.keepTo ?? '', options.folders)
  const destination = path.join(
    await realFolder(path.dirname(resolved), options.folders),
    path.basename(resolved),
  )
  if (existsSync(destination)) throw refuse(`${destination} already exists: name a new folder.`)
  if (isInside(destination, options.realHome))
    throw refuse(`${destination} is inside Tangent's data directory.`)
  return destination
}

/**
 * Keeps the worktree of a deleted session for the user (never throws): moved to `to` or beside
 * its project when it is a plain copy, left in place — and recorded as kept — when it is a git
 * worktree or `users` (sessions still working in it) would lose their directory.
 */
export async function keepDeletedWorktree(
  files: FileState,
  worktree: string,
  options: { to: string | undefined; users: readonly string[] },
): Promise<KeptWorktreeOutcome> {
  const { to, users } = options
  try {
    const kept = await files.keepWorktree(worktree, users.length > 0 ? { stay: true } : to ? { to } : {})
    const reason = kept.moved
      ? `kept as asked: moved out of Tangent's data directory to ${kept.path}; it is yours now`
      : users.length > 0
        ? `kept as asked: sessions ${users.join(', ')} still work in it`
        : `kept as asked; remove it with: ${kept.removeBy}`
    return { removed: false, reason, keptAt: kept.path }
  } catch (error) {
    // Not (or no longer) a worktree Tangent made: nothing of it is touched.
    if (TangentError.hasCode(error, 'not-a-worktree')) return { removed: false, reason: 'kept as asked' }
    // The move failed (a full disk, git refusing): it stays where it is, recorded as kept.
    const why = error instanceof Error ? error.message : String(error)
    const stayed = await files.keepWorktree(worktree, { stay: true }).catch(() => null)
    return {
      removed: false,
      reason: `kept as asked, but it could not be moved: ${why}`,
      ...(stayed ? { keptAt: stayed.path } : {}),
    }
  }
}
