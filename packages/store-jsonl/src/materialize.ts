// Materialising a fork: its log is rewritten with its inherited prefix inline
// (seed "inline"), so it no longer needs its parent's log. Atomic: temp, fsync, rename.
import { openFlags, openRegularFile, writeFileAtomic } from './durable-fs.js'
import { maxLineBytes, readLines } from './line-reader.js'
import { parseHeaderLine, type SessionHeaderLine } from './log-format.js'
import { corruptLog, headerError } from './read-log.js'
import { type StorePaths, sessionLogFile } from './store-paths.js'

/** The header line of `file` and the byte offset where its events start. */
async function readHeader(file: string): Promise<{ header: SessionHeaderLine; end: number }> {
  let header: SessionHeaderLine | null = null
  let why = 'no complete header line'
  const read = await readLines(file, (text, _line, utf8) => {
    if (!utf8) why = 'header is not valid UTF-8'
    else
      try {
        const value: unknown = JSON.parse(text)
        const parsed = parseHeaderLine(value)
        if (parsed.success) header = parsed.data
        else throw headerError(file, value, parsed.error)
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error
        why = 'header is not JSON'
      }
    return false
  })
  if (!header) throw corruptLog(file, 1, why)
  // The end of the header in bytes of the file, not of its decoded text.
  return { header, end: read.consumedBytes }
}

/** The raw lines (with newlines) of events 0..count-1 of session `id`, following "ref" logs up the chain. */
export async function prefixLines(
  paths: StorePaths,
  id: string,
  count: number,
  seen: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  if (count === 0) return []
  const file = sessionLogFile(paths, id)
  // Only damaged headers make a loop; without this it would read the loop's logs forever.
  if (seen.has(id)) throw corruptLog(file, 1, `its chain of parents loops back to session ${id}`)
  const { header } = await readHeader(file)
  const inherited = header.seed === 'ref' ? Math.min(count, header.inheritedEventCount) : 0
  const lines =
    inherited > 0 ? await prefixLines(paths, header.parentSession!, inherited, new Set([...seen, id])) : []
  let wanted = count - inherited
  if (wanted > 0) {
    const read = await readLines(file, (text, line, utf8) => {
      if (line === 1) return undefined
      // Copied as text: a line that is not UTF-8 would not survive the copy byte for byte.
      if (!utf8) throw corruptLog(file, line, 'not valid UTF-8')
      lines.push(`${text}\n`)
      wanted--
      return wanted > 0
    })
    if (read.oversized)
      throw corruptLog(file, read.oversized.line, `the line is longer than ${maxLineBytes / 1024 / 1024} MiB`)
  }
  if (wanted > 0) throw corruptLog(file, 1, `it has fewer than the ${count} events a fork of it needs`)
  return lines
}

/**
 * Rewrites the "ref" log of `id` with its prefix inline. Returns the new header and size,
 * or null when the log is already inline.
 */
export async function materializeFork(
  paths: StorePaths,
  id: string,
): Promise<{ header: SessionHeaderLine; size: number } | null> {
  const file = sessionLogFile(paths, id)
  const { header, end } = await readHeader(file)
  if (header.seed !== 'ref' || header.parentSession === undefined) return null
  const prefix = await prefixLines(paths, header.parentSession, header.inheritedEventCount)
  const handle = await openRegularFile(file, openFlags.read)
  let own: Buffer
  try {
    const { size } = await handle.stat()
    own = Buffer.alloc(size - end)
    let offset = 0
    while (offset < own.length) {
      const { bytesRead } = await handle.read(own, offset, own.length - offset, end + offset)
      if (bytesRead === 0) break
      offset += bytesRead
    }
  } finally {
    await handle.close()
  }
  const inline: SessionHeaderLine = { ...header, seed: 'inline' }
  const size = await writeFileAtomic(file, [`${JSON.stringify(inline)}\n`, prefix.join(''), own])
  return { header: inline, size }
}
