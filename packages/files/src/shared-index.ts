// Split private indexes (docs/architecture.md §5, "Split indexes"): a directory's private index
// of a big tree is kept by git as a small file of what changed plus a shared index
// (`<git dir>/sharedindex.<id>`) with everything else, so a snapshot that stages one file writes
// kilobytes instead of the whole index (10 MiB and ~25 ms of hashing on 100,000 files, twice per
// snapshot). git would delete shared indexes unused for two weeks whenever it writes a new one,
// which would break the index of a folder idle that long; Tangent tells it never to, and sweeps
// the ones no private index names itself (`sweepSharedIndexes`, run by FileState.gc).
import { readdir, readFile, stat, unlink } from 'node:fs/promises'
import path from 'node:path'

/** Private indexes at least this big are kept split (about 20,000 files); smaller ones gain nothing. */
export const defaultSplitIndexBytes = 2 * 1024 * 1024

/** git commands that may write the index they read. */
const indexWriters = new Set(['add', 'rm', 'update-index', 'write-tree', 'read-tree'])

/**
 * The settings (as `GIT_CONFIG_*` variables, which outrank the repository's config like `-c`)
 * for `command` run on `indexFile`: shared indexes are never expired by git, and a writer on a
 * private index of at least `splitBytes` makes it split. Once split, git keeps it so (with
 * `core.splitIndex` unset it keeps an index as it is), and the file is small again.
 */
export async function indexSettings(
  command: string | undefined,
  indexFile: string | undefined,
  privateIndexDirectory: string,
  splitBytes: number,
): Promise<Record<string, string>> {
  const settings: [string, string][] = [['splitIndex.sharedIndexExpire', 'never']]
  if (
    command !== undefined &&
    indexWriters.has(command) &&
    indexFile !== undefined &&
    path.dirname(indexFile) === privateIndexDirectory
  ) {
    const size = (await stat(indexFile).catch(() => null))?.size ?? 0
    if (size >= splitBytes) settings.push(['core.splitIndex', 'true'])
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) }
  settings.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key
    env[`GIT_CONFIG_VALUE_${index}`] = value
  })
  return env
}

const sha1Bytes = 20

/**
 * The shared index a git index file names (its `link` extension), as hex; null when it is not
 * split; undefined when the bytes are not an index this parser knows (versions 2–4, SHA-1), which
 * a sweep must read as "could name any".
 */
export function sharedIndexOf(bytes: Buffer): string | null | undefined {
  if (bytes.length < 12 + sha1Bytes || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined
  const version = bytes.readUInt32BE(4)
  if (version < 2 || version > 4) return undefined
  const entries = bytes.readUInt32BE(8)
  const end = bytes.length - sha1Bytes
  // Fixed part of an entry: ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each),
  // the object id and 16 bits of flags.
  const fixed = 40 + sha1Bytes + 2
  let offset = 12
  for (let i = 0; i < entries; i++) {
    if (offset + fixed > end) return undefined
    const flags = bytes.readUInt16BE(offset + fixed - 2)
    const extended = version >= 3 && (flags & 0x4000) !== 0
    const nameStart = offset + fixed + (extended ? 2 : 0)
    if (version === 4) {
      // A varint (how much of the previous name to keep), then the rest of the name and a NUL.
      let at = nameStart
      while (at < end && (bytes[at]! & 0x80) !== 0) at++
      const nul = bytes.indexOf(0, at + 1)
      if (nul < 0 || nul >= end) return undefined
      offset = nul + 1
    } else {
      const nul = bytes.indexOf(0, nameStart)
      if (nul < 0 || nul >= end) return undefined
      // The name and its NUL, padded with NULs to a multiple of eight bytes from the entry's start.
      offset += (nameStart - offset + (nul - nameStart) + 8) & ~7
    }
  }
  while (offset + 8 <= end) {
    const signature = bytes.toString('latin1', offset, offset + 4)
    const size = bytes.readUInt32BE(offset + 4)
    if (offset + 8 + size > end) return undefined
    if (signature === 'link') {
      return size >= sha1Bytes ? bytes.toString('hex', offset + 8, offset + 8 + sha1Bytes) : undefined
    }
    offset += 8 + size
  }
  return offset === end ? null : undefined
}

/** Shared indexes no newer than this are kept whatever names them: another process may be writing one. */
export const sharedIndexGraceMs = 60 * 60 * 1000

/**
 * Removes the shared indexes in `gitDir` that no index file in `indexDirectories` names, and
 * git's temporary ones, once older than `graceMs` (a git process may have just written one and
 * not yet the index naming it). Removes nothing when an index file cannot be read as one: it
 * could name any. Returns the names removed.
 */
export async function sweepSharedIndexes(
  gitDir: string,
  indexDirectories: readonly string[],
  graceMs = sharedIndexGraceMs,
): Promise<string[]> {
  const shared = (await readdir(gitDir)).filter(
    (name) => name.startsWith('sharedindex.') || name.startsWith('sharedindex_'),
  )
  if (shared.length === 0) return []
  const named = new Set<string>()
  for (const directory of indexDirectories) {
    const files = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[]
      throw error
    })
    for (const name of files) {
      // The `<index>.tree` stamps are not indexes; a `.lock` is one being written (its shared
      // index is new, so within the grace period).
      if (name.endsWith('.tree') || name.endsWith('.lock')) continue
      const bytes = await readFile(path.join(directory, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null
        throw error
      })
      if (bytes === null) continue
      const link = sharedIndexOf(bytes)
      if (link === undefined) return []
      if (link !== null) named.add(`sharedindex.${link}`)
    }
  }
  const removed: string[] = []
  const now = Date.now()
  for (const name of shared) {
    if (named.has(name)) continue
    const file = path.join(gitDir, name)
    const info = await stat(file).catch(() => null)
    if (info === null || now - info.mtimeMs < graceMs) continue
    await unlink(file).catch(() => undefined)
    removed.push(name)
  }
  return removed.sort()
}
