// JsonlStore: persists a SessionStore as one JSONL log per session (docs/architecture.md §4):
// forks by reference, group commit, crash repair on load, one writer, a catalog. It composes
// the parts: the writer lock (writer-lock.ts), the catalog kept current (catalog-keeper.ts),
// crash repair at open (damaged-logs.ts), live sessions → disk (live-writes.ts, each log's
// group commit in session-writer.ts), disk → live sessions (session-loader.ts), delete and
// materialise (session-delete.ts).
import { existsSync } from 'node:fs'
import {
  assertValidSessionId,
  type Session,
  type SessionEvent,
  type SessionPersistence,
  SessionStore,
  SessionWriters,
} from '@tangent/core'
import { Catalog, entryOf } from './catalog.js'
import type { CatalogEntry } from './catalog-format.js'
import { CatalogKeeper } from './catalog-keeper.js'
import { reviewDamaged } from './damaged-logs.js'
import { makePrivateDirs, permissionWarnings, removeTempFiles } from './data-dir.js'
import { fsyncDirectory, touchPrivateFile, unlinkIfPresent } from './durable-fs.js'
import { maxLineBytes } from './line-reader.js'
import { LiveWrites } from './live-writes.js'
import { readLogRange } from './read-log-range.js'
import { SessionDeleter } from './session-delete.js'
import { SessionLoader } from './session-loader.js'
import type { SessionWriter } from './session-writer.js'
import {
  type StoreWarning,
  sessionNotFound,
  storeClosed,
  storeReadOnly,
  unwritableDataDir,
} from './store-errors.js'
import { archivedMarkerFile, type StorePaths, sessionLogFile, storePaths } from './store-paths.js'
import { acquireWriterLock, type WriterLock } from './writer-lock.js'

export interface JsonlStoreOptions {
  /** The data directory (TANGENT_HOME): logs live in `<dir>/sessions`. */
  dir: string
  /** No lock, no writes, no repair: reads what a live writer has made durable. */
  readOnly?: boolean
  /** Clock of the SessionStore (event times, createdAt). */
  now?: () => number
  /** How long catalog changes wait before they are written (default 1000 ms; close always writes). */
  catalogDelayMs?: number
  /**
   * Hears each warning as the store finds it (a file skipped, a log left alone or repaired,
   * a loop of parents, a data directory others can read). `warnings()` lists them too.
   */
  onWarning?: (warning: StoreWarning) => void
  /** The longest log line (default `maxLineBytes`, what a reader accepts); tests lower it. */
  maxLineBytes?: number
}

export class JsonlStore implements SessionPersistence {
  readonly engine = 'jsonl'
  /** One process writes a data directory (the writer lock): claims are not needed. */
  readonly shared = false
  readonly dir: string
  readonly readOnly: boolean
  readonly store: SessionStore
  readonly #paths: StorePaths
  readonly #lock: WriterLock | null
  readonly #catalog: CatalogKeeper
  /** The live sessions' writers, and failures no caller has seen yet (a retired writer, a background catalog write). */
  readonly #writers = new SessionWriters<SessionWriter>()
  readonly #live: LiveWrites
  readonly #loader: SessionLoader
  readonly #deleter: SessionDeleter
  readonly #unsubscribe: (() => void)[] = []
  #closed = false
  readonly #warnings: StoreWarning[] = []
  readonly #onWarning: ((warning: StoreWarning) => void) | undefined

