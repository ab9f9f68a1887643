// What history a fork's model will be sent (docs/architecture.md §12.4): a fork that ends
// before the latest compaction replays the full history; one that holds it starts from the
// summary. The fork point follows the anchor rules of §7 (the cut runs on to the next turn).
import type { SessionEvent } from './wire.js'

export interface ForkHistory {
  /** `full`: the fork ends before the compaction; `summary`: it inherits the compaction. */
  readonly kind: 'full' | 'summary'
  /** The seq of the latest compaction of the source. */
  readonly compactionSeq: number
}

/** Null when the source has no compaction or the fork point cannot be told from `events`. */
export function forkHistory(
  events: readonly SessionEvent[],
  anchor: { atSeq?: number | undefined; before?: boolean | undefined },
): ForkHistory | null {
  const compaction = events.findLast((event) => event.type === 'context/compacted')
  if (!compaction) return null
  const boundary = forkBoundary(events, anchor)
  if (boundary === null) return null
  return { kind: boundary < compaction.seq ? 'full' : 'summary', compactionSeq: compaction.seq }
}

/** The last seq a fork at the anchor copies (−1 for an empty prefix), or null when none. */
export function forkBoundary(
  events: readonly SessionEvent[],
  anchor: { atSeq?: number | undefined; before?: boolean | undefined },
): number | null {
  const { atSeq, before } = anchor
  if (before && atSeq !== undefined) {
    const start = events.findLast((event) => event.type === 'turn/start' && event.seq <= atSeq)
    return start ? start.seq - 1 : null
  }
  const end =
    atSeq === undefined
      ? events.findLast((event) => event.type === 'turn/end')
      : events.find((event) => event.type === 'turn/end' && event.seq >= atSeq)
  if (!end) return null
  const next = events.find((event) => event.type === 'turn/start' && event.seq > end.seq)
  return next ? next.seq - 1 : (events.at(-1)?.seq ?? end.seq)
}
