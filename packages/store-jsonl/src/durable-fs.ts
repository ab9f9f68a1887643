// Small durable file-system steps: fsync a directory, write a file atomically, append and sync.
// Every file the store opens is opened without following a symbolic link and without blocking
// on a FIFO, and must be a regular file; every file and directory it creates is private
// (0600 / 0700, whatever the umask).
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs'
import { type FileHandle, open, rename, unlink } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'

/** Mode of every file the store creates (logs, .torn, catalog, lock, markers). */
export const privateFileMode = 0o600
/** Mode of every directory the store creates. */
export const privateDirMode = 0o700

// O_NOFOLLOW: a log that is a symbolic link could lead out of the data directory, and crash
// repair writes; O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
// forever. Neither changes anything for a regular file. (Both are 0 where the OS lacks them.)
const noFollow = constants.O_NOFOLLOW ?? 0
const noBlock = constants.O_NONBLOCK ?? 0
export const openFlags = {
  read: constants.O_RDONLY,
  readWrite: constants.O_RDWR,
  append: constants.O_WRONLY | constants.O_APPEND,
  appendOrCreate: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
  createNew: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL,
  createOrTruncate: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
} as const

/** What a directory entry is, in words, when it is not a regular file. */
export function fileKind(
  stats: Pick<Stats, 'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket'>,
) {
  if (stats.isFile()) return 'regular file'
  if (stats.isDirectory()) return 'directory'
  if (stats.isSymbolicLink()) return 'symbolic link'
  if (stats.isFIFO()) return 'FIFO'
  if (stats.isSocket()) return 'socket'
  return 'device'
}

/** The error for a session log (or side file) that is not a regular file: refused, never followed. */
export function notRegularFile(file: string, kind: string): TangentError {
  const link = kind === 'symbolic link' ? ' (the store never follows a link out of its data directory)' : ''
  return new TangentError(
    'corrupt-log',
    `${file} is a ${kind}, not a regular file: the store does not read or write it${link}. Replace it with the file itself, or move it away.`,
    { file, line: 1, kind },
  )
}

/**
 * Opens `file` with `flags`, refusing (as `notRegularFile`) a symbolic link, a FIFO, a
 * directory or a device. A file it creates gets mode 0600 whatever the umask.
 */
export async function openRegularFile(file: string, flags: number): Promise<FileHandle> {
  let handle: FileHandle
  try {
    handle = await open(file, flags | noFollow | noBlock, privateFileMode)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'EMLINK') throw notRegularFile(file, 'symbolic link')
    if (code === 'EISDIR') throw notRegularFile(file, 'directory')
    if (code === 'ENXIO') throw notRegularFile(file, 'socket or FIFO')
    throw error
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) throw notRegularFile(file, fileKind(stats))
    if ((flags & constants.O_CREAT) !== 0 && (stats.mode & 0o777) !== privateFileMode)
      await handle.chmod(privateFileMode)
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * `openRegularFile` for reading, without the thread pool: opening and checking a file takes two
 * system calls of microseconds each, while each asynchronous step waits for a pool thread (a
 * small log is read faster than three such waits). Returns the descriptor and the file's size.
 */
export function openRegularFileForReading(file: string): { fd: number; size: number } {
  let fd: number
  try {
    fd = openSync(file, openFlags.read | noFollow | noBlock)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'EMLINK') throw notRegularFile(file, 'symbolic link')
    if (code === 'EISDIR') throw notRegularFile(file, 'directory')
    if (code === 'ENXIO') throw notRegularFile(file, 'socket or FIFO')
    throw error
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) throw notRegularFile(file, fileKind(stats))
    return { fd, size: stats.size }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** Makes a directory entry change (create, rename, unlink) durable. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * Test seam: called before each write with the file and the number of bytes. A number lets
 * that many bytes through (all of them, if it is not less), then the write fails with ENOSPC:
 * a full disk, or a write whose bytes went in but whose sync failed. Null: no fault. Null in
 * production; only this package's tests set it.
 */
export type WriteFault = (file: string, bytes: number) => number | null
let writeFault: WriteFault | null = null
export function injectWriteFault(fault: WriteFault | null): void {
  writeFault = fault
}

function noSpace(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${file}' (injected)`), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  })
}

/** Writes every byte of `data` at the handle's position (appends for an append handle). */
export async function writeAll(handle: FileHandle, data: Buffer, file: string): Promise<void> {
  const allowed = writeFault?.(file, data.length) ?? null
  const length = allowed === null ? data.length : Math.max(0, Math.min(allowed, data.length))
  let offset = 0
  while (offset < length) {
    const { bytesWritten } = await handle.write(data, offset, length - offset)
    offset += bytesWritten
  }
  if (allowed !== null) throw noSpace(file)
}

/** A temp name next to `file` (same directory, so rename is atomic). */
export function tempFileFor(file: string): string {
  return path.join(
    path.dirname(file),
    // node:crypto on first use: importing it costs start-up that a command that only reads never needs.
    `.${path.basename(file)}.tmp-${process.pid}-${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}`,
  )
}

/** Replaces `file` with `chunks`: temp file (0600), fsync, rename, fsync of the directory. */
export async function writeFileAtomic(file: string, chunks: readonly (Buffer | string)[]): Promise<number> {
  return (await replaceFile(file, chunks))!.size
}

/**
 * `writeFileAtomic` with what the catalog needs besides: the new file's stats, taken before the
 * rename (so they are this write's even if another process renames over it a moment later), and
 * `beforeRename`, which abandons the write (the temp file removed, null returned) when false.
 */
export async function replaceFile(
  file: string,
  chunks: readonly (Buffer | string)[],
  beforeRename?: () => boolean,
): Promise<{ size: number; stats: Stats } | null> {
  const temp = tempFileFor(file)
  let size = 0
  let stats: Stats
  const handle = await openRegularFile(temp, openFlags.createNew)
  try {
    for (const chunk of chunks) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      await writeAll(handle, buffer, file)
      size += buffer.length
    }
    await handle.sync()
    stats = await handle.stat()
  } catch (error) {
    await handle.close()
    await unlink(temp).catch(() => undefined) // best effort: the original error is what matters
    throw error
  }
  await handle.close()
  try {
    if (beforeRename && !beforeRename()) {
      await unlink(temp)
      return null
    }
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await fsyncDirectory(path.dirname(file))
  return { size, stats }
}

/** Appends `data` to `file` (created 0600 if missing; never through a link) and syncs it. */
export async function appendDurable(file: string, data: Buffer): Promise<void> {
  const handle = await openRegularFile(file, openFlags.appendOrCreate)
  try {
    await writeAll(handle, data, file)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fsyncDirectory(path.dirname(file))
}

/** Creates (or keeps) an empty private marker file, never through a link. */
export async function touchPrivateFile(file: string): Promise<void> {
  const handle = await openRegularFile(file, openFlags.appendOrCreate)
  await handle.close()
}

/** Removes `file`; a file that is already gone is fine. */
export async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
