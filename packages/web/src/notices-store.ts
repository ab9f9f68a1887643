// Notices: the errors and confirmations the page shows as banners (and its live region reads
// out), the last five kept. Each belongs to the session it was raised in and shows only while
// that session is open (null: the page as a whole). One without an action goes by itself after a
// few seconds (an error after a few more), paused while the pointer or focus is on it; one that
// asks for an answer (Undo) stays until it is given or dismissed.
import { RpcError } from '@tangent/protocol'
import type { Notice, NoticeAction } from './host-state.js'
import type { StoreState } from './store-state.js'

/** How long a notice without an action stays, by tone. */
export const noticeLifetimeMs: Record<Notice['tone'], number> = { info: 6_000, error: 10_000 }

export interface NoticeOptions {
  /** The session it belongs to; the open one when not given. */
  readonly sessionId?: string | null
  readonly action?: NoticeAction
}

export class NoticesStore {
  readonly #state: StoreState
  #noticeId = 0
  readonly #timers = new Map<number, ReturnType<typeof setTimeout>>()

  constructor(state: StoreState) {
    this.#state = state
  }

  report(error: unknown, options: NoticeOptions = {}): void {
    // A lost connection (calls in flight, retries) is shown once by the connection banner
    // and healed by reconnecting; a banner per failed call would only repeat it.
    if (error instanceof RpcError && error.dataCode === 'connection-closed') return
    // The code as sent (a newer Host's code this page does not know is still worth showing).
    const code = error instanceof RpcError ? error.data.code : 'internal'
    const message = error instanceof Error ? error.message : String(error)
    this.notify('error', code, message, options)
  }

  notify(tone: Notice['tone'], code: string, message: string, options: NoticeOptions = {}): void {
    const sessionId = options.sessionId !== undefined ? options.sessionId : this.#state.get().openSessionId
    const notice: Notice = {
      id: ++this.#noticeId,
      tone,
      code,
      message,
      sessionId,
      ...(options.action ? { action: options.action } : {}),
    }
    const kept = this.#state.get().notices.slice(-4)
    for (const dropped of this.#state.get().notices.slice(0, -4)) this.#clearTimer(dropped.id)
    this.#state.set({ notices: [...kept, notice] })
    this.release(notice.id)
  }

  dismiss(id: number): void {
    this.#clearTimer(id)
    this.#state.set({ notices: this.#state.get().notices.filter((notice) => notice.id !== id) })
  }

  /** The pointer or focus is on the notice: it stays while they are. */
  hold(id: number): void {
    this.#clearTimer(id)
  }

  /** Starts (again) the notice's time to go, when it has no action to wait for. */
  release(id: number): void {
    const notice = this.#state.get().notices.find((each) => each.id === id)
    if (!notice || notice.action) return
    this.#clearTimer(id)
    this.#timers.set(
      id,
      setTimeout(() => this.dismiss(id), noticeLifetimeMs[notice.tone]),
    )
  }

  #clearTimer(id: number): void {
    const timer = this.#timers.get(id)
    if (timer !== undefined) clearTimeout(timer)
    this.#timers.delete(id)
  }
}

/** The notices shown while `openSessionId` is open: its own and the page's. */
export function visibleNotices(notices: readonly Notice[], openSessionId: string | null): Notice[] {
  return notices.filter((notice) => notice.sessionId === null || notice.sessionId === openSessionId)
}
