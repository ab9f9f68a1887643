// Notices: the errors and confirmations the page shows as banners (and its live region reads
// out), the last five kept.
import { RpcError } from '@tangent/protocol'
import type { Notice } from './host-state.js'
import type { StoreState } from './store-state.js'

export class NoticesStore {
  readonly #state: StoreState
  #noticeId = 0

  constructor(state: StoreState) {
    this.#state = state
  }

  report(error: unknown): void {
    // A lost connection (calls in flight, retries) is shown once by the connection banner
    // and healed by reconnecting; a banner per failed call would only repeat it.
    if (error instanceof RpcError && error.dataCode === 'connection-closed') return
    // The code as sent (a newer Host's code this page does not know is still worth showing).
    const code = error instanceof RpcError ? error.data.code : 'internal'
    const message = error instanceof Error ? error.message : String(error)
    this.notify('error', code, message)
  }

  notify(tone: Notice['tone'], code: string, message: string): void {
    const notice = { id: ++this.#noticeId, tone, code, message }
    this.#state.set({ notices: [...this.#state.get().notices.slice(-4), notice] })
  }

  dismiss(id: number): void {
    this.#state.set({ notices: this.#state.get().notices.filter((notice) => notice.id !== id) })
  }
}
