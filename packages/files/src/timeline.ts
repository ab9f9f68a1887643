// Pure readers of a session log's snapshots: `snapshot/taken` events, and `files/restored`
// events (a restore, or its undo, records the directory it left: it is a snapshot too).
// The tree at a seq, and a session's own timeline (a fork starts with none; its header has
// `baseTree`).
import type { SessionEvent } from '@tangent/core'

export interface TimelineEntry {
  seq: number
  tree: string
  changed: string[]
  skipped: string[]
  /** A turn-start snapshot's paths changed outside the session's turns (never in `changed`). */
  outside?: string[]
}

export interface SessionLike {
  readonly events: readonly SessionEvent[]
  readonly inheritedEventCount: number
}

/** Event types that record the state of a session's directory. */
export const snapshotEventTypes: ReadonlySet<string> = new Set(['snapshot/taken', 'files/restored'])

function snapshotData(event: SessionEvent): Omit<TimelineEntry, 'seq'> | null {
  if (!snapshotEventTypes.has(event.type)) return null
  // Core validated the data when it was appended (`SnapshotTakenData`).
  const data = event.data as { tree: string; changed: string[]; skipped?: string[]; outside?: string[] }
  // Copies: logged data is frozen, and callers may sort what they get.
  return {
    tree: data.tree,
    changed: [...data.changed],
    skipped: [...(data.skipped ?? [])],
    ...(data.outside?.length ? { outside: [...data.outside] } : {}),
  }
}

/** Every snapshot event of `events` with seq in [from, to]. */
export function snapshotsBetween(events: readonly SessionEvent[], from: number, to: number): TimelineEntry[] {
  const entries: TimelineEntry[] = []
  const last = Math.min(to, events.length - 1)
  for (let seq = Math.max(0, from); seq <= last; seq++) {
    const event = events[seq]!
    const data = snapshotData(event)
    if (data) entries.push({ seq: event.seq, ...data })
  }
  return entries
}

/**
 * The tree of the latest snapshot event at or before `seq` (inherited events included),
 * else `baseTree` (the header's tree at the fork point), else null.
 */
export function treeAt(
  events: readonly SessionEvent[],
  seq: number,
  baseTree: string | null = null,
): string | null {
  // Backwards from `seq`: the latest snapshot is usually near the end.
  for (let i = Math.min(seq, events.length - 1); i >= 0; i--) {
    const event = events[i]!
    if (snapshotEventTypes.has(event.type)) return (event.data as { tree: string }).tree
  }
  return baseTree
}

/** The session's own snapshots (seq >= inheritedEventCount), oldest first. */
export function timeline(session: SessionLike): TimelineEntry[] {
  return snapshotsBetween(session.events, session.inheritedEventCount, Number.POSITIVE_INFINITY)
}
