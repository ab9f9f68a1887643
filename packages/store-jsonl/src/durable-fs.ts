// Small durable file-system steps: fsync a directory, write a file atomically, append and sync.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { type FileHandle, open, rename, unlink } from 'node:fs/promises'
import path from 'node:path'

/** Makes a directory entry change (create, rename, unlink) durable. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Writes every byte of `data` at the handle's position (appends for an 'a' handle). */
export async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset)
    offset += bytesWritten
  }
}

/** A temp name next to `file` (same directory, so rename is atomic). */
export function tempFileFor(file: string): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  )
}

/** Replaces `file` with `chunks`: temp file, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(file: string, chunks: readonly (Buffer | string)[]): Promise<number> {
  const temp = tempFileFor(file)
  let size = 0
  const handle = await open(temp, 'wx')
  try {
    for (const chunk of chunks) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      await writeAll(handle, buffer)
      size += buffer.length
    }
    await handle.sync()
  } catch (error) {
    await handle.close()
    await unlink(temp).catch(() => undefined) // best effort: the original error is what matters
    throw error
  }
  await handle.close()
  await rename(temp, file)
  await fsyncDirectory(path.dirname(file))
  return size
}

/** Appends `data` to `file` (created if missing) and syncs it before resolving. */
export async function appendDurable(file: string, data: Buffer): Promise<void> {
  const handle = await open(file, 'a')
  try {
    await writeAll(handle, data)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fsyncDirectory(path.dirname(file))
}

/** Removes `file`; a file that is already gone is fine. */
export async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
