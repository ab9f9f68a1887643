// Small pure pieces of the runtime: listing order, the default title of a fork, the version,
// and how a restore a crash interrupted is reported.
import type { Session } from '@tangent/core'
import type { RecoveredRestore } from '@tangent/files'
import type { SessionSummary } from '@tangent/protocol'

/** "<source title> · fork N", N counting the source's forks (this one included). */
export function forkTitle(
  source: Session,
  listed: readonly { id: string; parentSession: string | null }[],
  live: Iterable<Session>,
): string {
  let forks = 0
  const ids = new Set<string>()
  for (const entry of listed) {
    ids.add(entry.id)
    if (entry.parentSession === source.id) forks++
  }
  for (const session of live) if (session.header.parentSession === source.id && !ids.has(session.id)) forks++
  const base = source.title?.trim() || `Session ${source.id.slice(-6)}`
  return `${base} · fork ${forks + 1}`.slice(0, 200)
}

/** The store's listing order: oldest first, then by id (code units). */
export function byAge(a: SessionSummary, b: SessionSummary): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/** One line on a restore a crash interrupted, and what was done about it. */
export function describeRecovery(recovered: RecoveredRestore): string {
  const what =
    recovered.action === 'rolled-back'
      ? `rolled back (${recovered.rewritten.length} path(s) put back as before it; restore again to redo it)`
      : recovered.action === 'finished'
        ? `finished (it was recorded in the session's log and all ${recovered.paths.length} path(s) were written)`
        : `${recovered.action}${recovered.reason ? `: ${recovered.reason}` : ''}`
  return `warning: a restore in ${recovered.cwd} was interrupted by a crash: ${what}`
}

/**
 * This package's version (package.json's; a test keeps them equal). A constant, not read from
 * '../package.json' at run time: the CLI runs this code bundled, where no such path exists
 * (docs/architecture.md §9).
 */
export const runtimeVersion = '0.1.0'
