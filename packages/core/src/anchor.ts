// The Host's anchor rules (docs/architecture.md §7, docs/protocol.md `session.fork`): turn a
// message the user clicked into a safe fork boundary. Shared by Host and CLI.
import { TangentError } from './errors.js'
import type { SessionEvent } from './events.js'

export interface ForkAnchor {
  /** A seq inside the wanted turn. Omitted: the last completed turn; past the end: `invalid-boundary`. */
  atSeq?: number | undefined
  /** Fork just before the turn that holds `atSeq` ("edit this message in a new branch"). */
  before?: boolean | undefined
}

/**
 * Returns the inclusive fork boundary for an anchor, or throws:
 * - `fork-unavailable` when `atSeq` is in the log and no `turn/end` follows it
 *   (a running turn), or when the log has no completed turn. Never an earlier turn.
 * - `invalid-boundary` when `atSeq` is not a non-negative integer, is past the end of the log
 *   (`data.lastSeq`: a later point than the log holds would have to become an earlier one), or
 *   with `before` is missing.
 */
export function resolveForkAnchor(events: readonly SessionEvent[], anchor: ForkAnchor = {}): number {
  const { atSeq, before = false } = anchor
  const last = events.length - 1
  if (atSeq !== undefined && (!Number.isInteger(atSeq) || atSeq < 0)) {
    throw new TangentError(
      'invalid-boundary',
      `Invalid anchor seq ${String(atSeq)}: use a seq from 0 to ${last}.`,
      { atSeq, lastSeq: last },
    )
  }
  if (atSeq !== undefined && atSeq > last) {
    throw new TangentError(
      'invalid-boundary',
      `Seq ${atSeq} is past the end of the session (its last seq is ${last}): fork at a seq from 0 to ${last}, or give none for its last completed turn.`,
      { atSeq, lastSeq: last },
    )
  }
  if (before) return boundaryBefore(events, atSeq)

  if (atSeq === undefined) {
    for (let i = last; i >= 0; i--) {
      if (events[i]!.type === 'turn/end') return extendOverStandalone(events, i)
    }
    throw unavailable(atSeq, 'the session has no completed turn yet')
  }
  // The first turn/end at or after the anchor (docs/protocol.md): an anchor between
  // turns belongs to the turn that follows it.
  for (let i = atSeq; i <= last; i++) {
    if (events[i]!.type === 'turn/end') return extendOverStandalone(events, i)
  }
  // No turn/end follows. If no turn started after the last completed one, the anchor
  // stands in the idle tail, which the last completed turn's cut already holds.
  const marker = turnMarkerAtOrBefore(events, last)
  if (marker !== null && events[marker]!.type === 'turn/end') return extendOverStandalone(events, marker)
  if (marker === null) throw unavailable(atSeq, 'the session has no completed turn yet')
  throw unavailable(atSeq, `no turn/end follows seq ${atSeq}: its turn is still running`)
}

function boundaryBefore(events: readonly SessionEvent[], atSeq: number | undefined): number {
  const last = events.length - 1
  if (atSeq === undefined) {
    throw new TangentError(
      'invalid-boundary',
      `"before" needs atSeq: the seq of the message to fork just before (0 to ${last}).`,
      { atSeq: null, lastSeq: last },
    )
  }
  const marker = turnMarkerAtOrBefore(events, atSeq)
  if (marker !== null && events[marker]!.type === 'turn/start') return marker - 1
  // The anchor is the turn/end itself: fork before the turn it closes.
  if (marker === atSeq) return (turnMarkerAtOrBefore(events, atSeq - 1) ?? 0) - 1
  // The anchor is between turns: fork just before it.
  return atSeq - 1
}

/** Seq of the nearest `turn/start` or `turn/end` at or before `seq`, or null. */
function turnMarkerAtOrBefore(events: readonly SessionEvent[], seq: number): number | null {
  for (let i = seq; i >= 0; i--) {
    const type = events[i]!.type
    if (type === 'turn/start' || type === 'turn/end') return i
  }
  return null
}

/** From a `turn/end`, the cut runs over the events that follow it up to the next `turn/start`. */
function extendOverStandalone(events: readonly SessionEvent[], turnEndSeq: number): number {
  let boundary = turnEndSeq
  while (boundary + 1 < events.length && events[boundary + 1]!.type !== 'turn/start') boundary++
  return boundary
}

function unavailable(atSeq: number | undefined, why: string): TangentError {
  return new TangentError('fork-unavailable', `Cannot fork here: ${why}.`, { atSeq: atSeq ?? null })
}
