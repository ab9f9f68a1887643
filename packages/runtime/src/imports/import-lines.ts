// The lines of a session file another tool wrote, for its reader (claude.ts, codex.ts, pi.ts):
// from a string (a file sent over the protocol), or read from the file itself a chunk at a time
// (`session.import {path}`, `tangent import FILE`, `--from`). From a file, each line is decoded on
// its own: the file is never one string (100 MB of text with one "—" in it is a string of 200 MB
// that every search walks), and a line of plain ASCII stays a one-byte string, which JSON parses
// and the log writes the faster (issue 31's benchmark: docs/benchmarks.md, "Import").
import fs from 'node:fs'
import { TangentError } from '@tangent/core'
import { maxImportChars } from '@tangent/protocol'

/** A line too long to read (its bytes): the reader reports it as a problem, the rest is read. */
export class OversizedLine {
  constructor(readonly bytes: number) {}
}

/** One line, without its newline (a `\r` before it is kept: each reader decides). */
export type ImportLine = string | OversizedLine

/** A session file: its text, or its lines. */
export type ImportText = string | Iterable<ImportLine>

/** The lines of `text` (a last line without a newline included; no line after a final newline). */
export function* textLines(text: string): Generator<string> {
  let start = 0
  while (start < text.length) {
    const newline = text.indexOf('\n', start)
    const end = newline === -1 ? text.length : newline
    yield text.slice(start, end)
    start = end + 1
  }
}

/** The lines of an ImportText. */
export function linesOf(text: ImportText): Iterable<ImportLine> {
  return typeof text === 'string' ? textLines(text) : text
}

/** The length a reader compares with its limit: characters of a string, bytes of an oversized line. */
export function lineLength(line: ImportLine): number {
  return typeof line === 'string' ? line.length : line.bytes
}

const chunkBytes = 4 * 1024 * 1024

/**
 * A session file opened for reading: a regular file (not a FIFO, a device or a folder, which
 * would block or never end), within the import limit. Opened without blocking, then checked on
 * its descriptor, so what is checked is what is read.
 */
export function openSessionFile(file: string): number {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  } catch (error) {
    throw new TangentError('invalid-path', `Cannot read ${file}: ${codeOf(error)}.`, { file })
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile())
      throw new TangentError(
        'invalid-path',
        `${file} is not a regular file: only a session file is imported.`,
        {
          file,
        },
      )
    // Characters are at most bytes: a file within the limit in bytes is within it in characters.
    if (stat.size > maxImportChars)
      throw new TangentError(
        'payload-too-large',
        `${file} is ${stat.size} bytes: more than an import takes (${maxImportChars}).`,
        { file, limit: maxImportChars },
      )
    return fd
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
}

/** The first line of an open file (all of it, however long, up to `maxBytes`), from its start. */
export function firstLineOf(fd: number, maxBytes = 64 * 1024 * 1024): string {
  const parts: Buffer[] = []
  let position = 0
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(1, maxBytes - position)))
    const read = fs.readSync(fd, buffer, 0, buffer.length, position)
    if (read === 0) break
    const newline = buffer.subarray(0, read).indexOf(10)
    parts.push(buffer.subarray(0, newline >= 0 ? newline : read))
    position += read
    if (newline >= 0 || position >= maxBytes) break
  }
  return Buffer.concat(parts).toString('utf8')
}

/**
 * The lines of an open file, read from its start a chunk at a time; a line over `maxLineBytes` is
 * an OversizedLine (its bytes skipped, never held). The caller closes `fd`. (`chunk`: for tests.)
 */
export function* fileLines(fd: number, maxLineBytes: number, chunk = chunkBytes): Generator<ImportLine> {
  const buffer = Buffer.allocUnsafe(chunk)
  let position = 0
  /** The start of the current line, carried over from earlier chunks. */
  let carried: Buffer[] = []
  let carriedBytes = 0
  /** The bytes of a line being skipped (over the limit), or -1. */
  let skipping = -1
  for (;;) {
    const read = readFully(fd, buffer, position)
    position += read
    let start = 0
    while (start < read) {
      // The buffer holds an earlier chunk's bytes after `read`: a newline there is not one.
      const newline = buffer.indexOf(10, start)
      const found = newline !== -1 && newline < read
      const end = found ? newline : read
      const length = end - start
      if (skipping >= 0) skipping += length
      else if (carriedBytes + length > maxLineBytes) {
        skipping = carriedBytes + length
        carried = []
        carriedBytes = 0
      }
      if (!found) {
        // The line goes on in the next chunk: keep a copy (the buffer is read into again).
        if (skipping < 0) {
          carried.push(Buffer.from(buffer.subarray(start, end)))
          carriedBytes += length
        }
        break
      }
      if (skipping >= 0) {
        yield new OversizedLine(skipping)
        skipping = -1
      } else if (carriedBytes > 0) {
        carried.push(buffer.subarray(start, end))
        yield Buffer.concat(carried, carriedBytes + length).toString('utf8')
        carried = []
        carriedBytes = 0
      } else yield buffer.toString('utf8', start, end)
      start = end + 1
    }
    if (read === 0) {
      if (skipping >= 0) yield new OversizedLine(skipping)
      else if (carriedBytes > 0) yield Buffer.concat(carried, carriedBytes).toString('utf8')
      return
    }
  }
}

/** Reads until the buffer is full or the file ends (a read may return fewer bytes). */
function readFully(fd: number, buffer: Buffer, position: number): number {
  let filled = 0
  while (filled < buffer.length) {
    const read = fs.readSync(fd, buffer, filled, buffer.length - filled, position + filled)
    if (read === 0) break
    filled += read
  }
  return filled
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error)
}

/** The whole of an open file as text (a Tangent bundle, which is imported all or nothing). */
export function wholeFile(fd: number): string {
  const size = fs.fstatSync(fd).size
  const buffer = Buffer.allocUnsafe(size)
  const read = readFully(fd, buffer, 0)
  return buffer.toString('utf8', 0, read)
}

/** A session file's first line (all of it, up to 64 MiB); throws as openSessionFile does. */
export function sessionFileFirstLine(file: string): string {
  const fd = openSessionFile(file)
  try {
    return firstLineOf(fd)
  } catch (error) {
    throw new TangentError('invalid-path', `Cannot read ${file}: ${codeOf(error)}.`, { file })
  } finally {
    fs.closeSync(fd)
  }
}

/** A session file's first line, or '' when it cannot be read: its import then says why. */
export function firstLineOfFile(file: string): string {
  try {
    return sessionFileFirstLine(file)
  } catch {
    return ''
  }
}
