// Writes paths of a snapshot tree into a directory (checkout-index through a throwaway index)
// and removes the ones the tree does not have. Used by restore, undo and worktree forks.
import { randomUUID } from 'node:crypto'
import { lstat, mkdir, rm, rmdir, unlink } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { splitNul } from './git.js'
import { emptyTree, type ShadowRepository } from './shadow-repository.js'

export interface TreeEntry {
  mode: string
  type: string
  object: string
  path: string
}

// Up to this many paths go to ls-tree as arguments; more, and the whole tree is listed.
const pathArgumentLimit = 200

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

/** True when a directory between `root` and `relative`'s file is a symlink (deleting through it would leave root). */
async function crossesSymlink(root: string, relative: string): Promise<boolean> {
  const parts = relative.split('/').slice(0, -1)
  let current = root
  for (const part of parts) {
    current = path.join(current, part)
    const info = await lstat(current).catch(() => null)
    if (info === null) return false
    if (info.isSymbolicLink()) return true
  }
  return false
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
  const scratch = path.join(repository.gitDir, 'tangent', 'scratch')
  await mkdir(scratch, { recursive: true })
  const indexFile = path.join(scratch, `${randomUUID()}.index`)
  try {
    const scope = { cwd: target, workTree: target, indexFile }
    const records = entries.map((entry) => `${entry.mode} ${entry.object} 0\t${entry.path}\0`).join('')
    await repository.git(['update-index', '-z', '--index-info'], { ...scope, input: records })
    await repository.git(['checkout-index', '--all', '--force', '--quiet'], scope)
  } finally {
    await rm(indexFile, { force: true })
  }
}

export interface CheckoutResult {
  /** Paths written with the tree's content. */
  written: string[]
  /** Paths removed because the tree does not have them. */
  deleted: string[]
  /** Paths the tree does not have that were left alone (a directory now, or behind a symlink). */
  kept: string[]
}

/**
 * Makes `paths` of `target` equal to `tree` (all of the tree's files when `paths` is null):
 * files in the tree are written, the others are removed when `deleteMissing`.
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
  await writeEntries(repository, target, entries)
  const result: CheckoutResult = { written: entries.map((entry) => entry.path), deleted: [], kept: [] }
  if (options.deleteMissing && paths !== null) {
    const inTree = new Set(entries.map((entry) => entry.path))
    for (const relative of [...paths].sort()) {
      if (inTree.has(relative)) continue
      const file = path.join(target, relative)
      const info = await lstat(file).catch(() => null)
      if (info === null) continue
      if (info.isDirectory() || (await crossesSymlink(target, relative))) {
        result.kept.push(relative)
        continue
      }
      await unlink(file)
      result.deleted.push(relative)
      await pruneEmptyParents(target, relative)
    }
  }
  return result
}
