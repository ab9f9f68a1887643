// The title and model events of a live session, by seq (docs/architecture.md §4): both store
// engines keep them per session so that a fork's catalog or index entry takes its inherited title
// and model from its parent without reading the parent's log.
import type { SessionEvent } from './events.js'
import type { StoredModelRef } from './persistence.js'
import type { Session } from './session.js'

export interface SessionMarkers {
  titles: { seq: number; title: string }[]
  models: { seq: number; model: StoredModelRef }[]
}

/**
 * The titles and models among the session's first `count` events, from its event index (titles
 * and models are indexed types): the index a loaded session builds once also serves its summary's
 * title and model, so a load scans its events for them once, not twice.
 */
export function markersOf(session: Session, count = session.events.length): SessionMarkers {
  const markers: SessionMarkers = { titles: [], models: [] }
  for (const seq of session.seqsOfType('session/title')) {
    if (seq >= count) break
    markers.titles.push({ seq, title: (session.events[seq]!.data as { title: string }).title })
  }
  for (const seq of session.seqsOfType('model/selection')) {
    if (seq >= count) break
    markers.models.push({ seq, model: session.events[seq]!.data as StoredModelRef })
  }
  return markers
}

/** The markers of the first `count` events (what a fork at that point inherits). */
export function markersBefore(markers: SessionMarkers | undefined, count: number): SessionMarkers {
  return {
    titles: markers?.titles.filter((marker) => marker.seq < count) ?? [],
    models: markers?.models.filter((marker) => marker.seq < count) ?? [],
  }
}

/** Records `event` when it is a title or a model choice; says which (null: neither). */
export function noteMarker(
  markers: SessionMarkers | undefined,
  event: SessionEvent,
): { title: string } | { model: StoredModelRef } | null {
  if (event.type === 'session/title') {
    const title = (event.data as { title: string }).title
    markers?.titles.push({ seq: event.seq, title })
    return { title }
  }
  if (event.type === 'model/selection') {
    const model = event.data as StoredModelRef
    markers?.models.push({ seq: event.seq, model })
    return { model }
  }
  return null
}
