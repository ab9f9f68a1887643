// Unified diffs between two snapshot trees. All directories of a home share one object
// store, so trees of a worktree and of its parent compare directly.
import { TangentError } from '@tangent/core'
import { splitNul } from './git.js'
import { emptyTree, type ShadowRepository } from './shadow-repository.js'

export interface FileDiff {
  /** Relative to the snapshotted directory, '/'-separated. */
  path: string
  status: 'added' | 'deleted' | 'modified'
  /** The unified diff of this file (`diff --git …`), "Binary files … differ" for binaries. */
  patch: string
}

export interface DiffOptions {
  /** Lines of context around each change (git's default: 3). */
  contextLines?: number
}

const statusNames: Record<string, FileDiff['status']> = {
  A: 'added',
  D: 'deleted',
  M: 'modified',
  T: 'modified',
}

/** Throws `snapshot-unavailable` {trees} unless every tree is in the store. */
export async function assertTreesAvailable(
  repository: ShadowRepository,
  trees: readonly string[],
): Promise<void> {
  const missing = await repository.missingTrees(trees)
  if (missing.length > 0) {
    throw new TangentError(
      'snapshot-unavailable',
      `Snapshot tree ${missing.join(', ')} is not in ${repository.gitDir}: it was taken under another TANGENT_HOME or removed; take a new snapshot.`,
      { trees: missing },
    )
  }
}

/** Paths that differ between two trees (null: the empty tree), without patches. */
export async function changedPaths(
  repository: ShadowRepository,
  a: string | null,
  b: string | null,
): Promise<string[]> {
  const from = a ?? emptyTree
  const to = b ?? emptyTree
  if (from === to) return []
  const diff = await repository.git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to])
  return splitNul(diff.stdout)
}

/** Files that differ from tree `a` to tree `b` (null: the empty tree), in git's path order. */
export async function diffTrees(
  repository: ShadowRepository,
  a: string | null,
  b: string | null,
  options: DiffOptions = {},
): Promise<FileDiff[]> {
  const from = a ?? emptyTree
  const to = b ?? emptyTree
  if (from === to) return []
  await assertTreesAvailable(repository, [from, to])
  const [names, patches] = await Promise.all([
    repository.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to]),
    repository.git([
      'diff-tree',
      '-r',
      '-p',
      '--no-renames',
      '--no-ext-diff',
      '--no-color',
      '--src-prefix=a/',
      '--dst-prefix=b/',
      `--unified=${options.contextLines ?? 3}`,
      from,
      to,
    ]),
  ])
  const fields = splitNul(names.stdout)
  // A header starts at the beginning of a line; content lines carry a ' ', '+' or '-' first.
  const chunks = patches.stdout
    .toString('utf8')
    .split(/^(?=diff --git )/m)
    .filter((chunk) => chunk.length > 0)
  const diffs: FileDiff[] = []
  let next = 0
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const letter = fields[i] ?? ''
    // A type change (file <-> symlink) is printed as a deletion and a creation: two patches.
    const count = letter === 'T' ? 2 : 1
    diffs.push({
      path: fields[i + 1] ?? '',
      status: statusNames[letter] ?? 'modified',
      patch: chunks.slice(next, next + count).join(''),
    })
    next += count
  }
  if (next !== chunks.length) {
    throw new TangentError(
      'git-failed',
      `git diff-tree listed ${diffs.length} files but printed ${chunks.length} patches for ${from}..${to}; report this with both trees.`,
      { from, to },
    )
  }
  return diffs
}
