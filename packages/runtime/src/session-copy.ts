// Writing a session that comes from elsewhere (docs/architecture.md §4, "Moving in and out"): as a
// fork of its parent when the parent is here (by reference: its own events only), else as a root
// with every event. `tangent migrate` (migrate.ts) and bundle imports (bundle.ts) both write so.
import type { Session, SessionEvent, SessionMeta, SessionStore } from '@tangent/core'

export interface SessionCopy {
  id: string
  meta: SessionMeta
  /** The parent here and the seq the copy forks at; absent: a root. */
  parent?: { session: Session; forkedAt: number } | undefined
  /** Events by seq; those from `parent.forkedAt + 1` (or 0 for a root) are appended, times kept. */
  events: readonly Pick<SessionEvent, 'type' | 'data' | 'time'>[]
  /** Where `events[0]` sits in the session (0 when `events` is the whole log). */
  firstSeq?: number
}

/** Creates the copy in `store` and appends its own events (the grammar and schemas check each). */
/** `onCreated` hears the session once it exists, before its events (a caller that rolls back needs it). */
export function writeSessionCopy(
  store: SessionStore,
  copy: SessionCopy,
  onCreated?: (session: Session) => void,
): Session {
  const session = copy.parent
    ? store.fork(copy.parent.session, copy.parent.forkedAt, copy.id, { meta: copy.meta })
    : store.create(copy.id, { meta: copy.meta })
  onCreated?.(session)
  const firstSeq = copy.firstSeq ?? 0
  for (let seq = session.events.length; seq - firstSeq < copy.events.length; seq++) {
    const event = copy.events[seq - firstSeq]!
    session.append(event.type, event.data, event.time)
  }
  return session
}
