// The compare view: two branches side by side (`session.compare`), in place of the transcript
// and the board.
import type { BoardStore } from './board-store.js'
import type { StoreDeps } from './store-deps.js'

export interface CompareDeps extends StoreDeps {
  readonly board: BoardStore
}

export class CompareStore {
  readonly #deps: CompareDeps

  constructor(deps: CompareDeps) {
    this.#deps = deps
  }

  async openCompare(a: string, b: string): Promise<void> {
    const { state, board } = this.#deps
    if (state.get().board !== null) board.closeBoard()
    state.set({ compare: { a, b, result: null } })
    try {
      const result = await this.#deps.client().call('session.compare', { a, b })
      const current = state.get().compare
      if (current && current.a === a && current.b === b) state.set({ compare: { a, b, result } })
    } catch (error) {
      state.set({ compare: null })
      this.#deps.notices.report(error)
    }
  }

  closeCompare(): void {
    this.#deps.state.set({ compare: null })
  }
}
