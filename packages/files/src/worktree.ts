// Worktree forks: a child session gets its own directory holding the fork point's files.
// Inside a git repository that is a `git worktree` on branch `tangent/<session>` (so the user
// can commit and merge); elsewhere a plain copy. Both live in TANGENT_HOME/worktrees/<session>.
import { existsSync, statSync } from 'node:fs'
import { chmod, cp, lstat, mkdir, readdir, readFile, realpath, rename, rm, unlink } from 'node:fs/promises'
import path from 'node:path'
import { assertValidSessionId, TangentError } from '@tangent/core'
import { z } from 'zod'
import { assertTreesAvailable, changedPaths } from './diff.js'
import { isInside, realDirectory, resolveDirectory, toPosix } from './directory.js'
import { assertGitMetadataIntact, runGit, splitNul } from './git.js'
import { checkoutTree, listTree, pruneEmptyParents, writeEntries } from './materialize.js'
import {
  diskFullError,
  failedForSpace,
  isDiskFull,
  makePrivateDirectory,
  privateFileMode,
  removeStaleTempFiles,
  writePrivateFile,
} from './private-files.js'
import type { ShadowRepository } from './shadow-repository.js'
import { recordTree, type Snapshot } from './snapshot.js'
import { findSpecialFiles } from './special-files.js'

export const WorktreeRecord = z.object({
  sessionId: z.string(),
  kind: z.enum(['git-worktree', 'copy']),
  /** The worktree's root directory (TANGENT_HOME/worktrees/<session>). */
  root: z.string(),
  /** The child's cwd: root, or the same subdirectory of the repository the parent ran in. */
  path: z.string(),
  /** The fork point's tree, materialised into `path`. */
  tree: z.string(),
  sourceCwd: z.string(),
  branch: z.string().optional(),
  /** The user's repository (main worktree) and the commit the branch started at. */
  repository: z.string().optional(),
  baseCommit: z.string().optional(),
  createdAt: z.string(),
  /**
   * `creating` until the fork point's content is in place: a worktree left in that state
   * was never handed to a session (a crash mid-fork) and is safe to remove. Absent: ready.
   */
  state: z.enum(['creating', 'ready']).optional(),
  /**
   * When its session was deleted with the worktree kept on purpose: it is the user's now, and
   * reconcileWorktrees leaves it alone without reporting it (its record goes once it is gone).
   */
  keptAt: z.string().optional(),
})
export type WorktreeRecord = z.infer<typeof WorktreeRecord>

export interface CreatedWorktree {
  /** The child session's cwd. */
  path: string
  /** The worktree's root (equal to `path` unless the parent ran in a subdirectory of its repository). */
  root: string
  kind: 'git-worktree' | 'copy'
  branch?: string
  /** The tree materialised (the fork point's). */
  tree: string
  /**
   * Paths (relative to `path`) the fork point's snapshot left out — over the size limit, special
   * files, nested repositories — so they are not in the worktree as they were there (in a git
   * worktree one git tracks is there as last committed).
   */
  leftOut: string[]
}

export interface RemoveWorktreeResult {
  removed: boolean
  /** Why it was not removed. */
  reason?: string
  /** The sessions (given as `inUseBy`) whose directory is in it: it was kept for them. */
  inUseBy?: string[]
  /** Paths with changes that removal would lose (relative to the worktree root). */
  dirty?: string[]
  /** The branch left in the user's repository because it has commits of its own. */
  keptBranch?: string
}

export interface WorktreeContext {
  repository: ShadowRepository
  maxFileBytes: number
  snapshot: (cwd: string) => Promise<Snapshot>
}

function worktreesDirectory(repository: ShadowRepository): string {
  return path.join(repository.home, 'worktrees')
}

function recordFile(repository: ShadowRepository, sessionId: string): string {
  return path.join(worktreesDirectory(repository), `${sessionId}.json`)
}

