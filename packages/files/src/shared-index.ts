// Split private indexes (docs/architecture.md §5, "Split indexes"): a directory's private index
// of a big tree is kept by git as a small file of what changed plus a shared index
// (`<git dir>/sharedindex.<id>`) with everything else, so a snapshot that stages one file writes
// kilobytes instead of the whole index (10 MiB and ~25 ms of hashing on 100,000 files, twice per
// snapshot). git would delete shared indexes unused for two weeks whenever it writes a new one,
// which would break the index of a folder idle that long; Tangent tells it never to, and sweeps
// the ones no private index names itself (`sweepSharedIndexes`, run by FileState.gc).
import { readdir, readFile, stat, unlink } from 'node:fs/promises'
import path from 'node:path'
import { readIndex } from './index-file.js'

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

/**
 * The shared index a git index file names (its `link` extension), as hex; null when it is not
 * split; undefined when the bytes are not an index `readIndex` knows, which a sweep must read as
 * "could name any".
 */
export async function sharedIndexOf(bytes: Buffer): Promise<string | null | undefined> {
  const layout = await readIndex(bytes)
  if (layout === undefined) return undefined
  const link = layout.extensions.find((extension) => extension.signature === 'link')
  if (link === undefined) return null
  return link.size >= 20 ? bytes.toString('hex', link.start, link.start + 20) : undefined
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
      const link = await sharedIndexOf(bytes)
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
