// Safe restore: rewinds only the paths a session changed, refuses when another writer has
// changed one of them since the session last looked, and always snapshots first so the
// restore itself can be undone.
import type { SessionEvent } from '@tangent/core'
import { TangentError } from '@tangent/core'
import { assertTreesAvailable, changedPaths } from './diff.js'
import {
  assertSafeRelativePath,
  blockedParents,
  type CheckoutResult,
  checkoutTree,
  listTree,
} from './materialize.js'
import { diskFullError, isDiskFull } from './private-files.js'
import { interruptedNote, removeJournal, rollBack, withNote, writeJournal } from './restore-journal.js'
import type { ShadowRepository } from './shadow-repository.js'
import type { Snapshot } from './snapshot.js'
import { snapshotsBetween, type TimelineEntry } from './timeline.js'

export interface RestoreOptions {
  cwd: string
  events: readonly SessionEvent[]
  inheritedEventCount: number
  /** The header's tree at the fork point (or at creation), used when no snapshot precedes `toSeq`. */
  baseTree?: string | null
  toSeq: number
  /** Write even when another writer changed some of the paths since the session's latest snapshot. */
  force?: boolean
  /** See RestoreTreeOptions.commit. */
  commit?: RestoreCommit
}

/**
 * Records a restore once every path is written (the runtime appends `files/restored` and makes
 * it durable), before the journal is removed: a crash before it ends rolls the files back, a crash
 * after it finds the record and finishes (docs/architecture.md §5). If it throws, the files are
 * rolled back and the restore fails.
 */
export type RestoreCommit = (result: RestoreResult) => Promise<void>

export interface RestoreResult {
  /** Paths rewound: written back or removed. */
  restored: string[]
  /** Paths to rewind that were left alone: a directory now stands there, or a symlinked parent. */
  kept: string[]
  /** The snapshot taken before writing: `restoreTree({cwd, tree: undoTree, paths: restored})` undoes. */
  undoTree: string
  /** The snapshot taken after writing; append it as the session's `snapshot/taken`. */
  snapshot: Snapshot
  /** The id of the journal this restore wrote (none when it wrote nothing): its record names it. */
  journalId?: string
}

export interface RestoreTreeOptions {
  cwd: string
  tree: string
  paths: readonly string[]
  /** When given, refuse (unless `force`) if any path on disk differs from this tree. */
  expectTree?: string | null
  force?: boolean
  commit?: RestoreCommit
}

/** What restore needs from FileState: snapshots of cwd without taking the directory lock again. */
export interface RestoreContext {
  repository: ShadowRepository
  snapshot: (cwd: string) => Promise<Snapshot>
  /** A snapshot re-reading only `paths` (see snapshotPaths). */
  snapshotPaths: (cwd: string, paths: readonly string[], skipped: readonly string[]) => Promise<Snapshot>
  /** Fetches trees missing here from the store's objects (a shared store), before they are checked. */
  ensureTrees?: (trees: readonly (string | null)[]) => Promise<void>
}

/** The tree `toSeq` stands for, and the snapshot event it came from (null for baseTree). */
function targetOf(options: RestoreOptions): { tree: string | null; entry: TimelineEntry | null } {
  const own = snapshotsBetween(options.events, options.inheritedEventCount, options.toSeq).at(-1)
  if (own) return { tree: own.tree, entry: own }
  const inherited = snapshotsBetween(options.events, 0, options.toSeq).at(-1) ?? null
  const base = options.baseTree ?? null
  // After the fork point the header's baseTree is the newest state the session started from.
  if (options.toSeq >= options.inheritedEventCount && base !== null) return { tree: base, entry: null }
  return inherited ? { tree: inherited.tree, entry: inherited } : { tree: base, entry: null }
}