/** The user's repository around `cwd`, when it has a commit to branch from. */
async function userRepository(cwd: string): Promise<{ top: string; prefix: string; head: string } | null> {
  const probe = await runGit(['rev-parse', '--show-toplevel', '--show-prefix'], {
    cwd,
    allowedExitCodes: [128],
  })
  if (probe.exitCode !== 0) return null
  await assertGitMetadataIntact(cwd)
  const [top = '', prefix = ''] = probe.stdout.toString('utf8').split('\n')
  // A repository without any commit has no HEAD to branch from: the fork becomes a copy.
  const head = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], {
    cwd,
    allowedExitCodes: [1, 128],
  })
  if (head.exitCode !== 0) return null
  return { top, prefix: prefix.replace(/\/$/, ''), head: head.stdout.toString('utf8').trim() }
}

/**
 * Turns a fresh checkout of HEAD at `target` into the fork tree's content: writes the files
 * whose content or mode differs from HEAD's (blob ids are content hashes, equal in both
 * repositories) and removes the ones the fork point did not have.
 */
async function materializeOverHead(context: WorktreeContext, target: string, tree: string): Promise<void> {
  const staged = splitNul((await runGit(['ls-files', '--stage', '-z'], { cwd: target })).stdout)
  const head = new Map<string, string>()
  for (const record of staged) {
    const tab = record.indexOf('\t')
    const [mode = '', object = ''] = record.slice(0, tab).split(' ')
    head.set(record.slice(tab + 1), `${mode} ${object}`)
  }
  const entries = (await listTree(context.repository, tree)).filter((entry) => entry.type !== 'commit')
  await writeEntries(
    context.repository,
    target,
    entries.filter((entry) => head.get(entry.path) !== `${entry.mode} ${entry.object}`),
  )
  const inTree = new Set(entries.map((entry) => entry.path))
  const candidates = [...head.keys()].filter((relative) => !inTree.has(relative))
  if (candidates.length === 0) return
  // Tracked files matched by .gitignore were never in a snapshot (it honours .gitignore): keep HEAD's.
  const ignored = await runGit(['check-ignore', '-z', '--no-index', '--stdin'], {
    cwd: target,
    input: `${candidates.join('\0')}\0`,
    allowedExitCodes: [1],
  })
  const keep = new Set(splitNul(ignored.stdout))
  for (const relative of candidates) {
    if (keep.has(relative)) continue
    const info = await lstat(path.join(target, relative)).catch(() => null)
    // Over the limit it was skipped by the snapshot, not deleted by the user: keep HEAD's.
    if (info === null || (info.isFile() && info.size > context.maxFileBytes)) continue
    await unlink(path.join(target, relative))
    await pruneEmptyParents(target, relative)
  }
}

