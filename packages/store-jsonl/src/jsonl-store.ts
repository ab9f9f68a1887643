// JsonlStore: persists a SessionStore as one JSONL log per session (docs/architecture.md §4):
// forks by reference, group commit, crash repair on load, one writer, a catalog.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import {
  assertValidSessionId,
  closingEventsForOpenTurn,
  eventTooLargeError,
  markersBefore,
  markersOf,
  noteMarker,
  type Session,
  type SessionEvent,
  type SessionMarkers,
  type SessionPersistence,
  SessionStore,
  SessionWriters,
  TangentError,
} from '@tangent/core'
import { Catalog, entryOf } from './catalog.js'
import type { CatalogEntry, CatalogRecord } from './catalog-format.js'
import { fsyncDirectory, privateDirMode, touchPrivateFile, unlinkIfPresent } from './durable-fs.js'
import { maxLineBytes } from './line-reader.js'
import {
  createOptionsOf,
  eventLine,
  headerLineOf,
  oversizedLineBytes,
  type SessionHeaderLine,
} from './log-format.js'
import { materializeFork } from './materialize.js'
import {
  corruptLog,
  type ParsedLog,
  readSessionLog,
  readSessionLogByLines,
  readSmallLogSync,
} from './read-log.js'
import { SessionWriter } from './session-writer.js'
import {
  isUnreadable,
  prefixUnreadable,
  type StoreWarning,
  sessionExists,
  sessionNotFound,
  storeClosed,
  storeReadOnly,
  unwritableDataDir,
} from './store-errors.js'
import { archivedMarkerFile, type StorePaths, sessionLogFile, storePaths, tornFile } from './store-paths.js'
import { cutTornTail } from './torn-tail.js'
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

const interruptedMessage = 'The process stopped while this turn was running (crash repair).'

