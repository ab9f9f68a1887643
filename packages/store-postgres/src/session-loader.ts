// Database → live sessions (docs/architecture.md §4): a session is read with its chain of
// parents in one snapshot, checked against its row, and published in the SessionStore; a turn
// its Host left open is repaired, and rows committed meanwhile by another Host are caught up.
// Loads of one session are shared.
import { type Session, type SessionStore, type SessionWriters, TangentError } from '@tangent/core'
import type { CatchUp } from './catch-up.js'
import type { Claims } from './claims.js'
import type { CrashRepair } from './crash-repair.js'
import type { Database } from './database.js'
import { sessionNotFound } from './errors.js'
import type { LiveWrites } from './live-writes.js'
import { entryOfRow, readChainEvents, type SessionRow, sessionColumns } from './rows.js'
import { createOptionsOf } from './session-header.js'
import type { SessionIndex } from './session-index.js'
import type { PgSessionWriter } from './session-writer.js'

export interface SessionLoaderOptions {
  db: Database
  store: SessionStore
  writers: SessionWriters<PgSessionWriter>
  index: SessionIndex
  claims: Claims
  catchUp: CatchUp
  live: LiveWrites
  repair: CrashRepair
  readOnly: boolean
}

export class SessionLoader {
  readonly #db: Database
  readonly #store: SessionStore
  readonly #writers: SessionWriters<PgSessionWriter>
  readonly #index: SessionIndex
  readonly #claims: Claims
  readonly #catchUp: CatchUp
  readonly #live: LiveWrites
  readonly #repair: CrashRepair
  readonly #readOnly: boolean
  readonly #loading = new Map<string, Promise<Session>>()

  constructor(options: SessionLoaderOptions) {
    this.#db = options.db
    this.#store = options.store
    this.#writers = options.writers
    this.#index = options.index
    this.#claims = options.claims
    this.#catchUp = options.catchUp
    this.#live = options.live
    this.#repair = options.repair
    this.#readOnly = options.readOnly
  }

  /** Session `id`, not live here, read from the database (one read shared by concurrent callers). */
  load(id: string): Promise<Session> {
    let pending = this.#loading.get(id)
    if (!pending) {
      pending = this.#loadFromDatabase(id).finally(() => this.#loading.delete(id))
      this.#loading.set(id, pending)
    }
    return pending
  }

  /** Settles once a load of `id` in flight has (its failure is its caller's to see); undefined: none. */
  settled(id: string): Promise<unknown> | undefined {
    return this.#loading.get(id)?.catch(() => undefined)
  }

  async #loadFromDatabase(id: string): Promise<Session> {
    await this.#writers.get(id)?.settle() // a disposed session's writer may still be draining
    const { row, events } = await this.#db.withRetry(() =>
      this.#db.transaction(async (client) => {
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
    const live = this.#store.get(id)
    if (live) return live
    const { meta, lineage } = createOptionsOf(row.header)
    let session: Session
    try {
      session = this.#store.create(id, { seed: events, meta, lineage, loaded: true })
    } catch (error) {
      const seq = TangentError.isInstance(error) ? error.data.seq : undefined
      if (typeof seq !== 'number') throw error
      throw new TangentError(
        'corrupt-log',
        `Session ${id} cannot be loaded: its event ${seq} is invalid (${(error as Error).message}).`,
        { sessionId: id, file: `sessions/${id}`, line: seq },
      )
    }
    this.#live.loaded(session, events.length)
    this.#index.set(entryOfRow(row))
    if (!this.#readOnly && session.isTurnOpen) await this.#repair.repairIfAbandoned(session)
    // Rows another Host committed after the snapshot above announced themselves before the
    // session was live here: read them now (a no-op when there are none).
    if (!this.#claims.has(id)) this.#catchUp.inBackground(id)
    return session
  }
}
