// Writes paths of a snapshot tree into a directory (checkout-index through a throwaway index)
// and removes the ones the tree does not have. Used by restore, undo and worktree forks.
import { randomUUID } from 'node:crypto'
import { lstat, rm, rmdir, unlink } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { splitNul } from './git.js'
import { diskFullError, failedForSpace, makePrivateDirectory } from './private-files.js'
import { emptyTree, type ShadowRepository } from './shadow-repository.js'

export interface TreeEntry {
  mode: string
  type: string
  object: string
  path: string
}

// Up to this many paths go to ls-tree as arguments; more, and the whole tree is listed.
export const pathArgumentLimit = 200

/**
 * The file entries of `tree`, recursively, paths relative to the tree's root: all of them, or
 * at least those under `paths` (callers filter exactly).
 */
export async function listTree(
  repository: ShadowRepository,
  tree: string,
  paths: ReadonlySet<string> | null = null,
): Promise<TreeEntry[]> {
  if (tree === emptyTree) return []
  const some = paths !== null && paths.size <= pathArgumentLimit
  if (some && paths.size === 0) return []
  const args = some
    ? ['--literal-pathspecs', 'ls-tree', '-r', '-z', '--full-tree', tree, '--', ...paths]
    : ['ls-tree', '-r', '-z', '--full-tree', tree]
  const listing = await repository.git(args)
  return splitNul(listing.stdout).map((record) => {
    const tab = record.indexOf('\t')
    const [mode = '', type = '', object = ''] = record.slice(0, tab).split(' ')
    return { mode, type, object, path: record.slice(tab + 1) }
  })
}

/** Refuses a caller-supplied path that could leave the directory or reach into a `.git`. */
export function assertSafeRelativePath(relative: string): void {
  const parts = relative.split('/')
  if (
    relative === '' ||
    path.isAbsolute(relative) ||
    parts.some((part) => part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git')
  ) {
    throw new TangentError(
      'invalid-path',
      `Refusing path ${JSON.stringify(relative)}: paths are relative to cwd, without "..".`,
      {
        path: relative,
      },
    )
  }
}

/**
 * For each of `relatives`, the first folder between `root` and its file that is now a symlink
 * or not a folder at all (a file), unless it is one of `removable` (paths this operation
 * removes first); paths with none are absent from the map. Writing there would go through the
 * symlink (out of root) or replace something that is not ours to replace; deleting would
 * reach through it. Each folder is looked at once, all at the same time.
 */
export async function blockedParents(
  root: string,
  relatives: Iterable<string>,
  removable: ReadonlySet<string> = new Set(),
): Promise<Map<string, string>> {
  const chains = new Map<string, string[]>()
  const folders = new Set<string>()
  for (const relative of relatives) {
    const parts = relative.split('/').slice(0, -1)
    const chain = parts.map((_, index) => parts.slice(0, index + 1).join('/'))
    chains.set(relative, chain)
    for (const folder of chain) folders.add(folder)
  }
  const kinds = new Map<string, 'missing' | 'folder' | 'other'>()
  await Promise.all(
    [...folders].map(async (folder) => {
      const info = await lstat(path.join(root, folder)).catch(() => null)
      kinds.set(folder, info === null ? 'missing' : info.isDirectory() ? 'folder' : 'other')
    }),
  )
  const blocked = new Map<string, string>()
  for (const [relative, chain] of chains) {
    for (const folder of chain) {
      const kind = kinds.get(folder)
      if (kind === 'missing') break
      if (kind === 'other' && !removable.has(folder)) {
        blocked.set(relative, folder)
        break
      }
    }
  }
  return blocked
}

/** Removes now-empty directories from `relative`'s parent up to (not including) root. */
export async function pruneEmptyParents(root: string, relative: string): Promise<void> {
  let parent = path.dirname(relative)
  while (parent !== '.' && parent !== '') {
    try {
      await rmdir(path.join(root, parent))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Not empty (or already gone): the parents stay as they are.
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return
      throw error
    }
    parent = path.dirname(parent)
  }
}

/** Writes `entries` (blobs and symlinks of the store) into `target` through a throwaway index. */
export async function writeEntries(
  repository: ShadowRepository,
  target: string,
  entries: readonly TreeEntry[],
) {
  if (entries.length === 0) return
  const scratch = repository.scratchDirectory
  await makePrivateDirectory(scratch)
  // The pid names the owner: a start after a crash removes the indexes of dead processes.
  const indexFile = path.join(scratch, `${process.pid}-${randomUUID()}.index`)
  try {
    const scope = { cwd: target, workTree: target, indexFile }
    const records = entries.map((entry) => `${entry.mode} ${entry.object} 0\t${entry.path}\0`).join('')
    await repository.git(['update-index', '-z', '--index-info'], { ...scope, input: records })
    await repository.git(['checkout-index', '--all', '--force', '--quiet'], scope)
  } catch (error) {
    if (await failedForSpace(error, target)) {
      throw diskFullError(target, 'writing files', error)
    }
    throw error
  } finally {
    await rm(indexFile, { force: true })
  }
}

export interface CheckoutResult {
  /** Paths written with the tree's content. */
  written: string[]
  /** Paths removed because the tree does not have them. */
  deleted: string[]
  /** Paths left alone: a folder stands there now, or one of its parents is a symlink or a file. */
  kept: string[]
}

/**
 * Makes `paths` of `target` equal to `tree` (all of the tree's files when `paths` is null, into
 * a new directory): files in the tree are written, the others are removed when `deleteMissing`.
 * Removals come first, so a folder the tree has as a file (or the reverse) is replaced. A
 * folder standing where a file would go, and a path under a symlinked or file parent, are
 * left alone and reported as `kept`: nothing is written through a symlink or replaces a folder.
 */
export async function checkoutTree(
  repository: ShadowRepository,
  options: { target: string; tree: string; paths: ReadonlySet<string> | null; deleteMissing: boolean },
): Promise<CheckoutResult> {
  const { target, paths } = options
  // Submodule entries (mode 160000) name commits of another repository: nothing to write.
  const entries = (await listTree(repository, options.tree, paths)).filter(
    (entry) => entry.type !== 'commit' && (paths === null || paths.has(entry.path)),
  )
  const result: CheckoutResult = { written: [], deleted: [], kept: [] }
  if (paths === null) {
    await writeEntries(repository, target, entries)
    result.written = entries.map((entry) => entry.path)
    return result
  }
  const inTree = new Set(entries.map((entry) => entry.path))
  if (options.deleteMissing) {
    const missing = [...paths].filter((relative) => !inTree.has(relative)).sort()
    const behindLinks = await blockedParents(target, missing)
    for (const relative of missing) {
      const file = path.join(target, relative)
      const info = await lstat(file).catch(() => null)
      if (info === null) continue
      if (info.isDirectory() || behindLinks.has(relative)) {
        result.kept.push(relative)
        continue
      }
      await unlink(file)
      result.deleted.push(relative)
      await pruneEmptyParents(target, relative)
    }
  }
  // After the removals: what stands in the way now stays.
  const [blocked, standing] = await Promise.all([
    blockedParents(
      target,
      entries.map((entry) => entry.path),
    ),
    Promise.all(entries.map((entry) => lstat(path.join(target, entry.path)).catch(() => null))),
  ])
  const writable: TreeEntry[] = []
  entries.forEach((entry, index) => {
    if (standing[index]?.isDirectory() || blocked.has(entry.path)) result.kept.push(entry.path)
    else writable.push(entry)
  })
  await writeEntries(repository, target, writable)
  result.written = writable.map((entry) => entry.path)
  result.kept.sort()
  return result
}
