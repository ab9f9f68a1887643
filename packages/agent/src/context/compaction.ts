// Compaction (docs/architecture.md §12.4): when the next model call would pass a threshold of
// the model's context window, or on request, the session's model summarises the history into a
// `context/compacted` event. Nothing is removed from the log: replay (core's toModelMessages)
// sends the summary plus what follows it, and a fork before the event never sees it.
import type { LanguageModelV4 } from '@ai-sdk/provider'
import {
  type CompactionData,
  compactionPreamble,
  type Session,
  type SessionEvent,
  type StepEndData,
} from '@tangent/core'
import { aiSdk } from '../model-step.js'
import { replayMessages } from '../replay-messages.js'
import { compactionRequest, compactionSystemPrompt } from './compaction-request.js'
import { estimatedChars } from './estimated-chars.js'

/** Fraction of the context window past which a turn compacts first. */
export const defaultCompactionThreshold = 0.8

/** What a replayed event costs in the estimate: its data's JSON, 4 characters a token. */
const replayedTypes: ReadonlySet<string> = new Set(['user/message', 'assistant/message', 'tool/result'])

export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / 4)
}

/**
 * The context tokens the next model call would send, without replaying the log: the latest
 * step's usage (input + output: what it read and what it added) plus an estimate of the
 * events appended since. A compaction resets the base to its own `tokensAfter`, so usage
 * recorded before it never counts. Scans back only to the latest step/end or compaction.
 * `baseChars` (the system prompt) counts only when no usage is known yet.
 */
export function estimateContextTokens(events: readonly SessionEvent[], baseChars = 0): number {
  let chars = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'context/compacted') {
      const data = event.data as CompactionData
      return (data.tokensAfter ?? tokensOfChars(data.summary.length + baseChars)) + tokensOfChars(chars)
    }
    if (event.type === 'step/end') {
      const usage = (event.data as StepEndData).usage
      if (usage?.inputTokens !== undefined)
        return usage.inputTokens + (usage.outputTokens ?? 0) + tokensOfChars(chars)
    }
    if (replayedTypes.has(event.type)) chars += estimatedChars(event.data)
  }
  return tokensOfChars(chars + baseChars)
}

/**
 * The seq a compaction now would summarise through, or null when there is nothing new to
 * summarise: inside a turn, the events before its `turn/start` (the running turn stays
 * verbatim); between turns, the whole log. There must be a completed turn after the latest
 * compaction's `throughSeq`.
 */
export function compactionBoundary(session: Session): number | null {
  const through = session.isTurnOpen ? (session.latestOfType('turn/start')?.seq ?? 0) - 1 : session.lastSeq
  if (through < 0) return null
  const previous = session.latestOfType('context/compacted')?.data as CompactionData | undefined
  const lastTurnEnd = session.latestOfType('turn/end', through)?.seq ?? -1
  return lastTurnEnd > (previous?.throughSeq ?? -1) ? through : null
}

/** Whether `tokens` pass `threshold` of `contextWindow` (never, for an unknown window). */
export function overThreshold(tokens: number, contextWindow: number | undefined, threshold: number): boolean {
  return contextWindow !== undefined && contextWindow > 0 && tokens > contextWindow * threshold
}

export interface CompactionRequest {
  session: Session
  model: LanguageModelV4
  /** `provider:model`, recorded in the event. */
  modelId: string
  throughSeq: number
  trigger: CompactionData['trigger']
  tokensBefore?: number
  /** The session's system prompt, counted in `tokensAfter`. */
  system: string
  signal?: AbortSignal
  maxRetries?: number
}

/**
 * Asks the model for a summary of the events through `throughSeq` (the replayed history, a
 * previous summary included, then `compactionRequest`) and appends `context/compacted`.
 * Throws the model's error and appends nothing when the call fails.
 */
export async function compactHistory(request: CompactionRequest): Promise<SessionEvent> {
  const { session, throughSeq } = request
  const covered = session.events.slice(0, throughSeq + 1)
  const { generateText } = await aiSdk()
  const result = await generateText({
    model: request.model,
    system: compactionSystemPrompt,
    messages: [
      ...replayMessages(covered),
      { role: 'user', content: [{ type: 'text', text: compactionRequest }] },
    ],
    maxRetries: request.maxRetries ?? 2,
    ...(request.signal ? { abortSignal: request.signal } : {}),
  })
  const summary = result.text.trim()
  if (summary === '') throw new Error(`${request.modelId} answered the summary request with no text.`)
  let keptChars = compactionPreamble(summary).length + request.system.length
  for (const event of session.events.slice(throughSeq + 1)) {
    if (replayedTypes.has(event.type)) keptChars += estimatedChars(event.data)
  }
  const usage = result.usage
  const data: CompactionData = {
    summary,
    throughSeq,
    model: request.modelId,
    trigger: request.trigger,
    ...(request.tokensBefore !== undefined ? { tokensBefore: request.tokensBefore } : {}),
    tokensAfter: tokensOfChars(keptChars),
    usage: {
      ...(usage.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
      ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
      ...(usage.totalTokens !== undefined ? { totalTokens: usage.totalTokens } : {}),
    },
  }
  return session.append('context/compacted', data)
}
