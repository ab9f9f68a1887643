// How `write` and `edit` put content into a file they resolved inside the working directory
// (confinePath) without writing through to a file outside it.
//
// A hard link is a second name of the same file, and nothing in a name says where the other
// names are: writing into a file with more than one link may change a file outside the working
// directory (`ln ~/.bashrc notes.txt`). Such a file is therefore never written into: the new
// content goes to a new file beside it that is renamed over this name. This name then holds the
// new content; the other names keep the old one. (Refusing instead would break ordinary
// projects: package managers hard-link files from a shared store into node_modules, and an
// edit there must not change the store.) A file with one link is written in place, as before:
// its mode, owner and inode stay. The link count is read from the open file, so what is
// checked is what is written; O_NOFOLLOW refuses a symlink put in its place meanwhile.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'

export interface WriteOutcome {
  /** The file had other hard links: it was replaced, and they kept the old content. */
  readonly replacedLink: boolean
  /** Its size afterwards. */
  readonly size: number
}

/** Writes `content` as the whole file (or at its end with `append`), creating it if needed. */
export async function writeFileInPlace(
  file: string,
  content: string,
  options: { append?: boolean; relative: string },
): Promise<WriteOutcome> {
  const flags =
    constants.O_WRONLY |
    constants.O_CREAT |
    constants.O_NOFOLLOW |
    // A FIFO without a reader fails (ENXIO) instead of blocking the tool; no effect on files.
    constants.O_NONBLOCK |
    (options.append ? constants.O_APPEND : 0)
  let handle: fs.FileHandle
  try {
    handle = await fs.open(file, flags, 0o666)
  } catch (error) {
    throw explain(error, options.relative)
  }
  let mode: number
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) {
      throw new TangentError(
        'tool-failed',
        `${options.relative} is not a regular file: it cannot be written.`,
      )
    }
    if (stat.nlink <= 1) {
      if (!options.append) await handle.truncate(0)
      await handle.writeFile(content)
      return { replacedLink: false, size: (await handle.stat()).size }
    }
    mode = stat.mode & 0o7777
  } finally {
    await handle.close()
  }
  const previous = options.append ? await fs.readFile(file) : Buffer.alloc(0)
  const data = Buffer.concat([previous, Buffer.from(content)])
  await replaceFile(file, data, mode)
  return { replacedLink: true, size: data.byteLength }
}

/** Writes `data` to a new file in the same directory and renames it over `file`. */
async function replaceFile(file: string, data: Buffer, mode: number): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.tangent-${randomBytes(6).toString('hex')}`,
  )
  try {
    await fs.writeFile(temp, data, { flag: 'wx', mode })
    await fs.chmod(temp, mode) // the umask narrowed it
    await fs.rename(temp, file)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}

function explain(error: unknown, relative: string): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ELOOP') {
    return new TangentError(
      'path-outside-cwd',
      `Refused: ${relative} became a symlink while it was being written.`,
      { path: relative },
    )
  }
  if (code === 'ENXIO')
    return new TangentError('tool-failed', `${relative} is not a regular file: it cannot be written.`)
  return error
}

/** The sentence a tool adds when it replaced a hard-linked file. */
export function replacedLinkNote(relative: string): string {
  return ` ${relative} had other hard links: it is now a file of its own, and the other links keep the previous content.`
}
