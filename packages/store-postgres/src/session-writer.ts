// Group commit of one session's rows (docs/architecture.md §4.2), on core's GroupCommit: appends
// are queued in memory;
// one batch at a time goes to PostgreSQL in one transaction (the session row first when the
// session is new, the events in one multi-row INSERT, the row's counters, a NOTIFY), and
// `flush()` resolves once everything queued before it is committed.
//
// A lost connection is retried on a new one, with backoff, for `retryWindowMs`: whether a
// COMMIT whose connection broke took effect is unknown, so every insert is ON CONFLICT DO
// NOTHING and rows found already there must be ours (the same line) — never a duplicate, never
// a loss. A failure that outlasts the window leaves the queue in place (store-write-failed; the
// store serves only what is durable) and the writer retries later by itself, as JSONL's does.
import { GroupCommit, type SessionEvent, TangentError } from '@tangent/core'
import type pg from 'pg'
import { isConnectionError, sessionBusy } from './errors.js'

/** Background commits start this long after the first queued append (flush starts one now). */
const commitDelayMs = 5
const maxBatchEvents = 2000
const maxBatchChars = 4 * 1024 * 1024
/** A batch whose connection broke is retried on a new one, backing off between these, within `retryWindowMs`. */
const firstReconnectMs = 50
const maxReconnectMs = 2000

/** The session row of a new session, inserted with its first batch. */
export interface NewSessionRow {
  id: string
  header: Record<string, unknown>
  parentSession: string | null
  forkedAt: number | null
  inheritedEventCount: number
  ownFrom: number
  title: string | null
  model: unknown
  mode: string | null
  cwd: string
  origin: string
  createdAt: number
  forkRequestId: string | null
}

interface QueuedEvent {
  event: SessionEvent
  line: string
  /** False for the seed events of a new session (no lease needed: the id is new). */
  appended: boolean
}

export interface WriterContext {
  pool: pg.Pool
  /** The lease token this process holds for the session, or null. */
  leaseToken(id: string): string | null
  holder: string
  /** How long a lost connection is retried before the batch fails. */
  retryWindowMs: number
  /** Settles before the session row is inserted: a fork's parent flushed through the boundary. */
  before?: (() => Promise<void>) | undefined
  /** A batch lost its connection and is being retried on a new one (said once per batch). */
  retrying?: (error: unknown) => void
}

export class PgSessionWriter {
  readonly id: string
  readonly #context: WriterContext
  #create: NewSessionRow | null
  readonly #queue: QueuedEvent[] = []
  /** Events durable in the database (the session's whole count, inherited included). */
  #durable: number
  readonly #commits: GroupCommit

