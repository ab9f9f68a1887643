// PostgresStore: the store contract on PostgreSQL (docs/architecture.md §4), so several Hosts
// share sessions: events stored once (a fork is one row naming its parent and boundary), group
// commit in transactions, one writer per session across Hosts (leases with a fencing token),
// live across Hosts (LISTEN/NOTIFY), an in-memory index of every session kept current.
// It composes the parts: the pool (database.ts), the index (session-index.ts), claims and
// leases (claims.ts, leases.ts), live sessions → database (live-writes.ts, each session's
// group commit in session-writer.ts), database → live sessions (session-loader.ts), crash
// repair (crash-repair.ts), live across Hosts (remote-changes.ts, catch-up.ts, listener.ts),
// delete (session-delete.ts).

import { randomBytes } from 'node:crypto'
import os from 'node:os'
import {
  assertValidSessionId,
  maxEventLineBytes,
  type RemoteChange,
  redactUrl,
  type Session,
  type SessionEvent,
  type SessionPersistence,
  SessionStore,
  SessionWriters,
  type StoredSession,
  type StoreWarningLike,
  TangentError,
} from '@tangent/core'
import pg from 'pg'
import { CatchUp } from './catch-up.js'
import { Claims } from './claims.js'
import { CrashRepair } from './crash-repair.js'
import { Database } from './database.js'
import { sessionNotFound, storeClosed, storeReadOnly, storeUnreachable } from './errors.js'
import { sessionsChannel } from './listener.js'
import { LiveWrites } from './live-writes.js'
import { RemoteChanges } from './remote-changes.js'
import { entryOfRow, eventsOfRows, type SessionRow, sessionColumns } from './rows.js'
import { migrate } from './schema.js'
import { SessionDeleter } from './session-delete.js'
import { SessionIndex } from './session-index.js'
import { SessionLoader } from './session-loader.js'
import type { PgSessionWriter } from './session-writer.js'
import { PgSnapshotObjects } from './snapshot-objects.js'
import { StoreWarnings } from './warnings.js'

export interface PostgresStoreOptions {
  /** postgres://user@host:port/db, or postgres://user@/db?host=/socket/dir */
  url: string
  /** No migrations, no writes, no repair, no claims. */
  readOnly?: boolean
  onWarning?: (warning: StoreWarningLike) => void
  /** Clock of the SessionStore (event times, createdAt). */
  now?: () => number
  /** Lease time (default TANGENT_LEASE_MS, else 15000 ms); the heartbeat renews every third of it. */
  leaseMs?: number
  /** How long a write whose connection broke is retried (default 60000 ms). */
  retryWindowMs?: number
  /** The largest event, as its JSON line, that is stored (default 64 MiB, as JSONL); for tests. */
  maxLineBytes?: number
  /** How long snapshotObjects.collect() keeps an object no event names yet (default 10 minutes). */
  objectGraceMs?: number
}

export class PostgresStore implements SessionPersistence {
  readonly engine = 'postgres'
  /** Several Hosts write the same database: each write needs a claim. */
  readonly shared = true
  readonly location: string
  readonly readOnly: boolean
  readonly store: SessionStore
  /** This process's name in leases: hostname, pid and a random suffix. */
  readonly holder: string
  /** The snapshot objects of the sessions, shared by every Host (snapshot-objects.ts). */
  readonly snapshotObjects: PgSnapshotObjects
  readonly #db: Database
  readonly #warnings: StoreWarnings
  readonly #index = new SessionIndex()
  /** The live sessions' writers, and failures no caller has seen yet (a retired writer's). */
  readonly #writers = new SessionWriters<PgSessionWriter>()
  readonly #claims: Claims
  readonly #loader: SessionLoader
  readonly #deleter: SessionDeleter
  readonly #remote: RemoteChanges
  readonly #unsubscribe: (() => void)[] = []
  #closed = false

