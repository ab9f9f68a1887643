// Approvals of one agent (docs/architecture.md §12.1): a call the policy says to `ask` about is
// recorded as `permission/requested` and waits here until a client answers (recorded as
// `permission/answered`) or the turn is aborted. Nothing runs without an answer.
import {
  type PermissionAnsweredData,
  type PermissionDecision,
  type Session,
  type SessionModeId,
  TangentError,
} from '@tangent/core'
import type { PermissionVerdict } from './policy.js'

export interface PermissionAnswer {
  decision: PermissionDecision
  reason?: string
  by?: 'user' | 'flag' | 'no-terminal'
}

/** Decides a call: the runtime reads the config files and the session's rules (its log). */
export type PermissionDecider = (request: {
  /** The model driving the turn (`provider:model`): the offline demo model runs freely by default. */
  modelId: string
  toolName: string
  input: unknown
  /** The session's own `always` rules (sessionPermissionRules). */
  sessionRules: readonly { tool: string; pattern: string }[]
  /** The session's mode when the call is decided (`Session.mode`: a change mid-turn counts from the next call). */
  mode: SessionModeId
  cwd: string
}) => Promise<PermissionVerdict>

/**
 * The `always` rules a session's log holds, oldest first (a fork's prefix holds its parent's):
 * from the index of `permission/answered`, so a tool call does not scan the whole history.
 */
export function sessionPermissionRules(
  session: Pick<Session, 'events' | 'seqsOfType'>,
): { tool: string; pattern: string }[] {
  const rules: { tool: string; pattern: string }[] = []
  for (const seq of session.seqsOfType('permission/answered')) {
    const { decision, rule } = session.events[seq]!.data as PermissionAnsweredData
    if (decision === 'always' && rule) rules.push(rule)
  }
  return rules
}

export class PendingApprovals {
  readonly #waiting = new Map<string, (answer: PermissionAnswer) => void>()

  get size(): number {
    return this.#waiting.size
  }

  has(callId: string): boolean {
    return this.#waiting.has(callId)
  }

  /** Waits for the answer to `callId`; rejects with the signal's reason when the turn is aborted. */
  wait(callId: string, signal: AbortSignal): Promise<PermissionAnswer> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.delete(callId)
        reject(signal.reason)
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.#waiting.set(callId, (answer) => {
        signal.removeEventListener('abort', onAbort)
        this.#waiting.delete(callId)
        resolve(answer)
      })
    })
  }

  /** Delivers an answer; throws `permission-not-pending` when no call of that id waits. */
  answer(sessionId: string, callId: string, answer: PermissionAnswer): void {
    const resolve = this.#waiting.get(callId)
    if (!resolve) throw permissionNotPending(sessionId, callId)
    resolve(answer)
  }
}

export function permissionNotPending(sessionId: string, callId: string): TangentError {
  return new TangentError(
    'permission-not-pending',
    `No tool call ${callId} is waiting for an answer in session ${sessionId} (answered already, or its turn ended).`,
    { sessionId, callId },
  )
}
