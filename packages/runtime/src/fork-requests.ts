// Idempotent forks: requestId → the child it produced. Kept in memory and in the child's
// header (`forkRequestId`), so a retry after a Host restart finds the same child too.
export interface ForkOutcome {
  sourceId: string
  childId: string
  boundary: number
}

type HeaderOf = { readonly id: string; readonly header: Readonly<Record<string, unknown>> }

export class ForkRequests {
  readonly #done = new Map<string, ForkOutcome>()
  readonly #inFlight = new Map<string, Promise<ForkOutcome>>()
  /** Where the requestIds of earlier runs are read, once, on first use; null once read. */
  #headers: (() => Iterable<HeaderOf>) | null = null

  /**
   * Rebuilds the map from catalog headers (`forkRequestId`, `forkedAt`), on first use: a
   * Host starting on 10,000 sessions does not walk them all for a map only forks read.
   */
  static fromHeaders(headers: Iterable<HeaderOf> | (() => Iterable<HeaderOf>)): ForkRequests {
    const requests = new ForkRequests()
    requests.#headers = typeof headers === 'function' ? headers : () => headers
    return requests
  }

  #outcomes(): Map<string, ForkOutcome> {
    const read = this.#headers
    if (read === null) return this.#done
    this.#headers = null
    for (const { id, header } of read()) {
      const { forkRequestId, forkedAt, parentSession } = header
      if (
        typeof forkRequestId === 'string' &&
        typeof forkedAt === 'number' &&
        typeof parentSession === 'string' &&
        !this.#done.has(forkRequestId)
      ) {
        this.#done.set(forkRequestId, { sourceId: parentSession, childId: id, boundary: forkedAt })
      }
    }
    return this.#done
  }

  get(requestId: string): ForkOutcome | undefined {
    return this.#outcomes().get(requestId)
  }

  /**
   * Runs `fork` once per requestId: a concurrent duplicate waits for the first call's
   * outcome, a later one gets it from memory. A fork that threw is not remembered
   * (nothing was published); one that published a child always is.
   */
  async run<T extends ForkOutcome>(requestId: string, fork: () => Promise<T>): Promise<T | ForkOutcome> {
    const done = this.#outcomes().get(requestId)
    if (done) return done
    const running = this.#inFlight.get(requestId)
    if (running) return running
    const attempt = fork()
    this.#inFlight.set(requestId, attempt)
    try {
      const outcome = await attempt
      // Only the child is remembered: a retry returns it as a plain success.
      this.#done.set(requestId, {
        sourceId: outcome.sourceId,
        childId: outcome.childId,
        boundary: outcome.boundary,
      })
      return outcome
    } finally {
      this.#inFlight.delete(requestId)
    }
  }

  forget(childId: string): void {
    for (const [requestId, outcome] of this.#outcomes())
      if (outcome.childId === childId) this.#done.delete(requestId)
  }
}