  constructor(id: string, context: WriterContext, create: NewSessionRow | null, durable: number) {
    this.id = id
    this.#context = context
    this.#create = create
    this.#durable = durable
    this.#commits = new GroupCommit(
      {
        hasWork: () => this.#queue.length > 0 || this.#create !== null,
        commitBatch: () => this.#commitWithRetry(),
        failure: (error) => this.#failure(error),
      },
      { commitDelayMs },
      create ? 1 : 0, // the session row: committed with the first batch, once start() or an append asks
    )
  }

  get error(): TangentError | null {
    return this.#commits.error
  }

  get errorUnreported(): boolean {
    return this.#commits.errorUnreported
  }

  /** Events durable in the database, inherited ones included. */
  get durableEvents(): number {
    return this.#durable
  }

  get idle(): boolean {
    return this.#queue.length === 0 && this.#create === null && !this.#commits.committing
  }

  enqueue(event: SessionEvent, line: string, appended: boolean): void {
    this.#queue.push({ event, line, appended })
    this.#commits.added()
  }

  /** Starts committing the new session's row (and seed) without waiting for an append. */
  start(): void {
    this.#commits.schedule()
  }

  /** Resolves when everything queued so far is committed. After a failure it tries once more. */
  flush(): Promise<void> {
    return this.#commits.flush()
  }

  /** Waits until idle or failed; never rejects. */
  settle(): Promise<void> {
    return this.#commits.settle()
  }

  close(): Promise<void> {
    return this.#commits.close()
  }

  #failure(error: unknown): { error: TangentError; permanent: boolean } {
    if (TangentError.isInstance(error) && error.data.permanent === true) return { error, permanent: true }
    return {
      error: new TangentError(
        'store-write-failed',
        `Writing session ${this.id} to PostgreSQL failed: ${(error as Error).message}. The appends since the last successful flush are kept in memory, not yet durable: a running Host writes them again by itself (and on the next flush) once the database answers; a command that ends before then loses them.`,
        { sessionId: this.id },
        { cause: error },
      ),
      permanent: false,
    }
  }

  /** Commits the next batch, retrying a lost connection within the window; how many queued items it committed. */
  async #commitWithRetry(): Promise<number> {
    if (this.#create && this.#context.before) {
      await this.#context.before()
      this.#context.before = undefined
    }
    const deadline = Date.now() + this.#context.retryWindowMs
    let wait = firstReconnectMs
    for (;;) {
      try {
        return await this.#commitBatch()
      } catch (error) {
        if (!isConnectionError(error) || Date.now() + wait > deadline) throw error
        if (wait === firstReconnectMs) this.#context.retrying?.(error)
        await new Promise((resolve) => setTimeout(resolve, wait))
        wait = Math.min(maxReconnectMs, wait * 2)
      }
    }
  }

  async #commitBatch(): Promise<number> {
    const create = this.#create
    let count = 0
    let chars = 0
    while (count < this.#queue.length && count < maxBatchEvents && (count === 0 || chars < maxBatchChars)) {
      chars += this.#queue[count]!.line.length
      count++
    }
    const batch = this.#queue.slice(0, count)
    const client = await this.#context.pool.connect()
    let broken: unknown
    try {
      await client.query('BEGIN; SET LOCAL synchronous_commit TO on')
      try {
        if (batch.some((item) => item.appended)) await this.#checkLease(client)
        if (create) await insertSessionRow(client, create)
        if (batch.length > 0) await this.#insertEvents(client, batch)
        const last = batch.at(-1)?.event
        const notifySessions = create !== null || batch.some((item) => isMarker(item.event.type))
        if (last || create) {
          const eventCount = last ? last.seq + 1 : this.#durable
          const title = lastData(batch, 'session/title') as { title: string } | undefined
          const model = lastData(batch, 'model/selection')
          const mode = lastData(batch, 'session/mode') as { mode: string } | undefined
          await client.query(
            `UPDATE sessions SET event_count = greatest(event_count, $2),
                    updated_at = CASE WHEN $3::double precision IS NULL THEN updated_at ELSE greatest(updated_at, $3) END,
                    title = CASE WHEN $4 THEN $5 ELSE title END,
                    model = CASE WHEN $6 THEN $7::jsonb ELSE model END,
                    mode = CASE WHEN $11 THEN $12 ELSE mode END
              WHERE id = $1
              RETURNING pg_notify('tangent_events', id || ':' || (event_count - 1)),
                        CASE WHEN $8 THEN pg_notify('tangent_sessions', $9 || ':' || id || ':' || $10) END`,
            [
              this.id,
              eventCount,
              // updatedAt is the time of the last own event (a seed is not one), as JSONL's catalog has it
              last && last.seq >= (create?.inheritedEventCount ?? 0) ? last.time : null,
              title !== undefined,
              title?.title ?? null,
              model !== undefined,
              model === undefined ? null : JSON.stringify(model),
              notifySessions,
              create ? 'created' : 'updated',
              this.#context.holder,
              mode !== undefined,
              mode?.mode ?? null,
            ],
          )
        }
        await client.query('COMMIT')
      } catch (error) {
        if (!isConnectionError(error)) await client.query('ROLLBACK').catch(() => undefined)
        throw error
      }
    } catch (error) {
      if (isConnectionError(error)) broken = error
      throw error
    } finally {
      client.release(broken instanceof Error ? broken : undefined)
    }
    this.#create = null
    this.#queue.splice(0, count)
    const last = batch.at(-1)?.event
    if (last) this.#durable = last.seq + 1
    return count + (create ? 1 : 0)
  }

  /** Fencing: the batch commits only while this process's lease token is the session's. */
  async #checkLease(client: pg.PoolClient): Promise<void> {
    const token = this.#context.leaseToken(this.id)
    const { rows } = await client.query<{ holder: string; token: string }>(
      'SELECT holder, token FROM leases WHERE session_id = $1 FOR UPDATE',
      [this.id],
    )
    const row = rows[0]
    if (token !== null && row && row.token === token && row.holder === this.#context.holder) return
    const error = sessionBusy(
      this.id,
      row?.holder ?? null,
      `Session ${this.id}'s lease was ${row ? `taken over by the Host ${row.holder}` : 'lost'} before ${this.#queue.length} appended events were committed: they are not written (this Host stopped renewing its lease for longer than the lease time?). Load the session again.`,
    )
    error.data.permanent = true
    throw error
  }

  async #insertEvents(client: pg.PoolClient, batch: readonly QueuedEvent[]): Promise<void> {
    const seqs = batch.map((item) => item.event.seq)
    const lines = batch.map((item) => item.line)
    const { rows } = await client.query<{ seq: number }>(
      `INSERT INTO events (session_id, seq, line) SELECT $1, * FROM unnest($2::integer[], $3::text[])
       ON CONFLICT DO NOTHING RETURNING seq`,
      [this.id, seqs, lines],
    )
    if (rows.length === batch.length) return
    // Rows already there: a commit whose answer was lost wrote them (ours), or someone else did.
    const inserted = new Set(rows.map((row) => row.seq))
    const missing = batch.filter((item) => !inserted.has(item.event.seq))
    const existing = await client.query<{ seq: number; line: string }>(
      'SELECT seq, line FROM events WHERE session_id = $1 AND seq = ANY ($2::integer[])',
      [this.id, missing.map((item) => item.event.seq)],
    )
    const lineOf = new Map(existing.rows.map((row) => [row.seq, row.line]))
    for (const item of missing) {
      if (lineOf.get(item.event.seq) === item.line) continue
      throw new TangentError(
        'store-write-failed',
        `Session ${this.id} already has another event at seq ${item.event.seq} in the database (written by another Host): this Host's events from there on are not written. Load the session again.`,
        { sessionId: this.id, seq: item.event.seq, permanent: true },
      )
    }
  }
}

