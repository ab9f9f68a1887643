// Live across Hosts (docs/architecture.md §4): other Hosts' changes arrive as notifications on
// the LISTEN connection (listener.ts). A live session here is caught up (catch-up.ts); the
// index entry of any other is read again (a batch per tick) and the change told to
// `onRemoteChange` listeners. After the LISTEN connection came back, everything is read again.
import type { RemoteChange, SessionStore, SessionWriters } from '@tangent/core'
import type pg from 'pg'
import type { CatchUp } from './catch-up.js'
import type { Claims } from './claims.js'
import type { Database } from './database.js'
import { eventsChannel, Listener, sessionsChannel } from './listener.js'
import { entryOfRow, type SessionRow, sessionColumns } from './rows.js'
import type { SessionIndex } from './session-index.js'
import type { PgSessionWriter } from './session-writer.js'
import type { StoreWarnings } from './warnings.js'

export interface RemoteChangesOptions {
  /** How the LISTEN connection connects. */
  config: pg.ClientConfig
  db: Database
  store: SessionStore
  writers: SessionWriters<PgSessionWriter>
  index: SessionIndex
  claims: Claims
  catchUp: CatchUp
  /** This process's name in leases: its own notifications are not changes to it. */
  holder: string
  isClosed: () => boolean
  warnings: StoreWarnings
}

export class RemoteChanges {
  readonly #db: Database
  readonly #store: SessionStore
  readonly #writers: SessionWriters<PgSessionWriter>
  readonly #index: SessionIndex
  readonly #claims: Claims
  readonly #catchUp: CatchUp
  readonly #holder: string
  readonly #isClosed: () => boolean
  readonly #warnings: StoreWarnings
  readonly #listener: Listener
  readonly #remoteListeners = new Set<(change: RemoteChange) => void>()
  /** Index rows to read again (after a notification), with the change to announce. */
  readonly #refresh = new Map<string, RemoteChange['kind'] | null>()
  #refreshScheduled = false

  constructor(options: RemoteChangesOptions) {
    this.#db = options.db
    this.#store = options.store
    this.#writers = options.writers
    this.#index = options.index
    this.#claims = options.claims
    this.#catchUp = options.catchUp
    this.#holder = options.holder
    this.#isClosed = options.isClosed
    this.#warnings = options.warnings
    this.#listener = new Listener({
      config: options.config,
      onNotification: (channel, payload) => this.#onNotification(channel, payload),
      onReconnect: () => {
        this.#resync().catch((error: unknown) => this.#warnings.warnError('resync-failed', error))
      },
      onError: (error) =>
        this.#warnings.warn({
          kind: 'listen-lost',
          file: this.#warnings.location,
          message: `The connection that listens for other Hosts' changes broke (${(error as Error).message}): reconnecting; what was missed is read again then.`,
        }),
    })
  }

  /** Starts listening (after the index is loaded). */
  start(): Promise<void> {
    return this.#listener.start()
  }

  close(): Promise<void> {
    return this.#listener.close()
  }

  onRemoteChange(listener: (change: RemoteChange) => void): () => void {
    this.#remoteListeners.add(listener)
    return () => this.#remoteListeners.delete(listener)
  }

  #onNotification(channel: string, payload: string): void {
    if (this.#isClosed()) return
    if (channel === eventsChannel) {
      const cut = payload.lastIndexOf(':')
      const id = payload.slice(0, cut)
      const lastSeq = Number(payload.slice(cut + 1))
      const session = this.#store.get(id)
      if (session) {
        if (!this.#claims.has(id) && session.events.length <= lastSeq) this.#catchUp.inBackground(id)
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
    if (payload.slice(second + 1) === this.#holder) return // our own change
    if (kind === 'deleted') {
      if (this.#store.has(id)) this.#store.dispose(id)
      this.#claims.forget(id)
      if (this.#index.remove(id)) this.#announce({ sessionId: id, kind: 'deleted' })
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
      this.#refreshEntries(batch).catch((error: unknown) =>
        this.#warnings.warnError('index-refresh-failed', error),
      )
    })
  }

  async #refreshEntries(batch: ReadonlyMap<string, RemoteChange['kind'] | null>): Promise<void> {
    const ids = [...batch.keys()]
    const { rows } = await this.#db.withRetry(() =>
      this.#db.pool.query<SessionRow>(`SELECT ${sessionColumns} FROM sessions WHERE id = ANY ($1::text[])`, [
        ids,
      ]),
    )
    if (this.#isClosed()) return
    const found = new Map(rows.map((row) => [row.id, row]))
    for (const id of ids) {
      const row = found.get(id)
      if (this.#store.has(id) || this.#writers.get(id)?.idle === false) {
        // Live here: the index follows the live session; only the archive flag comes from the row.
        const entry = this.#index.get(id)
        if (entry && row) entry.archived = row.archived
        if (row) this.#announce({ sessionId: id, kind: 'updated' })
        continue
      }
      if (!row) {
        if (this.#index.remove(id)) this.#announce({ sessionId: id, kind: 'deleted' })
        continue
      }
      const existed = this.#index.has(id)
      this.#index.set(entryOfRow(row))
      this.#announce({ sessionId: id, kind: existed ? 'updated' : 'created' })
    }
  }

  /** After the LISTEN connection came back: what was missed is read again. */
  async #resync(): Promise<void> {
    const { rows } = await this.#db.withRetry(() =>
      this.#db.pool.query<SessionRow>(`SELECT ${sessionColumns} FROM sessions`),
    )
    if (this.#isClosed()) return
    const seen = new Set<string>()
    for (const row of rows) {
      seen.add(row.id)
      if (this.#store.has(row.id) || this.#writers.has(row.id)) continue
      const entry = this.#index.get(row.id)
      if (
        entry &&
        entry.eventCount === row.event_count &&
        entry.archived === row.archived &&
        entry.title === row.title &&
        (entry.mode ?? null) === row.mode
      )
        continue
      this.#index.set(entryOfRow(row))
      this.#announce({ sessionId: row.id, kind: entry ? 'updated' : 'created' })
    }
    for (const id of this.#index.ids()) {
      if (seen.has(id) || this.#store.has(id) || this.#writers.has(id)) continue
      this.#index.remove(id)
      this.#announce({ sessionId: id, kind: 'deleted' })
    }
    for (const session of [...this.#store.sessions()])
      if (!this.#claims.has(session.id)) this.#catchUp.inBackground(session.id)
  }

  #announce(change: RemoteChange): void {
    for (const listener of this.#remoteListeners) {
      try {
        listener(change)
      } catch (error) {
        this.#warnings.warnError('remote-change-listener-failed', error)
      }
    }
  }
}