/** Snapshot, check for other writers, write `paths` from `tree`, snapshot again. */
async function rewind(
  context: RestoreContext,
  options: {
    cwd: string
    tree: string
    paths: readonly string[]
    expectTree: string | null
    force: boolean
    protect?: ReadonlySet<string>
    /** Paths changed outside the session's turns: rewound only where they differ from `tree`, and only forced. */
    outside?: readonly string[]
    commit?: RestoreCommit | undefined
  },
): Promise<RestoreResult> {
  for (const relative of [...options.paths, ...(options.outside ?? [])]) assertSafeRelativePath(relative)
  await context.ensureTrees?.([options.tree, options.expectTree])
  await assertTreesAvailable(
    context.repository,
    options.expectTree ? [options.tree, options.expectTree] : [options.tree],
  )
  const undo = await context.snapshot(options.cwd)
  // Someone else's change is another writer's work like any drift: it is only overwritten
  // when forced, and only where it differs from the target (otherwise there is nothing to undo).
  const outside = await differingFrom(context.repository, options.tree, undo.tree, options.outside ?? [])
  const paths = [...new Set([...options.paths, ...outside])].sort()
  if (paths.length === 0) return { restored: [], kept: [], undoTree: undo.tree, snapshot: undo }
  const moved =
    options.expectTree === null
      ? new Set<string>()
      : new Set(await changedPaths(context.repository, options.expectTree, undo.tree))
  const conflicts = [...new Set([...paths.filter((relative) => moved.has(relative)), ...outside])].sort()
  if (conflicts.length > 0 && !options.force) {
    throw new TangentError(
      'files-conflict',
      `${conflicts.length} file(s) changed by another writer — since this session's latest snapshot, or between its turns (by hand, or from another session in this folder) — would be overwritten: ${conflicts.slice(0, 10).join(', ')}${conflicts.length > 10 ? ', …' : ''}. Nothing was written; restore with force to overwrite them (undo brings them back).`,
      { paths: conflicts, undoTree: undo.tree },
    )
  }
  const protect = options.protect ?? new Set<string>()
  // A path already as the tree has it is not written: a restore to where the files are changes
  // nothing, and says so (restored: []), so the runtime records nothing and an undo is never spent on it.
  const same = await unchangedPaths(context.repository, undo.tree, options.tree, paths)
  const rewound = paths.filter((relative) => !protect.has(relative) && !same.has(relative))
  if (rewound.length === 0) {
    const kept = paths.filter((relative) => protect.has(relative))
    return { restored: [], kept, undoTree: undo.tree, snapshot: undo }
  }
  await assertNothingInTheWay(context.repository, options.cwd, options.tree, rewound, undo.tree)
  // From here on the directory changes: a crash leaves the journal, and the next start (or
  // the next operation on this directory) rolls the paths back (restore-journal.ts).
  const journal = await writeJournal(context.repository, {
    cwd: options.cwd,
    paths: rewound,
    undoTree: undo.tree,
    targetTree: options.tree,
  }).catch((error: unknown) => {
    throw isDiskFull(error)
      ? diskFullError(context.repository.journalDirectory, 'starting a restore (nothing was written)', error)
      : error
  })
  let written: CheckoutResult
  let after: Snapshot
  try {
    written = await checkoutTree(context.repository, {
      target: options.cwd,
      tree: options.tree,
      paths: new Set(rewound),
      deleteMissing: true,
    })
    // Only the paths just written changed (anything else someone writes meanwhile, the next
    // regular snapshot sees): no second scan of the whole directory.
    after = await context.snapshotPaths(options.cwd, [...written.written, ...written.deleted], undo.skipped)
  } catch (error) {
    // The runtime records nothing for a restore that throws: put the paths back as they were.
    const rolledBack = await rollBack(context, journal).then(
      (outcome) => outcome.action === 'rolled-back',
      () => false,
    )
    const failure = isDiskFull(error) ? diskFullError(options.cwd, 'restoring files', error) : error
    throw withNote(failure, interruptedNote(rolledBack), { rolledBack })
  }
  const result: RestoreResult = {
    restored: [...written.written, ...written.deleted].sort(),
    kept: [...written.kept, ...paths.filter((relative) => protect.has(relative))].sort(),
    undoTree: undo.tree,
    snapshot: after,
    ...(journal.id !== undefined ? { journalId: journal.id } : {}),
  }
  if (options.commit) {
    try {
      await options.commit(result)
    } catch (error) {
      // Not recorded: the files go back to where the log says they are.
      const rolledBack = await rollBack(context, journal).then(
        (outcome) => outcome.action === 'rolled-back',
        () => false,
      )
      throw withNote(error, interruptedNote(rolledBack), { rolledBack })
    }
  }
  await removeJournal(context.repository, options.cwd)
  return result
}

/** Of `paths`, those both trees hold as the same file (content and mode): writing them changes nothing. */
async function unchangedPaths(
  repository: ShadowRepository,
  now: string,
  tree: string,
  paths: readonly string[],
): Promise<Set<string>> {
  const wanted = new Set(paths)
  const [current, target] = await Promise.all([
    listTree(repository, now, wanted),
    listTree(repository, tree, wanted),
  ])
  const held = new Map(current.map((entry) => [entry.path, `${entry.mode} ${entry.object}`]))
  return new Set(
    target
      .filter((entry) => wanted.has(entry.path) && held.get(entry.path) === `${entry.mode} ${entry.object}`)
      .map((entry) => entry.path),
  )
}

