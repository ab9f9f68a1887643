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

export function storePaths(dir: string): StorePaths {
  const root = path.resolve(dir)
  return {
    dir: root,
    sessionsDir: path.join(root, 'sessions'),
    catalogFile: path.join(root, 'catalog.json'),
    catalogJournalFile: path.join(root, 'catalog.journal'),
    catalogCleanFile: path.join(root, 'catalog.clean'),
    lockFile: path.join(root, 'lock'),
  }
}

/** `sessions/<id>.jsonl`; ids are validated by core before they reach here. */
export function sessionLogFile(paths: StorePaths, id: string): string {
  return path.join(paths.sessionsDir, `${id}.jsonl`)
}

/** Where torn tails cut off a log are kept (appended, never dropped). */
export function tornFile(paths: StorePaths, id: string): string {
  return path.join(paths.sessionsDir, `${id}.jsonl.torn`)
}

/** Marker of an archived session: survives a catalog rebuild without touching the log. */
export function archivedMarkerFile(paths: StorePaths, id: string): string {
  return path.join(paths.sessionsDir, `${id}.archived`)
}
