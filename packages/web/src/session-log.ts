// The open session's log as the browser keeps it: a window of dense seqs (events[i].seq ===
// firstSeq + i) that reaches the end of the log, fed by `session.get` (tail first, older pages
// before it) and live `session.event`s, plus the text streamed by the running step.
// Pure functions, so the ordering rules are tested without a Host.
import type { TranscriptState } from './host-state.js'
import type { SessionEvent } from './wire.js'

/**
 * Appends the events that continue the log (by seq) to a window starting at `firstSeq`; drops
 * duplicates, stops at a gap.
 */
export function mergeEvents(
  events: readonly SessionEvent[],
  more: Iterable<SessionEvent>,
  firstSeq = 0,
): SessionEvent[] {
  const merged = events.filter((event, index) => event.seq === firstSeq + index)
  for (const event of more) if (event.seq === firstSeq + merged.length) merged.push(event)
  return merged
}

/**
 * A page that starts inside the log, trimmed to its first `turn/start`, so the window starts
 * with a whole turn (its start is what an older page meets). A page without one (a single
 * turn longer than the page) is kept whole.
 */
export function fromTurnStart(events: readonly SessionEvent[]): readonly SessionEvent[] {
  if ((events[0]?.seq ?? 0) === 0) return events
  const start = events.findIndex((event) => event.type === 'turn/start')
  return start > 0 ? events.slice(start) : events
}

/** The seq after the window's last event (where a subscription or a catch-up continues). */
export function endSeqOf(transcript: TranscriptState): number {
  return transcript.firstSeq + transcript.events.length
}

/**
 * The window grown by an older page (`session.get {beforeSeq: firstSeq, last}`): null unless
 * the page ends exactly where the window starts and is dense.
 */
export function prependEvents(
  transcript: TranscriptState,
  older: readonly SessionEvent[],
): TranscriptState | null {
  const first = older[0]
  if (!first || first.seq + older.length !== transcript.firstSeq) return null
  if (older.some((event, index) => event.seq !== first.seq + index)) return null
  return { ...transcript, firstSeq: first.seq, events: [...older, ...transcript.events] }
}

/**
 * One live event: the next transcript, `'duplicate'` when it is already there, `'gap'` when
 * events before it are missing (the caller fetches them). The final `assistant/message` of a
 * step (or the step's or turn's end) replaces the streamed text.
 */
export function applyLiveEvent(
  transcript: TranscriptState,
  event: SessionEvent,
): TranscriptState | 'duplicate' | 'gap' {
  const end = endSeqOf(transcript)
  if (event.seq < end) return 'duplicate'
  if (event.seq > end) return 'gap'
  const endsStream =
    event.type === 'assistant/message' || event.type === 'step/start' || event.type === 'turn/end'
  return {
    ...transcript,
    events: [...transcript.events, event],
    streaming: endsStream ? emptyStreaming : transcript.streaming,
  }
}

export function applyDelta(transcript: TranscriptState, kind: string, text: string): TranscriptState {
  const s = transcript.streaming
  const streaming =
    kind === 'text'
      ? { ...s, text: s.text + text }
      : kind === 'reasoning'
        ? { ...s, reasoning: s.reasoning + text }
        : kind === 'tool-input'
          ? { ...s, toolInput: s.toolInput + text }
          : s
  return { ...transcript, streaming }
}

export const emptyStreaming: TranscriptState['streaming'] = { text: '', reasoning: '', toolInput: '' }