export class JsonlStore implements SessionPersistence {
  readonly engine = 'jsonl'
  /** One process writes a data directory (the writer lock): claims are not needed. */
  readonly shared = false
  readonly dir: string
  readonly readOnly: boolean
  readonly store: SessionStore
  readonly #paths: StorePaths
  readonly #lock: WriterLock | null
  /** A writer's catalog from its open; a reader's from its first list or get (null before). */
  #catalog: Catalog | null
  readonly #catalogDelayMs: number
  /** The live sessions' writers, and failures no caller has seen yet (a retired writer, a background catalog write). */
  readonly #writers = new SessionWriters<SessionWriter>()
  readonly #markers = new Map<string, SessionMarkers>()
  readonly #loading = new Map<string, Promise<Session>>()
  readonly #deleting = new Set<string>()
  readonly #unsubscribe: (() => void)[] = []
  /** A reader's view of the catalog files and sessions directory when it last read them; null: never. */
  #catalogStamp: string | null = null
  /** A reader's read of the catalog in progress (concurrent callers share it). */
  #catalogReading: Promise<void> | null = null
  #catalogTimer: NodeJS.Timeout | null = null
  #catalogWrite: Promise<void> = Promise.resolve()
  #closed = false
  readonly #warnings: StoreWarning[] = []
  readonly #onWarning: ((warning: StoreWarning) => void) | undefined
  readonly #maxLineBytes: number
  /** The line of the event last checked by `#onAppending`, so it is serialised once. */
  #checked: { event: SessionEvent; line: string } | null = null

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
    this.#catalog = catalog
    this.#catalogDelayMs = options.catalogDelayMs ?? 1000
    this.#onWarning = options.onWarning
    this.#maxLineBytes = options.maxLineBytes ?? maxLineBytes
    this.store = new SessionStore(options.now ? { now: options.now } : {})
    this.#unsubscribe.push(
      this.store.on('created', (session, via) => this.#onCreated(session, via)),
      this.store.on('appending', (session, event) => this.#onAppending(session, event)),
      this.store.on('appended', (session, event) => this.#onAppended(session, event)),
      this.store.on('disposed', (id) => this.#onDisposed(id)),
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
      await store.#reviewDamaged()
      if (catalog.dirty) await store.#persistCatalog()
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
    if (this.#deleting.has(id)) throw sessionNotFound(id)
    let pending = this.#loading.get(id)
    if (!pending) {
      // The common case — a small log, all of it good, no prefix to read — without an await:
      // the same checks, in one synchronous step (docs/architecture.md §4).
      const triedWhole = !this.#writers.has(id)
      const small = triedWhole ? this.#readSmallLog(id) : null
      if (small !== null && this.readOnly && small.header !== null && !inheritsByRef(small.header)) {
        if (small.header.id !== id) throw wrongHeaderId(sessionLogFile(this.#paths, id), small.header)
        return this.#publishLog(id, sessionLogFile(this.#paths, id), small, [])
      }
      const first = small ?? (triedWhole ? 'by-lines' : null)
      pending = this.#loadFromDisk(id, first).finally(() => this.#loading.delete(id))
      this.#loading.set(id, pending)
    }
    return pending
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
    if (this.readOnly) await this.#refreshCatalog()
    return this.#known.sorted().map(entryOf)
  }

  /**
   * The same entries as `list()`, in its order, but the catalog's own objects, not copies:
   * for a caller that reads them at once (the Host's session.list of 10,000 sessions) and
   * keeps nothing. Read only; they change as sessions do.
   */
  async listView(): Promise<readonly Readonly<CatalogEntry>[]> {
    this.#assertOpen()
    if (this.readOnly) await this.#refreshCatalog()
    return this.#known.sorted()
  }

  /**
   * Every listed session's id and header line as the catalog holds it, in no order and
   * without copies: for indexes built once at start (a Host's fork requestIds). Read only.
   * A reader answers from the catalog as of its last list or get (none before the first).
   */
  headers(): Iterable<{ readonly id: string; readonly header: Readonly<Record<string, unknown>> }> {
    this.#assertOpen()
    return this.#catalog?.records() ?? []
  }

  async get(id: string): Promise<CatalogEntry | undefined> {
    assertValidSessionId(id)
    this.#assertOpen()
    if (this.readOnly) await this.#refreshCatalog()
    const record = this.#known.get(id)
    return record ? entryOf(record) : undefined
  }

  /**
   * Ids of logs that have no readable header, and of `<id>.jsonl` entries that are not
   * regular files (never listed; look at them by hand — `warnings()` says why). A reader
   * answers as of its last list or get, like `headers()`.
   */
  damaged(): string[] {
    if (this.#catalog === null) return []
    return [...this.#catalog.damaged, ...this.#catalog.skipped.keys()]
  }

  /**
   * Archives or unarchives a session. The flag lives in the catalog and in a marker file
   * `sessions/<id>.archived`, which a catalog rebuild reads; the log is not touched, so
   * forks of an archived session do not inherit the flag.
   */
  async setArchived(id: string, archived: boolean): Promise<CatalogEntry> {
    assertValidSessionId(id)
    this.#assertWritable()
    const record = this.#known.get(id)
    if (!record) throw sessionNotFound(id)
    const marker = archivedMarkerFile(this.#paths, id)
    if (archived) await touchPrivateFile(marker)
    else await unlinkIfPresent(marker)
    await fsyncDirectory(this.#paths.sessionsDir)
    const updated = { ...record, archived }
    this.#known.set(updated)
    await this.#persistCatalog()
    return entryOf(updated)
  }

  /**
   * Deletes a session's log. Each direct child that reads its prefix from this log is
   * first rewritten with the prefix inline (atomic replace); then the log is removed.
   */
  async delete(id: string): Promise<{ materialized: string[] }> {
    assertValidSessionId(id)
    this.#assertWritable()
    const file = sessionLogFile(this.#paths, id)
    if (this.#deleting.has(id) || (!this.store.has(id) && !entryExists(file))) throw sessionNotFound(id)
    this.#deleting.add(id)
    try {
      await this.#loading.get(id)?.catch(() => undefined) // a failed load leaves nothing to undo
      this.store.dispose(id)
      const writer = this.#writers.get(id)
      if (writer) {
        await writer.flush()
        await writer.close()
        this.#writers.delete(id)
      }
      const materialized: string[] = []
      for (const record of [...this.#known.records()]) {
        if (record.parentSession !== id || record.header.seed !== 'ref') continue
        // A log that cannot be read (its own damage, or a parent's missing) is deleted like any
        // other, but not at the cost of a fork that needs it: that refuses, naming the fork.
        await this.#materialize(record).catch((error: unknown) => {
          if (!isUnreadable(error)) throw error
          const childFile = sessionLogFile(this.#paths, record.id)
          throw prefixUnreadable(id, record.id, record.inheritedEventCount, childFile, error)
        })
        materialized.push(record.id)
      }
      await unlinkIfPresent(file)
      await unlinkIfPresent(archivedMarkerFile(this.#paths, id))
      await unlinkIfPresent(tornFile(this.#paths, id))
      await fsyncDirectory(this.#paths.sessionsDir)
      this.#known.delete(id)
      this.#known.findLoops() // deleting one session of a loop of parents ends the loop
      this.#scheduleCatalog()
      return { materialized }
    } finally {
      this.#deleting.delete(id)
    }
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
    if (this.#catalogTimer) clearTimeout(this.#catalogTimer)
    this.#catalogTimer = null
    const errors: unknown[] = []
    try {
      await this.flush()
    } catch (error) {
      errors.push(error)
    }
    const sizes = this.#logSizes() // before the writers go: each record says which size it is true for
    for (const id of [...this.store.sessions()].map((session) => session.id)) this.store.dispose(id)
    await this.#writers.closeAll(errors)
    if (!this.readOnly) {
      try {
        await this.#catalogWrite
        await this.#persistCatalog(sizes) // writes nothing when the files hold everything
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

  // ── live sessions → disk ────────────────────────────────────────────────────────

  #onCreated(session: Session, via: 'create' | 'fork' | 'load'): void {
    if (via === 'load') return
    const refusal = this.#creationRefusal(session.id)
    if (refusal) {
      this.store.dispose(session.id)
      throw refusal
    }
    const parentId = via === 'fork' ? session.header.parentSession : undefined
    const seed = parentId !== undefined ? 'ref' : 'inline'
    const header = headerLineOf(session, seed)
    const writer = new SessionWriter({
      file: sessionLogFile(this.#paths, session.id),
      exists: false,
      maxLineBytes: this.#maxLineBytes,
      // The prefix a ref log points at must be durable before the fork is.
      ...(parentId !== undefined ? { before: () => this.#flushIfWriting(parentId) } : {}),
    })
    writer.enqueueLine(`${JSON.stringify(header)}\n`)
    let markers: SessionMarkers
    let inherited: Pick<CatalogRecord, 'inheritedTitle' | 'inheritedModel'>
    if (parentId !== undefined) {
      markers = markersBefore(this.#markers.get(parentId), session.inheritedEventCount)
      inherited = {
        inheritedTitle: markers.titles.at(-1)?.title ?? null,
        inheritedModel: markers.models.at(-1)?.model ?? null,
      }
    } else {
      for (const event of session.events) writer.enqueueEvent(event)
      markers = markersOf(session)
      inherited = { inheritedTitle: null, inheritedModel: null }
    }
    this.#writers.set(session.id, writer)
    this.#markers.set(session.id, markers)
    this.#known.set(this.#recordOf(session, header, markers, { archived: false, ...inherited }))
    this.#scheduleCatalog()
  }

  #creationRefusal(id: string): TangentError | null {
    if (this.#closed) return storeClosed()
    if (this.readOnly) return storeReadOnly('create or fork sessions')
    if (
      this.#deleting.has(id) ||
      this.#known.get(id) ||
      this.#known.damaged.has(id) ||
      this.#known.skipped.has(id)
    )
      return sessionExists(id)
    if (this.#writers.has(id) || entryExists(sessionLogFile(this.#paths, id))) return sessionExists(id)
    return null
  }

  /**
   * Refuses an event the log cannot hold before it enters the session (docs/architecture.md §4):
   * once in memory it would be served, yet never written, and every later flush would fail.
   */
  #onAppending(session: Session, event: SessionEvent): void {
    if (this.readOnly) throw storeReadOnly('append')
    if (!this.#writers.has(session.id)) throw storeClosed()
    const line = eventLine(event)
    const bytes = oversizedLineBytes(line, this.#maxLineBytes)
    if (bytes !== null) {
      this.#checked = null
      throw eventTooLargeError(session.id, event, bytes, this.#maxLineBytes)
    }
    this.#checked = { event, line }
  }

  #onAppended(session: Session, event: SessionEvent): void {
    const writer = this.#writers.get(session.id)
    if (!writer) throw storeClosed()
    const checked = this.#checked
    this.#checked = null
    if (checked?.event === event) writer.enqueueEventLine(event, checked.line)
    else writer.enqueueEvent(event)
    const record = this.#known.get(session.id)
    if (!record) return
    // Updated in place: this runs on every append, and the catalog is written later.
    record.eventCount = event.seq + 1
    record.updatedAt = event.time
    const marker = noteMarker(this.#markers.get(session.id), event)
    if (marker && 'title' in marker) record.title = marker.title
    else if (marker) record.model = marker.model
    this.#known.touch(session.id)
    this.#scheduleCatalog()
  }

  #onDisposed(id: string): void {
    this.#markers.delete(id)
    // A delete closes its writer itself. Otherwise the log stays; the writer drains what is
    // queued, then lets the file go.
    if (!this.#deleting.has(id)) this.#writers.retire(id)
  }

  async #flushIfWriting(id: string): Promise<void> {
    await this.#writers.get(id)?.flush()
  }

  // ── disk → live sessions ────────────────────────────────────────────────────────

  /**
   * `read`, for the first attempt: the log as `load` already read it, or `by-lines` when `load`
   * found it not readable whole (too big, or not all good: the byte-exact reader decides).
   */
  async #loadFromDisk(id: string, read: ParsedLog | 'by-lines' | null): Promise<Session> {
    const draining = this.#writers.get(id) // a disposed session's writer may still be draining
    if (draining) await draining.settle()
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#readAndPublish(id, attempt === 0 ? read : null)
      } catch (error) {
        // A reader can race a writer that materialises this fork and deletes its parent.
        if (attempt < 2 && TangentError.hasCode(error, 'parent-log-missing')) continue
        throw error
      }
    }
  }

  /** A log `readSmallLogSync` reads whole (a small log, all of it good), else null. */
  #readSmallLog(id: string): ParsedLog | null {
    try {
      return readSmallLogSync(sessionLogFile(this.#paths, id))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw sessionNotFound(id)
      throw error
    }
  }

  /** `read`: as for `#loadFromDisk` (null: read here from scratch). */
  async #readAndPublish(id: string, read: ParsedLog | 'by-lines' | null): Promise<Session> {
    const file = sessionLogFile(this.#paths, id)
    let log: ParsedLog
    try {
      if (read === 'by-lines') log = await readSessionLogByLines(file)
      else log = read ?? (await readSessionLog(file))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw sessionNotFound(id)
      throw error
    }
    if (log.header === null) {
      // Not even a complete header: a creation that never became durable.
      if (!this.readOnly) {
        await cutTornTail(file, tornFile(this.#paths, id), 0)
        this.#known.delete(id)
        this.#scheduleCatalog()
      }
      throw sessionNotFound(id)
    }
    const header = log.header
    if (header.id !== id) throw wrongHeaderId(file, header)
    if (log.torn && !this.readOnly) await cutTornTail(file, tornFile(this.#paths, id), log.goodBytes)
    const prefix =
      header.seed === 'ref' && header.parentSession !== undefined
        ? await this.#readPrefix(header.parentSession, header.inheritedEventCount, file)
        : []
    const live = this.store.get(id)
    if (live) return live
    const session = this.#publishLog(id, file, log, prefix)
    if (!this.readOnly && session.isTurnOpen) {
      // Written, not just patched in memory: the session must be forkable after a restart too.
      for (const closing of closingEventsForOpenTurn(session.grammar, 'interrupted', interruptedMessage))
        session.append(closing.type, closing.data)
      await this.flush(id)
    }
    if (!this.readOnly) this.#scheduleCatalog()
    return session
  }

  /** Creates the loaded session from its log and its inherited prefix (checked by the store). */
  #publishLog(id: string, file: string, log: ParsedLog, prefix: SessionEvent[]): Session {
    const header = log.header as SessionHeaderLine
    const events = prefix.length > 0 ? prefix.concat(log.events) : log.events
    if (events.length < header.inheritedEventCount)
      throw corruptLog(file, 1, `it inherits ${header.inheritedEventCount} events but holds ${events.length}`)
    const { meta, lineage } = createOptionsOf(header)
    let session: Session
    try {
      session = this.store.create(id, { seed: events, meta, lineage, loaded: true })
    } catch (error) {
      const seq = TangentError.isInstance(error) ? error.data.seq : undefined
      if (typeof seq !== 'number') throw error
      const why = (error as Error).message
      if (seq >= log.startSeq) throw corruptLog(file, seq - log.startSeq + 2, why)
      throw corruptLog(file, 1, `its inherited prefix is invalid at seq ${seq}: ${why}`)
    }
    if (!this.readOnly) {
      this.#writers.set(
        id,
        new SessionWriter({ file, exists: true, size: log.goodBytes, maxLineBytes: this.#maxLineBytes }),
      )
    }
    // A reader that has not read the catalog has no record to keep current: when it reads the
    // catalog, that is checked against the logs (docs/architecture.md §4).
    if (this.#catalog !== null) {
      const markers = markersOf(session)
      this.#markers.set(id, markers)
      const previous = this.#known.get(id)
      const inheritedMarkers = markersOf(session, prefix.length)
      this.#known.set(
        this.#recordOf(session, header, markers, {
          archived: previous?.archived ?? existsSync(archivedMarkerFile(this.#paths, id)),
          inheritedTitle: inheritedMarkers.titles.at(-1)?.title ?? null,
          inheritedModel: inheritedMarkers.models.at(-1)?.model ?? null,
          logBytes: log.goodBytes, // what it was read from: a load of an unchanged log changes no record
        }),
      )
    }
    return session
  }

  /** Events 0..count-1 of session `id`: from the live session, else from its log (up the chain). */
  async #readPrefix(
    id: string,
    count: number,
    childFile: string,
    seen: ReadonlySet<string> = new Set(),
  ): Promise<SessionEvent[]> {
    if (count === 0) return []
    // Only damaged headers can make a cycle; without this it would never end.
    if (seen.has(id)) throw corruptLog(childFile, 1, `its chain of parents loops back to session ${id}`)
    const live = this.store.get(id)
    if (live && live.events.length >= count) return live.events.slice(0, count)
    const file = sessionLogFile(this.#paths, id)
    let log: ParsedLog
    try {
      log = await readSessionLog(file, count)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      throw new TangentError(
        'parent-log-missing',
        `Session log ${childFile} reads its first ${count} events from session ${id}, whose log is missing. Restore ${file}.`,
        { file: childFile, line: 1, parentSession: id },
      )
    }
    if (log.header === null) throw corruptLog(file, 1, 'no complete header line')
    const header = log.header
    const inherited = Math.min(count, log.startSeq)
    const head =
      inherited > 0 && header.parentSession !== undefined
        ? await this.#readPrefix(header.parentSession, inherited, file, new Set([...seen, id]))
        : []
    const events = head.length > 0 ? head.concat(log.events) : log.events
    if (events.length < count)
      throw corruptLog(file, 1, `it has ${events.length} events but a fork of it inherits ${count}`)
    return events.length > count ? events.slice(0, count) : events
  }

  // ── delete and materialise ──────────────────────────────────────────────────────

  async #materialize(record: CatalogRecord): Promise<void> {
    // A load of this child in flight would install its own writer: let it finish first (its
    // failure is its caller's to see). A load that starts now waits for the writer below.
    await this.#loading.get(record.id)?.catch(() => undefined)
    let writer = this.#writers.get(record.id)
    if (!writer) {
      writer = new SessionWriter({
        file: sessionLogFile(this.#paths, record.id),
        exists: true,
        maxLineBytes: this.#maxLineBytes,
      })
      this.#writers.set(record.id, writer)
    }
    const done = await writer.exclusive(async () => {
      const result = await materializeFork(this.#paths, record.id)
      if (!result) return { result: null, size: writer.size }
      return { result, size: result.size }
    })
    if (!this.store.has(record.id) && this.#writers.get(record.id) === writer) {
      await writer.close()
      this.#writers.delete(record.id)
    }
    const current = this.#known.get(record.id)
    if (done && current) this.#known.set({ ...current, header: done.header })
  }

  // ── catalog ─────────────────────────────────────────────────────────────────────

  #recordOf(
    session: Session,
    header: SessionHeaderLine,
    markers: SessionMarkers,
    outside: Pick<CatalogRecord, 'archived' | 'inheritedTitle' | 'inheritedModel'> & { logBytes?: number },
  ): CatalogRecord {
    const last = session.events.at(-1)
    return {
      id: session.id,
      title: markers.titles.at(-1)?.title ?? session.header.title ?? null,
      cwd: session.header.cwd,
      parentSession: session.header.parentSession ?? null,
      forkedAt: session.header.forkedAt ?? null,
      origin: session.header.origin,
      archived: outside.archived,
      eventCount: session.events.length,
      inheritedEventCount: session.inheritedEventCount,
      createdAt: session.header.createdAt,
      updatedAt: last && session.isOwnSeq(last.seq) ? last.time : session.header.createdAt,
      header: header as Record<string, unknown>,
      model: markers.models.at(-1)?.model ?? null,
      logBytes: outside.logBytes ?? null,
      inheritedTitle: outside.inheritedTitle,
      inheritedModel: outside.inheritedModel,
    }
  }

  #scheduleCatalog(): void {
    if (this.readOnly || this.#closed || this.#catalogTimer) return
    this.#catalogTimer = setTimeout(() => {
      this.#catalogTimer = null
      this.#persistCatalog().catch((error: unknown) => this.#writers.fail(error))
    }, this.#catalogDelayMs)
    this.#catalogTimer.unref()
  }

  /**
   * Writes the catalog's changes (one write at a time; docs/architecture.md §4). A log's size
   * is recorded only when nothing of it is pending.
   */
  #persistCatalog(sizes?: [string, number | null][]): Promise<void> {
    const write = this.#catalogWrite.then(() => this.#known.persist(this.#paths, sizes ?? this.#logSizes()))
    this.#catalogWrite = write.catch(() => undefined) // the failure reaches whoever awaits `write`
    return write
  }

  /** The durable size of each log a writer holds; null while some of it is pending. */
  #logSizes(): [string, number | null][] {
    return [...this.#writers].map(([id, writer]) => [id, writer.idle && !writer.error ? writer.size : null])
  }

  /**
   * A reader reads the catalog on first use, and again when the writer has changed it or added
   * or removed logs. Concurrent callers share one read.
   */
  #refreshCatalog(): Promise<void> {
    this.#catalogReading ??= this.#readCatalog().finally(() => {
      this.#catalogReading = null
    })
    return this.#catalogReading
  }

  async #readCatalog(): Promise<void> {
    const stamp = catalogStamp(this.#paths)
    if (stamp === this.#catalogStamp) return
    const first = this.#catalogStamp === null
    // A live writer's catalog lags its logs; so does one that was not closed cleanly.
    const verifySizes =
      first && (existsSync(this.#paths.lockFile) || !existsSync(this.#paths.catalogCleanFile))
    this.#catalog = await Catalog.open(this.#paths, { verifySizes })
    this.#catalogStamp = stamp
    if (first) await this.#reviewDamaged()
    await this.#saveCatalog()
  }

  /**
   * A reader that rebuilt the catalog, or brought it up to date, saves it once for the next
   * reader (docs/architecture.md §4): as a new snapshot, only while no writer holds the lock
   * (checked again just before the rename) and only if neither catalog file changed since it
   * read them. It takes no lock; a failure (a read-only file system) costs only the next
   * reader the same work.
   */
  async #saveCatalog(): Promise<void> {
    const catalog = this.#known
    const noWriter = () => !entryExists(this.#paths.lockFile)
    if (!catalog.dirty || !noWriter()) return
    try {
      if (await catalog.saveSnapshot(this.#paths, noWriter)) {
        // Its own write is not a change a reader must re-read for; the rest of the stamp stays.
        const [, journal, sessions] = (this.#catalogStamp ?? '').split('|')
        this.#catalogStamp = [fileStamp(this.#paths.catalogFile), journal, sessions].join('|')
      }
    } catch {
      // Nothing was replaced (writeReplacing removes its temp file); the catalog in memory is right.
    }
  }

  /**
   * Says what the catalog found at open, and repairs what is only a torn creation: a log
   * without even a complete header line (a crash during creation) goes to .torn (a writer
   * only). Any other damaged log — another format version, a damaged header — is left as it
   * is, and said; so are files skipped and loops of parents.
   */
  async #reviewDamaged(): Promise<void> {
    const catalog = this.#known
    if (catalog.catalogProblem !== null)
      this.#warn({
        kind: 'catalog-rebuilt',
        file: this.#paths.catalogFile,
        message: `${this.#paths.catalogFile} could not be used (${catalog.catalogProblem}): the catalog was rebuilt from the logs.`,
      })
    if (catalog.journalProblem !== null)
      this.#warn({
        kind: 'catalog-rebuilt',
        file: this.#paths.catalogJournalFile,
        message: `${catalog.journalProblem}: the changes it records from there on were not used, and the catalog was checked against the logs.`,
      })
    for (const [id, { file, why }] of catalog.skipped)
      this.#warn({
        kind: 'skipped-file',
        file,
        message: `${file} is skipped: ${why}. The store does not read, write or follow it, and lists no session ${id}; replace it with the session's log file, or move it away.`,
      })
    for (const id of [...catalog.damaged]) {
      const file = sessionLogFile(this.#paths, id)
      let problem = catalog.problems.get(id) ?? null
      let log: Awaited<ReturnType<typeof readSessionLog>> | null = null
      try {
        log = await readSessionLog(file)
      } catch (error) {
        problem = (error as Error).message
      }
      if (log && log.header === null) {
        if (this.readOnly) continue // the writer repairs it
        const torn = tornFile(this.#paths, id)
        await cutTornTail(file, torn, 0)
        catalog.delete(id)
        this.#warn({
          kind: 'moved-to-torn',
          file,
          message: `${file} had no complete header line (a creation that a crash interrupted): its bytes were moved to ${torn}.`,
        })
        continue
      }
      this.#warn({
        kind: 'damaged-log',
        file,
        message: `${file} is not listed and is left as it is: ${problem ?? 'its header cannot be read'}`,
      })
    }
    for (const loop of catalog.loops)
      this.#warn({
        kind: 'parent-loop',
        file: sessionLogFile(this.#paths, loop[0]!),
        message: `Sessions ${[...loop, loop[0]].join(' → ')} name each other as parents (damaged headers): they are listed with parentLoop set, and neither they nor forks reading through them can load. Fix the parentSession in the header of one of them.`,
      })
  }

  /** The catalog, once read: a writer's always, a reader's after its first list or get. */
  get #known(): Catalog {
    if (this.#catalog === null) throw new Error('internal: the catalog was used before it was read')
    return this.#catalog
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

/**
 * Temp files of atomic writes that a crash interrupted (the target was never replaced).
 * Only the writer's own kinds: a lock temp file may belong to a process racing for the lock.
 */
async function removeTempFiles(paths: StorePaths, tempLogFiles: readonly string[]): Promise<void> {
  for (const name of readdirSync(paths.dir))
    if (name.startsWith('.catalog.json.tmp-') || name.startsWith('.catalog.journal.tmp-'))
      await unlinkIfPresent(path.join(paths.dir, name))
  // Those of `sessions/` were seen by the catalog's readdir (one pass over 10,000 names, not two).
  for (const name of tempLogFiles) await unlinkIfPresent(path.join(paths.sessionsDir, name))
}

/** True when a directory entry exists at `file` (a dangling link counts: nothing may be created there). */
function entryExists(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false }) !== undefined
}

/**
 * Creates the data directory and `sessions/` private (0700, whatever the umask); an
 * existing one is left as it is, with a warning when other users can read or enter it.
 */
function makePrivateDirs(paths: StorePaths): StoreWarning[] {
  mkdirSync(path.dirname(paths.dir), { recursive: true })
  for (const dir of [paths.dir, paths.sessionsDir]) {
    try {
      mkdirSync(dir, { mode: privateDirMode })
      chmodSync(dir, privateDirMode) // the umask may have taken bits away; it never adds any
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  return permissionWarnings(paths)
}

/**
 * The data directory's mode, when other users can read or enter it. Only its own: while it is
 * private, nothing under it (sessions/ included) can be reached by another user whatever its
 * mode, and one stat is a fifth of a reader's open of a small log.
 */
function permissionWarnings(paths: StorePaths): StoreWarning[] {
  const dir = paths.dir
  const stats = statSync(dir, { throwIfNoEntry: false })
  if (!stats?.isDirectory() || (stats.mode & 0o077) === 0) return []
  const mode = (stats.mode & 0o777).toString(8).padStart(3, '0')
  return [
    {
      kind: 'open-permissions',
      file: dir,
      message: `${dir} has mode ${mode}: other users can read or enter it, and it holds private session logs. Make it private with: chmod 700 ${dir}`,
    },
  ]
}

function fileStamp(file: string): string {
  const stats = statSync(file, { throwIfNoEntry: false })
  return stats ? `${stats.ino}:${stats.mtimeMs}:${stats.size}` : '-'
}

/** A reader's view of the catalog's two files and the sessions directory. */
function catalogStamp(paths: StorePaths): string {
  return [
    fileStamp(paths.catalogFile),
    fileStamp(paths.catalogJournalFile),
    fileStamp(paths.sessionsDir),
  ].join('|')
}

/** A ref log whose prefix is read from its parent's. */
function inheritsByRef(header: SessionHeaderLine): boolean {
  return header.seed === 'ref' && header.inheritedEventCount > 0
}

function wrongHeaderId(file: string, header: SessionHeaderLine): TangentError {
  return corruptLog(file, 1, `the header names session ${header.id}`)
}
