// How a session's last turn went, for `tangent sessions` (issue 28: a failed session must not
// look like a good one): read from the tail of each listed session's log.
import type { Backend, SessionEvent, SessionSummary } from './backend.js'

/**
 * `running` and `needs-approval` for a turn in progress; else how the last turn ended: `ok`
 * (completed), `failed` (error), `aborted` (aborted, or interrupted by a stopped process),
 * `max-steps`; `new` when no turn ran yet.
 */
export type LastStatus = 'running' | 'needs-approval' | 'ok' | 'failed' | 'aborted' | 'max-steps' | 'new'

/** How many of a log's last events are read to find its last turn's end. */
const tailEvents = 40
/** Logs read at once. */
const concurrency = 8
/**
 * Past this many sessions only the most recently updated are read (a data dir of thousands of
 * sessions still lists at once); the others get no `lastStatus` unless running.
 */
export const maxStatusReads = 500

export async function lastStatuses(
  backend: Backend,
  sessions: readonly SessionSummary[],
): Promise<Map<string, LastStatus>> {
  const statuses = new Map<string, LastStatus>()
  const toRead = [...sessions]
    .filter((session) => session.parentLoop === undefined)
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .slice(0, maxStatusReads)
  let next = 0
  const worker = async () => {
    for (let at = next++; at < toRead.length; at = next++) {
      const session = toRead[at]!
      try {
        const own = session.eventCount - session.inheritedEventCount
        const fromSeq = Math.max(session.inheritedEventCount, session.eventCount - Math.min(own, tailEvents))
        // Without usage: a session only on disk is then read for its tail alone, not loaded
        // whole (a 100 MB imported log lists as fast as a small one).
        const { events } = await backend.getSession(session.id, fromSeq, { usage: false })
        statuses.set(session.id, statusOf(session, events))
      } catch {
        // Unreadable (damaged, deleted meanwhile): `tangent show` says why.
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  for (const session of sessions)
    if (!statuses.has(session.id) && session.status === 'running') statuses.set(session.id, 'running')
  return statuses
}

/** The status the tail of a session's own events shows (`session.status` for a running turn). */
export function statusOf(session: Pick<SessionSummary, 'status'>, tail: readonly SessionEvent[]): LastStatus {
  if (session.status === 'running') {
    const waiting = new Set<string>()
    for (const event of tail) {
      const callId = (event.data as { callId?: unknown } | null)?.callId
      if (typeof callId !== 'string') continue
      if (event.type === 'permission/requested') waiting.add(callId)
      else if (event.type === 'permission/answered') waiting.delete(callId)
    }
    return waiting.size > 0 ? 'needs-approval' : 'running'
  }
  for (let at = tail.length - 1; at >= 0; at--) {
    const event = tail[at]!
    if (event.type !== 'turn/end') continue
    const reason = (event.data as { reason?: unknown } | null)?.reason
    if (reason === 'completed') return 'ok'
    if (reason === 'error') return 'failed'
    if (reason === 'max-steps') return 'max-steps'
    return 'aborted'
  }
  return tail.some((event) => event.type === 'turn/start') ? 'aborted' : 'new'
}
