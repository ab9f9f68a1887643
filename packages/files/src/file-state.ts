// FileState: the one object the Host creates per TANGENT_HOME to snapshot, restore, fork and
// compare the files of sessions. Operations on one directory run one at a time; gc runs alone.
import { existsSync, statSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { type SessionEvent, type SnapshotObjectStore, TangentError } from '@tangent/core'
import { assertTreesAvailable, changedPaths, type DiffOptions, diffTrees, type FileDiff } from './diff.js'
import { realDirectory, resolveDirectory, type SnapshotDirectory } from './directory.js'
import { FolderWatch, WatchBarrier, type WatchToken } from './folder-watch.js'
import { splitNul } from './git.js'
import { mergeTrees, type TreeMerge } from './merge.js'
import { ObjectMirror } from './object-mirror.js'
import { OperationQueue } from './operation-queue.js'
import {
  type RestoreContext,
  type RestoreOptions,
  type RestoreResult,
  type RestoreTreeOptions,
  restoreSession,
  restoreTree,
} from './restore.js'
import {
  deferred,
  journalFile,
  journalOf,
  listJournals,
  ownerIsRunning,
  type RecoveredRestore,
  removeJournal,
  rollBack,
} from './restore-journal.js'
import { dropLostAlternates, dropRefsToMissingObjects } from './seed.js'
import { ShadowRepository } from './shadow-repository.js'
import { sweepSharedIndexes } from './shared-index.js'
import {
  type ComparedSnapshot,
  type Snapshot,
  scopeOf,
  snapshotChanges,
  snapshotPaths,
  type TurnStartSnapshot,
  takeSnapshot,
} from './snapshot.js'
import { type SessionLike, type TimelineEntry, timeline, treeAt } from './timeline.js'
import {
  type CreatedWorktree,
  createWorktree,
  type KeptWorktree,
  keepWorktree,
  type ReconcileResult,
  type RemoveWorktreeOptions,
  type RemoveWorktreeResult,
  reconcileWorktrees,
  removeWorktree,
  type WorktreeContext,
  worktreeChanges,
} from './worktree.js'

export interface FileStateOptions {
  /** TANGENT_HOME: snapshots go to `<home>/snapshots/objects.git`, worktrees to `<home>/worktrees/`. */
  home: string
  /** Files larger than this are left out of snapshots and named in `skipped` (default 2 MiB). */
  maxFileBytes?: number
  /** Private indexes at least this big are kept as git split indexes (default 2 MiB; shared-index.ts). */
  splitIndexBytes?: number
  /**
   * Told of an interrupted restore that an operation on its directory found and rolled back
   * (one whose directory was missing at start); recoverInterrupted() returns the others.
   */
  onRecovered?: (recovered: RecoveredRestore) => void
  /**
   * Whether the restore a journal describes was recorded (the runtime looks for its
   * `files/restored` in the logs of sessions in that directory). A recorded one is finished,
   * not rolled back. Default: never (every interrupted restore is rolled back).
   */
  isRecorded?: (journal: {
    id?: string | undefined
    cwd: string
    undoTree: string
    targetTree: string
  }) => Promise<boolean>
  /**
   * The store's snapshot objects (PostgreSQL: shared by the Hosts of other machines). Every tree a
   * method returns that a session may record is uploaded there before the method returns, and a
   * tree missing here is fetched from there before it is read (docs/architecture.md §4, "Where
   * snapshot objects live"). Absent (JSONL): the shadow repository only.
   */
  objects?: SnapshotObjectStore
  /**
   * Watch the directories it snapshots for changes between snapshots (folder-watch.ts), so a
   * step's snapshot re-reads only what changed: for a process that lives across turns (the
   * Host, chat, the terminal UI, `tangent acp`). Off by default: a watch is worth its set-up
   * only when snapshots of the directory follow in the same process. Call close() at the end.
   */
  watch?: boolean
}

/** A directory watched between snapshots, and its latest snapshot taken here. */
interface Watched {
  watch: FolderWatch | null
  /** The latest snapshot of the directory taken here, and the mark taken before it read the tree. */
  mark: { tree: string; skipped: readonly string[]; token: WatchToken } | null
  /** Watches of it that broke: at maxWatchBreaks (at once when one cannot be set up), never watched again. */
  breaks: number
  /** Full snapshots of it taken here since it was first seen, or since its watch last broke. */
  walks: number
  /** The watch's start: true once it watches every folder. */
  started: Promise<boolean> | null
}

/** Watches of a directory that may break before it is never watched again. */
const maxWatchBreaks = 3

export interface GcResult {
  /** Bytes of the object store (loose + packed) before and after. */
  bytesBefore: number
  bytesAfter: number
  /** With `objects`: what its collect() removed, and the bytes of its objects' data before and after. */
  objects?: { removed: number; bytesBefore: number; bytesAfter: number }
}

export const defaultMaxFileBytes = 2 * 1024 * 1024

function isDirectory(directory: string): boolean {
  return statSync(directory, { throwIfNoEntry: false })?.isDirectory() === true
}

/** The folders above `folder` up to and with `top` (none when they are the same). */
function ancestorsUpTo(top: string, folder: string): string[] {
  const found: string[] = []
  for (let current = folder; current !== top; ) {
    const parent = path.dirname(current)
    if (parent === current) break
    found.push(parent)
    current = parent
  }
  return found
}

export class FileState {
  readonly home: string
  readonly maxFileBytes: number
  readonly repository: ShadowRepository
  readonly #queue = new OperationQueue()
  /** The latest realpath lookup: lookups settle in call order, so operations queue in call order. */
  #resolving: Promise<unknown> = Promise.resolve()

  readonly #onRecovered: ((recovered: RecoveredRestore) => void) | undefined
  readonly #isRecorded: NonNullable<FileStateOptions['isRecorded']>
  readonly #objects: SnapshotObjectStore | undefined
  readonly #mirror: ObjectMirror | undefined
  readonly #watching: boolean
  readonly #watched = new Map<string, Watched>()
  #barrier: WatchBarrier | null = null

  constructor(options: FileStateOptions) {
    this.repository = new ShadowRepository(
      options.home,
      options.splitIndexBytes !== undefined ? { splitIndexBytes: options.splitIndexBytes } : {},
    )
    this.home = this.repository.home
    this.maxFileBytes = options.maxFileBytes ?? defaultMaxFileBytes
    this.#onRecovered = options.onRecovered
    this.#isRecorded = options.isRecorded ?? (async () => false)
    this.#objects = options.objects
    this.#mirror = options.objects ? new ObjectMirror(this.repository, options.objects) : undefined
    this.#watching = options.watch === true
  }

  /** Stops watching directories. Snapshots still work after it, by walking. */
  close(): void {
    for (const watched of this.#watched.values()) watched.watch?.close()
    this.#watched.clear()
    this.#barrier?.close()
    this.#barrier = null
  }

  /**
   * Puts right the restores a crash interrupted (call it at open, before anything else): each
   * one's paths are rolled back to what they were before it, since the log has no event for
   * it (restore again to redo it). A directory that is missing now is `deferred`: its journal
   * stays and the first operation on it later rolls it back (`onRecovered` tells of it). Also
   * removes the throwaway indexes a crash leaves in the store.
   */
  async recoverInterrupted(): Promise<RecoveredRestore[]> {
    if (!existsSync(path.join(this.home, 'snapshots'))) return []
    await this.repository.ensure()
    const results: RecoveredRestore[] = []
    for (const { file, journal, error } of await listJournals(this.repository)) {
      if (journal === null) {
        await rm(file, { force: true })
        results.push({
          cwd: file,
          action: 'abandoned',
          paths: [],
          rewritten: [],
          kept: [],
          reason: `unreadable restore journal, removed: ${error ?? 'unknown error'}`,
        })
        continue
      }
      if (ownerIsRunning(journal)) continue
      if (!isDirectory(journal.cwd)) {
        results.push(deferred(journal, `${journal.cwd} is missing: rolled back when it is back`))
        continue
      }
      const outcome = await this.#queue
        .run(journal.cwd, () => this.#recover(journal.cwd))
        .catch((caught: unknown) =>
          deferred(journal, caught instanceof Error ? caught.message : String(caught)),
        )
      if (outcome !== null) results.push(outcome)
    }
    return results
  }

  /** Snapshots `cwd` (the whole tree); `changed` lists the paths that differ from its previous snapshot. */
  snapshot(cwd: string): Promise<Snapshot> {
    return this.#inOrder(cwd, (real) => this.#snapshotUnlocked(real))
  }

  /**
   * The snapshot after a step whose tools named every file they wrote (`paths`, relative to
   * `cwd`; none for a step that only read), taken from `since` — the session's latest snapshot
   * and its skipped paths — without walking the tree when that is sound (snapshot.ts
   * `snapshotChanges`, as a watched turn start); otherwise the full snapshot of `snapshot(cwd)`.
   */
  snapshotAfterWrites(
    cwd: string,
    paths: readonly string[],
    since: { tree: string; skipped: readonly string[] } | null,
  ): Promise<Snapshot> {
    return this.#inOrder(cwd, async (real) => {
      await this.repository.ensure()
      const directory = await resolveDirectory(this.repository, real)
      if (since !== null) {
        // With the folder watched: every event of these writes received before they are staged,
        // so the next turn's start need not read them again (only what changed after).
        const watched = this.#watched.get(real)
        const seen = watched?.watch && watched.mark?.tree === since.tree ? await watched.watch.sync() : null
        const quick = (await snapshotChanges(this.repository, directory, paths, since, this.maxFileBytes))
          ?.snapshot
        if (quick !== undefined) {
          await this.#mirror?.upload(quick.tree, real)
          // The watch's mark stands: what changed since it, but these files, is still to read.
          if (watched?.mark) {
            if (watched.mark.tree === since.tree) {
              watched.mark = { ...watched.mark, tree: quick.tree, skipped: quick.skipped }
              if (seen !== null) watched.watch?.forget(paths, seen)
            } else {
              watched.mark = null
            }
          }
          return quick
        }
      }
      return (await this.#walk(directory)).snapshot
    })
  }

  /**
   * The snapshot at the start of a turn (docs/architecture.md §5): what differs from `since`,
   * the session's latest tree, changed while none of its turns ran — by hand, or by another
   * session in the folder — so it is `outside`, and `changed` is empty. Null when the directory
   * is as `since` has it (nothing to record); with `since` null, the session's first tree.
   * The directory's snapshot ref moves here, so the turn's first step books only its own changes.
   */
  snapshotTurnStart(cwd: string, since: string | null): Promise<TurnStartSnapshot | null> {
    return this.#inOrder(cwd, async (real) => {
      // A session's first tree lists no change: not worth a diff against nothing of every file.
      // Between turns only the person and other sessions act: a watch that saw every change
      // since the directory's latest snapshot here spares the walk (§5, "Folders watched").
      // The session's tree is most often the directory's latest: then the snapshot's `changed`
      // (against that, `previous`) is what changed outside, with no second diff.
      await this.repository.ensure()
      const directory = await resolveDirectory(this.repository, real)
      const { snapshot, previous } = await this.#snapshotWatched(directory, {
        listFirstChanges: since !== null,
      })
      const first: TurnStartSnapshot = { tree: snapshot.tree, changed: [], skipped: snapshot.skipped }
      if (since === null) return first
      if (snapshot.tree === since) return null
      if (previous === since)
        return snapshot.changed.length > 0 ? { ...first, outside: snapshot.changed } : null
      await this.#ensure([since])
      // A tree from another TANGENT_HOME cannot be compared: the directory's previous snapshot can.
      const comparable = (await this.repository.missingTrees([since])).length === 0
      const outside = comparable
        ? await changedPaths(this.repository, since, snapshot.tree)
        : snapshot.changed
      return outside.length > 0 ? { ...first, outside } : null
    })
  }

  /** Latest `snapshot/taken` tree at or before `seq`, else `baseTree`, else null. Pure. */
  treeAt(events: readonly SessionEvent[], seq: number, baseTree: string | null = null): string | null {
    return treeAt(events, seq, baseTree)
  }

  /** The session's own snapshots (seq >= inheritedEventCount). Pure. */
  timeline(session: SessionLike): TimelineEntry[] {
    return timeline(session)
  }

  /**
   * Rewinds the paths this session changed after `toSeq` to their content at `toSeq`.
   * Takes an undo snapshot first; throws `files-conflict` {paths, undoTree} unless `force`.
   */
  restore(options: RestoreOptions): Promise<RestoreResult> {
    return this.#inOrder(options.cwd, async (real) => {
      await this.repository.ensure()
      return restoreSession(this.#context(), { ...options, cwd: real })
    })
  }

  /** Writes `paths` of `tree` back into cwd (removing those it lacks): the undo of a restore. */
  restoreTree(options: RestoreTreeOptions): Promise<RestoreResult> {
    return this.#inOrder(options.cwd, async (real) => {
      await this.repository.ensure()
      return restoreTree(this.#context(), { ...options, cwd: real })
    })
  }

  /**
   * A directory for a forked session holding `tree` (or cwd's current state when null). With cwd
   * null (no folder of the project on this machine) a plain copy of `tree`, which must be given.
   */
  async createWorktree(options: {
    cwd: string | null
    tree: string | null
    sessionId: string
    skipped?: readonly string[]
  }): Promise<CreatedWorktree> {
    await this.repository.ensure()
    await this.#ensure([options.tree])
    const created = await createWorktree(this.#worktreeContext(), options)
    await this.#mirror?.upload(created.tree, created.path)
    return created
  }

  /**
   * Puts `trees` (and everything below them) into the store's objects, for sessions copied into a
   * shared store (`tangent migrate`): in order, each one's new objects only, against the previous
   * one of the same `series` (a session's directory). Trees this shadow repository lacks are
   * returned, not uploaded. Without `objects`, nothing is uploaded.
   */
  async uploadTrees(
    trees: readonly string[],
    series: string,
  ): Promise<{ uploaded: number; missing: string[] }> {
    if (this.#mirror === undefined || trees.length === 0) return { uploaded: 0, missing: [] }
    await this.repository.ensure()
    const missing = new Set(await this.repository.missingTrees([...new Set(trees)]))
    let uploaded = 0
    for (const tree of trees) {
      if (missing.has(tree)) continue
      await this.#mirror.upload(tree, series)
      uploaded++
    }
    return { uploaded, missing: [...missing] }
  }

  /**
   * Fetches the trees missing from the shadow repository from the store's objects, with everything
   * below them, each object checked against its id. Without `objects`, or for a tree the store
   * lacks too, nothing happens: the operation that needs the tree says snapshot-unavailable.
   */
  async ensureTrees(trees: readonly (string | null)[]): Promise<void> {
    await this.#ensure(trees)
  }

  async #ensure(trees: readonly (string | null)[]): Promise<void> {
    if (this.#mirror === undefined) return
    await this.repository.ensure()
    await this.#mirror.ensure(trees)
  }

  /**
   * Keeps a worktree made by createWorktree for the user once its session is deleted: a copy is
   * moved out of the data directory (to `to`, default beside its project), a git worktree is
   * recorded as kept (or moved to `to`); either way it is never reported as an orphan.
   */
  async keepWorktree(
    worktreePath: string,
    options: { to?: string; stay?: boolean } = {},
  ): Promise<KeptWorktree> {
    await this.repository.ensure()
    return keepWorktree(this.#worktreeContext(), worktreePath, options)
  }

  /**
   * Removes a worktree made by createWorktree. Keeps it (removed: false, reason) when it has
   * uncommitted changes, unless force; and, force or not, when `inUseBy` names sessions
   * whose directory is in it.
   */
  async removeWorktree(
    worktreePath: string,
    options: RemoveWorktreeOptions = {},
  ): Promise<RemoveWorktreeResult> {
    await this.repository.ensure()
    await this.#ensure([options.since ?? null])
    return removeWorktree(this.#worktreeContext(), worktreePath, options)
  }

  /**
   * What removing a worktree made by createWorktree would lose (`dirty`, as removeWorktree
   * without force judges it against `since`, default the fork point's tree), and the shell
   * commands that remove it by hand (`removeBy`). Removes nothing.
   */
  async worktreeChanges(
    worktreePath: string,
    options: Pick<RemoveWorktreeOptions, 'since'> = {},
  ): Promise<{ dirty: string[]; removeBy: string }> {
    await this.repository.ensure()
    await this.#ensure([options.since ?? null])
    return worktreeChanges(this.#worktreeContext(), worktreePath, options)
  }

  /** Removes worktrees no session owns (crash mid-fork); keeps and reports those with changes. */
  async reconcileWorktrees(
    isKnownSession: (sessionId: string) => boolean,
    options: { createdBefore?: number; usersOf?: (root: string) => readonly string[] } = {},
  ): Promise<ReconcileResult> {
    // Nothing was ever forked into a worktree: no need to create the snapshot store.
    if (!existsSync(path.join(this.home, 'worktrees'))) return { removed: [], kept: [] }
    await this.repository.ensure()
    return reconcileWorktrees(this.#worktreeContext(), isKnownSession, options)
  }

  /** Unified diffs from tree `a` to tree `b` (null: empty), across directories of this home. */
  async diffTrees(a: string | null, b: string | null, options: DiffOptions = {}): Promise<FileDiff[]> {
    await this.repository.ensure()
    await this.#ensure([a, b])
    return diffTrees(this.repository, a, b, options)
  }

  /**
   * Three-way merge of snapshot trees: `theirs` (a branch) into `ours` (its parent now) against
   * `base` (the fork point). Writes nothing in any directory; `conflicts` empty means clean.
   */
  async mergeTrees(trees: { base: string | null; ours: string; theirs: string }): Promise<TreeMerge> {
    await this.repository.ensure()
    await this.#ensure([trees.ours, trees.theirs, trees.base])
    await assertTreesAvailable(this.repository, [
      trees.ours,
      trees.theirs,
      ...(trees.base ? [trees.base] : []),
    ])
    return mergeTrees(this.repository, trees)
  }

  /** The content of `file` in `tree`, or null when the tree has no such file. */
  async readFile(tree: string, file: string): Promise<Buffer | null> {
    await this.repository.ensure()
    await this.#ensure([tree])
    const result = await this.repository.git(['cat-file', 'blob', `${tree}:${file}`], {
      allowedExitCodes: [128],
    })
    return result.exitCode === 0 ? result.stdout : null
  }

  /** Snapshots both directories and diffs them (e.g. a worktree against its parent's cwd). */
  async diffDirectories(a: string, b: string, options: DiffOptions = {}): Promise<FileDiff[]> {
    const [left, right] = await Promise.all([this.snapshot(a), this.snapshot(b)])
    return diffTrees(this.repository, left.tree, right.tree, options)
  }

  /** Prunes objects no snapshot references, with nothing else running. */
  gc(): Promise<GcResult> {
    return this.#queue.exclusive(async () => {
      await this.repository.ensure()
      const bytesBefore = await this.#storeBytes()
      await dropLostAlternates(this.repository)
      const collected = await this.repository.git(['gc', '--quiet', '--prune=now'], {
        allowedExitCodes: [128],
      })
      if (collected.exitCode !== 0) {
        // A project whose repository lent a seed its objects is gone: the snapshots naming them
        // cannot be restored any more, and would stop every gc. Their refs go; the rest is kept.
        if ((await dropRefsToMissingObjects(this.repository)) === 0) {
          throw new TangentError('git-failed', `git gc failed: ${collected.stderr.trim().slice(0, 2000)}`, {
            args: ['gc'],
            stderr: collected.stderr,
            cwd: this.repository.gitDir,
          })
        }
        await this.repository.git(['gc', '--quiet', '--prune=now'])
      }
      // Shared indexes no private index names any more (replaced by a newer one, or their
      // folder's index removed): git is told never to expire them itself (shared-index.ts).
      await sweepSharedIndexes(this.repository.gitDir, [
        this.repository.indexDirectory,
        this.repository.scratchDirectory,
      ])
      // The prune may have removed trees the mirror knew as local (fetched ones no ref holds).
      this.#mirror?.forget()
      const objects = await this.#objects?.collect()
      return { bytesBefore, bytesAfter: await this.#storeBytes(), ...(objects ? { objects } : {}) }
    })
  }

  async #storeBytes(): Promise<number> {
    const counted = await this.repository.git(['count-objects', '-v'])
    let kib = 0
    for (const line of counted.stdout.toString('utf8').split('\n')) {
      const [key, value] = line.split(': ')
      if (key === 'size' || key === 'size-pack') kib += Number(value)
    }
    return kib * 1024
  }

  /**
   * Runs `operation` on realpath(cwd) after the earlier operations on that directory. The
   * lookups are chained so that calls queue in the order they were made, not in the order
   * their (concurrent) realpath lookups happen to finish.
   */
  #inOrder<T>(cwd: string, operation: (real: string) => Promise<T>): Promise<T> {
    const real = this.#resolving.then(() => realDirectory(cwd))
    this.#resolving = real.catch(() => undefined)
    return real.then((resolved) =>
      this.#queue.run(resolved, async () => {
        const recovered = await this.#recover(resolved)
        if (recovered !== null) this.#onRecovered?.(recovered)
        return operation(resolved)
      }),
    )
  }

  /**
   * Rolls back an interrupted restore of `real` (with its lock held), if there is one; throws
   * when it cannot, so nothing snapshots or writes over a half-restored directory.
   */
  async #recover(real: string): Promise<RecoveredRestore | null> {
    // The common case costs one existsSync.
    const file = journalFile(this.repository, real)
    if (!existsSync(file)) return null
    const journal = await journalOf(this.repository, real).catch(() => null)
    if (journal === null) {
      // Not ours to read (written by another version?): it must not block this directory.
      await rm(file, { force: true })
      return {
        cwd: real,
        action: 'abandoned',
        paths: [],
        rewritten: [],
        kept: [],
        reason: `unreadable restore journal ${file}, removed`,
      }
    }
    if (ownerIsRunning(journal)) return null
    await this.repository.ensure()
    if (await this.#isRecorded(journal).catch(() => false)) {
      await removeJournal(this.repository, real)
      return { cwd: real, action: 'finished', paths: journal.paths, rewritten: [], kept: [] }
    }
    return rollBack(this.#context(), journal)
  }

  /**
   * A full snapshot: the whole tree is walked. Its tree is in the store's objects before it is
   * returned. With watching on, the directory's watch marks the moment before the walk (and is
   * started after the first walk).
   */
  async #snapshotUnlocked(cwd: string): Promise<Snapshot> {
    await this.repository.ensure()
    return (await this.#walk(await resolveDirectory(this.repository, cwd))).snapshot
  }

  /** #snapshotUnlocked of a directory already resolved (the store ensured), with its `previous`. */
  async #walk(
    directory: SnapshotDirectory,
    options: { listFirstChanges?: boolean } = {},
  ): Promise<ComparedSnapshot> {
    const watched = this.#watched.get(directory.path)
    const token = watched?.watch?.token() ?? null
    const taken = await takeSnapshot(this.repository, directory, this.maxFileBytes, options)
    await this.#mirror?.upload(taken.snapshot.tree, directory.path)
    if (this.#watching) this.#remember(directory, taken.snapshot, token)
    return taken
  }

  /**
   * A snapshot that reads only the paths a watch of the directory saw change since its latest
   * snapshot taken here, when the watch vouches for the whole period; else a full one. The
   * directory is resolved and the store ensured by the caller.
   */
  async #snapshotWatched(
    directory: SnapshotDirectory,
    options: { listFirstChanges?: boolean } = {},
  ): Promise<ComparedSnapshot> {
    const watched = this.#watched.get(directory.path)
    const mark = watched?.mark
    if (watched?.watch && mark) {
      const changes = await watched.watch.changesSince(mark.token)
      // The next period starts here: every event so far is received and every folder watched.
      const token = watched.watch.token()
      if (changes !== null && token !== null) {
        const quick = await snapshotChanges(
          this.repository,
          directory,
          changes,
          { tree: mark.tree, skipped: mark.skipped },
          this.maxFileBytes,
        )
        if (quick !== null) {
          await this.#mirror?.upload(quick.snapshot.tree, directory.path)
          watched.mark = { tree: quick.snapshot.tree, skipped: quick.snapshot.skipped, token }
          return quick
        }
      }
    }
    return this.#walk(directory, options)
  }

  /** After a full snapshot: the watch's mark, or a watch started (in the background). */
  #remember(directory: SnapshotDirectory, snapshot: Snapshot, token: WatchToken | null): void {
    const watched = this.#watched.get(directory.path)
    // A directory walked once may be a one-off (`tangent run` walks twice a turn): one walked
    // again is watched from then on, in the background, so the set-up weighs on no turn's start.
    if (watched === undefined) {
      this.#watched.set(directory.path, { watch: null, mark: null, breaks: 0, walks: 1, started: null })
      return
    }
    if (watched.watch?.broken) {
      watched.watch.close()
      watched.watch = null
      // Watched anew after two more walks (this one counts); broken again and again (too many
      // folders, no kernel watches left), walked every time.
      watched.breaks++
      watched.walks = 0
    }
    watched.mark = token === null ? null : { tree: snapshot.tree, skipped: snapshot.skipped, token }
    if (watched.watch !== null || watched.breaks >= maxWatchBreaks || ++watched.walks !== 2) return
    this.#barrier ??= new WatchBarrier(path.join(this.home, 'snapshots', 'watch'))
    const barrier = this.#barrier
    const entry: Watched = watched
    const rulesListedAt = Date.now()
    entry.started = this.#ignoredFolders(directory)
      .then((skip) => {
        if (this.#watched.get(directory.path) !== entry) return false
        entry.watch = new FolderWatch(directory.path, {
          skip,
          barrier,
          rulesListedAt,
          ancestors: ancestorsUpTo(directory.top, directory.path),
        })
        return entry.watch.started
      })
      .catch(() => {
        entry.breaks = maxWatchBreaks
        return false
      })
  }

  /**
   * Whether `cwd` is watched between snapshots (FileStateOptions.watch): once its watch is set
   * up, true; false when it is not watched (yet: a directory is watched from its second full
   * snapshot here) or its watch broke (then the reason is in `broken`).
   */
  async watchState(cwd: string): Promise<{ watching: boolean; folders: number; broken: string | null }> {
    const watched = this.#watched.get(await realDirectory(cwd))
    const started = (await watched?.started) ?? false
    const watch = watched?.watch ?? null
    return {
      watching: started && watch !== null && watch.broken === null,
      folders: watch?.folders ?? 0,
      broken: watch?.broken ?? null,
    }
  }

  /**
   * Folders a watch need not look into: the ones git ignores whole (its listing names them
   * `dir/`), and Tangent's data directory when it lies in the folder.
   */
  async #ignoredFolders(directory: SnapshotDirectory): Promise<Set<string>> {
    const excluded = directory.excludedHome === null ? [] : [`:(exclude,literal)${directory.excludedHome}`]
    const listed = await this.repository.git(
      [
        'ls-files',
        '-z',
        '--others',
        '--ignored',
        '--exclude-standard',
        '--directory',
        '--',
        '.',
        ...excluded,
      ],
      scopeOf(directory),
    )
    const skip = new Set<string>()
    for (const entry of splitNul(listed.stdout)) {
      if (entry.endsWith('/')) skip.add(entry.slice(0, -1))
    }
    if (directory.excludedHome !== null) skip.add(directory.excludedHome)
    return skip
  }

  #context(): RestoreContext {
    return {
      repository: this.repository,
      snapshot: (cwd) => this.#snapshotUnlocked(cwd),
      snapshotPaths: async (cwd, paths, skipped) => {
        const snapshot = await snapshotPaths(
          this.repository,
          await resolveDirectory(this.repository, cwd),
          paths,
          skipped,
        )
        await this.#mirror?.upload(snapshot.tree, cwd)
        return snapshot
      },
      ensureTrees: (trees) => this.#ensure(trees),
    }
  }

  #worktreeContext(): WorktreeContext {
    return {
      repository: this.repository,
      maxFileBytes: this.maxFileBytes,
      snapshot: (cwd) => this.snapshot(cwd),
    }
  }
}
