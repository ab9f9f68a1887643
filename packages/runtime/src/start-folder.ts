// The folder a runtime was started in (docs/architecture.md §9): its real path, the name as given
// when it no longer exists (reads work from anywhere), and refused (`not-a-directory`) as the
// folder new work starts in.
import { realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { RuntimeOptions } from './runtime-options.js'

/**
 * The start folder as a real path. One that no longer exists (removed under the shell, as a
 * worktree fork's folder may be) or is a file keeps the name as given: nothing but a session
 * started there needs it, and that is refused (`assertStartFolder`), while reads, forks, renames
 * and the rest work as from anywhere.
 */
export function startFolderOf(options: Pick<RuntimeOptions, 'startFolder'>): string {
  // The CLI names its folder (the shell's PWD or /proc when process.cwd() fails: bin.ts); another
  // caller without one whose folder was removed gets the error below.
  let named = options.startFolder
  if (named === undefined) {
    try {
      named = process.cwd()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      named = ''
    }
  }
  try {
    return realpathSync(named)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
    if (path.isAbsolute(named)) return path.normalize(named)
  }
  throw startFolderGone(named)
}

/** Refuses to start work in the start folder when it is gone or is not a folder. */
export function assertStartFolder(folder: string): void {
  let isFolder = false
  try {
    isFolder = statSync(folder).isDirectory()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
  }
  if (!isFolder) throw startFolderGone(folder)
}

function startFolderGone(named: string): TangentError {
  return new TangentError(
    'not-a-directory',
    `The folder this runs in, ${named === '' ? 'the current folder' : named}, no longer exists or is not a folder (was it removed?): run it from an existing folder.`,
    { cwd: named },
  )
}
