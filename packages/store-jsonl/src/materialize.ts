// Materialising a fork: its log is rewritten with its inherited prefix inline
// (seed "inline"), so it no longer needs its parent's log. Atomic: temp, fsync, rename.
import { open } from 'node:fs/promises'
import { writeFileAtomic } from './durable-fs.js'
import { readLines } from './line-reader.js'
import { SessionHeaderLine } from './log-format.js'
import { corruptLog } from './read-log.js'
import { type StorePaths, sessionLogFile } from './store-paths.js'

/** The header line of `file` and the byte offset where its events start. */
async function readHeader(file: string): Promise<{ header: SessionHeaderLine; end: number }> {
  let found: { header: SessionHeaderLine; end: number } | null = null
  let why = 'no complete header line'
  await readLines(file, (text) => {
    try {
      const parsed = SessionHeaderLine.safeParse(JSON.parse(text))
      if (parsed.success) found = { header: parsed.data, end: Buffer.byteLength(text) + 1 }
      else why = 'not a session header'
    } catch {
      why = 'header is not JSON'
    }
    return false
  })
  if (!found) throw corruptLog(file, 1, why)
  return found
}

/** The raw lines (with newlines) of events 0..count-1 of session `id`, following "ref" logs up the chain. */
export async function prefixLines(
  paths: StorePaths,
  id: string,
  count: number,
  depth = 0,
): Promise<string[]> {
  if (count === 0) return []
  const file = sessionLogFile(paths, id)
  if (depth > 100_000) throw corruptLog(file, 1, 'its chain of parents loops')
  const { header } = await readHeader(file)
  const inherited = header.seed === 'ref' ? Math.min(count, header.inheritedEventCount) : 0
  const lines = inherited > 0 ? await prefixLines(paths, header.parentSession!, inherited, depth + 1) : []
  let wanted = count - inherited
  if (wanted > 0) {
    await readLines(file, (text, line) => {
      if (line === 1) return undefined
      lines.push(`${text}\n`)
      wanted--
      return wanted > 0
    })
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
  const handle = await open(file, 'r')
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
