// What a session's agent sends besides the history (docs/architecture.md §12): the system
// prompt with the project instructions recorded in the log, and compaction — automatic before
// a model call that would pass the threshold of the model's window, or on request.
import type { LanguageModelV4 } from '@ai-sdk/provider'
import { type CompactionData, type InstructionsData, type Session, TangentError } from '@tangent/core'
import type { ModelRegistry } from '../model-registry.js'
import { errorMessage } from '../model-step.js'
import {
  compactHistory,
  compactionBoundary,
  defaultCompactionThreshold,
  estimateContextTokens,
  overThreshold,
} from './compaction.js'
import { readInstructionFiles } from './instruction-files.js'
import { recordInstructions, systemPromptWithInstructions } from './instructions.js'
import { systemPromptWithMode } from './mode-prompt.js'

export interface SessionContextOptions {
  session: Session
  models: ModelRegistry
  /** The base system prompt; the recorded instructions follow it. */
  system: string
  /** The user-level instructions file; null reads none; undefined: the default place. */
  userInstructionsPath?: string | null
  compactThreshold?: number
  maxRetries: number
  flush: () => Promise<void>
}

/** The model a call uses, by id (recorded in the event) and as the AI SDK model. */
export interface ContextModel {
  id: string
  model: LanguageModelV4
}

export class SessionContext {
  readonly #options: SessionContextOptions
  /** An automatic compaction failed in this turn: it goes on uncompacted, without retrying. */
  #compactionFailed = false

  constructor(options: SessionContextOptions) {
    this.#options = options
  }

  /** The base prompt plus the instructions the log recorded last (never read from disk here). */
  systemPrompt(): string {
    const recorded = this.#options.session.latestOfType('context/instructions')?.data
    // The mode last: it can change between calls of one turn, the instructions only at its start.
    return systemPromptWithMode(
      systemPromptWithInstructions(this.#options.system, (recorded as InstructionsData | undefined) ?? null),
      this.#options.session.mode,
    )
  }

  /** At a turn's start: reads the instruction files and records them when they changed. */
  async beginTurn(): Promise<void> {
    this.#compactionFailed = false
    const { session, userInstructionsPath } = this.#options
    const files = await readInstructionFiles({
      cwd: session.header.cwd,
      ...(userInstructionsPath !== undefined ? { userPath: userInstructionsPath } : {}),
    })
    recordInstructions(session, files)
  }

  /**
   * Before a model call: when the context would pass the threshold of the model's window,
   * summarise the turns before this one. A failed summary is noted (log-only
   * `context/compaction-failed`) and the turn goes on with the whole history; an abort throws.
   */
  async compactIfNeeded(model: ContextModel, signal: AbortSignal): Promise<void> {
    if (this.#compactionFailed) return
    const { session, models } = this.#options
    const system = this.systemPrompt()
    const tokens = estimateContextTokens(session.events, system.length)
    const threshold = this.#options.compactThreshold ?? defaultCompactionThreshold
    if (!overThreshold(tokens, models.contextWindow(model.id), threshold)) return
    const throughSeq = compactionBoundary(session)
    if (throughSeq === null) return
    await this.#options.flush()
    try {
      await this.#compact(model, { throughSeq, trigger: 'auto', tokensBefore: tokens, system }, signal)
    } catch (error) {
      if (signal.aborted) throw error
      this.#compactionFailed = true
      session.append('context/compaction-failed', { model: model.id, message: errorMessage(error) })
    }
  }

  /**
   * Summarises the whole history now (between turns). Throws `nothing-to-compact` when no
   * turn completed since the last compaction, and `compaction-failed` (appending nothing)
   * when the model call fails.
   */
  async compact(model: ContextModel, signal: AbortSignal): Promise<CompactionData & { seq: number }> {
    const { session } = this.#options
    const throughSeq = compactionBoundary(session)
    if (throughSeq === null) {
      throw new TangentError(
        'nothing-to-compact',
        `Session ${session.id} has no completed turn since its last compaction: there is nothing to summarise.`,
        { sessionId: session.id },
      )
    }
    const system = this.systemPrompt()
    const tokens = estimateContextTokens(session.events, system.length)
    const request = { throughSeq, trigger: 'manual' as const, tokensBefore: tokens, system }
    const event = await this.#compact(model, request, signal).catch((error: unknown) => {
      const why = signal.aborted ? 'the compaction was aborted.' : errorMessage(error)
      throw new TangentError(
        'compaction-failed',
        `${model.id} could not summarise session ${session.id}: ${why} Nothing was changed.`,
        { sessionId: session.id, model: model.id },
      )
    })
    await this.#options.flush()
    return { seq: event.seq, ...(event.data as CompactionData) }
  }

  /** `system`: the prompt the caller measured, built once per call. */
  #compact(
    model: ContextModel,
    request: { throughSeq: number; trigger: CompactionData['trigger']; tokensBefore: number; system: string },
    signal: AbortSignal,
  ) {
    return compactHistory({
      session: this.#options.session,
      model: model.model,
      modelId: model.id,
      ...request,
      signal,
      maxRetries: this.#options.maxRetries,
    })
  }
}
