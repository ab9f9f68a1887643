// The store's one state object and who is told when it changes. Each concern's store (see
// HostStore) reads and writes its slice of `HostState` through it, so a change that spans slices
// (opening a session also expands its ancestors and selects its workspace) is one update.
import { type HostState, initialHostState } from './host-state.js'

/** Runs `flush` before the next paint; where there is no paint (tests in Node), at once. */
export function nextFrame(flush: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush)
  else flush()
}

export class StoreState {
  #state: HostState
  readonly #listeners = new Set<() => void>()
  readonly #schedule: (flush: () => void) => void
  /** Live changes (events, deltas) are in `#state` but not yet told to the listeners. */
  #frameQueued = false

  constructor(initialSessionId: string | null, schedule: (flush: () => void) => void) {
    this.#state = initialHostState(initialSessionId)
    this.#schedule = schedule
  }

  get(): HostState {
    return this.#state
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** A change told to the listeners at once (with any live change still waiting for its frame). */
  set(patch: Partial<HostState>): void {
    this.#state = { ...this.#state, ...patch }
    this.#frameQueued = false
    for (const listener of this.#listeners) listener()
  }

  /**
   * A live change (an event, a streamed delta): in the state at once, told to the listeners once
   * per frame, so a burst of deltas is one render (docs/architecture.md §8).
   */
  setLive(patch: Partial<HostState>): void {
    this.#state = { ...this.#state, ...patch }
    if (this.#frameQueued) return
    this.#frameQueued = true
    this.#schedule(() => {
      if (!this.#frameQueued) return
      this.#frameQueued = false
      for (const listener of this.#listeners) listener()
    })
  }
}
