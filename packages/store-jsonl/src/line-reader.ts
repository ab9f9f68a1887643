// Reads a file's complete lines in chunks (a small file in one read, a big one streamed),
// and reports the bytes after the last newline: a line still being written, or a torn tail.
import { open } from 'node:fs/promises'

const minChunkBytes = 64 * 1024
const maxChunkBytes = 16 * 1024 * 1024
const decodeBlockBytes = 768 * 1024

export interface LineReadResult {
  /** Byte offset just past the last complete line that was handed out. */
  readonly consumedBytes: number
  /** Byte offset where that last line starts (0 when no line was read). */
  readonly lastLineStart: number
  /** Bytes after the last newline (empty when the file ends with one, or reading stopped early). */
  readonly tail: Buffer
  /** True when `onLine` asked to stop before the end of the file. */
  readonly stopped: boolean
}

/**
 * Calls `onLine(text, lineNumber)` (1-based, without the newline) for each complete line;
 * returning `false` stops reading. Each chunk is decoded as one block up to its last
 * newline (a newline is never inside a multi-byte character), so decoding costs what
 * `readFile(…, 'utf8')` costs; only a line split across chunks is copied.
 */
export async function readLines(
  file: string,
  onLine: (text: string, lineNumber: number) => boolean | undefined,
): Promise<LineReadResult> {
  const handle = await open(file, 'r')
  try {
    // One read for most logs; a bigger (or still growing) one is read on into the same buffer.
    const { size } = await handle.stat()
    const buffer = Buffer.allocUnsafe(Math.min(maxChunkBytes, Math.max(minChunkBytes, size)))
    let position = 0
    let consumed = 0
    let lineNumber = 0
    let lastLine = ''
    let carry: Buffer[] = []
    let atEnd = false
    const emit = (text: string): boolean => {
      lineNumber++
      lastLine = text
      return onLine(text, lineNumber) !== false
    }
    const stop = (): LineReadResult => ({
      consumedBytes: consumed,
      lastLineStart: consumed - Buffer.byteLength(lastLine) - 1,
      tail: Buffer.alloc(0),
      stopped: true,
    })
    for (;;) {
      if (atEnd) break
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
      if (bytesRead === 0) break
      // A short read is the end of the file (as of now): no extra read just to see nothing.
      atEnd = bytesRead < buffer.length
      position += bytesRead
      const data = buffer.subarray(0, bytesRead)
      if (data.indexOf(10) < 0) {
        carry.push(Buffer.from(data)) // copied: the buffer is reused
        continue
      }
      const firstNewline = data.indexOf(10)
      // The line that started in earlier chunks ends here.
      let from = 0
      if (carry.length > 0) {
        const joined = Buffer.concat([...carry, data.subarray(0, firstNewline)])
        carry = []
        consumed += joined.length + 1
        from = firstNewline + 1
        if (!emit(joined.toString('utf8'))) return stop()
      }
      const lastNewline = data.lastIndexOf(10)
      // Decoded in blocks under Node's external-string threshold (~1 MB): the strings stay on
      // the V8 heap, and a value parsed from a line pins one small block, not a whole chunk.
      while (from <= lastNewline) {
        let end = data.lastIndexOf(10, Math.min(lastNewline, from + decodeBlockBytes))
        if (end < from) end = data.indexOf(10, from + decodeBlockBytes)
        const lines = data.toString('utf8', from, end).split('\n')
        for (let i = 0; i < lines.length; i++) {
          if (!emit(lines[i]!)) {
            // Only the bytes of the lines handed out count as consumed.
            const rest = lines.slice(i + 1)
            consumed += end + 1 - from - (rest.length > 0 ? Buffer.byteLength(rest.join('\n')) + 1 : 0)
            return stop()
          }
        }
        consumed += end + 1 - from
        from = end + 1
      }
      if (lastNewline + 1 < data.length) carry.push(Buffer.from(data.subarray(lastNewline + 1)))
    }
    return {
      consumedBytes: consumed,
      lastLineStart: lineNumber === 0 ? 0 : consumed - Buffer.byteLength(lastLine) - 1,
      tail: carry.length > 0 ? Buffer.concat(carry) : Buffer.alloc(0),
      stopped: false,
    }
  } finally {
    await handle.close()
  }
}
