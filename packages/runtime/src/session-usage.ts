// The usage figures of session.get and session.compare (docs/architecture.md §12.5): core's
// one pass over the events, with the model catalog of @tangent/agent.
import { modelFactsOf, priceSource } from '@tangent/agent'
import { type Session, summarizeUsage } from '@tangent/core'
import type { SessionUsage, UsageSplit } from '@tangent/protocol'

/** Per turn and in all; `own` from `boundary` on (default: the session's own events, after its fork point). */
export function sessionUsageOf(
  session: Session,
  defaultModel: string,
  boundary = session.inheritedEventCount,
): SessionUsage {
  return summarizeUsage(session.events, { boundary, defaultModel, facts: modelFactsOf, priceSource })
}

/** One side of a comparison: `own` is what it spent after the last seq both sides share. */
export function compareUsageOf(session: Session, defaultModel: string, forkSeq: number | null): UsageSplit {
  const { turns: _turns, ...split } = sessionUsageOf(session, defaultModel, (forkSeq ?? -1) + 1)
  return split
}
