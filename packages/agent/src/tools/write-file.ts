// How `write` and `edit` put content into a file they opened inside the working directory
// (openConfined, ../confine-path.ts) without writing through to a file outside it.
//
// A hard link is a second name of the same file, and nothing in a name says where the other
// names are: writing into a file with more than one link may change a file outside the working
// directory (`ln ~/.bashrc notes.txt`). Such a file is therefore never written into: the new
// content goes to a new file beside it that is renamed over this name. This name then holds the
// new content; the other names keep the old one. (Refusing instead would break ordinary
// projects: package managers hard-link files from a shared store into node_modules, and an
// edit there must not change the store.) A file with one link is written in place, as before:
// its mode, owner and inode stay. The link count is read from the open file, so what is
// checked is what is written; the new file and the rename are named relative to the open folder.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import fs, { type FileHandle } from 'node:fs/promises'
import { TangentError } from '@tangent/core'
import type { ConfinedDirectory } from '../confined-directory.js'

export interface WriteOutcome {
  /** The file had other hard links: it was replaced, and they kept the old content. */
  readonly replacedLink: boolean
  /** Its size afterwards. */
  readonly size: number
}

/** An open file and the open folder holding it (what openConfined gives for a file). */
export interface OpenFile {
  readonly handle: FileHandle
  readonly parent: ConfinedDirectory
  readonly name: string
  readonly path: { readonly relative: string }
}

/**
 * Writes `content` as the whole file (or at its end with `append`). The file was opened for
 * writing (O_WRONLY or O_RDWR, O_APPEND for append); the caller closes it.
 */
export async function writeFileInPlace(
  file: OpenFile,
  content: string,
  options: { append?: boolean } = {},
): Promise<WriteOutcome> {
  const stat = await file.handle.stat()
  if (!stat.isFile()) {
    throw new TangentError(
      'tool-failed',
      `${file.path.relative} is not a regular file: it cannot be written.`,
    )
  }
  const data = Buffer.from(content)
  if (stat.nlink <= 1) {
    if (options.append) await writeAll(file.handle, data, null)
    else {
      await file.handle.truncate(0)
      await writeAll(file.handle, data, 0)
    }
    return { replacedLink: false, size: (await file.handle.stat()).size }
  }
  const previous = options.append ? await readAll(file.handle, stat.size) : Buffer.alloc(0)
  const whole = Buffer.concat([previous, data])
  await replaceFile(file, whole, stat.mode & 0o7777)
  return { replacedLink: true, size: whole.byteLength }
}

/** The whole content of an open file, read from its start. */
export async function readAll(handle: FileHandle, size: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let position = 0
  for (;;) {
    const buffer = Buffer.alloc(Math.max(size - position, 64 * 1024))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
    if (bytesRead === 0) break
    chunks.push(buffer.subarray(0, bytesRead))
    position += bytesRead
  }
  return Buffer.concat(chunks)
}

/** Writes all of `data` at `position` (null: where O_APPEND puts it). */
async function writeAll(handle: FileHandle, data: Buffer, position: number | null): Promise<void> {
  for (let written = 0; written < data.length; ) {
    const at = position === null ? null : position + written
    const { bytesWritten } = await handle.write(data, written, data.length - written, at)
    written += bytesWritten
  }
}

/** Writes `data` to a new file in the same folder and renames it over the file's name. */
async function replaceFile(file: OpenFile, data: Buffer, mode: number): Promise<void> {
  const temp = `.${file.name}.tangent-${randomBytes(6).toString('hex')}`
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
  try {
    const handle = await fs.open(file.parent.entry(temp), flags, mode)
    try {
      await writeAll(handle, data, 0)
      await handle.chmod(mode) // the umask narrowed it
    } finally {
      await handle.close()
    }
    await fs.rename(file.parent.entry(temp), file.parent.entry(file.name))
  } catch (error) {
    await fs.rm(file.parent.entry(temp), { force: true })
    throw error
  }
}

/** The sentence a tool adds when it replaced a hard-linked file. */
export function replacedLinkNote(relative: string): string {
  return ` ${relative} had other hard links: it is now a file of its own, and the other links keep the previous content.`
}
