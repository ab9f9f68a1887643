// The data directory's own housekeeping at open (docs/architecture.md §4): created private,
// its permissions checked, temp files of interrupted atomic writes removed.
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { privateDirMode, unlinkIfPresent } from './durable-fs.js'
import type { StoreWarning } from './store-errors.js'
import type { StorePaths } from './store-paths.js'

/**
 * Temp files of atomic writes that a crash interrupted (the target was never replaced).
 * Only the writer's own kinds: a lock temp file may belong to a process racing for the lock.
 */
export async function removeTempFiles(paths: StorePaths, tempLogFiles: readonly string[]): Promise<void> {
  for (const name of readdirSync(paths.dir))
    if (name.startsWith('.catalog.json.tmp-') || name.startsWith('.catalog.journal.tmp-'))
      await unlinkIfPresent(path.join(paths.dir, name))
  // Those of `sessions/` were seen by the catalog's readdir (one pass over 10,000 names, not two).
  for (const name of tempLogFiles) await unlinkIfPresent(path.join(paths.sessionsDir, name))
}

/** True when a directory entry exists at `file` (a dangling link counts: nothing may be created there). */
export function entryExists(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false }) !== undefined
}

/**
 * Creates the data directory and `sessions/` private (0700, whatever the umask); an
 * existing one is left as it is, with a warning when other users can read or enter it.
 */
export function makePrivateDirs(paths: StorePaths): StoreWarning[] {
  mkdirSync(path.dirname(paths.dir), { recursive: true })
  for (const dir of [paths.dir, paths.sessionsDir]) {
    try {
      mkdirSync(dir, { mode: privateDirMode })
      chmodSync(dir, privateDirMode) // the umask may have taken bits away; it never adds any
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  return permissionWarnings(paths)
}

/**
 * The data directory's mode, when other users can read or enter it. Only its own: while it is
 * private, nothing under it (sessions/ included) can be reached by another user whatever its
 * mode, and one stat is a fifth of a reader's open of a small log.
 */
export function permissionWarnings(paths: StorePaths): StoreWarning[] {
  const dir = paths.dir
  const stats = statSync(dir, { throwIfNoEntry: false })
  if (!stats?.isDirectory() || (stats.mode & 0o077) === 0) return []
  const mode = (stats.mode & 0o777).toString(8).padStart(3, '0')
  return [
    {
      kind: 'open-permissions',
      file: dir,
      message: `${dir} has mode ${mode}: other users can read or enter it, and it holds private session logs. Make it private with: chmod 700 ${dir}`,
    },
  ]
}
