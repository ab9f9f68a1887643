// PostgresStore: the store contract on PostgreSQL (docs/architecture.md §4), so several Hosts
// share sessions: events stored once (a fork is one row naming its parent and boundary), group
// commit in transactions, one writer per session across Hosts (leases with a fencing token),
// live across Hosts (LISTEN/NOTIFY), an in-memory index of every session kept current.

import { randomBytes } from 'node:crypto'
import os from 'node:os'
import {
  assertValidSessionId,
  closingEventsForOpenTurn,
  eventTooLargeError,
  findParentLoops,
  markersBefore,
  markersOf,
  maxEventLineBytes,
  noteMarker,
  oversizedEventLineBytes,
  type RemoteChange,
  redactUrl,
  type Session,
  type SessionEvent,
  type SessionMarkers,
  type SessionPersistence,
  SessionStore,
  SessionWriters,
  type StoredSession,
  type StoreWarningLike,
  TangentError,
} from '@tangent/core'
import pg from 'pg'
import {
  isConnectionError,
  sessionBusy,
  sessionExists,
  sessionNotFound,
  storeClosed,
  storeReadOnly,
  storeUnreachable,
} from './errors.js'
import { acquireLease, otherLiveHolder, releaseLease, renewLeases } from './leases.js'
import { eventsChannel, Listener, sessionsChannel } from './listener.js'
import {
  copyPrefixSql,
  entryOfRow,
  eventsOfRows,
  readChainEvents,
  type SessionRow,
  sessionColumns,
} from './rows.js'
import { migrate } from './schema.js'
import { createOptionsOf, storedHeaderOf } from './session-header.js'
import { PgSessionWriter, type WriterContext } from './session-writer.js'

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
}

const interruptedMessage = 'The process stopped while this turn was running (crash repair).'

interface Claim {
  /** claim() calls not yet released. 0: released, but the lease is kept while a flush fails. */
  count: number
  token: string
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
  readonly #pool: pg.Pool
  readonly #listener: Listener
  readonly #leaseMs: number
  readonly #retryWindowMs: number
  readonly #maxLineBytes: number
  /** The event `appending` checked, with its line, for `appended` to enqueue without stringifying again. */
  #checked: { event: SessionEvent; line: string } | null = null
  readonly #index = new Map<string, StoredSession>()
  /** Entries in listing order; null when an entry was added, removed or moved since. */
  #order: StoredSession[] | null = null
  /** The live sessions' writers, and failures no caller has seen yet (a retired writer's). */
  readonly #writers = new SessionWriters<PgSessionWriter>()
  readonly #markers = new Map<string, SessionMarkers>()
  readonly #loading = new Map<string, Promise<Session>>()
  readonly #deleting = new Set<string>()
  readonly #claims = new Map<string, Claim>()
  readonly #claiming = new Map<string, Promise<void>>()
  readonly #catchUps = new Map<string, { running: Promise<void>; again: boolean }>()
  /** The session whose events the engine is applying from another Host (not persisted again). */
  #applying: Session | null = null
  readonly #remoteListeners = new Set<(change: RemoteChange) => void>()
  /** Index rows to read again (after a notification), with the change to announce. */
  readonly #refresh = new Map<string, RemoteChange['kind'] | null>()
  #refreshScheduled = false
  readonly #warnings: StoreWarningLike[] = []
  readonly #onWarning: ((warning: StoreWarningLike) => void) | undefined
  readonly #unsubscribe: (() => void)[] = []
  #heartbeat: NodeJS.Timeout | null = null
  #closed = false

