// From runtime events to notifications for every connection (docs/protocol.md
// "Notifications"): new, changed and deleted sessions, and shared-directory warnings.
// Session events and deltas go only to subscribers (methods/subscriptions.ts).
import type { HostContext } from './host-context.js'

/** Wires notifications; returns the function that unwires them. */
export function wireSessionNotifications(context: HostContext): () => void {
  const { runtime, hub } = context
  const offs = [
    runtime.on('session-created', (session) => hub.broadcast('session.created', { session })),
    runtime.on('session-updated', (session) => hub.broadcast('session.updated', { session })),
    runtime.on('session-deleted', (sessionId) => {
      hub.dropSession(sessionId)
      hub.broadcast('session.deleted', { sessionId })
    }),
    runtime.on('shared-activity', (activity) => hub.broadcast('files.sharedActivity', activity)),
  ]
  return () => {
    for (const off of offs) off()
  }
}
