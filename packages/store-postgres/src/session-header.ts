// A session's header as the `sessions` row keeps it (jsonb), and the title and model markers
// a fork's index entry inherits (docs/architecture.md §4).
import type { Session, SessionEvent, SessionOrigin, StoredModelRef } from '@tangent/core'

/** Title and model events of a live session, by seq: a fork reads its inherited values here. */
export interface Markers {
  titles: { seq: number; title: string }[]
  models: { seq: number; model: StoredModelRef }[]
}

export function markersOf(events: readonly SessionEvent[]): Markers {
  const markers: Markers = { titles: [], models: [] }
  for (const event of events) {
    if (event.type === 'session/title')
      markers.titles.push({ seq: event.seq, title: (event.data as { title: string }).title })
    else if (event.type === 'model/selection')
      markers.models.push({ seq: event.seq, model: event.data as StoredModelRef })
  }
  return markers
}

/** The markers of the first `count` events. */
export function markersBefore(markers: Markers | undefined, count: number): Markers {
  return {
    titles: markers?.titles.filter((marker) => marker.seq < count) ?? [],
    models: markers?.models.filter((marker) => marker.seq < count) ?? [],
  }
}

/** The stored header: the session's header without what is derived at load (`isSeeded`). */
export function storedHeaderOf(session: Session): Record<string, unknown> {
  const header: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(session.header))
    if (key !== 'isSeeded' && value !== undefined) header[key] = value
  return header
}

/** The meta and lineage to hand `SessionStore.create` when loading a stored header. */
export function createOptionsOf(header: Record<string, unknown>): {
  meta: Record<string, unknown> & { cwd: string; createdAt: number; origin: SessionOrigin }
  lineage: { parentSession?: string; forkedAt?: number; inheritedEventCount: number }
} {
  const { id: _id, isSeeded: _isSeeded, parentSession, forkedAt, inheritedEventCount, ...rest } = header
  const meta = rest as Record<string, unknown> & { cwd: string; createdAt: number; origin: SessionOrigin }
  const lineage: { parentSession?: string; forkedAt?: number; inheritedEventCount: number } = {
    inheritedEventCount: typeof inheritedEventCount === 'number' ? inheritedEventCount : 0,
  }
  if (typeof parentSession === 'string') lineage.parentSession = parentSession
  if (typeof forkedAt === 'number') lineage.forkedAt = forkedAt
  return { meta, lineage }
}
