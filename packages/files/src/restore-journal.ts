// A restore rewrites many files, one by one; a crash (kill -9, power loss) in the middle would
// leave some new and some old, with nothing recorded in the session's log. So before it
// touches the directory a restore writes a journal (fsynced, under TANGENT_HOME/snapshots/
// journal): the intent, with an id of its own. The runtime's record (`files/restored`, durable)
// names that id — the restore is done — and only then is the journal removed (durably). A
// journal found later is finished when a record names it; otherwise the restore was never
// recorded and its paths are rolled back to the undo tree, which puts the directory back where
// the log says it is (restore again to redo it). docs/architecture.md §5.
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readdir, readFile, readlink, stat, unlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { changedPaths } from './diff.js'
import { hashPath, resolveDirectory } from './directory.js'
import { checkoutTree } from './materialize.js'
import {
  isProcessAlive,
  makePrivateDirectory,
  removeDurably,
  removeStaleTempFiles,
  writePrivateFile,
} from './private-files.js'
import type { ShadowRepository } from './shadow-repository.js'
import type { Snapshot } from './snapshot.js'

export const RestoreJournal = z.object({
  version: z.literal(1),
  /**
   * This restore's own id, which its `files/restored` record names (`journalId`): the record of
   * another restore with the same undo tree (a restore redone after its undo) is not this one's.
   * Absent in journals written before it existed (matched by `undoTree` then).
   */
  id: z.string().optional(),
  /** realpath of the directory being restored. */
  cwd: z.string(),
  /** Every path the restore writes or removes (relative to cwd, '/'-separated). */
  paths: z.array(z.string()),
  /** The directory before the restore: what a roll back writes back. */
  undoTree: z.string(),
  /** The tree the paths are being restored to. */
  targetTree: z.string(),
  /** The process writing, so a live restore of another process is never rolled back under it. */
  pid: z.number(),
  hostname: z.string(),
  startedAt: z.string(),
})
export type RestoreJournal = z.infer<typeof RestoreJournal>

/** What became of a restore a crash (or a failure it could not undo at once) interrupted. */
export interface RecoveredRestore {
  /** The directory (for an unreadable journal: the journal file). */
  cwd: string
  /**
   * `rolled-back`: the paths are back as they were before the restore (it never happened: the
   * log has no event for it; restore again to redo it). `deferred`: the directory is missing
   * (or could not be written now): the journal stays, and the next start or the next
   * operation on that directory rolls it back. `finished`: the restore was recorded (its
   * `files/restored` is in a log) and only its journal was left: every path was written, so the
   * journal is removed and nothing rolled back. `abandoned`: the undo tree is no longer in the
   * store (or the journal is unreadable): nothing could be rolled back; the journal is removed.
   */
  action: 'rolled-back' | 'finished' | 'deferred' | 'abandoned'
  /** The paths the interrupted restore was rewriting. */
  paths: string[]
  /** Of those, the ones written back or removed to roll it back (the others were untouched). */
  rewritten: string[]
  /** Paths left alone: a folder stands there now, or a symlinked or file parent. */
  kept: string[]
  /** A snapshot of the directory as the interruption left it, before the roll back (nothing found is lost). */
  foundTree?: string
  /** Why it was deferred or abandoned. */
  reason?: string
}

/** What recovery needs from FileState: snapshots of cwd without taking its lock again. */
export interface RecoveryContext {
  repository: ShadowRepository
  snapshot: (cwd: string) => Promise<Snapshot>
  snapshotPaths: (cwd: string, paths: readonly string[], skipped: readonly string[]) => Promise<Snapshot>
}

export function journalFile(repository: ShadowRepository, cwd: string): string {
  return path.join(repository.journalDirectory, `${hashPath(cwd)}.json`)
}

/** Writes (fsynced, atomically) the journal of a restore about to touch `journal.cwd`. */
export async function writeJournal(
  repository: ShadowRepository,
  entry: Omit<RestoreJournal, 'version' | 'id' | 'pid' | 'hostname' | 'startedAt'>,
): Promise<RestoreJournal> {
  const journal: RestoreJournal = {
    version: 1,
    id: randomUUID(),
    ...entry,
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
  }
  await makePrivateDirectory(repository.journalDirectory)
  await writePrivateFile(journalFile(repository, journal.cwd), `${JSON.stringify(journal)}\n`)
  return journal
}

/** Removes the journal of `cwd`, durably (a journal back after a crash would undo a recorded restore). */
export function removeJournal(repository: ShadowRepository, cwd: string): Promise<void> {
  return removeDurably(journalFile(repository, cwd))
}

export async function readJournal(file: string): Promise<RestoreJournal> {
  return RestoreJournal.parse(JSON.parse(await readFile(file, 'utf8')))
}

/** The journal of `cwd`, or null (the common case: one existsSync). */
export async function journalOf(repository: ShadowRepository, cwd: string): Promise<RestoreJournal | null> {
  const file = journalFile(repository, cwd)
  if (!existsSync(file)) return null
  return readJournal(file)
}

