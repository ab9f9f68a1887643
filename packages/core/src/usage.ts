// Tokens and cost of a session: per turn, own vs inherited, and how full the context is
// (docs/architecture.md §12.5). One pass over the events; context windows and prices come
// from a lookup the caller gives, so core stays free of any catalog.
import type { SessionEvent } from './events.js'

/** USD per million tokens. Cached input falls back to the input price, reasoning to the output price. */
export interface ModelPrice {
  inputPerMTokens: number
  outputPerMTokens: number
  cacheReadPerMTokens?: number
  reasoningPerMTokens?: number
}

/** What is known of a model: each field only where a source states it (never a guess). */
export interface ModelFacts {
  contextWindow?: number
  price?: ModelPrice
  /** Whether the model takes images in its input (the catalog's input modalities). */
  imageInput?: boolean
}

/** Facts of a `provider:model` id, or undefined when nothing is known of it. */
export type ModelFactsLookup = (modelId: string) => ModelFacts | undefined

export interface UsageTotals {
  inputTokens: number
  outputTokens: number
  /** Part of inputTokens: read from the provider's prompt cache. */
  cachedInputTokens: number
  /** Part of outputTokens: spent on reasoning. */
  reasoningTokens: number
  /** Model calls (step/end events). */
  steps: number
  /** USD; null when a step that reported tokens ran on a model without a known price. */
  cost: number | null
}

export interface TurnUsage extends UsageTotals {
  /** Seq of the turn's `turn/start`. */
  seq: number
  /** The `provider:model` the turn ran on. */
  model: string
}

export interface ContextUsage {
  /** Tokens the next call roughly sends: the last step's input + output, or a compaction's estimate after it. Null when the last step reported none. */
  used: number | null
  /** The current model's context window, when known. */
  window: number | null
  /** used / window, in percent with one decimal; null when either is unknown. */
  percent: number | null
  /** The model the next turn runs on. */
  model: string
}

export interface SessionUsage {
  turns: TurnUsage[]
  /** Events at seq >= the boundary: what this session spent itself. */
  own: UsageTotals
  /** Events below the boundary (a fork's copied prefix): what its ancestors spent. */
  inherited: UsageTotals
  total: UsageTotals
  context: ContextUsage
  /** Where the prices and windows come from, with its date. */
  priceSource: string
}

export interface UsageOptions {
  /** Events with seq below this count as inherited (a fork's inheritedEventCount). */
  boundary: number
  /** The model of a session whose log names none. */
  defaultModel: string
  facts: ModelFactsLookup
  priceSource: string
}

interface StepUsage {
  inputTokens?: number
  outputTokens?: number
  cachedInputTokens?: number
  reasoningTokens?: number
}

function emptyUsageTotals(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, steps: 0, cost: 0 }
}

export function summarizeUsage(events: readonly SessionEvent[], options: UsageOptions): SessionUsage {
  const known = new Map<string, ModelFacts | undefined>()
  const factsOf = (model: string) => {
    if (!known.has(model)) known.set(model, options.facts(model))
    return known.get(model)
  }
  const own = emptyUsageTotals()
  const inherited = emptyUsageTotals()
  const turns: TurnUsage[] = []
  let model = options.defaultModel
  let turn: TurnUsage | undefined
  let used: number | null = 0
  // Indexed: in a cold process (`tangent show`) for-of allocates an iterator result per event.
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    switch (event.type) {
      case 'model/selection': {
        const data = event.data as { provider: string; model: string }
        model = `${data.provider}:${data.model}`
        break
      }
      case 'turn/start':
        // The fields written out, not spread: one object per turn, built for every `tangent show`.
        turn = {
          seq: event.seq,
          model,
          inputTokens: 0,
          outputTokens: 0,
          cachedInputTokens: 0,
          reasoningTokens: 0,
          steps: 0,
          cost: 0,
        }
        turns.push(turn)
        break
      case 'step/end': {
        const usage = (event.data as { usage?: StepUsage }).usage
        const cost = usage ? stepCost(usage, factsOf(model)?.price) : 0
        const side = event.seq < options.boundary ? inherited : own
        addStep(side, usage, cost)
        if (turn) {
          addStep(turn, usage, cost)
          // A turn with a call of unknown usage (an aborted or failed call) has an unknown cost,
          // never "$0"; the session's sums count what is known (a lower bound of the tokens).
          if (!usage) turn.cost = null
        }
        used =
          usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)
            ? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)
            : null
        break
      }
      case 'context/compacted': {
        const after = (event.data as { tokensAfter?: number }).tokensAfter
        if (typeof after === 'number') used = after
        break
      }
      case 'turn/end':
        turn = undefined
        break
    }
  }
  const window = factsOf(model)?.contextWindow ?? null
  const total = sumTotals(own, inherited)
  for (const totals of [own, inherited, total, ...turns]) totals.cost = roundCost(totals.cost)
  return {
    turns,
    own,
    inherited,
    total,
    context: {
      used,
      window,
      percent: used !== null && window ? Math.round((used / window) * 1000) / 10 : null,
      model,
    },
    priceSource: options.priceSource,
  }
}

/** USD of one model call; null when the model has no known price. */
export function stepCost(usage: StepUsage, price: ModelPrice | undefined): number | null {
  if (!price) return null
  const input = usage.inputTokens ?? 0
  const cached = Math.min(usage.cachedInputTokens ?? 0, input)
  const output = usage.outputTokens ?? 0
  const reasoning = Math.min(usage.reasoningTokens ?? 0, output)
  const reasoningPrice = price.reasoningPerMTokens ?? price.outputPerMTokens
  return (
    ((input - cached) * price.inputPerMTokens +
      cached * (price.cacheReadPerMTokens ?? price.inputPerMTokens) +
      (output - reasoning) * price.outputPerMTokens +
      reasoning * reasoningPrice) /
    1_000_000
  )
}

/** A step without usage adds a model call and nothing else: its tokens (and cost) are unknown. */
function addStep(totals: UsageTotals, usage: StepUsage | undefined, cost: number | null): void {
  totals.steps++
  if (!usage) return
  totals.inputTokens += usage.inputTokens ?? 0
  totals.outputTokens += usage.outputTokens ?? 0
  totals.cachedInputTokens += usage.cachedInputTokens ?? 0
  totals.reasoningTokens += usage.reasoningTokens ?? 0
  const tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)
  if (tokens > 0) totals.cost = totals.cost === null || cost === null ? null : totals.cost + cost
}

function sumTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    steps: a.steps + b.steps,
    cost: a.cost === null || b.cost === null ? null : a.cost + b.cost,
  }
}

/** Eight decimals (a hundredth of a micro-dollar) keep float noise out of the JSON. */
function roundCost(cost: number | null): number | null {
  return cost === null ? null : Math.round(cost * 1e8) / 1e8
}
