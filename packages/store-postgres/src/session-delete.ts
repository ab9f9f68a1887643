// Delete (docs/architecture.md §4): a session's rows go in one transaction, every fork of it
// kept whole; this Host's writer, claim and index entry of it go after.
import { type SessionStore, type SessionWriters, TangentError } from '@tangent/core'
import type { Claims } from './claims.js'
import type { Database } from './database.js'
import { sessionBusy, sessionNotFound } from './errors.js'
import { sessionsChannel } from './listener.js'
import { copyPrefixSql } from './rows.js'
import type { SessionIndex } from './session-index.js'
import type { SessionLoader } from './session-loader.js'
import type { PgSessionWriter } from './session-writer.js'

export interface SessionDeleterOptions {
  db: Database
  store: SessionStore
  writers: SessionWriters<PgSessionWriter>
  index: SessionIndex
  claims: Claims
  /** Its load of the session in flight finishes first. */
  loader: SessionLoader
  /** This process's name in leases (and in its notifications). */
  holder: string
}

export class SessionDeleter {
  readonly #db: Database
  readonly #store: SessionStore
  readonly #writers: SessionWriters<PgSessionWriter>
  readonly #index: SessionIndex
  readonly #claims: Claims
  readonly #loader: SessionLoader
  readonly #holder: string
  readonly #deleting = new Set<string>()

  constructor(options: SessionDeleterOptions) {
    this.#db = options.db
    this.#store = options.store
    this.#writers = options.writers
    this.#index = options.index
    this.#claims = options.claims
    this.#loader = options.loader
    this.#holder = options.holder
  }

  /** True while session `id` is being deleted. */
  has(id: string): boolean {
    return this.#deleting.has(id)
  }

  /**
   * Deletes a session in one transaction. Each direct child that reads its prefix through it
   * first gets that prefix copied into its own rows (INSERT … SELECT), so every fork stays whole.
   * A session another Host is writing (a live lease) is session-busy.
   */
  async delete(id: string): Promise<{ materialized: string[] }> {
    if (this.#deleting.has(id)) throw sessionNotFound(id)
    this.#deleting.add(id)
    try {
      await this.#loader.settled(id)
      const writer = this.#writers.get(id)
      if (writer) await writer.flush()
      // Forks made here whose rows are still queued must exist before their prefix is copied.
      for (const session of this.#store.sessions())
        if (session.header.parentSession === id) await this.#writers.get(session.id)?.flush()
      const materialized = await this.#db.withRetry(() => this.#deleteRows(id))
      this.#store.dispose(id)
      if (writer) {
        await writer.close()
        this.#writers.delete(id)
      }
      this.#claims.forget(id)
      this.#index.remove(id)
      return { materialized }
    } finally {
      this.#deleting.delete(id)
    }
  }

  async #deleteRows(id: string): Promise<string[]> {
    return this.#db.transaction(async (client) => {
      const found = await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [id])
      if (found.rowCount === 0) throw sessionNotFound(id)
      const busy = await client.query<{ holder: string }>(
        'SELECT holder FROM leases WHERE session_id = $1 AND expires_at >= now() AND holder <> $2',
        [id, this.#holder],
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
        [id, this.#holder],
      )
      return children.rows.map((child) => child.id)
    })
  }
}
