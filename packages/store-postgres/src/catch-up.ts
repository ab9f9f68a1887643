// Live across Hosts, for a live session (docs/architecture.md §4): rows another Host committed
// past the session's last event are applied to it, in seq order, one catch-up at a time per
// session. While they are applied the engine knows them as another Host's (not persisted again).
import type { Session, SessionStore } from '@tangent/core'
import type { Database } from './database.js'
import { eventsOfRows } from './rows.js'
import type { StoreWarnings } from './warnings.js'

export class CatchUp {
  readonly #db: Database
  readonly #store: SessionStore
  readonly #warnings: StoreWarnings
  readonly #catchUps = new Map<string, { running: Promise<void>; again: boolean }>()
  /** The session whose events the engine is applying from another Host (not persisted again). */
  #applying: Session | null = null

  constructor(db: Database, store: SessionStore, warnings: StoreWarnings) {
    this.#db = db
    this.#store = store
    this.#warnings = warnings
  }

  /** True while `session` is being given another Host's events. */
  isApplying(session: Session): boolean {
    return this.#applying === session
  }

  /** Applies rows of `id` past the live session's last event, in seq order (serialised per session). */
  run(id: string): Promise<void> {
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

  /** `run`, not awaited: a failure is a warning. */
  inBackground(id: string): void {
    this.run(id).catch((error: unknown) => this.#warnings.warnError('catch-up-failed', error))
  }

  async #applyRemoteRows(id: string): Promise<void> {
    const session = this.#store.get(id)
    if (!session) return
    const from = session.events.length
    const { rows } = await this.#db.withRetry(() =>
      this.#db.pool.query<{ seq: number; line: string }>(
        'SELECT seq, line FROM events WHERE session_id = $1 AND seq >= $2 ORDER BY seq',
        [id, from],
      ),
    )
    if (rows.length === 0 || this.#store.get(id) !== session) return
    const start = rows.findIndex((row) => row.seq === session.events.length)
    if (start < 0) return
    const events = eventsOfRows(id, rows.slice(start), session.events.length)
    for (const event of events) {
      this.#applying = session
      try {
        session.append(event.type, event.data, event.time)
      } catch (error) {
        this.#warnings.warnError(
          'remote-event-refused',
          error,
          `session ${id} stops following at seq ${event.seq}`,
        )
        return
      } finally {
        this.#applying = null
      }
    }
  }
}