export async function createWorktree(
  context: WorktreeContext,
  options: {
    /**
     * The project folder forked from; null when it is not on this machine (a session of another
     * Host of a shared store): the worktree is then a plain copy of `tree`, which must be given.
     */
    cwd: string | null
    tree: string | null
    sessionId: string
    /** What the snapshot of `tree` left out (its `skipped`), when `tree` is given. */
    skipped?: readonly string[]
  },
): Promise<CreatedWorktree> {
  assertValidSessionId(options.sessionId)
  const { repository } = context
  const root = path.join(worktreesDirectory(repository), options.sessionId)
  let source: string
  let now: Snapshot | null = null
  let specials: string[] = []
  if (options.cwd === null) {
    if (options.tree === null) {
      throw new TangentError(
        'snapshot-unavailable',
        'A worktree without a folder of the project on this machine needs the tree to copy: none was given.',
        { trees: [] },
      )
    }
    // No folder to come from: the copy is its own source (keepWorktree then needs a destination).
    source = root
  } else {
    source = await realDirectory(options.cwd)
    // No tree known: the directory as it is now, and what that snapshot could not take.
    now = options.tree === null ? await context.snapshot(source) : null
    // Git never lists special files (FIFOs, sockets), so no snapshot names them: looked for here.
    specials = await findSpecialFiles(repository, await resolveDirectory(repository, source))
  }
  const tree = now?.tree ?? (options.tree as string)
  const leftOut = [...new Set([...(now?.skipped ?? options.skipped ?? []), ...specials])].sort()
  await assertTreesAvailable(repository, [tree])
  if (existsSync(root) || existsSync(recordFile(repository, options.sessionId))) {
    throw new TangentError(
      'worktree-exists',
      `${root} already exists: remove it or fork into a new session id.`,
      {
        path: root,
      },
    )
  }
  // Worktrees hold the user's project files: the folder of them is private (the files keep their modes).
  await makePrivateDirectory(worktreesDirectory(repository)).catch((error: unknown) => {
    throw isDiskFull(error)
      ? diskFullError(worktreesDirectory(repository), 'making a worktree', error)
      : error
  })
  const git = options.cwd === null ? null : await userRepository(source)
  let record: WorktreeRecord
  try {
    record = await materialize(context, { source, tree, root, sessionId: options.sessionId, git })
  } catch (error) {
    // Nothing half-made stays: the directory, the branch and the record go (a crash here
    // instead leaves a `creating` record, which reconcileWorktrees removes at the next start).
    // Asked before the half-made directory goes and frees its space.
    const full = await failedForSpace(error, worktreesDirectory(repository))
    await discardHalfMade(context, options.sessionId)
    throw full ? diskFullError(root, 'making a worktree', error) : error
  }
  // The new directory holds the fork point's files: that is its first "previous snapshot", so the
  // branch's first snapshot lists what its turn changed, not every file (docs/architecture.md §5).
  await recordTree(repository, await resolveDirectory(repository, record.path), null, tree).catch(
    () => undefined,
  )
  return {
    path: record.path,
    root,
    kind: record.kind,
    ...(record.branch ? { branch: record.branch } : {}),
    tree,
    leftOut,
  }
}

/** Removes what a failed createWorktree made; what it cannot remove stays recorded as `creating`. */
async function discardHalfMade(context: WorktreeContext, sessionId: string): Promise<void> {
  const file = recordFile(context.repository, sessionId)
  const record = await readRecord(context.repository, sessionId).catch(() => null)
  if (record === null) {
    await rm(file, { force: true }).catch(() => undefined)
    return
  }
  await removeWorktree(context, record.root, { force: true }).catch(() => undefined)
}

/** Writes the record (`creating`), makes the directory with the fork point's content, marks it `ready`. */
async function materialize(
  context: WorktreeContext,
  options: {
    source: string
    tree: string
    root: string
    sessionId: string
    git: Awaited<ReturnType<typeof userRepository>>
  },
): Promise<WorktreeRecord> {
  const { repository } = context
  const { source, tree, root, git } = options
  let record: WorktreeRecord
  if (git) {
    const branch = `tangent/${options.sessionId}`
    const target = git.prefix === '' ? root : path.join(root, git.prefix)
    record = {
      sessionId: options.sessionId,
      kind: 'git-worktree',
      root,
      path: target,
      tree,
      sourceCwd: source,
      branch,
      repository: git.top,
      baseCommit: git.head,
      createdAt: new Date().toISOString(),
      state: 'creating',
    }
    // Recorded before git makes anything, so a fork that fails or crashes halfway
    // leaves a record that `reconcileWorktrees` can clean up (no stray branch).
    await writeRecord(repository, record)
    await runGit(['worktree', 'add', '--quiet', '-b', branch, root, git.head], { cwd: git.top })
    await mkdir(target, { recursive: true })
    await materializeOverHead(context, target, tree)
  } else {
    record = {
      sessionId: options.sessionId,
      kind: 'copy',
      root,
      path: root,
      tree,
      sourceCwd: source,
      createdAt: new Date().toISOString(),
      state: 'creating',
    }
    await writeRecord(repository, record)
    await mkdir(root, { recursive: true })
    await checkoutTree(repository, { target: root, tree, paths: null, deleteMissing: false })
  }
  record = { ...record, state: 'ready' }
  await writeRecord(repository, record)
  return record
}