/** Every journal of this home (temporary files of a crashed write removed), unreadable ones as errors. */
export async function listJournals(
  repository: ShadowRepository,
): Promise<{ file: string; journal: RestoreJournal | null; error?: string }[]> {
  const directory = repository.journalDirectory
  if (!existsSync(directory)) return []
  await removeStaleTempFiles(directory)
  const found: { file: string; journal: RestoreJournal | null; error?: string }[] = []
  for (const name of (await readdir(directory)).sort()) {
    if (!name.endsWith('.json')) continue
    const file = path.join(directory, name)
    try {
      found.push({ file, journal: await readJournal(file) })
    } catch (error) {
      found.push({ file, journal: null, error: error instanceof Error ? error.message : String(error) })
    }
  }
  return found
}

/** True when another process (still running) wrote the journal: its restore is not interrupted. */
export function ownerIsRunning(journal: RestoreJournal): boolean {
  // Another machine's process cannot be checked: leave its journal to it.
  if (journal.hostname !== os.hostname()) return true
  return journal.pid !== process.pid && isProcessAlive(journal.pid)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Lock files of the directory's index and ref that a killed process's git left. A git child
 * of the killed process may still be finishing: give it a moment, then remove them.
 */
async function clearStaleLocks(repository: ShadowRepository, cwd: string): Promise<void> {
  const directory = await resolveDirectory(repository, cwd)
  const trees = path.join(repository.gitDir, directory.ref.replace(/\/latest$/, '/trees'))
  const treeLocks = (await readdir(trees).catch(() => [] as string[]))
    .filter((name) => name.endsWith('.lock'))
    .map((name) => path.join(trees, name))
  const locks = [
    `${directory.indexFile}.lock`,
    path.join(repository.gitDir, `${directory.ref}.lock`),
    ...treeLocks,
  ]
  for (let waited = 0; waited < 2000 && locks.some((lock) => existsSync(lock)); waited += 100)
    await sleep(100)
  for (const lock of locks) {
    const info = await stat(lock).catch(() => null)
    if (info !== null) await unlink(lock).catch(() => undefined)
  }
}

/** Whether a git process is running in `cwd` (Linux: /proc; elsewhere there is no asking). */
async function gitRunningIn(cwd: string): Promise<boolean> {
  if (process.platform !== 'linux') return false
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name))
  for (const pid of pids) {
    const [name, directory] = await Promise.all([
      readFile(`/proc/${pid}/comm`, 'utf8').catch(() => ''),
      readlink(`/proc/${pid}/cwd`).catch(() => ''),
    ])
    if (name.trim() === 'git' && directory === cwd) return true
  }
  return false
}

/**
 * A kill -9 of the restoring process alone leaves its git child writing files: wait (up to
 * 10 s) for git processes in the directory to finish before rolling back under them.
 */
async function waitForOrphanedGit(cwd: string): Promise<void> {
  for (let waited = 0; waited < 10_000 && (await gitRunningIn(cwd)); waited += 100) await sleep(100)
}

/**
 * Puts the paths of an interrupted restore back as they were before it: snapshots the
 * directory as found (kept in the store, `foundTree`), writes back from the undo tree the
 * journal's paths that differ from it, snapshots those paths, removes the journal.
 */
export async function rollBack(context: RecoveryContext, journal: RestoreJournal): Promise<RecoveredRestore> {
  const { repository } = context
  const base = { cwd: journal.cwd, paths: [...journal.paths] }
  if (await repository.hasTree(journal.undoTree)) {
    if (journal.pid !== process.pid) {
      await waitForOrphanedGit(journal.cwd)
      await clearStaleLocks(repository, journal.cwd)
    }
    const found = await context.snapshot(journal.cwd)
    const journaled = new Set(journal.paths)
    const moved = (await changedPaths(repository, journal.undoTree, found.tree)).filter((relative) =>
      journaled.has(relative),
    )
    const rolled = await checkoutTree(repository, {
      target: journal.cwd,
      tree: journal.undoTree,
      paths: new Set(moved),
      deleteMissing: true,
    })
    const rewritten = [...rolled.written, ...rolled.deleted].sort()
    if (rewritten.length > 0) await context.snapshotPaths(journal.cwd, rewritten, found.skipped)
    await removeJournal(repository, journal.cwd)
    return { ...base, action: 'rolled-back', rewritten, kept: rolled.kept, foundTree: found.tree }
  }
  await removeJournal(repository, journal.cwd)
  return {
    ...base,
    action: 'abandoned',
    rewritten: [],
    kept: [],
    reason: `the tree before the restore (${journal.undoTree}) is no longer in the snapshot store, so it could not be rolled back`,
  }
}

/** A RecoveredRestore for a journal that could not be handled now. */
export function deferred(journal: RestoreJournal, reason: string): RecoveredRestore {
  return { cwd: journal.cwd, action: 'deferred', paths: [...journal.paths], rewritten: [], kept: [], reason }
}

/** The message suffix of a restore that failed midway: what became of the paths. */
export function interruptedNote(rolledBack: boolean): string {
  return rolledBack
    ? ' The restore was rolled back: its paths are as they were before it.'
    : ' The restore could not be rolled back now: Tangent puts its paths back as they were at the next operation on this folder or the next start.'
}

/** `error` with `note` added to its message (a TangentError keeps its code and data). */
export function withNote(error: unknown, note: string, data: Record<string, unknown>): unknown {
  if (TangentError.isInstance(error)) {
    return new TangentError(
      error.code,
      `${error.message}${note}`,
      { ...error.data, ...data },
      { cause: error },
    )
  }
  if (error instanceof Error) error.message += note
  return error
}
