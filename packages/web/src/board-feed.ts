// Keeps the exploration board live (docs/architecture.md §8): it follows the branches' logs
// (session.subscribe) and re-reads `session.board` when one of them changes — at most every
// `intervalMs`, one read at a time, plus one more when something changed during a read. A
// branch's `check/ran` arrives after its turn ends and changes no summary, so following the
// logs (not only `session.updated`) is what shows a check the moment it is recorded.
import type { RpcClient } from './wire.js'

export interface BoardFeedOptions {
  readonly client: () => RpcClient
  /** Reads the board again (the store stores the answer). */
  readonly refresh: () => Promise<void>
  /** The session whose transcript is open: its subscription belongs to the transcript. */
  readonly openSessionId: () => string | null
  readonly report: (error: unknown) => void
  readonly intervalMs?: number
}

export class BoardFeed {
  readonly #options: BoardFeedOptions
  #followed = new Set<string>()
  #timer: ReturnType<typeof setTimeout> | null = null
  #reading = false
  #again = false
  #lastRead = 0

  constructor(options: BoardFeedOptions) {
    this.#options = options
  }

  /** Follows these sessions' logs from `fromSeq` on (their event counts), replacing any earlier set. */
  follow(sessions: readonly { readonly id: string; readonly eventCount: number }[]): void {
    const open = this.#options.openSessionId()
    const next = new Set(sessions.map((session) => session.id))
    for (const id of this.#followed) if (!next.has(id) && id !== open) this.#unsubscribe(id)
    this.#followed = next
    for (const { id, eventCount } of sessions) {
      if (id === open) continue
      this.#options
        .client()
        .call('session.subscribe', { sessionId: id, fromSeq: eventCount })
        .catch((error: unknown) => this.#options.report(error))
    }
  }

  /** Stops following (the open session's subscription stays: the transcript needs it). */
  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    this.#again = false
    const open = this.#options.openSessionId()
    for (const id of this.#followed) if (id !== open) this.#unsubscribe(id)
    this.#followed = new Set()
  }

  #unsubscribe(sessionId: string): void {
    this.#options
      .client()
      .call('session.unsubscribe', { sessionId })
      .catch((error: unknown) => this.#options.report(error))
  }

  /** Whether the feed follows this session (its events are worth a refresh). */
  follows(sessionId: string): boolean {
    return this.#followed.has(sessionId)
  }

  /** Something changed in a followed session: refresh soon (throttled). */
  poke(sessionId: string): void {
    if (!this.#followed.has(sessionId)) return
    if (this.#reading) {
      this.#again = true
      return
    }
    if (this.#timer !== null) return
    const wait = Math.max(0, this.#lastRead + (this.#options.intervalMs ?? 500) - Date.now())
    this.#timer = setTimeout(() => void this.#read(), wait)
  }

  async #read(): Promise<void> {
    this.#timer = null
    this.#reading = true
    this.#lastRead = Date.now()
    try {
      await this.#options.refresh()
    } finally {
      this.#reading = false
    }
    if (this.#again && this.#followed.size > 0) {
      this.#again = false
      const first = this.#followed.values().next().value
      if (first !== undefined) this.poke(first)
    }
  }
}
