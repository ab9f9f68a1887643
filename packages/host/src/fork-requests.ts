// Idempotent forks: requestId → the child it produced. Kept in memory and in the child's
// header (`forkRequestId`), so a retry after a Host restart finds the same child too.
export interface ForkOutcome {
  sourceId: string
  childId: string
  boundary: number
}

export class ForkRequests {
  readonly #done = new Map<string, ForkOutcome>()
  readonly #inFlight = new Map<string, Promise<ForkOutcome>>()

  /** Rebuilds the map from catalog headers (`forkRequestId`, `forkedAt`). */
  static fromHeaders(
    headers: Iterable<{ readonly id: string; readonly header: Readonly<Record<string, unknown>> }>,
  ): ForkRequests {
    const requests = new ForkRequests()
    for (const { id, header } of headers) {
      const { forkRequestId, forkedAt, parentSession } = header
      if (
        typeof forkRequestId === 'string' &&
        typeof forkedAt === 'number' &&
        typeof parentSession === 'string'
      ) {
        requests.#done.set(forkRequestId, { sourceId: parentSession, childId: id, boundary: forkedAt })
      }
    }
    return requests
  }

  get(requestId: string): ForkOutcome | undefined {
    return this.#done.get(requestId)
  }

  /**
   * Runs `fork` once per requestId: a concurrent duplicate waits for the first call's
   * outcome, a later one gets it from memory. A fork that threw is not remembered
   * (nothing was published); one that published a child always is.
   */
  async run<T extends ForkOutcome>(requestId: string, fork: () => Promise<T>): Promise<T | ForkOutcome> {
    const done = this.#done.get(requestId)
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
    for (const [requestId, outcome] of this.#done)
      if (outcome.childId === childId) this.#done.delete(requestId)
  }
}
