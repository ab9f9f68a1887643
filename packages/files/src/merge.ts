// A three-way merge of snapshot trees in the shadow repository (docs/architecture.md §13.4):
// what a branch changed since the fork point, applied over what its parent has now. Git does
// the merge (`merge-tree --write-tree`, git 2.38+) on throwaway commits of the three trees, so
// nothing touches a working directory; the caller writes the result through a safe restore.
import { TangentError } from '@tangent/core'
import { changedPaths } from './diff.js'
import { emptyTree, type ShadowRepository } from './shadow-repository.js'

export interface TreeMerge {
  /** The merged tree (equal to `ours` when the branch changed nothing). */
  tree: string
  /** Paths where both sides changed the same lines (or one deleted what the other changed). Empty: clean. */
  conflicts: string[]
  /** Paths that differ between `ours` and the merged tree: what applying the merge writes. */
  changed: string[]
}

/**
 * Merges `theirs` into `ours` against `base` (null: the empty tree). Clean when every path
 * either side changed was changed by one side only or in lines the other did not touch.
 */
export async function mergeTrees(
  repository: ShadowRepository,
  trees: { base: string | null; ours: string; theirs: string },
): Promise<TreeMerge> {
  const base = trees.base ?? emptyTree
  if (trees.theirs === base) return { tree: trees.ours, conflicts: [], changed: [] }
  if (trees.ours === base) {
    return {
      tree: trees.theirs,
      conflicts: [],
      changed: await changedPaths(repository, trees.ours, trees.theirs),
    }
  }
  const commit = async (tree: string, parent?: string) =>
    (
      await repository.git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', 'tangent merge'])
    ).stdout
      .toString('utf8')
      .trim()
  const baseCommit = await commit(base)
  const [ours, theirs] = await Promise.all([commit(trees.ours, baseCommit), commit(trees.theirs, baseCommit)])
  const result = await repository.git(
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs],
    { allowedExitCodes: [1] },
  )
  const fields = result.stdout.toString('utf8').split('\0')
  const tree = fields[0]?.trim() ?? ''
  if (!/^[0-9a-f]{40,64}$/.test(tree)) {
    throw new TangentError('git-failed', `git merge-tree gave no tree: ${result.stderr.trim()}`, {
      args: ['merge-tree'],
      stderr: result.stderr,
      exitCode: result.exitCode,
    })
  }
  const conflicts = result.exitCode === 1 ? [...new Set(fields.slice(1).filter((field) => field !== ''))] : []
  return {
    tree,
    conflicts,
    changed: conflicts.length > 0 ? [] : await changedPaths(repository, trees.ours, tree),
  }
}