/** Inserts a new session's row (and its inline seed); finding our own row from a lost commit is fine. */
async function insertSessionRow(client: pg.PoolClient, row: NewSessionRow): Promise<void> {
  const header = JSON.stringify(row.header)
  if (row.parentSession !== null && row.ownFrom > 0) {
    // The parent must stay until this row commits: a delete of it waits, then copies our prefix.
    const parent = await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR SHARE', [row.parentSession])
    if (parent.rowCount === 0)
      throw new TangentError(
        'parent-log-missing',
        `Session ${row.id} is a fork of session ${row.parentSession}, which is not in the database (deleted meanwhile?): the fork is not written.`,
        {
          sessionId: row.id,
          parentSession: row.parentSession,
          file: `sessions/${row.id}`,
          line: 1,
          permanent: true,
        },
      )
  }
  const inserted = await client.query(
    `INSERT INTO sessions (id, header, parent_session, forked_at, inherited_event_count, own_from, event_count,
                           title, model, cwd, origin, archived, created_at, updated_at, fork_request_id, mode)
     VALUES ($1, $2::jsonb, $3, $4, $5, $6, $5, $7, $8::jsonb, $9, $10, false, $11, $11, $12, $13)
     ON CONFLICT DO NOTHING RETURNING id`,
    [
      row.id,
      header,
      row.parentSession,
      row.forkedAt,
      row.inheritedEventCount,
      row.ownFrom,
      row.title,
      row.model === null ? null : JSON.stringify(row.model),
      row.cwd,
      row.origin,
      row.createdAt,
      row.forkRequestId,
      row.mode,
    ],
  )
  if (inserted.rowCount === 1) return
  const same = await client.query<{ same: boolean }>(
    'SELECT header = $2::jsonb AND created_at = $3 AS same FROM sessions WHERE id = $1',
    [row.id, header, row.createdAt],
  )
  if (same.rows[0]?.same === true) return // our own row, from a commit whose answer was lost
  if (same.rowCount === 0 && row.forkRequestId !== null) {
    const other = await client.query<{ id: string }>('SELECT id FROM sessions WHERE fork_request_id = $1', [
      row.forkRequestId,
    ])
    const error = new TangentError(
      'session-exists',
      `Fork request ${row.forkRequestId} already made session ${other.rows[0]?.id ?? '(unknown)'} (on another Host): session ${row.id} is not written.`,
      { sessionId: other.rows[0]?.id ?? row.id, requestId: row.forkRequestId, permanent: true },
    )
    throw error
  }
  throw new TangentError(
    'session-exists',
    `Session ${row.id} already exists in the database: load it instead.`,
    {
      sessionId: row.id,
      permanent: true,
    },
  )
}

function isMarker(type: string): boolean {
  return type === 'session/title' || type === 'model/selection' || type === 'session/mode'
}

function lastData(batch: readonly QueuedEvent[], type: string): unknown {
  for (let i = batch.length - 1; i >= 0; i--) if (batch[i]!.event.type === type) return batch[i]!.event.data
  return undefined
}
