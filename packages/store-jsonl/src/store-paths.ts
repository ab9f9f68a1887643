// Where a data directory keeps what: one log per session, its side files, the catalog (a snapshot
// and its journal) and the lock.
import path from 'node:path'

export interface StorePaths {
  readonly dir: string
  readonly sessionsDir: string
  /** The catalog's snapshot (docs/architecture.md §4). */
  readonly catalogFile: string
  /** Changes to the catalog since its snapshot, one small record a line (docs/architecture.md §4). */
  readonly catalogJournalFile: string
  /**
   * Present only while `catalog.json` is known to match every log: written by a close that
   * flushed everything and wrote the catalog, removed by the next writer's open before it
   * writes anything. Without it the catalog is checked against the logs' sizes.
   */
  readonly catalogCleanFile: string
  readonly lockFile: string
}

// Joined by hand: `root` is resolved (absolute, normalised, no trailing separator but for "/"), and
// ids are validated by core before they reach here (no separators, no dots), so `path.join` would
// change nothing; every open and load builds these.
export function storePaths(dir: string): StorePaths {
  const root = isResolved(dir) ? dir : path.resolve(dir)
  const base = root === path.sep ? root : root + path.sep
  return {
    dir: root,
    sessionsDir: `${base}sessions`,
    catalogFile: `${base}catalog.json`,
    catalogJournalFile: `${base}catalog.journal`,
    catalogCleanFile: `${base}catalog.clean`,
    lockFile: `${base}lock`,
  }
}

/**
 * True when `path.resolve(dir)` would return `dir` itself (absolute, no empty, "." or ".."
 * segment, no trailing separator): the usual TANGENT_HOME, checked without `path.resolve`'s
 * steps (every open builds these paths). POSIX only; elsewhere `path.resolve` decides.
 */
function isResolved(dir: string): boolean {
  if (path.sep !== '/' || dir.length < 2 || dir.charCodeAt(0) !== 47 || dir.endsWith('/')) return false
  return (
    !dir.includes('//') &&
    !dir.includes('/./') &&
    !dir.includes('/../') &&
    !dir.endsWith('/.') &&
    !dir.endsWith('/..')
  )
}

/** `sessions/<id>.jsonl`. */
export function sessionLogFile(paths: StorePaths, id: string): string {
  return `${paths.sessionsDir}${path.sep}${id}.jsonl`
}

/** Where torn tails cut off a log are kept (appended, never dropped). */
export function tornFile(paths: StorePaths, id: string): string {
  return `${paths.sessionsDir}${path.sep}${id}.jsonl.torn`
}

/** Marker of an archived session: survives a catalog rebuild without touching the log. */
export function archivedMarkerFile(paths: StorePaths, id: string): string {
  return `${paths.sessionsDir}${path.sep}${id}.archived`
}