  private constructor(pool: pg.Pool, config: pg.ClientConfig, options: PostgresStoreOptions) {
    this.location = redactUrl(options.url)
    this.readOnly = options.readOnly === true
    this.#warnings = new StoreWarnings(this.location, options.onWarning)
    const envLease = Number(process.env.TANGENT_LEASE_MS)
    const leaseMs = options.leaseMs ?? (envLease > 0 ? envLease : 15_000)
    const retryWindowMs = options.retryWindowMs ?? 60_000
    this.holder = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`
    this.store = new SessionStore(options.now ? { now: options.now } : {})
    const isClosed = () => this.#closed
    const flush = (id: string) => this.flush(id)
    const db = new Database(pool, retryWindowMs, isClosed)
    this.#db = db
    this.snapshotObjects = new PgSnapshotObjects({
      db,
      readOnly: this.readOnly,
      isClosed,
      ...(options.objectGraceMs !== undefined ? { graceMs: options.objectGraceMs } : {}),
    })
    const { store, holder, readOnly } = this
    const writers = this.#writers
    const index = this.#index
    const warnings = this.#warnings
    const catchUp = new CatchUp(db, store, warnings)
    const claims = new Claims({ db, store, writers, catchUp, holder, leaseMs, flush, isClosed, warnings })
    this.#claims = claims
    const live = new LiveWrites({
      db,
      writers,
      index,
      claims,
      catchUp,
      holder,
      retryWindowMs,
      maxLineBytes: options.maxLineBytes ?? maxEventLineBytes,
      readOnly,
      isClosed,
      isDeleting: (id) => this.#deleter.has(id),
      dispose: (id) => store.dispose(id),
      warnings,
    })
    const repair = new CrashRepair({
      db,
      store,
      holder,
      isHeld: (id) => claims.isHeld(id),
      catchUp,
      claim: (id) => this.claim(id),
      release: (id) => this.release(id),
      flush,
    })
    this.#loader = new SessionLoader({ db, store, writers, index, claims, catchUp, live, repair, readOnly })
    this.#deleter = new SessionDeleter({ db, store, writers, index, claims, loader: this.#loader, holder })
    this.#remote = new RemoteChanges({
      config,
      db,
      store,
      writers,
      index,
      claims,
      catchUp,
      holder,
      isClosed,
      warnings,
    })
    this.#unsubscribe.push(
      store.on('created', (session, via) => live.onCreated(session, via)),
      store.on('appending', (session, event) => live.onAppending(session, event)),
      store.on('appended', (session, event) => live.onAppended(session, event)),
      store.on('disposed', (id) => live.onDisposed(id)),
    )
  }

  /** Connects, applies the migrations (a writer) and reads the index of every session. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const location = redactUrl(options.url)
    const config: pg.ClientConfig = {
      connectionString: options.url,
      application_name: 'tangent',
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    }
    let pool: pg.Pool
    try {
      pool = new pg.Pool({ ...config, max: 10 })
    } catch (error) {
      throw storeUnreachable(location, error)
    }
    // An idle connection that breaks (the server restarted) is dropped by the pool; the next
    // query opens a new one. Without a listener the error would end the process.
    pool.on('error', () => {})
    // The same for a connection checked out between two queries: its next query fails instead
    // (a connection error, which the callers retry on a new connection).
    pool.on('connect', (client) => client.on('error', () => {}))
    try {
      const client = await pool.connect().catch((error: unknown) => {
        throw storeUnreachable(location, error)
      })
      try {
        await migrate(client, options.readOnly === true, location)
      } finally {
        client.release()
      }
      const store = new PostgresStore(pool, config, options)
      await store.#index.load(pool, store.#warnings)
      await store.#remote.start()
      return store
    } catch (error) {
      await pool.end().catch(() => undefined)
      if (TangentError.isInstance(error)) throw error
      throw storeUnreachable(location, error)
    }
  }

  warnings(): StoreWarningLike[] {
    return this.#warnings.list()
  }

  /** Sessions are rows: none is unreadable in the way a damaged log file is. */
  damaged(): string[] {
    return []
  }

  // ── reading ──────────────────────────────────────────────────────────────────────

  async load(id: string): Promise<Session> {
    assertValidSessionId(id)
    this.#assertOpen()
    const live = this.store.get(id)
    if (live) return live
    if (this.#deleter.has(id)) throw sessionNotFound(id)
    return this.#loader.load(id)
  }

  servableEventCount(session: Session): number {
    const writer = this.#writers.get(session.id)
    if (!writer?.error) return session.events.length
    return Math.min(session.events.length, writer.durableEvents)
  }

  /**
   * Events `fromSeq <= seq < beforeSeq` of a session not live here, from its own rows only: null
   * (load it) when the range reaches into a parent's rows (a fork's prefix), rows are missing, or
   * a line is not its event — the load says why. Nothing is repaired (a load by a writer does).
   */
  async readEventRange(
    id: string,
    range: { fromSeq: number; beforeSeq: number; eventCount: number },
  ): Promise<SessionEvent[] | null> {
    assertValidSessionId(id)
    this.#assertOpen()
    if (this.store.get(id) || this.#deleter.has(id)) return null
    const beforeSeq = Math.min(range.beforeSeq, range.eventCount)
    if (range.fromSeq >= beforeSeq) return []
    const { rows } = await this.#db.withRetry(() =>
      this.#db.pool.query<{ seq: number; line: string }>(
        'SELECT seq, line FROM events WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq',
        [id, range.fromSeq, beforeSeq],
      ),
    )
    if (rows.length !== beforeSeq - range.fromSeq) return null
    try {
      return eventsOfRows(id, rows, range.fromSeq)
    } catch {
      // A gap or a bad line: the load that follows reports it as corrupt-log, in its words.
      return null
    }
  }

  async flush(id?: string): Promise<void> {
    if (id !== undefined) assertValidSessionId(id)
    await this.#writers.flush(id)
  }

  async list(): Promise<StoredSession[]> {
    this.#assertOpen()
    return this.#index.sorted().map((entry) => ({ ...entry }))
  }

  async listView(): Promise<readonly Readonly<StoredSession>[]> {
    this.#assertOpen()
    return this.#index.sorted()
  }

  headers(): Iterable<{ readonly id: string; readonly header: Readonly<Record<string, unknown>> }> {
    this.#assertOpen()
    return this.#index.values()
  }

  async get(id: string): Promise<StoredSession | undefined> {
    assertValidSessionId(id)
    this.#assertOpen()
    const entry = this.#index.get(id)
    return entry ? { ...entry } : undefined
  }

  onRemoteChange(listener: (change: RemoteChange) => void): () => void {
    return this.#remote.onRemoteChange(listener)
  }

  // ── changing ─────────────────────────────────────────────────────────────────────

  async setArchived(id: string, archived: boolean): Promise<StoredSession> {
    assertValidSessionId(id)
    this.#assertWritable()
    if (!this.#index.has(id)) throw sessionNotFound(id)
    await this.#writers.get(id)?.flush() // a new session's row must exist first
    const { rows } = await this.#db.withRetry(() =>
      this.#db.pool.query<SessionRow>(
        `UPDATE sessions SET archived = $2 WHERE id = $1
         RETURNING ${sessionColumns}, pg_notify('${sessionsChannel}', 'updated:' || id || ':' || $3::text)`,
        [id, archived, this.holder],
      ),
    )
    const row = rows[0]
    if (!row) {
      this.#index.remove(id)
      throw sessionNotFound(id)
    }
    const entry = this.#index.get(id)
    if (entry) entry.archived = archived
    else this.#index.set(entryOfRow(row))
    return { ...(this.#index.get(id) ?? entryOfRow(row)) }
  }

  /** Deletes a session in one transaction, every fork kept whole (session-delete.ts). */
  async delete(id: string): Promise<{ materialized: string[] }> {
    assertValidSessionId(id)
    this.#assertWritable()
    return this.#deleter.delete(id)
  }

  // ── claims ───────────────────────────────────────────────────────────────────────

  /** Takes (or renews) the session's lease; claims nest; another live holder: session-busy (claims.ts). */
  async claim(id: string): Promise<void> {
    assertValidSessionId(id)
    this.#assertWritable()
    return this.#claims.claim(id)
  }

  /** Flushes, then gives the lease up when the last claim is released (claims.ts). */
  async release(id: string): Promise<void> {
    assertValidSessionId(id)
    return this.#claims.release(id)
  }

  // ── closing ──────────────────────────────────────────────────────────────────────

  /** Flushes everything, gives up every lease, forgets the live sessions, disconnects. */
  async close(): Promise<void> {
    if (this.#closed) return
    const errors: unknown[] = []
    try {
      await this.flush()
    } catch (error) {
      errors.push(error)
    }
    this.#closed = true
    this.#claims.stopHeartbeat()
    for (const id of [...this.store.sessions()].map((session) => session.id)) this.store.dispose(id)
    await this.#writers.closeAll(errors)
    await this.#claims.releaseAll(errors)
    for (const unsubscribe of this.#unsubscribe) unsubscribe()
    await this.#remote.close()
    await this.#db.pool.end().catch(() => undefined)
    errors.push(...this.#writers.takeFailures())
    if (errors.length > 0) throw errors[0]
  }

  #assertOpen(): void {
    if (this.#closed) throw storeClosed()
  }

  #assertWritable(): void {
    this.#assertOpen()
    if (this.readOnly) throw storeReadOnly('change sessions')
  }
}
