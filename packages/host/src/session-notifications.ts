// From store events to notifications: every appended event goes to the session's
// subscribers at once (synchronously, so in seq order); summary changes and new sessions
// go to every connection; a second turn in one directory raises files.sharedActivity.
import type { SessionEvent } from '@tangent/core'
import type { HostContext } from './host-context.js'
import { toSessionSummary } from './session-summary.js'
import { sessionsRunningIn } from './shared-activity.js'

/** Event types that change what a SessionSummary shows (status, title, model). */
const summaryEventTypes: ReadonlySet<string> = new Set([
  'turn/start',
  'turn/end',
  'session/title',
  'model/selection',
])

/** Wires notifications; returns the function that unwires them. */
export function wireSessionNotifications(context: HostContext): () => void {
  const { persistence, hub } = context
  const store = persistence.store
  // Per session, announcements run one after another, so the last one sent is the newest.
  const queues = new Map<string, Promise<void>>()

  const announce = (sessionId: string, method: 'session.created' | 'session.updated') => {
    const previous = queues.get(sessionId) ?? Promise.resolve()
    const next = previous
      .then(async () => {
        if (hub.size === 0) return
        const entry = await persistence.get(sessionId)
        const live = store.get(sessionId)
        if (!entry && !live) return // deleted meanwhile
        hub.broadcast(method, { session: toSessionSummary(entry, live) })
      })
      .catch(context.report)
      .finally(() => {
        if (queues.get(sessionId) === next) queues.delete(sessionId)
      })
    queues.set(sessionId, next)
  }

  const offCreated = store.on('created', (session, via) => {
    if (via !== 'load') announce(session.id, 'session.created')
  })
  const offAppended = store.on('appended', (session, event: SessionEvent) => {
    hub.notifySubscribers(session.id, 'session.event', { sessionId: session.id, event })
    if (summaryEventTypes.has(event.type)) announce(session.id, 'session.updated')
    if (event.type === 'turn/start') {
      const cwd = session.header.cwd
      const running = sessionsRunningIn(store, cwd)
      if (running.length >= 2) hub.broadcast('files.sharedActivity', { cwd, sessionIds: running })
    }
  })
  return () => {
    offCreated()
    offAppended()
  }
}

/** Announces a summary change made outside the log (archive, a materialized child). */
export function announceUpdated(context: HostContext, sessionId: string): void {
  const { persistence, hub } = context
  void persistence
    .get(sessionId)
    .then((entry) => {
      const live = persistence.store.get(sessionId)
      if (entry || live) hub.broadcast('session.updated', { session: toSessionSummary(entry, live) })
    })
    .catch(context.report)
}