/** Atomic (temp file, fsync, rename): a crash or a full disk never leaves a half-written record. */
async function writeRecord(repository: ShadowRepository, record: WorktreeRecord): Promise<void> {
  await writePrivateFile(recordFile(repository, record.sessionId), `${JSON.stringify(record, null, 2)}\n`)
}

async function readRecord(repository: ShadowRepository, sessionId: string): Promise<WorktreeRecord | null> {
  const file = recordFile(repository, sessionId)
  if (!existsSync(file)) return null
  return WorktreeRecord.parse(JSON.parse(await readFile(file, 'utf8')))
}

/**
 * Paths of `root` whose loss removal would cause, or [] when it is safe: those that differ from
 * `since` (default: the fork point's tree it was made with; a session's latest snapshot tree
 * when its history holds everything up to that) or were left out of the snapshot — in a git
 * worktree only those git also calls uncommitted (committed work lives on in the branch).
 */
async function findDirty(
  context: WorktreeContext,
  record: WorktreeRecord,
  repositoryGone: boolean,
  since: string = record.tree,
): Promise<string[]> {
  const now = await context.snapshot(record.path)
  const changed = new Set(
    [...(await changedPaths(context.repository, since, now.tree)), ...now.skipped].map((relative) =>
      toPosix(path.relative(record.root, path.join(record.path, relative))),
    ),
  )
  if (record.kind === 'copy' || repositoryGone) return [...changed].sort()
  // In a git worktree, committed work lives on in the branch; what git calls uncommitted is at
  // risk unless it is exactly the content `since` holds (the fork point's, as we materialised it).
  await assertGitMetadataIntact(record.root)
  const status = await runGit(['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames'], {
    cwd: record.root,
  })
  const dirty = splitNul(status.stdout).map((entry) => entry.slice(3))
  const prefix = toPosix(path.relative(record.root, record.path))
  const outside = (relative: string) => prefix !== '' && !relative.startsWith(`${prefix}/`)
  return dirty.filter((relative) => outside(relative) || changed.has(relative)).sort()
}