  private constructor(pool: pg.Pool, config: pg.ClientConfig, options: PostgresStoreOptions) {
    this.#pool = pool
    this.location = redactUrl(options.url)
    this.readOnly = options.readOnly === true
    this.#onWarning = options.onWarning
    const envLease = Number(process.env.TANGENT_LEASE_MS)
    this.#leaseMs = options.leaseMs ?? (envLease > 0 ? envLease : 15_000)
    this.#retryWindowMs = options.retryWindowMs ?? 60_000
    this.#maxLineBytes = options.maxLineBytes ?? maxEventLineBytes
    this.holder = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`
    this.store = new SessionStore(options.now ? { now: options.now } : {})
    this.#listener = new Listener({
      config,
      onNotification: (channel, payload) => this.#onNotification(channel, payload),
      onReconnect: () => {
        this.#resync().catch((error: unknown) => this.#warnError('resync-failed', error))
      },
      onError: (error) =>
        this.#warn({
          kind: 'listen-lost',
          file: this.location,
          message: `The connection that listens for other Hosts' changes broke (${(error as Error).message}): reconnecting; what was missed is read again then.`,
        }),
    })
    this.#unsubscribe.push(
      this.store.on('created', (session, via) => this.#onCreated(session, via)),
      this.store.on('appending', (session, event) => this.#onAppending(session, event)),
      this.store.on('appended', (session, event) => this.#onAppended(session, event)),
      this.store.on('disposed', (id) => this.#onDisposed(id)),
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
      await store.#loadIndex()
      await store.#listener.start()
      return store
    } catch (error) {
      await pool.end().catch(() => undefined)
      if (TangentError.isInstance(error)) throw error
      throw storeUnreachable(location, error)
    }
  }

  warnings(): StoreWarningLike[] {
    return [...this.#warnings]
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
    if (this.#deleting.has(id)) throw sessionNotFound(id)
    let pending = this.#loading.get(id)
    if (!pending) {
      pending = this.#loadFromDatabase(id).finally(() => this.#loading.delete(id))
      this.#loading.set(id, pending)
    }
    return pending
  }

  servableEventCount(session: Session): number {
    const writer = this.#writers.get(session.id)
    if (!writer?.error) return session.events.length
    return Math.min(session.events.length, writer.durableEvents)
  }

  async flush(id?: string): Promise<void> {
    if (id !== undefined) assertValidSessionId(id)
    await this.#writers.flush(id)
  }

  async list(): Promise<StoredSession[]> {
    this.#assertOpen()
    return this.#sorted().map((entry) => ({ ...entry }))
  }

  async listView(): Promise<readonly Readonly<StoredSession>[]> {
    this.#assertOpen()
    return this.#sorted()
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
    this.#remoteListeners.add(listener)
    return () => this.#remoteListeners.delete(listener)
  }

  // ── changing ─────────────────────────────────────────────────────────────────────

  async setArchived(id: string, archived: boolean): Promise<StoredSession> {
    assertValidSessionId(id)
    this.#assertWritable()
    if (!this.#index.has(id)) throw sessionNotFound(id)
    await this.#writers.get(id)?.flush() // a new session's row must exist first
    const { rows } = await this.#withRetry(() =>
      this.#pool.query<SessionRow>(
        `UPDATE sessions SET archived = $2 WHERE id = $1
         RETURNING ${sessionColumns}, pg_notify('${sessionsChannel}', 'updated:' || id || ':' || $3::text)`,
        [id, archived, this.holder],
      ),
    )
    const row = rows[0]
    if (!row) {
      this.#removeEntry(id)
      throw sessionNotFound(id)
    }
    const entry = this.#index.get(id)
    if (entry) entry.archived = archived
    else this.#setEntry(entryOfRow(row))
    return { ...(this.#index.get(id) ?? entryOfRow(row)) }
  }

  /**
   * Deletes a session in one transaction. Each direct child that reads its prefix through it
   * first gets that prefix copied into its own rows (INSERT … SELECT), so every fork stays whole.
   * A session another Host is writing (a live lease) is session-busy.
   */
  async delete(id: string): Promise<{ materialized: string[] }> {
    assertValidSessionId(id)
    this.#assertWritable()
    if (this.#deleting.has(id)) throw sessionNotFound(id)
    this.#deleting.add(id)
    try {
      await this.#loading.get(id)?.catch(() => undefined)
      const writer = this.#writers.get(id)
      if (writer) await writer.flush()
      // Forks made here whose rows are still queued must exist before their prefix is copied.
      for (const session of this.store.sessions())
        if (session.header.parentSession === id) await this.#writers.get(session.id)?.flush()
      const materialized = await this.#withRetry(() => this.#deleteRows(id))
      this.store.dispose(id)
      if (writer) {
        await writer.close()
        this.#writers.delete(id)
      }
      this.#claims.delete(id)
      this.#removeEntry(id)
      return { materialized }
    } finally {
      this.#deleting.delete(id)
    }
  }

  async #deleteRows(id: string): Promise<string[]> {
    return this.#transaction(async (client) => {
      const found = await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [id])
      if (found.rowCount === 0) throw sessionNotFound(id)
      const busy = await client.query<{ holder: string }>(
        'SELECT holder FROM leases WHERE session_id = $1 AND expires_at >= now() AND holder <> $2',
        [id, this.holder],
      )
      if (busy.rows[0]) throw sessionBusy(id, busy.rows[0].holder)
      const children = await client.query<{ id: string; own_from: number }>(
        'SELECT id, own_from FROM sessions WHERE parent_session = $1 AND own_from > 0 ORDER BY id',
        [id],
      )
      for (const child of children.rows) {
        await client.query(copyPrefixSql, [id, child.own_from, child.id])
        const count = await client.query<{ n: number }>(
          'SELECT count(*)::integer AS n FROM events WHERE session_id = $1 AND seq < $2',
          [child.id, child.own_from],
        )
        if (count.rows[0]!.n !== child.own_from)
          throw new TangentError(
            'parent-log-missing',
            `Session ${child.id} reads its first ${child.own_from} events through session ${id}, but only ${count.rows[0]!.n} could be read: nothing was deleted.`,
            { sessionId: child.id, parentSession: id, file: `sessions/${child.id}`, line: 1 },
          )
        await client.query('UPDATE sessions SET own_from = 0 WHERE id = $1', [child.id])
      }
      await client.query('DELETE FROM events WHERE session_id = $1', [id])
      await client.query('DELETE FROM sessions WHERE id = $1', [id])
      await client.query('DELETE FROM leases WHERE session_id = $1', [id])
      await client.query(
        `SELECT pg_notify('${sessionsChannel}', 'deleted:' || $1::text || ':' || $2::text)`,
        [id, this.holder],
      )
      return children.rows.map((child) => child.id)
    })
  }

  // ── claims ───────────────────────────────────────────────────────────────────────

  /**
   * Takes (or renews) the session's lease; claims nest. Another live holder: session-busy naming
   * it. On taking the lease the live session is first caught up from the database; a turn left
   * open then was running on a Host that died (its lease expired): it is closed as interrupted.
   */
  async claim(id: string): Promise<void> {
    assertValidSessionId(id)
    this.#assertWritable()
    for (;;) {
      const pending = this.#claiming.get(id)
      if (!pending) break
      await pending.catch(() => undefined)
    }
    const held = this.#claims.get(id)
    if (held) {
      held.count++
      return
    }
    const acquiring = this.#acquire(id)
    this.#claiming.set(id, acquiring)
    try {
      await acquiring
    } finally {
      if (this.#claiming.get(id) === acquiring) this.#claiming.delete(id)
    }
  }

  async #acquire(id: string): Promise<void> {
    const { token } = await this.#withRetry(() => acquireLease(this.#pool, id, this.holder, this.#leaseMs))
    const claim: Claim = { count: 1, token }
    this.#claims.set(id, claim)
    this.#startHeartbeat()
    try {
      const session = this.store.get(id)
      if (!session) return
      await this.#catchUp(id)
      if (session.isTurnOpen && this.store.get(id) === session) await this.#closeOpenTurn(session)
    } catch (error) {
      if (this.#claims.get(id) === claim) this.#claims.delete(id)
      await releaseLease(this.#pool, id, this.holder, token).catch(() => undefined)
      throw error
    }
  }

  /** Flushes, then gives the lease up when the last claim is released. */
  async release(id: string): Promise<void> {
    assertValidSessionId(id)
    const held = this.#claims.get(id)
    if (!held || held.count === 0) return
    held.count--
    if (held.count > 0) return
    // A failed flush keeps the lease (count 0): the writer's retries still need it; close gives it up.
    await this.#writers.get(id)?.flush()
    if (held.count > 0 || this.#claims.get(id) !== held) return
    this.#claims.delete(id)
    try {
      await releaseLease(this.#pool, id, this.holder, held.token)
    } catch (error) {
      this.#warnError('lease-release-failed', error, `the lease of session ${id} expires by itself instead`)
    }
  }

  #startHeartbeat(): void {
    if (this.#heartbeat || this.#closed) return
    this.#heartbeat = setInterval(() => void this.#renew(), Math.max(10, Math.floor(this.#leaseMs / 3)))
    this.#heartbeat.unref()
  }

  async #renew(): Promise<void> {
    if (this.#claims.size === 0 || this.#closed) return
    const tokens = new Map([...this.#claims].map(([id, claim]) => [id, claim.token]))
    let lost: string[]
    try {
      lost = await renewLeases(this.#pool, this.holder, tokens, this.#leaseMs)
    } catch {
      return // the database is away: the next beat tries again (the writers' fencing stays exact)
    }
    for (const id of lost) {
      const claim = this.#claims.get(id)
      if (claim?.token !== tokens.get(id)) continue // released or claimed again meanwhile
      this.#claims.delete(id)
      this.#warn({
        kind: 'lease-lost',
        file: `leases/${id}`,
        message: `This Host lost its lease on session ${id} (it was not renewed in time and another Host took it): appends to it are refused until it is claimed again.`,
      })
    }
  }

  // ── live sessions → database ─────────────────────────────────────────────────────

  #writerContext(before?: () => Promise<void>): WriterContext {
    return {
      pool: this.#pool,
      holder: this.holder,
      retryWindowMs: this.#retryWindowMs,
      leaseToken: (id) => this.#claims.get(id)?.token ?? null,
      before,
      retrying: (error) =>
        this.#warn({
          kind: 'write-retried',
          file: this.location,
          message: `A commit lost its connection (${(error as Error).message}): retrying on a new one for up to ${this.#retryWindowMs} ms; rows already written by the lost commit are recognised, not doubled.`,
        }),
    }
  }

  #onCreated(session: Session, via: 'create' | 'fork' | 'load'): void {
    if (via === 'load') return
    const id = session.id
    const refusal = this.#closed
      ? storeClosed()
      : this.readOnly
        ? storeReadOnly('create or fork sessions')
        : this.#deleting.has(id) || this.#index.has(id) || this.#writers.has(id)
          ? sessionExists(id)
          : null
    if (refusal) {
      this.store.dispose(id)
      throw refusal
    }
    const parentId = via === 'fork' ? session.header.parentSession : undefined
    const inherited = session.inheritedEventCount
    const markers =
      parentId !== undefined ? markersBefore(this.#markers.get(parentId), inherited) : markersOf(session)
    const header = storedHeaderOf(session)
    const title = markers.titles.at(-1)?.title ?? session.header.title ?? null
    const model = markers.models.at(-1)?.model ?? null
    const forkRequestId = typeof header.forkRequestId === 'string' ? header.forkRequestId : null
    const writer = new PgSessionWriter(
      id,
      this.#writerContext(parentId !== undefined ? () => this.#flushIfWriting(parentId) : undefined),
      {
        id,
        header,
        parentSession: session.header.parentSession ?? null,
        forkedAt: session.header.forkedAt ?? null,
        inheritedEventCount: inherited,
        ownFrom: parentId !== undefined ? inherited : 0,
        title,
        model,
        cwd: session.header.cwd,
        origin: session.header.origin,
        createdAt: session.header.createdAt,
        forkRequestId,
      },
      parentId !== undefined ? inherited : 0,
    )
    if (parentId === undefined)
      for (const event of session.events) writer.enqueue(event, JSON.stringify(event), false)
    writer.start()
    this.#writers.set(id, writer)
    this.#markers.set(id, markers)
    this.#setEntry({
      id,
      title,
      cwd: session.header.cwd,
      parentSession: session.header.parentSession ?? null,
      forkedAt: session.header.forkedAt ?? null,
      origin: session.header.origin,
      archived: false,
      eventCount: session.events.length,
      inheritedEventCount: inherited,
      createdAt: session.header.createdAt,
      updatedAt: session.header.createdAt,
      header,
      model,
    })
  }

  /**
   * Refuses an append this process may not make: read-only, closed, a session it has not
   * claimed, or an event too large for the log (before it enters the session, as JSONL does:
   * docs/architecture.md §4).
   */
  #onAppending(session: Session, event: SessionEvent): void {
    if (this.#applying === session) return // another Host's event, already stored
    if (this.readOnly) throw storeReadOnly('append')
    if (this.#closed || !this.#writers.has(session.id)) throw storeClosed()
    const claim = this.#claims.get(session.id)
    if (!claim || claim.count === 0)
      throw sessionBusy(
        session.id,
        null,
        `Session ${session.id} is not claimed by this Host (${this.holder}): claim it before appending — another Host may be writing it.`,
      )
    const line = JSON.stringify(event)
    const bytes = oversizedEventLineBytes(line, this.#maxLineBytes)
    if (bytes !== null) {
      this.#checked = null
      throw eventTooLargeError(session.id, event, bytes, this.#maxLineBytes)
    }
    this.#checked = { event, line }
  }

  #onAppended(session: Session, event: SessionEvent): void {
    if (this.#applying !== session) {
      const writer = this.#writers.get(session.id)
      if (!writer) throw storeClosed()
      const checked = this.#checked
      this.#checked = null
      writer.enqueue(event, checked?.event === event ? checked.line : JSON.stringify(event), true)
    }
    const entry = this.#index.get(session.id)
    if (!entry) return
    entry.eventCount = event.seq + 1
    entry.updatedAt = event.time
    const marker = noteMarker(this.#markers.get(session.id), event)
    if (marker && 'title' in marker) entry.title = marker.title
    else if (marker) entry.model = marker.model
  }

  #onDisposed(id: string): void {
    this.#markers.delete(id)
    // A delete closes its writer itself; otherwise it drains what is queued and goes.
    if (!this.#deleting.has(id)) this.#writers.retire(id)
  }

  async #flushIfWriting(id: string): Promise<void> {
    await this.#writers.get(id)?.flush()
  }

  async #closeOpenTurn(session: Session): Promise<void> {
    for (const closing of closingEventsForOpenTurn(session.grammar, 'interrupted', interruptedMessage))
      session.append(closing.type, closing.data)
    await this.flush(session.id)
  }

  // ── database → live sessions ─────────────────────────────────────────────────────

  async #loadFromDatabase(id: string): Promise<Session> {
    await this.#writers.get(id)?.settle() // a disposed session's writer may still be draining
    const { row, events } = await this.#withRetry(() =>
      this.#transaction(async (client) => {
        const { rows } = await client.query<SessionRow>(
          `SELECT ${sessionColumns} FROM sessions WHERE id = $1`,
          [id],
        )
        const row = rows[0]
        if (!row) throw sessionNotFound(id)
        return { row, events: await readChainEvents(client, id, null) }
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),
    )
    if (events.length < row.inherited_event_count || events.length !== row.event_count)
      throw new TangentError(
        row.parent_session !== null ? 'parent-log-missing' : 'corrupt-log',
        `Session ${id} should hold ${row.event_count} events (inheriting ${row.inherited_event_count}${row.parent_session ? ` from session ${row.parent_session}` : ''}) but ${events.length} could be read from the database.`,
        { sessionId: id, file: `sessions/${id}`, line: 1, parentSession: row.parent_session },
      )
    const live = this.store.get(id)
    if (live) return live
    const { meta, lineage } = createOptionsOf(row.header)
    let session: Session
    try {
      session = this.store.create(id, { seed: events, meta, lineage, loaded: true })
    } catch (error) {
      const seq = TangentError.isInstance(error) ? error.data.seq : undefined
      if (typeof seq !== 'number') throw error
      throw new TangentError(
        'corrupt-log',
        `Session ${id} cannot be loaded: its event ${seq} is invalid (${(error as Error).message}).`,
        { sessionId: id, file: `sessions/${id}`, line: seq },
      )
    }
    if (!this.readOnly)
      this.#writers.set(id, new PgSessionWriter(id, this.#writerContext(), null, events.length))
    this.#markers.set(id, markersOf(session))
    this.#setEntry(entryOfRow(row))
    if (!this.readOnly && session.isTurnOpen) await this.#repairIfAbandoned(session)
    // Rows another Host committed after the snapshot above announced themselves before the
    // session was live here: read them now (a no-op when there are none).
    if (!this.#claims.has(id))
      this.#catchUp(id).catch((error: unknown) => this.#warnError('catch-up-failed', error))
    return session
  }

  /**
   * A loaded session with an open turn: running on another Host (a live lease there) → left as
   * it is; otherwise its Host died mid-turn → closed as interrupted under a claim (crash repair).
   */
  async #repairIfAbandoned(session: Session): Promise<void> {
    const id = session.id
    if (await this.#withRetry(() => otherLiveHolder(this.#pool, id, this.holder))) return
    const held = this.#claims.get(id)
    if (held && held.count > 0) {
      await this.#catchUp(id)
      if (session.isTurnOpen) await this.#closeOpenTurn(session)
      return
    }
    try {
      await this.claim(id) // taking the lease catches up and closes the turn
    } catch (error) {
      if (TangentError.hasCode(error, 'session-busy')) return // another Host took it meanwhile
      throw error
    }
    try {
      if (session.isTurnOpen && this.store.get(id) === session) await this.#closeOpenTurn(session)
    } finally {
      await this.release(id)
    }
  }

  /** Applies rows of `id` past the live session's last event, in seq order (serialised per session). */
  #catchUp(id: string): Promise<void> {
    const state = this.#catchUps.get(id)
    if (state) {
      state.again = true
      return state.running
    }
    const next: { running: Promise<void>; again: boolean } = { running: Promise.resolve(), again: false }
    next.running = (async () => {
      try {
        do {
          next.again = false
          await this.#applyRemoteRows(id)
        } while (next.again)
      } finally {
        this.#catchUps.delete(id)
      }
    })()
    this.#catchUps.set(id, next)
    return next.running
  }

  async #applyRemoteRows(id: string): Promise<void> {
    const session = this.store.get(id)
    if (!session) return
    const from = session.events.length
    const { rows } = await this.#withRetry(() =>
      this.#pool.query<{ seq: number; line: string }>(
        'SELECT seq, line FROM events WHERE session_id = $1 AND seq >= $2 ORDER BY seq',
        [id, from],
      ),
    )
    if (rows.length === 0 || this.store.get(id) !== session) return
    const start = rows.findIndex((row) => row.seq === session.events.length)
    if (start < 0) return
    const events = eventsOfRows(id, rows.slice(start), session.events.length)
    for (const event of events) {
      this.#applying = session
      try {
        session.append(event.type, event.data, event.time)
      } catch (error) {
        this.#warnError('remote-event-refused', error, `session ${id} stops following at seq ${event.seq}`)
        return
      } finally {
        this.#applying = null
      }
    }
  }

  // ── notifications from other Hosts ───────────────────────────────────────────────

  #onNotification(channel: string, payload: string): void {
    if (this.#closed) return
    if (channel === eventsChannel) {
      const cut = payload.lastIndexOf(':')
      const id = payload.slice(0, cut)
      const lastSeq = Number(payload.slice(cut + 1))
      const session = this.store.get(id)
      if (session) {
        if (!this.#claims.has(id) && session.events.length <= lastSeq)
          this.#catchUp(id).catch((error: unknown) => this.#warnError('catch-up-failed', error))
        return
      }
      const entry = this.#index.get(id)
      if (!entry || entry.eventCount <= lastSeq) this.#scheduleRefresh(id, entry ? 'updated' : 'created')
      return
    }
    if (channel !== sessionsChannel) return
    const first = payload.indexOf(':')
    const second = payload.indexOf(':', first + 1)
    const kind = payload.slice(0, first)
    const id = payload.slice(first + 1, second)
    if (payload.slice(second + 1) === this.holder) return // our own change
    if (kind === 'deleted') {
      if (this.store.has(id)) this.store.dispose(id)
      this.#claims.delete(id)
      if (this.#removeEntry(id)) this.#announce({ sessionId: id, kind: 'deleted' })
      return
    }
    if (kind === 'created' || kind === 'updated') this.#scheduleRefresh(id, kind)
  }

  #scheduleRefresh(id: string, kind: RemoteChange['kind'] | null): void {
    const previous = this.#refresh.get(id)
    this.#refresh.set(id, previous === 'created' ? previous : kind)
    if (this.#refreshScheduled) return
    this.#refreshScheduled = true
    setImmediate(() => {
      this.#refreshScheduled = false
      const batch = new Map(this.#refresh)
      this.#refresh.clear()
      this.#refreshEntries(batch).catch((error: unknown) => this.#warnError('index-refresh-failed', error))
    })
  }

  async #refreshEntries(batch: ReadonlyMap<string, RemoteChange['kind'] | null>): Promise<void> {
    const ids = [...batch.keys()]
    const { rows } = await this.#withRetry(() =>
      this.#pool.query<SessionRow>(`SELECT ${sessionColumns} FROM sessions WHERE id = ANY ($1::text[])`, [
        ids,
      ]),
    )
    if (this.#closed) return
    const found = new Map(rows.map((row) => [row.id, row]))
    for (const id of ids) {
      const row = found.get(id)
      if (this.store.has(id) || this.#writers.get(id)?.idle === false) {
        // Live here: the index follows the live session; only the archive flag comes from the row.
        const entry = this.#index.get(id)
        if (entry && row) entry.archived = row.archived
        if (row) this.#announce({ sessionId: id, kind: 'updated' })
        continue
      }
      if (!row) {
        if (this.#removeEntry(id)) this.#announce({ sessionId: id, kind: 'deleted' })
        continue
      }
      const existed = this.#index.has(id)
      this.#setEntry(entryOfRow(row))
      this.#announce({ sessionId: id, kind: existed ? 'updated' : 'created' })
    }
  }

  /** After the LISTEN connection came back: what was missed is read again. */
  async #resync(): Promise<void> {
    const { rows } = await this.#withRetry(() =>
      this.#pool.query<SessionRow>(`SELECT ${sessionColumns} FROM sessions`),
    )
    if (this.#closed) return
    const seen = new Set<string>()
    for (const row of rows) {
      seen.add(row.id)
      if (this.store.has(row.id) || this.#writers.has(row.id)) continue
      const entry = this.#index.get(row.id)
      if (
        entry &&
        entry.eventCount === row.event_count &&
        entry.archived === row.archived &&
        entry.title === row.title
      )
        continue
      this.#setEntry(entryOfRow(row))
      this.#announce({ sessionId: row.id, kind: entry ? 'updated' : 'created' })
    }
    for (const id of [...this.#index.keys()]) {
      if (seen.has(id) || this.store.has(id) || this.#writers.has(id)) continue
      this.#removeEntry(id)
      this.#announce({ sessionId: id, kind: 'deleted' })
    }
    for (const session of [...this.store.sessions()])
      if (!this.#claims.has(session.id))
        this.#catchUp(session.id).catch((error: unknown) => this.#warnError('catch-up-failed', error))
  }

  #announce(change: RemoteChange): void {
    for (const listener of this.#remoteListeners) {
      try {
        listener(change)
      } catch (error) {
        this.#warnError('remote-change-listener-failed', error)
      }
    }
  }

  // ── index ────────────────────────────────────────────────────────────────────────

  async #loadIndex(): Promise<void> {
    // Sorted by the server in listing order (ids compared byte-wise, as JavaScript compares ASCII).
    const { rows } = await this.#pool.query<SessionRow>(
      `SELECT ${sessionColumns} FROM sessions ORDER BY created_at, id COLLATE "C"`,
    )
    const order: StoredSession[] = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const entry = entryOfRow(rows[i]!)
      order[i] = entry
      this.#index.set(entry.id, entry)
    }
    this.#order = order
    // Damaged rows can name each other as parents: listed flagged, as JSONL lists them.
    const { loops, loopOf } = findParentLoops(this.#index)
    for (const [id, loop] of loopOf) this.#index.get(id)!.parentLoop = [...loop]
    for (const loop of loops)
      this.#warn({
        kind: 'parent-loop',
        file: this.location,
        message: `Sessions ${[...loop, loop[0]].join(' → ')} name each other as parents (damaged rows): they are listed with parentLoop set, and neither they nor forks reading through them can load. Fix parent_session in the row of one of them.`,
      })
  }

  #setEntry(entry: StoredSession): void {
    const previous = this.#index.get(entry.id)
    this.#index.set(entry.id, entry)
    if (!previous || previous.createdAt !== entry.createdAt || this.#order === null) this.#order = null
    else this.#order[this.#order.indexOf(previous)] = entry
  }

  #removeEntry(id: string): boolean {
    const existed = this.#index.delete(id)
    if (existed) this.#order = null
    return existed
  }

  /** Listing order: oldest first, then by id (as JSONL's catalog). */
  #sorted(): StoredSession[] {
    this.#order ??= [...this.#index.values()].sort(
      (a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    return this.#order
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
    if (this.#heartbeat) clearInterval(this.#heartbeat)
    this.#heartbeat = null
    for (const id of [...this.store.sessions()].map((session) => session.id)) this.store.dispose(id)
    await this.#writers.closeAll(errors)
    if (this.#claims.size > 0) {
      await this.#pool
        .query('DELETE FROM leases WHERE holder = $1', [this.holder])
        .catch((error: unknown) => errors.push(error))
      this.#claims.clear()
    }
    for (const unsubscribe of this.#unsubscribe) unsubscribe()
    await this.#listener.close()
    await this.#pool.end().catch(() => undefined)
    errors.push(...this.#writers.takeFailures())
    if (errors.length > 0) throw errors[0]
  }

  // ── helpers ──────────────────────────────────────────────────────────────────────

  /** Runs `work` in a transaction on one connection. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.#pool.connect()
    let broken: Error | undefined
    try {
      await client.query(begin)
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      if (isConnectionError(error)) broken = error as Error
      else await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release(broken)
    }
  }

  /** Retries `work` while the connection fails (the server restarting), for the retry window. */
  async #withRetry<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#retryWindowMs
    let wait = 50
    for (;;) {
      try {
        return await work()
      } catch (error) {
        if (!isConnectionError(error) || this.#closed || Date.now() + wait > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, wait))
        wait = Math.min(2000, wait * 2)
      }
    }
  }

  #warn(warning: StoreWarningLike): void {
    this.#warnings.push(warning)
    this.#onWarning?.(warning)
  }

  #warnError(kind: string, error: unknown, consequence?: string): void {
    this.#warn({
      kind,
      file: this.location,
      message: `${(error as Error).message ?? String(error)}${consequence ? `: ${consequence}` : ''}`,
    })
  }

  #assertOpen(): void {
    if (this.#closed) throw storeClosed()
  }

  #assertWritable(): void {
    this.#assertOpen()
    if (this.readOnly) throw storeReadOnly('change sessions')
  }
}
