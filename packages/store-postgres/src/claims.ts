// Claims (docs/architecture.md §4): this Host's leases on the sessions it writes (leases.ts holds
// the SQL). Claims nest; a heartbeat renews every held lease every third of the lease time; a
// lease lost (not renewed in time, another Host took it) is dropped and said.
import type { SessionStore, SessionWriters } from '@tangent/core'
import type { CatchUp } from './catch-up.js'
import { closeOpenTurn } from './crash-repair.js'
import type { Database } from './database.js'
import { acquireLease, releaseLease, renewLeases } from './leases.js'
import type { PgSessionWriter } from './session-writer.js'
import type { StoreWarnings } from './warnings.js'

interface Claim {
  /** claim() calls not yet released. 0: released, but the lease is kept while a flush fails. */
  count: number
  token: string
}

export interface ClaimsOptions {
  db: Database
  store: SessionStore
  writers: SessionWriters<PgSessionWriter>
  catchUp: CatchUp
  /** This process's name in leases. */
  holder: string
  leaseMs: number
  /** Resolves when everything appended to the session so far is committed. */
  flush: (id: string) => Promise<void>
  isClosed: () => boolean
  warnings: StoreWarnings
}

export class Claims {
  readonly #db: Database
  readonly #store: SessionStore
  readonly #writers: SessionWriters<PgSessionWriter>
  readonly #catchUp: CatchUp
  readonly #holder: string
  readonly #leaseMs: number
  readonly #flush: (id: string) => Promise<void>
  readonly #isClosed: () => boolean
  readonly #warnings: StoreWarnings
  readonly #claims = new Map<string, Claim>()
  readonly #claiming = new Map<string, Promise<void>>()
  #heartbeat: NodeJS.Timeout | null = null

  constructor(options: ClaimsOptions) {
    this.#db = options.db
    this.#store = options.store
    this.#writers = options.writers
    this.#catchUp = options.catchUp
    this.#holder = options.holder
    this.#leaseMs = options.leaseMs
    this.#flush = options.flush
    this.#isClosed = options.isClosed
    this.#warnings = options.warnings
  }

  /** True while this Host holds the session's lease (a released claim whose flush failed included). */
  has(id: string): boolean {
    return this.#claims.has(id)
  }

  /** True while a claim of the session is not released. */
  isHeld(id: string): boolean {
    const held = this.#claims.get(id)
    return held !== undefined && held.count > 0
  }

  /** The fencing token of the session's lease, or null. */
  token(id: string): string | null {
    return this.#claims.get(id)?.token ?? null
  }

  /** The lease is gone (the session was deleted): nothing to release. */
  forget(id: string): void {
    this.#claims.delete(id)
  }

  /**
   * Takes (or renews) the session's lease; claims nest. Another live holder: session-busy naming
   * it. On taking the lease the live session is first caught up from the database; a turn left
   * open then was running on a Host that died (its lease expired): it is closed as interrupted.
   */
  async claim(id: string): Promise<void> {
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
    const pool = this.#db.pool
    const { token } = await this.#db.withRetry(() => acquireLease(pool, id, this.#holder, this.#leaseMs))
    const claim: Claim = { count: 1, token }
    this.#claims.set(id, claim)
    this.#startHeartbeat()
    try {
      const session = this.#store.get(id)
      if (!session) return
      await this.#catchUp.run(id)
      if (session.isTurnOpen && this.#store.get(id) === session) await closeOpenTurn(session, this.#flush)
    } catch (error) {
      if (this.#claims.get(id) === claim) this.#claims.delete(id)
      await releaseLease(pool, id, this.#holder, token).catch(() => undefined)
      throw error
    }
  }

  /** Flushes, then gives the lease up when the last claim is released. */
  async release(id: string): Promise<void> {
    const held = this.#claims.get(id)
    if (!held || held.count === 0) return
    held.count--
    if (held.count > 0) return
    // A failed flush keeps the lease (count 0): the writer's retries still need it; close gives it up.
    await this.#writers.get(id)?.flush()
    if (held.count > 0 || this.#claims.get(id) !== held) return
    this.#claims.delete(id)
    try {
      await releaseLease(this.#db.pool, id, this.#holder, held.token)
    } catch (error) {
      this.#warnings.warnError(
        'lease-release-failed',
        error,
        `the lease of session ${id} expires by itself instead`,
      )
    }
  }

  /** At close: the heartbeat stops. */
  stopHeartbeat(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat)
    this.#heartbeat = null
  }

  /** At close: every lease this Host holds is given up (a failure goes to `errors`). */
  async releaseAll(errors: unknown[]): Promise<void> {
    if (this.#claims.size === 0) return
    await this.#db.pool
      .query('DELETE FROM leases WHERE holder = $1', [this.#holder])
      .catch((error: unknown) => errors.push(error))
    this.#claims.clear()
  }

  #startHeartbeat(): void {
    if (this.#heartbeat || this.#isClosed()) return
    this.#heartbeat = setInterval(() => void this.#renew(), Math.max(10, Math.floor(this.#leaseMs / 3)))
    this.#heartbeat.unref()
  }

  async #renew(): Promise<void> {
    if (this.#claims.size === 0 || this.#isClosed()) return
    const tokens = new Map([...this.#claims].map(([id, claim]) => [id, claim.token]))
    let lost: string[]
    try {
      lost = await renewLeases(this.#db.pool, this.#holder, tokens, this.#leaseMs)
    } catch {
      return // the database is away: the next beat tries again (the writers' fencing stays exact)
    }
    for (const id of lost) {
      const claim = this.#claims.get(id)
      if (claim?.token !== tokens.get(id)) continue // released or claimed again meanwhile
      this.#claims.delete(id)
      this.#warnings.warn({
        kind: 'lease-lost',
        file: `leases/${id}`,
        message: `This Host lost its lease on session ${id} (it was not renewed in time and another Host took it): appends to it are refused until it is claimed again.`,
      })
    }
  }
}