/** A path quoted for a POSIX shell (as it is when it needs no quotes). */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`
}

/**
 * The commands that remove a worktree by hand, with its changes: what to tell a user once no
 * Tangent command owns it any more (its session is deleted).
 */
export function removalCommands(record: WorktreeRecord): string {
  if (
    record.kind === 'git-worktree' &&
    record.repository &&
    record.branch &&
    isDirectory(record.repository)
  ) {
    const git = `git -C ${shellQuote(record.repository)}`
    return `${git} worktree remove --force ${shellQuote(record.root)} && ${git} branch -D ${shellQuote(record.branch)}`
  }
  return `rm -rf ${shellQuote(record.root)}`
}

export interface RemoveWorktreeOptions {
  /** Remove it even with changes that would be lost. */
  force?: boolean
  /**
   * Sessions (other than the deleted one) whose directory is in this worktree: when any is
   * given it is kept, even with force (removing it would pull the floor from under them).
   */
  inUseBy?: readonly string[]
  /**
   * The tree whose content is safe to lose (default: the fork point's tree the worktree was
   * made with): a session's latest snapshot tree, when its history brings those files back.
   */
  since?: string
}

function isDirectory(directory: string): boolean {
  return statSync(directory, { throwIfNoEntry: false })?.isDirectory() === true
}

/** The record of the Tangent worktree at `worktreePath`; `not-a-worktree` when there is none. */
async function recordAt(repository: ShadowRepository, worktreePath: string): Promise<WorktreeRecord> {
  const base = existsSync(worktreesDirectory(repository))
    ? await realpath(worktreesDirectory(repository))
    : null
  const real = existsSync(worktreePath) ? await realpath(worktreePath) : path.resolve(worktreePath)
  const sessionId =
    base !== null && isInside(base, real) ? path.relative(base, real).split(path.sep)[0] : undefined
  const record = sessionId ? await readRecord(repository, sessionId) : null
  if (!record) {
    throw new TangentError(
      'not-a-worktree',
      `${worktreePath} is not a worktree Tangent created (none recorded under ${worktreesDirectory(repository)}); remove it yourself if you mean to.`,
      { path: worktreePath },
    )
  }
  return record
}

/** The user's repository was removed or moved: its worktree is a plain folder now. */
function repositoryGoneOf(record: WorktreeRecord): boolean {
  return record.kind === 'git-worktree' && record.repository !== undefined && !isDirectory(record.repository)
}

/**
 * The changes removing the worktree at `worktreePath` would lose (as `removeWorktree` without
 * force judges them), without removing anything; [] when there are none. `not-a-worktree`
 * when Tangent did not make it.
 */
export async function worktreeChanges(
  context: WorktreeContext,
  worktreePath: string,
  options: Pick<RemoveWorktreeOptions, 'since'> = {},
): Promise<{ dirty: string[]; removeBy: string }> {
  const record = await recordAt(context.repository, worktreePath)
  const dirty =
    record.state !== 'creating' && existsSync(record.root)
      ? await findDirty(context, record, repositoryGoneOf(record), options.since)
      : []
  return { dirty, removeBy: removalCommands(record) }
}

export async function removeWorktree(
  context: WorktreeContext,
  worktreePath: string,
  options: RemoveWorktreeOptions = {},
): Promise<RemoveWorktreeResult> {
  const { repository } = context
  const record = await recordAt(repository, worktreePath)
  const users = [...new Set(options.inUseBy ?? [])].sort()
  if (users.length > 0 && existsSync(record.root)) {
    return {
      removed: false,
      reason: `used by session${users.length > 1 ? 's' : ''} ${users.join(', ')}: their working directory is in it. Delete ${users.length > 1 ? 'them' : 'it'} first, or remove the worktree yourself.`,
      inUseBy: users,
    }
  }
  const repositoryGone = repositoryGoneOf(record)
  if (!options.force && record.state !== 'creating' && existsSync(record.root)) {
    const dirty = await findDirty(context, record, repositoryGone, options.since)
    if (dirty.length > 0) {
      // Said so that it still works once the session is gone (the delete already happened).
      return {
        removed: false,
        reason: `${dirty.length} uncommitted change(s) would be lost: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ', …' : ''}. Commit them, or remove it with its changes: ${removalCommands(record)}`,
        dirty,
      }
    }
  }
  let keptBranch: string | undefined
  if (record.kind === 'git-worktree' && record.repository && record.branch && !repositoryGone) {
    const cwd = record.repository
    await assertGitMetadataIntact(cwd)
    // Our own dirty check ran above; git's would also object to the materialised fork content.
    // Twice forced: also a registration git locked while making it ("initializing", left by a
    // kill inside `git worktree add`, whose folder may not exist yet), which `prune` skips.
    const removal = await runGit(['worktree', 'remove', '--force', '--force', record.root], {
      cwd,
      allowedExitCodes: [128],
    })
    if (removal.exitCode !== 0) {
      // Not (or no longer) a worktree git knows: forget stale registrations; a folder of ours
      // that git never registered goes only when forced (a half-made fork).
      if (existsSync(record.root) && !options.force)
        throw new TangentError(
          'git-failed',
          `git worktree remove ${record.root} failed (exit ${removal.exitCode}): ${removal.stderr.trim().slice(0, 2000)}`,
          { cwd, stderr: removal.stderr, exitCode: removal.exitCode },
        )
      await runGit(['worktree', 'prune'], { cwd })
      await rm(record.root, { recursive: true, force: true })
    }
    const tip = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${record.branch}`], {
      cwd,
      allowedExitCodes: [1],
    })
    const commit = tip.stdout.toString('utf8').trim()
    // A branch with no commit of its own is noise; one with commits is the user's work.
    if (commit === record.baseCommit) await runGit(['branch', '-D', '--quiet', record.branch], { cwd })
    else if (commit !== '') keptBranch = record.branch
  } else {
    await rm(record.root, { recursive: true, force: true })
  }
  await rm(recordFile(repository, record.sessionId), { force: true })
  return { removed: true, ...(keptBranch ? { keptBranch } : {}) }
}