  private constructor(
    paths: StorePaths,
    options: JsonlStoreOptions,
    lock: WriterLock | null,
    catalog: Catalog | null,
  ) {
    this.#paths = paths
    this.dir = paths.dir
    this.readOnly = options.readOnly === true
    this.#lock = lock
    this.#onWarning = options.onWarning
    const lineBytes = options.maxLineBytes ?? maxLineBytes
    this.store = new SessionStore(options.now ? { now: options.now } : {})
    const readOnly = this.readOnly
    const writers = this.#writers
    this.#catalog = new CatalogKeeper(
      {
        paths,
        readOnly,
        delayMs: options.catalogDelayMs ?? 1000,
        writers,
        warn: (warning) => this.#warn(warning),
      },
      catalog,
    )
    this.#loader = new SessionLoader({
      paths,
      store: this.store,
      writers,
      catalog: this.#catalog,
      readOnly,
      maxLineBytes: lineBytes,
      flush: (id) => this.flush(id),
    })
    this.#deleter = new SessionDeleter({
      paths,
      store: this.store,
      writers,
      catalog: this.#catalog,
      loader: this.#loader,
      maxLineBytes: lineBytes,
    })
    this.#live = new LiveWrites({
      paths,
      writers,
      catalog: this.#catalog,
      readOnly,
      maxLineBytes: lineBytes,
      isClosed: () => this.#closed,
      isDeleting: (id) => this.#deleter.has(id),
      dispose: (id) => this.store.dispose(id),
    })
    this.#unsubscribe.push(
      this.store.on('created', (session, via) => this.#live.onCreated(session, via)),
      this.store.on('appending', (session, event) => this.#live.onAppending(session, event)),
      this.store.on('appended', (session, event) => this.#live.onAppended(session, event)),
      this.store.on('disposed', (id) => this.#live.onDisposed(id)),
    )
  }

  /**
   * Opens a data directory: a writer takes the writer lock and reads the catalog; a reader
   * checks the data directory's permissions only, and reads the catalog when it first lists or
   * gets (a reader that only loads never needs it: docs/architecture.md §4).
   */
  static async open(options: JsonlStoreOptions): Promise<JsonlStore> {
    const paths = storePaths(options.dir)
    if (options.readOnly) {
      const permissions = permissionWarnings(paths)
      const store = new JsonlStore(paths, options, null, null)
      for (const warning of permissions) store.#warn(warning)
      return store
    }
    let permissions: StoreWarning[]
    let lock: WriterLock
    try {
      permissions = makePrivateDirs(paths)
      lock = await acquireWriterLock(paths.lockFile)
    } catch (error) {
      throw unwritableDataDir(paths.dir, error)
    }
    try {
      // The catalog is trusted as it is only after a clean close (catalog.clean); otherwise —
      // a crash, or a catalog write that failed (a full disk) — each log's size is checked.
      const clean = !lock.tookOver && existsSync(paths.catalogCleanFile)
      const catalog = await Catalog.open(paths, { verifySizes: !clean })
      if (clean) {
        // From now on the logs change: the catalog is not known to match until a clean close.
        await unlinkIfPresent(paths.catalogCleanFile)
        await fsyncDirectory(paths.dir)
      }
      const store = new JsonlStore(paths, options, lock, catalog)
      for (const warning of permissions) store.#warn(warning)
      await removeTempFiles(paths, catalog.tempLogFiles)
      await reviewDamaged(catalog, paths, false, (warning) => store.#warn(warning))
      if (catalog.dirty) await store.#catalog.persist()
      return store
    } catch (error) {
      await lock.release()
      throw error
    }
  }

  /**
   * What the store skipped, left alone or repaired since it opened (a file in `sessions/`
   * that is not a regular file, a log of another format version, a loop of parents, a data
   * directory other users can read), each naming its file. Nothing here stops the store.
   * A reader finds those of the catalog when it first reads it (its first list or get).
   */
  warnings(): StoreWarning[] {
    return [...this.#warnings]
  }

  /** The live session, or the one read (and, for a writer, repaired) from disk. */
  async load(id: string): Promise<Session> {
    assertValidSessionId(id)
    this.#assertOpen()
    const live = this.store.get(id)
    if (live) return live
    if (this.#deleter.has(id)) throw sessionNotFound(id)
    return this.#loader.load(id)
  }

  /**
   * Events `fromSeq <= seq < beforeSeq` of a session not live here, read from its log's end
   * without loading the rest (read-log-range.ts): the tail of a 100 MB log costs what a small
   * one's does. Null — load it instead — for a live session (its writer may hold events not yet
   * on disk), or whatever the range read cannot answer as a load would.
   */
  async readEventRange(
    id: string,
    range: { fromSeq: number; beforeSeq: number; eventCount: number },
  ): Promise<SessionEvent[] | null> {
    assertValidSessionId(id)
    this.#assertOpen()
    if (this.store.get(id) || this.#writers.has(id) || this.#deleter.has(id)) return null
    try {
      return await readLogRange(sessionLogFile(this.#paths, id), {
        fromSeq: range.fromSeq,
        beforeSeq: range.beforeSeq,
        lastSeq: range.eventCount - 1,
      })
    } catch {
      // Not there, not a regular file, unreadable: the load that follows says which, in its words.
      return null
    }
  }

  /**
   * How many of the session's events a reader may be given as stored: all of them, except while
   * its log cannot be written (a full disk): then only those already durable — what a restart
   * would load (docs/architecture.md §4). The others come once the writer catches up.
   */
  servableEventCount(session: Session): number {
    const writer = this.#writers.get(session.id)
    if (!writer?.error) return session.events.length
    return session.events.length - writer.undurableEvents
  }

  /** Resolves when everything appended so far (to `id`, or to every session) is fsynced. */
  async flush(id?: string): Promise<void> {
    if (id !== undefined) assertValidSessionId(id)
    await this.#writers.flush(id)
  }

  /** Catalog entries (no log is parsed), oldest first. A reader re-reads the catalog each time. */
  async list(): Promise<CatalogEntry[]> {
    this.#assertOpen()
    if (this.readOnly) await this.#catalog.refresh()
    return this.#catalog.known.sorted().map(entryOf)
  }

  /**
   * The same entries as `list()`, in its order, but the catalog's own objects, not copies:
   * for a caller that reads them at once (the Host's session.list of 10,000 sessions) and
   * keeps nothing. Read only; they change as sessions do.
   */
  async listView(): Promise<readonly Readonly<CatalogEntry>[]> {
    this.#assertOpen()
    if (this.readOnly) await this.#catalog.refresh()
    return this.#catalog.known.sorted()
  }

  /**
   * Every listed session's id and header line as the catalog holds it, in no order and
   * without copies: for indexes built once at start (a Host's fork requestIds). Read only.
   * A reader answers from the catalog as of its last list or get (none before the first).
   */
  headers(): Iterable<{ readonly id: string; readonly header: Readonly<Record<string, unknown>> }> {
    this.#assertOpen()
    return this.#catalog.headers()
  }

  async get(id: string): Promise<CatalogEntry | undefined> {
    assertValidSessionId(id)
    this.#assertOpen()
    if (this.readOnly) await this.#catalog.refresh()
    const record = this.#catalog.known.get(id)
    return record ? entryOf(record) : undefined
  }

  /**
   * Ids of logs that have no readable header, and of `<id>.jsonl` entries that are not
   * regular files (never listed; look at them by hand — `warnings()` says why). A reader
   * answers as of its last list or get, like `headers()`.
   */
  damaged(): string[] {
    return this.#catalog.damaged()
  }

  /**
   * Archives or unarchives a session. The flag lives in the catalog and in a marker file
   * `sessions/<id>.archived`, which a catalog rebuild reads; the log is not touched, so
   * forks of an archived session do not inherit the flag.
   */
  async setArchived(id: string, archived: boolean): Promise<CatalogEntry> {
    assertValidSessionId(id)
    this.#assertWritable()
    const record = this.#catalog.known.get(id)
    if (!record) throw sessionNotFound(id)
    const marker = archivedMarkerFile(this.#paths, id)
    if (archived) await touchPrivateFile(marker)
    else await unlinkIfPresent(marker)
    await fsyncDirectory(this.#paths.sessionsDir)
    const updated = { ...record, archived }
    this.#catalog.known.set(updated)
    await this.#catalog.persist()
    return entryOf(updated)
  }

  /** Deletes a session's log, every fork reading its prefix from it first made whole (session-delete.ts). */
  async delete(id: string): Promise<{ materialized: string[] }> {
    assertValidSessionId(id)
    this.#assertWritable()
    return this.#deleter.delete(id)
  }

  get location(): string {
    return this.dir
  }

  /** The writer lock already makes this process the only writer (docs/architecture.md §4). */
  async claim(id: string): Promise<void> {
    assertValidSessionId(id)
    this.#assertWritable()
  }

  async release(_id: string): Promise<void> {}

  /** No other process writes this data directory. */
  onRemoteChange(): () => void {
    return () => {}
  }

  /** Flushes everything, writes the catalog, forgets the live sessions and releases the lock. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#catalog.stop()
    const errors: unknown[] = []
    try {
      await this.flush()
    } catch (error) {
      errors.push(error)
    }
    const sizes = this.#catalog.logSizes() // before the writers go: each record says which size it is true for
    for (const id of [...this.store.sessions()].map((session) => session.id)) this.store.dispose(id)
    await this.#writers.closeAll(errors)
    if (!this.readOnly) {
      try {
        await this.#catalog.persistLast(sizes)
        // Everything is durable and the catalog says so: the next open may trust it as is.
        // After any failure it is not marked, and the next open checks it against the logs.
        if (errors.length === 0 && !this.#writers.hasFailures) {
          await touchPrivateFile(this.#paths.catalogCleanFile)
          await fsyncDirectory(this.#paths.dir)
        }
      } catch (error) {
        errors.push(error)
      }
    }
    for (const unsubscribe of this.#unsubscribe) unsubscribe()
    await this.#lock?.release()
    errors.push(...this.#writers.takeFailures())
    if (errors.length > 0) throw errors[0]
  }

  #warn(warning: StoreWarning): void {
    this.#warnings.push(warning)
    this.#onWarning?.(warning)
  }

  #assertOpen(): void {
    if (this.#closed) throw storeClosed()
  }

  #assertWritable(): void {
    this.#assertOpen()
    if (this.readOnly) throw storeReadOnly('change sessions')
  }
}
