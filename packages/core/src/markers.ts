// The title, model and mode events of a live session, by seq (docs/architecture.md §4): both store
// engines keep them per session so that a fork's catalog or index entry takes its inherited title,
// model and mode from its parent without reading the parent's log.
import type { SessionEvent, SessionModeData } from './events.js'
import type { StoredModelRef } from './persistence.js'
import type { Session } from './session.js'
import { isSessionModeId, type SessionModeId } from './session-modes.js'

export interface SessionMarkers {
  titles: { seq: number; title: string }[]
  models: { seq: number; model: StoredModelRef }[]
  modes: { seq: number; mode: SessionModeId }[]
}

/**
 * The titles, models and modes among the session's first `count` events, from its event index
 * (indexed types): the index a loaded session builds once also serves its summary's title, model
 * and mode, so a load scans its events for them once, not twice.
 */
export function markersOf(session: Session, count = session.events.length): SessionMarkers {
  const markers: SessionMarkers = { titles: [], models: [], modes: [] }
  for (const seq of session.seqsOfType('session/title')) {
    if (seq >= count) break
    markers.titles.push({ seq, title: (session.events[seq]!.data as { title: string }).title })
  }
  for (const seq of session.seqsOfType('model/selection')) {
    if (seq >= count) break
    markers.models.push({ seq, model: session.events[seq]!.data as StoredModelRef })
  }
  for (const seq of session.seqsOfType('session/mode')) {
    if (seq >= count) break
    // A loaded log is not schema-checked: a mode this version does not know is skipped (Session.mode).
    const mode = (session.events[seq]!.data as Partial<SessionModeData> | null)?.mode
    if (isSessionModeId(mode)) markers.modes.push({ seq, mode })
  }
  return markers
}

/** The markers of the first `count` events (what a fork at that point inherits). */
export function markersBefore(markers: SessionMarkers | undefined, count: number): SessionMarkers {
  return {
    titles: markers?.titles.filter((marker) => marker.seq < count) ?? [],
    models: markers?.models.filter((marker) => marker.seq < count) ?? [],
    modes: markers?.modes.filter((marker) => marker.seq < count) ?? [],
  }
}

/** Records `event` when it is a title, a model choice or a mode; says which (null: none). */
export function noteMarker(
  markers: SessionMarkers | undefined,
  event: SessionEvent,
): { title: string } | { model: StoredModelRef } | { mode: SessionModeId } | null {
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
  if (event.type === 'session/mode') {
    const mode = (event.data as Partial<SessionModeData> | null)?.mode
    if (!isSessionModeId(mode)) return null
    markers?.modes.push({ seq: event.seq, mode })
    return { mode }
  }
  return null
}