export interface ReconcileResult {
  /** Worktrees of sessions that do not exist, removed (with their branch when it has no commits). */
  removed: string[]
  /** Worktrees of sessions that do not exist, kept because they hold changes (or removal failed). */
  kept: { path: string; reason: string }[]
  /**
   * Leftovers of a record write that a crash or a full disk cut short, removed: temporary
   * files, and records that are empty or unreadable with no worktree directory beside them.
   */
  cleaned?: string[]
}

/**
 * Removes the worktrees no session owns: those a crash left halfway through a fork
 * (state `creating`: never handed out, removed even if partly filled) and finished
 * ones whose session was never published. A worktree with changes of its own (for
 * example one kept when its session was deleted), or one `usersOf` names sessions for
 * (their directory is in it), is kept and reported, never removed.
 */
export async function reconcileWorktrees(
  context: WorktreeContext,
  isKnownSession: (sessionId: string) => boolean,
  options: { createdBefore?: number; usersOf?: (root: string) => readonly string[] } = {},
): Promise<ReconcileResult> {
  const result: ReconcileResult = { removed: [], kept: [] }
  const directory = worktreesDirectory(context.repository)
  if (!existsSync(directory)) return result
  // Private whatever made it (also a folder from before this rule); its records too.
  await makePrivateDirectory(directory)
  const cleaned = (await removeStaleTempFiles(directory)).map((name) => path.join(directory, name))
  for (const name of await readdir(directory)) {
    if (!name.endsWith('.json')) continue
    const file = path.join(directory, name)
    await chmod(file, privateFileMode).catch(() => undefined)
    const sessionId = name.slice(0, -'.json'.length)
    if (isKnownSession(sessionId)) continue
    if (await keptOnPurpose(context.repository, sessionId)) continue
    let record: WorktreeRecord | null
    try {
      record = await readRecord(context.repository, sessionId)
    } catch (error) {
      // A record cut short (by an older version on a full disk) with nothing made beside it: noise.
      if (!existsSync(path.join(directory, sessionId))) {
        await rm(file, { force: true })
        cleaned.push(file)
        continue
      }
      result.kept.push({ path: file, reason: `unreadable record: ${String(error)}` })
      continue
    }
    // A fork running right now has a record and no session yet: leave it alone.
    if (
      !record ||
      (options.createdBefore !== undefined && Date.parse(record.createdAt) >= options.createdBefore)
    )
      continue
    try {
      const removal = await removeWorktree(context, record.root, {
        force: record.state === 'creating',
        inUseBy: options.usersOf?.(record.root) ?? [],
      })
      if (removal.removed) result.removed.push(record.root)
      else result.kept.push({ path: record.root, reason: removal.reason ?? 'not removed' })
    } catch (error) {
      result.kept.push({ path: record.root, reason: error instanceof Error ? error.message : String(error) })
    }
  }
  if (cleaned.length > 0) result.cleaned = cleaned.sort()
  return result
}

/**
 * Whether the worktree of `sessionId` was kept on purpose (not to be reported); the record of
 * one that is gone since (the user removed it) is dropped.
 */
