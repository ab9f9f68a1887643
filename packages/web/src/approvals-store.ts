// Answers to the permission policy's questions (docs/architecture.md §8 "Approvals", §12.1).
// The cards themselves are read from the log; the store only sends the answer.
import { RpcError } from '@tangent/protocol'
import type { StoreDeps } from './store-deps.js'

export class ApprovalsStore {
  readonly #deps: StoreDeps

  constructor(deps: StoreDeps) {
    this.#deps = deps
  }

  /**
   * Answers a call the permission policy asked about (docs/protocol.md
   * `session.answerPermission`). The card goes when `permission/answered` arrives; an answer
   * that came too late (`permission-not-pending`: someone else answered, or the turn ended) is
   * no error for this person, so it is dropped. False when the answer failed (the card stays).
   */
  async answerPermission(
    sessionId: string,
    callId: string,
    decision: 'once' | 'always' | 'deny',
    reason?: string,
  ): Promise<boolean> {
    try {
      await this.#deps.client().call('session.answerPermission', {
        sessionId,
        callId,
        decision,
        ...(reason !== undefined && reason !== '' ? { reason } : {}),
      })
      return true
    } catch (error) {
      if (error instanceof RpcError && error.dataCode === 'permission-not-pending') return true
      this.#deps.notices.report(error)
      return false
    }
  }
}
