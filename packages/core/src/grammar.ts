// The grammar of a session log (docs/architecture.md §2), as a small state machine:
//   turn := turn/start user/message (step/start assistant/message tool/result* step/end)* turn/end
// Standalone events stand between turns; log-only events stand anywhere.
import { TangentError } from './errors.js'
import {
  type AssistantMessageData,
  isLogOnlyEventType,
  standaloneEventTypes,
  type ToolResultData,
} from './events.js'

export type GrammarPhase =
  /** Between turns. */
  | 'idle'
  /** After `turn/start`: a `user/message` must follow. */
  | 'turn-opened'
  /** After `user/message` or `step/end`: `step/start` or `turn/end`. */
  | 'in-turn'
  /** After `step/start`: an `assistant/message` must follow. */
  | 'step-opened'
  /** After `assistant/message`: `tool/result`s for its calls, then `step/end`. */
  | 'step-answered'

export interface GrammarSnapshot {
  readonly phase: GrammarPhase
  /** Seq of the open turn's `turn/start`, or null between turns. */
  readonly openTurnSeq: number | null
  /** Tool calls of the current step that have no `tool/result` yet, in call order. */
  readonly pendingCalls: readonly { toolCallId: string; toolName: string }[]
}

/** Mutable grammar state; `accept` advances it or throws without changing it. */
export class GrammarState {
  phase: GrammarPhase = 'idle'
  openTurnSeq: number | null = null
  pendingCalls: { toolCallId: string; toolName: string }[] = []

  snapshot(): GrammarSnapshot {
    return { phase: this.phase, openTurnSeq: this.openTurnSeq, pendingCalls: [...this.pendingCalls] }
  }

  /** Checks that `type` may come next, then advances. Throws `grammar-violation`. */
  accept(seq: number, type: string, data: unknown): void {
    // The turn's own types first (most events are), then standalone and log-only ones.
    switch (type) {
      case 'turn/start':
        if (this.phase !== 'idle') this.fail(seq, type, `turn ${this.openTurnSeq} is still open`)
        this.phase = 'turn-opened'
        this.openTurnSeq = seq
        return
      case 'user/message':
        if (this.phase !== 'turn-opened')
          this.fail(seq, type, 'a user message must directly follow turn/start')
        this.phase = 'in-turn'
        return
      case 'step/start':
        if (this.phase !== 'in-turn')
          this.fail(seq, type, 'a step starts after the user message or a step/end')
        this.phase = 'step-opened'
        return
      case 'assistant/message': {
        if (this.phase !== 'step-opened')
          this.fail(seq, type, 'an assistant message must directly follow step/start')
        // Seeds (loaded logs) skip the zod check of append, so the shape is checked here.
        const content = (data as Partial<AssistantMessageData> | null)?.content
        if (!Array.isArray(content)) this.invalid(seq, type, 'content must be an array of parts')
        const calls: { toolCallId: string; toolName: string }[] = []
        // Indexed loops: a load runs this per assistant message, interpreted at first in a cold
        // process, where for-of allocates an iterator result per element.
        for (let i = 0; i < content.length; i++) {
          const part = content[i]
          if (typeof part !== 'object' || part === null)
            this.invalid(seq, type, 'every part must be an object')
          if (part.type !== 'tool-call') continue
          for (let j = 0; j < calls.length; j++)
            if (calls[j]!.toolCallId === part.toolCallId)
              this.fail(seq, type, `duplicate tool call id ${part.toolCallId}`)
          calls.push({ toolCallId: part.toolCallId, toolName: part.toolName })
        }
        this.phase = 'step-answered'
        this.pendingCalls = calls
        return
      }
      case 'tool/result': {
        if (this.phase !== 'step-answered')
          this.fail(seq, type, 'a tool result must follow the assistant message')
        const callId = (data as Partial<ToolResultData> | null)?.callId
        if (typeof callId !== 'string') this.invalid(seq, type, 'callId must be a string')
        const pending = this.pendingCalls
        let index = 0
        while (index < pending.length && pending[index]!.toolCallId !== callId) index++
        if (index === pending.length) this.fail(seq, type, `no unanswered tool call ${callId} in this step`)
        this.pendingCalls.splice(index, 1)
        return
      }
      case 'step/end':
        if (this.phase !== 'step-answered') this.fail(seq, type, 'step/end must follow the assistant message')
        if (this.pendingCalls.length > 0)
          this.fail(
            seq,
            type,
            `unanswered tool calls: ${this.pendingCalls.map((c) => c.toolCallId).join(', ')}`,
          )
        this.phase = 'in-turn'
        return
      case 'turn/end':
        if (this.phase !== 'in-turn')
          this.fail(seq, type, 'turn/end must follow the user message or a step/end')
        this.phase = 'idle'
        this.openTurnSeq = null
        return
      default:
        if (standaloneEventTypes.has(type)) {
          if (this.phase !== 'idle') this.fail(seq, type, 'standalone events may only stand between turns')
          return
        }
        if (!isLogOnlyEventType(type)) this.fail(seq, type, 'unknown core event type')
    }
  }

  private invalid(seq: number, type: string, why: string): never {
    throw new TangentError('invalid-event', `Invalid data for ${type} at seq ${seq}: ${why}.`, { seq, type })
  }

  private fail(seq: number, type: string, why: string): never {
    throw new TangentError('grammar-violation', `Cannot append ${type} at seq ${seq}: ${why}.`, {
      seq,
      type,
      phase: this.phase,
    })
  }
}

/** The grammar state after a whole log (which must be valid). */
export function grammarStateOf(
  events: readonly { seq: number; type: string; data: unknown }[],
): GrammarState {
  const state = new GrammarState()
  for (const event of events) state.accept(event.seq, event.type, event.data)
  return state
}

/**
 * The synthetic events that close a dangling open turn (crash repair, abort):
 * an empty assistant message if a step was opened without one, an error result
 * for each unanswered tool call, `step/end`, then `turn/end` with `reason`.
 * Empty when no turn is open.
 */
export function closingEventsForOpenTurn(
  state: GrammarSnapshot,
  reason: 'interrupted' | 'aborted' | 'error',
  message: string,
): { type: string; data: unknown }[] {
  const out: { type: string; data: unknown }[] = []
  switch (state.phase) {
    case 'idle':
      return out
    case 'turn-opened':
      out.push({ type: 'user/message', data: { content: [] } })
      break
    case 'step-opened':
      out.push({ type: 'assistant/message', data: { content: [] } })
      out.push({ type: 'step/end', data: { finishReason: reason === 'aborted' ? 'abort' : 'error' } })
      break
    case 'step-answered':
      for (const call of state.pendingCalls)
        out.push({
          type: 'tool/result',
          data: { callId: call.toolCallId, toolName: call.toolName, output: message, isError: true },
        })
      out.push({ type: 'step/end', data: { finishReason: reason === 'aborted' ? 'abort' : 'error' } })
      break
    case 'in-turn':
      break
  }
  out.push({ type: 'turn/end', data: { reason, error: message } })
  return out
}
