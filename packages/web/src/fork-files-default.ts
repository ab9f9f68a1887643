// Which files mode a fork is offered first. A branch that shares its parent's folder sees and
// overwrites the parent's edits, so once the parent has changed files the dialog starts on a
// worktree of its own; a session that changed nothing starts on the shared folder, which is free.
import type { SessionEvent } from './wire.js'

export type ForkFilesMode = 'shared' | 'worktree'

/**
 * True when a turn of the session changed files (a `snapshot/taken` after a turn began, or a
 * `files/restored`, with paths in `changed`). The baseline snapshot taken before the first turn
 * lists the folder as it was found, not changes, so it does not count.
 */
export function sessionChangedFiles(events: readonly SessionEvent[]): boolean {
  let turnSeen = false
  for (const event of events) {
    if (event.type === 'turn/start') turnSeen = true
    else if (event.type === 'snapshot/taken' ? turnSeen : event.type === 'files/restored') {
      const changed = (event.data as { changed?: unknown } | null)?.changed
      if (Array.isArray(changed) && changed.length > 0) return true
    }
  }
  return false
}

/** `worktree` when the session changed files, else `shared`; `shared` when its log is not loaded. */
export function forkFilesDefault(events: readonly SessionEvent[] | undefined): ForkFilesMode {
  return events && sessionChangedFiles(events) ? 'worktree' : 'shared'
}
