// The page's polite live region (docs/architecture.md §8, accessibility): a screen reader
// hears when the open session's reply is finished (its first words), when a turn ends in an
// error or is stopped, and each error or notice the Host reports (the banners). Visually hidden; the same news is on
// screen in the transcript and the banners.
import { useEffect, useMemo, useRef, useState } from 'react'
import type { HostState } from './host-state.js'
import { visibleNotices } from './notices-store.js'
import { useHost, useStore } from './use-host.js'
import type { SessionEvent } from './wire.js'

/** How much of a finished reply is read out: enough to know which one, not the whole of it. */
const replyPreviewChars = 160

export function LiveAnnouncer() {
  const store = useStore()
  const openSessionId = useHost((state) => state.openSessionId)
  // Keyed on the open session's last turn/end, not on a running → idle change: live events reach
  // React once a frame, so a short turn can start and end within one update (docs/architecture.md §8).
  const endSeq = useHost(lastTurnEndSeq)
  const allNotices = useHost((state) => state.notices)
  // Only what the banners show: another session's notices are not this one's news.
  const notices = useMemo(() => visibleNotices(allNotices, openSessionId), [allNotices, openSessionId])
  const [message, setMessage] = useState({ text: '', repeat: false })

  // A turn of the open session ended while it was open: announce how.
  const last = useRef({ sessionId: openSessionId, endSeq })
  useEffect(() => {
    const before = last.current
    last.current = { sessionId: openSessionId, endSeq }
    if (before.sessionId !== openSessionId || before.endSeq === null || endSeq === null) return
    if (endSeq <= before.endSeq) return
    const transcript = store.getState().transcript
    if (!transcript || transcript.sessionId !== openSessionId) return
    const text = turnEndAnnouncement(transcript.events)
    if (text !== null) setMessage((previous) => ({ text, repeat: !previous.repeat }))
  }, [openSessionId, endSeq, store])

  // Errors and notices from the Host (the banners), each once.
  const seenNotice = useRef(notices.at(-1)?.id ?? 0)
  useEffect(() => {
    const fresh = notices.filter((notice) => notice.id > seenNotice.current)
    seenNotice.current = Math.max(seenNotice.current, ...notices.map((notice) => notice.id))
    const newest = fresh.at(-1)
    if (!newest) return
    const text = newest.tone === 'error' ? `Error: ${newest.message}` : newest.message
    setMessage((previous) => ({ text, repeat: !previous.repeat }))
  }, [notices])

  return (
    <div className="visually-hidden" role="status" aria-live="polite" data-testid="live-region">
      {/* A repeated message must still change the region's text to be read again. */}
      {message.text}
      {message.repeat ? '\u00a0' : ''}
    </div>
  )
}

/**
 * The seq of the open session's last `turn/end` in its loaded window (-1: none yet), or null while
 * it loads: a turn that ends while the session is open raises it.
 */
export function lastTurnEndSeq(state: HostState): number | null {
  const transcript = state.transcript
  if (!transcript || transcript.loading || transcript.sessionId !== state.openSessionId) return null
  const events = transcript.events
  for (let at = events.length - 1; at >= 0; at--) if (events[at]!.type === 'turn/end') return events[at]!.seq
  return -1
}

/** What to say about the session's last turn end, or null when its log has none. */
export function turnEndAnnouncement(events: readonly SessionEvent[]): string | null {
  const endAt = events.findLastIndex((event) => event.type === 'turn/end')
  const end = events[endAt]
  if (!end) return null
  const data = (end.data ?? {}) as { reason?: unknown; error?: unknown }
  const reason = data.reason
  if (reason === 'error') {
    return `The turn failed: ${typeof data.error === 'string' ? data.error : 'unknown error'}`
  }
  if (reason === 'aborted') return 'The turn was stopped.'
  if (reason === 'interrupted') return 'The turn was interrupted.'
  if (reason === 'max-steps') return 'The turn stopped at its step limit.'
  const reply = lastReplyText(events, endAt)
  if (reply === '') return 'Reply finished.'
  const preview = reply.length > replyPreviewChars ? `${reply.slice(0, replyPreviewChars)}…` : reply
  return `Reply finished: ${preview}`
}

/** The text of the last assistant message before `endAt`, within that turn. */
function lastReplyText(events: readonly SessionEvent[], endAt: number): string {
  for (let at = endAt - 1; at >= 0; at--) {
    const event = events[at]!
    if (event.type === 'turn/start') return ''
    if (event.type !== 'assistant/message') continue
    const content = (event.data as { content?: unknown } | null)?.content
    const parts = Array.isArray(content) ? (content as { type?: unknown; text?: unknown }[]) : []
    const text = parts
      .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
      .join('')
      .trim()
    if (text !== '') return text.replace(/\s+/g, ' ')
  }
  return ''
}
