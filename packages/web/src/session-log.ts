// The open session's log as the browser keeps it: dense seqs (events[i].seq === i), fed by
// `session.get` and live `session.event`s, plus the text streamed by the running step.
// Pure functions, so the ordering rules are tested without a Host.
import type { TranscriptState } from './host-state.js'
import type { SessionEvent } from './wire.js'

/** Appends the events that continue the log (by seq); drops duplicates, stops at a gap. */
export function mergeEvents(events: readonly SessionEvent[], more: Iterable<SessionEvent>): SessionEvent[] {
  const merged = events.filter((event, index) => event.seq === index)
  for (const event of more) if (event.seq === merged.length) merged.push(event)
  return merged
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
  if (event.seq < transcript.events.length) return 'duplicate'
  if (event.seq > transcript.events.length) return 'gap'
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
        : { ...s, toolInput: s.toolInput + text }
  return { ...transcript, streaming }
}

export const emptyStreaming: TranscriptState['streaming'] = { text: '', reasoning: '', toolInput: '' }
