// A session's files (docs/architecture.md §5): the file state (@tangent/files: snapshots, restores,
// worktrees), made on first use; the snapshot timeline; and restore and its undo, each recorded in
// the session's log as a `files/restored` event between writing the files and removing the
// journal, so a crash leaves either a journal to roll back or a record to finish.
import { type Session, type SessionPersistence, type SnapshotObjectStore, TangentError } from '@tangent/core'
import type { FileState, RestoreResult as RestoreOutcome } from '@tangent/files'
import type {
  FilesRestoredData,
  SnapshotEntry,
  SnapshotRestoreParams,
  SnapshotRestoreResult,
  SnapshotUndoRestoreParams,
} from '@tangent/protocol'
import { headerMetaOf } from './header-meta.js'
import { restoreEventOf, undoableRestore } from './restore-events.js'
import { describeRecovery } from './runtime-support.js'
import type { SessionBusy } from './session-busy.js'
import type { WriteAccess } from './write-access.js'

/** What a `files/restored` records: a rewind, the undo of one, or the files of a kept branch. */
export type RestoreKind =
  | { toSeq: number }
  | { undoOf: number }
  | { keptFrom: { sessionId: string; label?: string } }

export interface SessionFilesDeps {
  /** TANGENT_HOME: where the snapshots and worktrees live. */
  home: string
  store: SessionPersistence
  access: WriteAccess
  busy: SessionBusy
  load(sessionId: string): Promise<Session>
  report(error: unknown): void
  /** Watch session folders between snapshots (RuntimeOptions.watchFiles). */
  watch?: boolean
}

/**
 * The store's snapshot objects for the file state (docs/architecture.md §4, "Where snapshot objects
 * live"): with PostgreSQL, snapshots travel through the database. A read-only store fetches
 * trees but stores none: it records no event that could name a tree this Host took.
 */
function objectsOption(store: SessionPersistence): { objects?: SnapshotObjectStore } {
  const objects = store.snapshotObjects
  if (objects === undefined) return {}
  if (!store.readOnly) return { objects }
  return {
    objects: {
      has: (ids) => objects.has(ids),
      get: (ids) => objects.get(ids),
      put: async () => undefined,
      collect: () => objects.collect(),
      bytes: () => objects.bytes(),
    },
  }
}

export class SessionFiles {
  readonly #deps: SessionFilesDeps
  readonly #store: SessionPersistence
  /** File state (snapshots, restores, worktrees): made by state() on first use. */
  #files: Promise<FileState> | null = null
  readonly #fileStateOptions: ConstructorParameters<typeof FileState>[0]

