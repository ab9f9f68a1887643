// Reads a file's complete lines in chunks (a small file in one read, a big one streamed),
// and reports the bytes after the last newline: a line still being written, or a torn tail.
// Every offset it reports is counted in bytes of the file, never from decoded text (a byte
// that is not UTF-8 decodes to U+FFFD, three bytes long).
import { isUtf8 } from 'node:buffer'
import { closeSync, readSync } from 'node:fs'
import { openFlags, openRegularFile, openRegularFileForReading } from './durable-fs.js'

const maxChunkBytes = 16 * 1024 * 1024
/**
 * The chunk of a log read synchronously (up to `syncReadBytes`). Small, so the buffer is taken
 * from memory already in use (under glibc's mmap threshold, 128 KB) and reused chunk after chunk:
 * a buffer as long as the log (700 KB at 1k messages) took fresh pages, a page fault per 4 KB,
 * which cost more than the ten reads more (docs/benchmarks.md, issue 33). Exported for the tests.
 */
export const syncChunkBytes = 64 * 1024
/**
 * Lines are decoded a block of about this many bytes at a time (a chunk of a big log holds many):
 * under V8's large-object size (128 KB), so a block's string is allocated in the young generation,
 * whose pages are reused from one collection to the next, where a large object takes fresh pages,
 * a page fault per 4 KB (docs/benchmarks.md, issue 33). Exported for the tests.
 */
export const decodeBlockBytes = 64 * 1024
/**
 * A log of up to one big chunk (16 MiB) is read with synchronous reads: reading it costs less
 * than parsing it, which blocks the event loop anyway, and each asynchronous step would wait for
 * the thread pool. A bigger one is read asynchronously, chunk by chunk, so a Host serving
 * others gets a turn between chunks.
 */
const syncReadBytes = maxChunkBytes
/**
 * The longest line a log may hold (64 MiB). A longer one is never read into memory whole
 * (a JavaScript string cannot hold ~512 MB anyway); the writer refuses to write one.
 */
export const maxLineBytes = 64 * 1024 * 1024

export interface LineReadResult {
  /** Byte offset just past the last complete line that was handed out. */
  readonly consumedBytes: number
  /** Byte offset where that last line starts (0 when no line was read). */
  readonly lastLineStart: number
  /** Bytes after the last newline (empty when the file ends with one, or reading stopped early). */
  readonly tail: Buffer
  /** True when `onLine` asked to stop before the end of the file. */
  readonly stopped: boolean
  /**
   * A line (complete or not) longer than the limit: reading stopped at its start, which is
   * `consumedBytes`; `line` is its 1-based number.
   */
  readonly oversized: { readonly line: number; readonly start: number } | null
}

/**
 * Handed each complete line: its text (without the newline), its 1-based number, and whether
 * its bytes are valid UTF-8 (when not, `text` holds U+FFFD for the bad bytes).
 */
export type OnLine = (text: string, lineNumber: number, utf8: boolean) => boolean | undefined

const empty = Buffer.alloc(0)

/**
 * Calls `onLine` for each complete line; returning `false` stops reading. Each chunk is
 * decoded as one block up to its last newline (a newline is never inside a multi-byte
 * character), so decoding costs what `readFile(…, 'utf8')` costs; a line split across
 * chunks is read again in one piece once its end is found (nothing is copied chunk by chunk,
 * and a line over the limit is never held at all), and a block that is not valid UTF-8 is
 * handed out line by line.
 * The file must be a regular file (a symbolic link, FIFO or directory is refused).
 */