async function keptOnPurpose(repository: ShadowRepository, sessionId: string): Promise<boolean> {
  const record = await readRecord(repository, sessionId).catch(() => null)
  if (record?.keptAt === undefined) return false
  if (!existsSync(record.root)) await rm(recordFile(repository, sessionId), { force: true })
  return true
}

export interface KeptWorktree {
  /** Where the kept folder is now (the session's directory in it, when that was a subdirectory). */
  path: string
  /** It was moved out of the data directory (and is no longer Tangent's: its record is gone). */
  moved: boolean
  /** How to remove it by hand, when it stayed a worktree of the user's repository. */
  removeBy?: string
}

/**
 * Keeps the worktree at `worktreePath` for the user, its session deleted: a plain copy is moved
 * out of the private data directory to `to` (default: beside the project it was copied from, as
 * `<project>-tangent-<session>`); a git worktree stays where it is (or is moved to `to` with
 * `git worktree move`) on its branch. What stays is recorded as kept, so it is never reported as
 * a worktree no session owns. `not-a-worktree` when Tangent did not make it.
 */
export async function keepWorktree(
  context: WorktreeContext,
  worktreePath: string,
  options: { to?: string; stay?: boolean } = {},
): Promise<KeptWorktree> {
  const { repository } = context
  const record = await recordAt(repository, worktreePath)
  const inside = (root: string) => path.join(root, path.relative(record.root, record.path))
  // `stay`: other sessions still work in it, so it cannot move.
  if (options.stay || (record.kind === 'git-worktree' && options.to === undefined)) {
    await writeRecord(repository, { ...record, keptAt: new Date().toISOString() })
    return { path: record.path, moved: false, removeBy: removalCommands(record) }
  }
  const to = options.to ?? (await besideProject(repository, record))
  if (to === null) {
    // Copied from a folder inside the data directory with no project known: kept in place.
    await writeRecord(repository, { ...record, keptAt: new Date().toISOString() })
    return { path: record.path, moved: false, removeBy: removalCommands(record) }
  }
  if (record.kind === 'git-worktree' && record.repository && !repositoryGoneOf(record)) {
    await assertGitMetadataIntact(record.repository)
    await runGit(['worktree', 'move', record.root, to], { cwd: record.repository })
  } else {
    await moveFolder(record.root, to)
  }
  await rm(recordFile(repository, record.sessionId), { force: true })
  return { path: inside(to), moved: true }
}

/** `<project>-tangent-<session>` beside the project the copy came from (through forks of forks), or null. */
async function besideProject(repository: ShadowRepository, record: WorktreeRecord): Promise<string | null> {
  const base = existsSync(worktreesDirectory(repository))
    ? await realpath(worktreesDirectory(repository))
    : null
  let folder = record.sourceCwd
  for (let depth = 0; base !== null && isInside(base, folder) && depth < 100; depth++) {
    const owner = path.relative(base, folder).split(path.sep)[0] ?? ''
    const parent = await readRecord(repository, owner).catch(() => null)
    // A copy made without a folder of the project on this machine is its own source: no project.
    if (parent === null || parent.sourceCwd === parent.root) return null
    // A copy's root is its source folder; a git worktree's root is its repository's top.
    const origin = parent.kind === 'git-worktree' && parent.repository ? parent.repository : parent.sourceCwd
    folder = path.join(origin, path.relative(parent.root, folder))
  }
  if (isInside(await realpath(repository.home), folder)) return null
  const stem = `${folder}-tangent-${record.sessionId}`
  let candidate = stem
  for (let n = 2; existsSync(candidate); n++) candidate = `${stem}-${n}`
  return candidate
}

/** rename, or a copy and a removal across file systems. */
async function moveFolder(from: string, to: string): Promise<void> {
  try {
    await rename(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    await cp(from, to, {
      recursive: true,
      preserveTimestamps: true,
      verbatimSymlinks: true,
      errorOnExist: true,
    })
    await rm(from, { recursive: true, force: true })
  }
}