  constructor(deps: SessionFilesDeps) {
    this.#deps = deps
    this.#store = deps.store
    this.#fileStateOptions = {
      home: deps.home,
      // A restore a crash interrupted is rolled back by the first operation on its directory,
      // or finished when its files/restored made it into a log.
      onRecovered: (recovered) => deps.report(describeRecovery(recovered)),
      isRecorded: (journal) => this.#restoreRecorded(journal),
      ...objectsOption(deps.store),
      watch: deps.watch === true,
    }
  }

  /** Stops watching folders (nothing else of the file state needs closing). */
  async close(): Promise<void> {
    if (this.#files !== null) (await this.#files.catch(() => null))?.close()
  }

  /**
   * The file state (@tangent/files: snapshots, restores, worktrees), made on first use: a command
   * that only reads sessions never loads it (docs/architecture.md §9, start-up).
   */
  state(): Promise<FileState> {
    this.#files ??= import('@tangent/files').then(({ FileState }) => new FileState(this.#fileStateOptions))
    return this.#files
  }

  async listSnapshots(params: { sessionId: string }): Promise<SnapshotEntry[]> {
    const session = await this.#deps.load(params.sessionId)
    return (await this.state()).timeline({
      events: session.events,
      inheritedEventCount: session.inheritedEventCount,
    })
  }

  /**
   * Rewinds the files this session changed after `seq`; refuses with `files-conflict` when
   * another writer changed them since (unless force). Recorded as a `files/restored` event
   * with its undo tree, the same from every client.
   */
  async restore(params: SnapshotRestoreParams): Promise<SnapshotRestoreResult> {
    const { access, busy } = this.#deps
    access.assertWritable('restore files')
    const files = await this.state()
    const session = await this.#deps.load(params.sessionId)
    const takeover = access.takeOverAbandoned(session)
    if (takeover) await takeover
    busy.assertIdle(session, 'restore its files')
    if (params.seq > session.lastSeq) {
      throw new TangentError(
        'invalid-params',
        `Session ${session.id} has no seq ${params.seq} (its last is ${session.lastSeq}): pick a seq from \`tangent show\`.`,
        { issues: [{ path: ['seq'], message: 'past the end of the session' }] },
      )
    }
    access.assertOnThisMachine(session, 'restore its files')
    return access.claimedFiles(session, 'restoring its files', () =>
      this.recordedRestore(session, { toSeq: params.seq }, (commit) =>
        files.restore({
          cwd: session.header.cwd,
          events: session.events,
          inheritedEventCount: session.inheritedEventCount,
          baseTree: headerMetaOf(session.header).baseTree ?? null,
          toSeq: params.seq,
          force: params.force ?? false,
          commit,
        }),
      ),
    )
  }

  /**
   * Undoes a restore: writes back what its paths held before it, refusing with
   * `files-conflict` when one changed since the restore (unless force).
   */
  async undoRestore(params: SnapshotUndoRestoreParams): Promise<SnapshotRestoreResult> {
    const { access, busy } = this.#deps
    access.assertWritable('undo a restore')
    const files = await this.state()
    const session = await this.#deps.load(params.sessionId)
    const takeover = access.takeOverAbandoned(session)
    if (takeover) await takeover
    busy.assertIdle(session, 'undo a restore')
    const target = undoableRestore(session, params.seq)
    access.assertOnThisMachine(session, 'undo a restore')
    return access.claimedFiles(session, 'undoing a restore', () =>
      this.recordedRestore(session, { undoOf: target.seq }, (commit) =>
        files.restoreTree({
          cwd: session.header.cwd,
          tree: target.data.undoTree,
          paths: target.data.restored,
          expectTree: target.data.tree,
          force: params.force ?? false,
          commit,
        }),
      ),
    )
  }

  /**
   * Runs a restore whose `files/restored` is recorded (durably) once its files are written and
   * before its journal is removed (docs/architecture.md §5): after a crash the next start finds
   * either the journal without the record (rolled back) or the record (finished).
   */
  async recordedRestore(
    session: Session,
    what: RestoreKind,
    run: (commit: (outcome: RestoreOutcome) => Promise<void>) => Promise<RestoreOutcome>,
  ): Promise<SnapshotRestoreResult> {
    // A restore that changed nothing is not recorded (its undo would put back nothing); an undo
    // always is: it marks its restore undone.
    const changedNothing = (outcome: RestoreOutcome) => outcome.restored.length === 0 && !('undoOf' in what)
    let recorded: SnapshotRestoreResult | undefined
    const outcome = await run(async (written) => {
      if (!changedNothing(written)) recorded = await this.#recordRestore(session, written, what)
    })
    if (recorded) return recorded
    if (changedNothing(outcome)) return { restored: [], kept: outcome.kept, undoTree: outcome.undoTree }
    // An undo with nothing to write never commits (no journal either): record it now.
    return this.#recordRestore(session, outcome, what)
  }

  /** Appends the `files/restored` event of a restore or an undo, durably, and answers with its seq. */
  async #recordRestore(
    session: Session,
    outcome: RestoreOutcome,
    what: RestoreKind,
  ): Promise<SnapshotRestoreResult> {
    const data: FilesRestoredData = {
      ...what,
      tree: outcome.snapshot.tree,
      changed: outcome.snapshot.changed,
      skipped: outcome.snapshot.skipped,
      restored: outcome.restored,
      kept: outcome.kept,
      undoTree: outcome.undoTree,
      ...(outcome.journalId !== undefined ? { journalId: outcome.journalId } : {}),
    }
    const event = session.append('files/restored', data)
    await this.#store.flush(session.id)
    return { restored: outcome.restored, kept: outcome.kept, undoTree: outcome.undoTree, seq: event.seq }
  }

  /**
   * Whether a session working in the journal's directory recorded the restore it describes: the
   * record naming the journal's id (an older journal without one: the record with its undo tree).
   */
  async #restoreRecorded(journal: {
    id?: string | undefined
    cwd: string
    undoTree: string
  }): Promise<boolean> {
    for (const entry of await this.#store.listView()) {
      if (entry.cwd !== journal.cwd) continue
      const session = await this.#deps.load(entry.id).catch(() => null)
      if (!session) continue
      for (const seq of session.seqsOfType('files/restored')) {
        const data = restoreEventOf(session.events[seq])?.data
        if (journal.id !== undefined ? data?.journalId === journal.id : data?.undoTree === journal.undoTree)
          return true
      }
    }
    return false
  }
}
