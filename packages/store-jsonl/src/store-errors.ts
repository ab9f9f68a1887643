// The store's own errors (codes beyond core's): each says what to do about it.
import { TangentError } from '@tangent/core'

export function sessionNotFound(id: string): TangentError {
  return new TangentError('session-not-found', `Session ${id} not found in this data directory.`, {
    sessionId: id,
  })
}

export function sessionExists(id: string): TangentError {
  return new TangentError('session-exists', `Session ${id} already exists on disk: load it instead.`, {
    sessionId: id,
  })
}

/** A log that is missing or damaged (as reading a chain of parents finds it). */
export function isUnreadable(error: unknown): boolean {
  return (
    (error as NodeJS.ErrnoException | null)?.code === 'ENOENT' ||
    TangentError.hasCode(error, 'corrupt-log') ||
    TangentError.hasCode(error, 'parent-log-missing')
  )
}

/**
 * Deleting session `parent` is refused: its fork `child` reads its first `count` events through
 * it and they cannot be read to copy them into the fork (the same code and wording as the
 * PostgreSQL engine's). Nothing was deleted.
 */
export function prefixUnreadable(
  parent: string,
  child: string,
  count: number,
  file: string,
  cause: unknown,
): TangentError {
  const why =
    (cause as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'a log of its chain of parents is missing'
      : cause instanceof Error
        ? cause.message
        : String(cause)
  return new TangentError(
    TangentError.hasCode(cause, 'corrupt-log') ? 'corrupt-log' : 'parent-log-missing',
    `Session ${child} reads its first ${count} events through session ${parent}, but they cannot be read (${why}): nothing was deleted. Delete ${child} first (that history is lost with ${parent}'s), or restore the damaged log.`,
    { sessionId: child, parentSession: parent, file, line: 1 },
  )
}

export function storeClosed(): TangentError {
  return new TangentError('store-closed', 'This JsonlStore is closed: open the data directory again.')
}

export function storeReadOnly(what: string): TangentError {
  return new TangentError(
    'store-read-only',
    `This JsonlStore was opened read-only and cannot ${what}: open it without readOnly (it takes the writer lock).`,
  )
}

/**
 * What a writer's open met when the data directory could not be written (its lock, its folders):
 * a full disk is `disk-full`; a read-only file system or a permission refused is
 * `store-write-failed`; a file where the directory should be is `home-not-directory`. Both say that a read-only command still works. Other errors pass as they are.
 */
export function unwritableDataDir(dir: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new TangentError(
      'disk-full',
      `The disk holding the data directory ${dir} is full (or over its quota): nothing could be written there, not even the writer's lock. Free some space and run the command again; commands that only read (tangent sessions, tangent show) still work.`,
      { path: dir },
      { cause: error },
    )
  }
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    const why = code === 'EROFS' ? 'is on a read-only file system' : 'cannot be written by this user'
    return new TangentError(
      'store-write-failed',
      `The data directory ${dir} ${why} (${code}): Tangent cannot take its writer lock there. Point TANGENT_HOME at a writable directory; commands that only read (tangent sessions, tangent show) still work.`,
      { file: dir },
      { cause: error },
    )
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new TangentError(
      'home-not-directory',
      `The data directory ${dir} is not a directory (a file is in the way): point TANGENT_HOME (or migrate's --to) at a directory.`,
      { home: dir },
      { cause: error },
    )
  }
  return error
}

/**
 * Something the store skipped, left alone or repaired at open that a person should know
 * about. Each names the file and says what was done. `JsonlStore.warnings()` lists them;
 * `onWarning` hears each as it is found.
 */
export interface StoreWarning {
  readonly kind:
    | 'skipped-file' // a `<id>.jsonl` that is not a regular file (FIFO, directory, link) or cannot be read
    | 'damaged-log' // a log without a header this version reads: not listed, left alone
    | 'moved-to-torn' // a log without even a complete header line: its bytes were moved to .torn
    | 'parent-loop' // sessions whose parents loop: listed with `parentLoop`, cannot load
    | 'catalog-rebuilt' // catalog.json could not be used and was rebuilt from the logs
    | 'open-permissions' // the data directory can be read or entered by other users
  readonly file: string
  readonly message: string
}
