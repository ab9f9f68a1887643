// A range of a log's events read from its end, without reading the lines before it: the tail of
// a 100 MB log (how `tangent sessions` tells how each session's last turn went) costs what the
// tail of a small one does. Strict: anything a load would repair or refuse answers null, and the
// caller loads the session instead, so a range read never serves what a load would not.
import type { FileHandle } from 'node:fs/promises'
import type { SessionEvent } from '@tangent/core'
import { openFlags, openRegularFile } from './durable-fs.js'
import { maxLineBytes } from './line-reader.js'
import { isEventLineShape } from './log-format.js'

/** The first read from the end; each further one doubles, up to `maxReadBytes`. */
const firstReadBytes = 64 * 1024
const maxReadBytes = 4 * 1024 * 1024
const newline = 0x0a

/**
 * The events with `fromSeq <= seq < beforeSeq` of the log `file` whose last event is `lastSeq`
 * (the catalog's count, minus one), in seq order. Null — load the session instead — when the
 * range does not lie whole in this file (a fork's inherited prefix is in its parent's), or the
 * lines read are not what a clean load would serve: bytes after the last newline (a torn tail),
 * a line that is not an event, not UTF-8, over the longest line a log may hold, a gap in the
 * seqs, or a last event that is not `lastSeq`. Lines before the range are not read, so damage
 * there is not seen: a load still reports it.
 */
export async function readLogRange(
  file: string,
  range: { fromSeq: number; beforeSeq: number; lastSeq: number },
): Promise<SessionEvent[] | null> {
  const { fromSeq, beforeSeq, lastSeq } = range
  if (fromSeq >= beforeSeq || fromSeq > lastSeq) return []
  const handle = await openRegularFile(file, openFlags.read)
  try {
    const events: SessionEvent[] = []
    let expected = lastSeq
    for await (const line of linesFromEnd(handle, (await handle.stat()).size)) {
      if (line === null) return null
      // The file's first line is its header: the range reached before it, or it is not here.
      if (line.first) return null
      const text = line.bytes.toString('utf8')
      // The store writes UTF-8 only; a U+FFFD may stand for bytes that were not (a load decides).
      if (text.includes('\uFFFD')) return null
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        return null
      }
      if (!isEventLineShape(value) || value.seq !== expected) return null
      if (value.seq < beforeSeq) events.push(value as SessionEvent)
      if (value.seq === fromSeq) return events.reverse()
      expected--
    }
    return null
  } finally {
    await handle.close()
  }
}

/**
 * The complete lines of a file, last first (without their newline); `first` marks the file's
 * first line. Null once something is not a clean log's end: bytes after the last newline, or a
 * line longer than a log may hold.
 */
async function* linesFromEnd(
  handle: FileHandle,
  size: number,
): AsyncGenerator<{ bytes: Buffer; first: boolean } | null> {
  let position = size
  let readBytes = firstReadBytes
  // The bytes from `position` to the start of the last line yielded: the end of a line whose
  // start is not read yet.
  let pending: Buffer = Buffer.alloc(0)
  let atEnd = true
  while (position > 0) {
    const length = Math.min(readBytes, position)
    position -= length
    const chunk = Buffer.allocUnsafe(length)
    let filled = 0
    while (filled < length) {
      const { bytesRead } = await handle.read(chunk, filled, length - filled, position + filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    // A log that shrank under the read: not a clean end to read from.
    if (filled < length) {
      yield null
      return
    }
    const data = pending.length === 0 ? chunk : Buffer.concat([chunk, pending])
    let lineEnd = data.length
    if (atEnd) {
      // A log ends with a newline; anything after the last one is a torn write.
      if (data[lineEnd - 1] !== newline) {
        yield null
        return
      }
      lineEnd--
      atEnd = false
    }
    // (lastIndexOf with a negative offset would count from the end: 0 is checked first.)
    for (let at = lineEnd === 0 ? -1 : data.lastIndexOf(newline, lineEnd - 1); at >= 0; ) {
      yield { bytes: data.subarray(at + 1, lineEnd), first: false }
      lineEnd = at
      at = at === 0 ? -1 : data.lastIndexOf(newline, at - 1)
    }
    pending = data.subarray(0, lineEnd)
    if (pending.length > maxLineBytes) {
      yield null
      return
    }
    readBytes = Math.min(readBytes * 2, maxReadBytes)
  }
  if (!atEnd) yield { bytes: pending, first: true }
}
