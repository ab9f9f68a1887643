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
  /** The same headers, looked through again for one requestId this process has not seen. */
  #catalog: (() => Iterable<HeaderOf>) | null = null

  /**
   * Rebuilds the map from catalog headers (`forkRequestId`, `forkedAt`), on first use: a
   * Host starting on 10,000 sessions does not walk them all for a map only forks read.
   */
  static fromHeaders(headers: Iterable<HeaderOf> | (() => Iterable<HeaderOf>)): ForkRequests {
    const requests = new ForkRequests()
    requests.#headers = typeof headers === 'function' ? headers : () => headers
    requests.#catalog = requests.#headers
    return requests
  }

  #outcomes(): Map<string, ForkOutcome> {
    const read = this.#headers
    if (read === null) return this.#done
    this.#headers = null
    for (const { id, header } of read()) {
      const found = outcomeOf(id, header)
      if (found !== null && !this.#done.has(found.requestId)) this.#done.set(found.requestId, found.outcome)
    }
    return this.#done
  }

  get(requestId: string): ForkOutcome | undefined {
    return this.#outcomes().get(requestId) ?? this.#lookUp(requestId)
  }

  /**
   * A requestId this process has not seen may have made a child through another Host on the same
   * shared store (a client that retried elsewhere): the catalog, which other Hosts' sessions join,
   * is looked through for it.
   */
  #lookUp(requestId: string): ForkOutcome | undefined {
    if (this.#catalog === null) return undefined
    for (const { id, header } of this.#catalog()) {
      if (header.forkRequestId !== requestId) continue
      const found = outcomeOf(id, header)
      if (found === null) continue
      this.#done.set(requestId, found.outcome)
      return found.outcome
    }
    return undefined
  }

  /**
   * Runs `fork` once per requestId: a concurrent duplicate waits for the first call's
   * outcome, a later one gets it from memory. A fork that threw is not remembered
   * (nothing was published); one that published a child always is.
   */
  async run<T extends ForkOutcome>(requestId: string, fork: () => Promise<T>): Promise<T | ForkOutcome> {
    const done = this.get(requestId)
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

function outcomeOf(
  id: string,
  header: HeaderOf['header'],
): { requestId: string; outcome: ForkOutcome } | null {
  const { forkRequestId, forkedAt, parentSession } = header
  if (typeof forkRequestId !== 'string' || typeof forkedAt !== 'number' || typeof parentSession !== 'string')
    return null
  return { requestId: forkRequestId, outcome: { sourceId: parentSession, childId: id, boundary: forkedAt } }
}