export async function readLines(file: string, onLine: OnLine): Promise<LineReadResult> {
  // A line within one chunk is shorter than a chunk (≤ 16 MiB): only a line carried across
  // chunks can reach the limit, so that is where it is checked.
  const limit = maxLineBytes
  const { fd, size } = openRegularFileForReading(file)
  let readAt: ReadAt
  let close: () => void | Promise<void>
  if (size <= syncReadBytes) {
    readAt = (target, offset, length, at) => readSync(fd, target, offset, length, at)
    close = () => closeSync(fd)
  } else {
    // A FileHandle for the big ones: reads through it release the buffer when done (the
    // callback form of fs.read was measured to keep it alive after the read).
    closeSync(fd)
    const handle = await openRegularFile(file, openFlags.read)
    readAt = async (target, offset, length, at) => (await handle.read(target, offset, length, at)).bytesRead
    close = () => handle.close()
  }
  try {
    // One read for a small log; a bigger (or still growing) one is read on into the same buffer.
    // A small log gets a buffer longer than itself: the first read is short, so it is known to
    // be the last. (A log that grows meanwhile is read on in chunks of that size, 4 KB at least.)
    const chunkBytes = size <= syncReadBytes ? syncChunkBytes : maxChunkBytes
    const buffer = Buffer.allocUnsafe(Math.max(Math.min(size + 1, chunkBytes), 4096))
    let position = 0
    let consumed = 0
    let lastLineStart = 0
    let lineNumber = 0
    /** Where a line that started in an earlier chunk (and has no newline yet) starts; -1: none. */
    let pending = -1
    let atEnd = false
    const result = (stopped: boolean, tail: Buffer, oversized = false): LineReadResult => ({
      consumedBytes: consumed,
      lastLineStart,
      tail,
      stopped,
      oversized: oversized ? { line: lineNumber + 1, start: consumed } : null,
    })
    for (;;) {
      if (atEnd) break
      const chunkStart = position
      const bytesRead = await readAt(buffer, 0, buffer.length, position)
      if (bytesRead === 0) break
      // A short read is the end of the file (as of now): no extra read just to see nothing.
      atEnd = bytesRead < buffer.length
      position += bytesRead
      const data = buffer.subarray(0, bytesRead)
      const firstNewline = data.indexOf(10)
      if (firstNewline < 0) {
        if (pending < 0) pending = chunkStart
        if (position - pending > limit) return result(false, empty, true)
        continue
      }
      // The line that started in earlier chunks ends here: its start is read again, its end
      // is still in the buffer.
      let from = 0
      if (pending >= 0) {
        const lineEnd = chunkStart + firstNewline
        if (lineEnd - pending > limit) return result(false, empty, true)
        const joined = Buffer.allocUnsafe(lineEnd - pending)
        await readExactly(readAt, joined.subarray(0, chunkStart - pending), pending)
        data.copy(joined, chunkStart - pending, 0, firstNewline)
        pending = -1
        lineNumber++
        lastLineStart = consumed
        consumed += joined.length + 1
        from = firstNewline + 1
        if (onLine(joined.toString('utf8'), lineNumber, isUtf8(joined)) === false) return result(true, empty)
      }
      const lastNewline = data.lastIndexOf(10)
      // Decoded in blocks (`decodeBlockBytes`, far under Node's external-string threshold of
      // ~1 MB: the strings stay on the V8 heap), and a value parsed from a line pins one small
      // block, not a whole chunk. A block ends at a newline: one that holds a line longer than
      // a block runs to that line's end.
      while (from <= lastNewline) {
        let end = data.lastIndexOf(10, Math.min(lastNewline, from + decodeBlockBytes))
        if (end < from) end = data.indexOf(10, from + decodeBlockBytes)
        const block = data.subarray(from, end)
        if (isUtf8(block)) {
          const lines = block.toString('utf8').split('\n')
          for (let i = 0; i < lines.length; i++) {
            if (onLine(lines[i]!, lineNumber + i + 1, true) === false) {
              // Only the bytes of the lines handed out count as consumed: found by their newlines.
              let start = from
              for (let k = 0; k < i; k++) start = data.indexOf(10, start) + 1
              lineNumber += i + 1
              lastLineStart = chunkStart + start
              consumed = chunkStart + data.indexOf(10, start) + 1
              return result(true, empty)
            }
          }
          lineNumber += lines.length
          lastLineStart = chunkStart + (end > from ? data.lastIndexOf(10, end - 1) + 1 : from)
          consumed = chunkStart + end + 1
        } else {
          // Not UTF-8 somewhere: line by line, so each line knows whether it is the bad one.
          let start = from
          while (start <= end) {
            const stop = data.indexOf(10, start)
            const line = data.subarray(start, stop)
            lineNumber++
            lastLineStart = chunkStart + start
            consumed = chunkStart + stop + 1
            if (onLine(line.toString('utf8'), lineNumber, isUtf8(line)) === false) return result(true, empty)
            start = stop + 1
          }
        }
        from = end + 1
      }
      if (lastNewline + 1 < data.length) pending = chunkStart + lastNewline + 1
    }
    if (pending < 0) return result(false, empty)
    const tail = Buffer.allocUnsafe(position - pending)
    await readExactly(readAt, tail, pending)
    return result(false, tail)
  } finally {
    await close()
  }
}

/** Reads into `target` at `offset` from file position `at`: the bytes read (0 at the end). */
type ReadAt = (target: Buffer, offset: number, length: number, at: number) => number | Promise<number>

/** Fills `target` from `position` (bytes already read once, so they are there). */
async function readExactly(readAt: ReadAt, target: Buffer, position: number): Promise<void> {
  let offset = 0
  while (offset < target.length) {
    const bytesRead = await readAt(target, offset, target.length - offset, position + offset)
    if (bytesRead === 0)
      throw new Error(`${target.length - offset} bytes vanished while reading: the file shrank`)
    offset += bytesRead
  }
}