/** The paths among `paths` whose content differs between trees `a` and `b`. */
async function differingFrom(
  repository: ShadowRepository,
  a: string,
  b: string,
  paths: readonly string[],
): Promise<string[]> {
  if (paths.length === 0) return []
  const differ = new Set(await changedPaths(repository, a, b))
  return [...new Set(paths)].filter((relative) => differ.has(relative))
}

/**
 * Refuses (`files-conflict`, even with force) to write a path whose parent folder is now a
 * symlink or a file that this restore does not itself remove: git would write through the
 * symlink (out of the directory) or replace the user's link or file with a folder.
 */
async function assertNothingInTheWay(
  repository: ShadowRepository,
  cwd: string,
  tree: string,
  paths: readonly string[],
  undoTree: string,
): Promise<void> {
  if (paths.length === 0) return
  const wanted = new Set(paths)
  const inTree = new Set(
    (await listTree(repository, tree, wanted)).map((entry) => entry.path).filter((p) => wanted.has(p)),
  )
  // Paths the tree lacks are removed before anything is written: those may stand in the way.
  const removable = new Set(paths.filter((relative) => !inTree.has(relative)))
  const blocked = [...(await blockedParents(cwd, inTree, removable))].map(([relative, parent]) => ({
    path: relative,
    parent,
  }))
  if (blocked.length === 0) return
  blocked.sort((a, b) => (a.path < b.path ? -1 : 1))
  const shown = blocked
    .slice(0, 10)
    .map((entry) => `${entry.path} (${entry.parent} is now a symlink or a file)`)
    .join(', ')
  throw new TangentError(
    'files-conflict',
    `${blocked.length} file(s) cannot be restored because a parent folder was replaced by a symlink or a file: ${shown}${blocked.length > 10 ? ', …' : ''}. Nothing was written, and force does not write through or replace it: put the folder back (or remove the link) and restore again.`,
    { paths: blocked.map((entry) => entry.path), undoTree, blockedBy: blocked.map((entry) => entry.parent) },
  )
}

/**
 * Rewinds the paths this session changed after `toSeq` (its own `snapshot/taken` events) to
 * their content at `toSeq`. Throws `files-conflict` {paths} unless `force` when one of them
 * differs on disk from the session's latest snapshot, or when a path changed outside its turns
 * after `toSeq` (a turn-start snapshot's `outside`) differs from its content at `toSeq`;
 * forced, those are rewound too. `snapshot-unavailable` when no tree is known at `toSeq`.
 */
export async function restoreSession(
  context: RestoreContext,
  options: RestoreOptions,
): Promise<RestoreResult> {
  const later = snapshotsBetween(
    options.events,
    Math.max(options.inheritedEventCount, options.toSeq + 1),
    Number.POSITIVE_INFINITY,
  )
  const paths = later.flatMap((entry) => entry.changed)
  const outside = later.flatMap((entry) => entry.outside ?? [])
  const target = targetOf(options)
  if (target.tree === null) {
    if (paths.length === 0) {
      const undo = await context.snapshot(options.cwd)
      return { restored: [], kept: [], undoTree: undo.tree, snapshot: undo }
    }
    throw new TangentError(
      'snapshot-unavailable',
      `No snapshot at or before seq ${options.toSeq} and no baseTree: the file state there is unknown, so nothing was restored. Pick a later seq.`,
      { toSeq: options.toSeq },
    )
  }
  // A file over the size limit at the target was never in its tree: leave it, never delete it.
  const protect = new Set(target.entry?.skipped ?? [])
  return rewind(context, {
    cwd: options.cwd,
    tree: target.tree,
    paths,
    expectTree: later.at(-1)?.tree ?? null,
    force: options.force ?? false,
    protect,
    outside,
    commit: options.commit,
  })
}

/** Writes `paths` of `tree` into cwd (removing those the tree lacks); used to undo a restore. */
export function restoreTree(context: RestoreContext, options: RestoreTreeOptions): Promise<RestoreResult> {
  return rewind(context, {
    cwd: options.cwd,
    tree: options.tree,
    paths: options.paths,
    expectTree: options.expectTree ?? null,
    force: options.force ?? false,
    commit: options.commit,
  })
}
