// Crash repair of a log's end: the bytes after its last good line are moved to
// `<id>.jsonl.torn` (kept, never dropped) and the log is cut back to its good lines.
import { unlink } from 'node:fs/promises'
import path from 'node:path'
import { appendDurable, fsyncDirectory, openFlags, openRegularFile } from './durable-fs.js'

/**
 * Moves bytes `goodBytes..end` of `file` into `tornFile`, then truncates `file` to
 * `goodBytes` (or removes it when not even a header survived). The torn bytes are
 * durable before the log shrinks, so a crash in between loses nothing.
 * Each cut is followed by a newline in the .torn file, so successive cuts stay apart.
 * Neither file is followed through a symbolic link; a .torn file it creates is 0600.
 */
export async function cutTornTail(file: string, tornFile: string, goodBytes: number): Promise<Buffer> {
  // `goodBytes` is a byte offset of the file (line-reader.ts), never a length of decoded text.
  const handle = await openRegularFile(file, openFlags.readWrite)
  try {
    const { size } = await handle.stat()
    const torn = Buffer.alloc(size - goodBytes)
    let offset = 0
    while (offset < torn.length) {
      const { bytesRead } = await handle.read(torn, offset, torn.length - offset, goodBytes + offset)
      if (bytesRead === 0) break
      offset += bytesRead
    }
    const record = torn.at(-1) === 10 ? torn : Buffer.concat([torn, Buffer.from('\n')])
    await appendDurable(tornFile, record)
    if (goodBytes === 0) {
      await unlink(file)
      await fsyncDirectory(path.dirname(file))
      return torn
    }
    await handle.truncate(goodBytes)
    await handle.sync()
    return torn
  } finally {
    await handle.close()
  }
}
