// The usage figures of session.get and session.compare (docs/architecture.md §12.5): core's
// one pass over the events, with the model catalog of @tangent/agent and the registry's
// context windows (the same ones compaction uses, overrides included).
import { type ModelRegistry, modelFactsOf, priceSource } from '@tangent/agent/light'
import { type ModelFacts, type Session, summarizeUsage } from '@tangent/core'
import type { SessionUsage, UsageSplit } from '@tangent/protocol'

/** The catalog's facts of a model, with the window the registry gives it. */
export function modelFactsWith(models: ModelRegistry): (modelId: string) => ModelFacts | undefined {
  return (modelId) => {
    const facts = modelFactsOf(modelId)
    const contextWindow = models.contextWindow(modelId)
    if (contextWindow === undefined) return facts
    return { ...facts, contextWindow }
  }
}

/** Per turn and in all; `own` from `boundary` on (default: the session's own events, after its fork point). */
export function sessionUsageOf(
  session: Session,
  options: { defaultModel: string; facts: (modelId: string) => ModelFacts | undefined },
  boundary = session.inheritedEventCount,
): SessionUsage {
  return summarizeUsage(session.events, {
    boundary,
    defaultModel: options.defaultModel,
    facts: options.facts,
    priceSource,
  })
}

/** One side of a comparison: `own` is what it spent after the last seq both sides share. */
export function compareUsageOf(
  session: Session,
  options: { defaultModel: string; facts: (modelId: string) => ModelFacts | undefined },
  forkSeq: number | null,
): UsageSplit {
  const { turns: _turns, ...split } = sessionUsageOf(session, options, (forkSeq ?? -1) + 1)
  return split
}
