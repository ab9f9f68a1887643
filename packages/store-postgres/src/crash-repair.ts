// Crash repair (docs/architecture.md §4): a turn left open by a Host that died mid-turn (its
// lease ran out) is closed as interrupted, under a claim. A turn running on another Host (a
// live lease there) is left as it is.
import { closingEventsForOpenTurn, type Session, type SessionStore, TangentError } from '@tangent/core'
import type { CatchUp } from './catch-up.js'
import type { Database } from './database.js'
import { otherLiveHolder } from './leases.js'

const interruptedMessage = 'The process stopped while this turn was running (crash repair).'

/** Closes the session's open turn as interrupted, and waits until that is committed. */
export async function closeOpenTurn(session: Session, flush: (id: string) => Promise<void>): Promise<void> {
  for (const closing of closingEventsForOpenTurn(session.grammar, 'interrupted', interruptedMessage))
    session.append(closing.type, closing.data)
  await flush(session.id)
}

export interface CrashRepairOptions {
  db: Database
  store: SessionStore
  holder: string
  /** Whether this Host holds the session's claim (claims.ts). */
  isHeld: (id: string) => boolean
  catchUp: CatchUp
  /** The store's own claim and release (checked as a caller's are). */
  claim: (id: string) => Promise<void>
  release: (id: string) => Promise<void>
  flush: (id: string) => Promise<void>
}

export class CrashRepair {
  readonly #options: CrashRepairOptions

  constructor(options: CrashRepairOptions) {
    this.#options = options
  }

  /**
   * A loaded session with an open turn: running on another Host (a live lease there) → left as
   * it is; otherwise its Host died mid-turn → closed as interrupted under a claim (crash repair).
   */
  async repairIfAbandoned(session: Session): Promise<void> {
    const { db, store, holder, isHeld, catchUp, claim, release, flush } = this.#options
    const id = session.id
    if (await db.withRetry(() => otherLiveHolder(db.pool, id, holder))) return
    if (isHeld(id)) {
      await catchUp.run(id)
      if (session.isTurnOpen) await closeOpenTurn(session, flush)
      return
    }
    try {
      await claim(id) // taking the lease catches up and closes the turn
    } catch (error) {
      if (TangentError.hasCode(error, 'session-busy')) return // another Host took it meanwhile
      throw error
    }
    try {
      if (session.isTurnOpen && store.get(id) === session) await closeOpenTurn(session, flush)
    } finally {
      await release(id)
    }
  }
}
