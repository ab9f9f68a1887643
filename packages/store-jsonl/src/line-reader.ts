// Reads a file's complete lines in growing chunks (small files stay cheap, big ones stream),
// and reports the bytes after the last newline: a line still being written, or a torn tail.
import { open } from 'node:fs/promises'

const firstChunkBytes = 64 * 1024
const maxChunkBytes = 8 * 1024 * 1024

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
 * Calls `onLine(text, lineNumber, startByte)` (1-based, without the newline) for each complete line;
 * returning `false` stops reading. Lines are decoded per chunk, never across a newline,
 * so multi-byte characters are safe.
 */
export async function readLines(
  file: string,
  onLine: (text: string, lineNumber: number, start: number) => boolean | undefined,
): Promise<LineReadResult> {
  const handle = await open(file, 'r')
  try {
    let chunkSize = firstChunkBytes
    let position = 0
    let consumed = 0
    let lastLineStart = 0
    let lineNumber = 0
    let carry: Buffer | null = null
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkSize)
      const { bytesRead } = await handle.read(chunk, 0, chunkSize, position)
      if (bytesRead === 0) break
      position += bytesRead
      chunkSize = Math.min(maxChunkBytes, chunkSize * 2)
      const data: Buffer = carry
        ? Buffer.concat([carry, chunk.subarray(0, bytesRead)])
        : chunk.subarray(0, bytesRead)
      const lastNewline = data.lastIndexOf(10)
      if (lastNewline < 0) {
        carry = data
        continue
      }
      carry = lastNewline + 1 < data.length ? data.subarray(lastNewline + 1) : null
      const lines = data.toString('utf8', 0, lastNewline).split('\n')
      let start = consumed
      for (const text of lines) {
        lineNumber++
        const end = start + Buffer.byteLength(text) + 1
        lastLineStart = start
        consumed = end
        if (onLine(text, lineNumber, start) === false) {
          return { consumedBytes: consumed, lastLineStart, tail: Buffer.alloc(0), stopped: true }
        }
        start = end
      }
    }
    return { consumedBytes: consumed, lastLineStart, tail: carry ?? Buffer.alloc(0), stopped: false }
  } finally {
    await handle.close()
  }
}
