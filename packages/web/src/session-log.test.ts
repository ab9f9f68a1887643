import { describe, expect, it } from 'vitest'
import type { TranscriptState } from './host-state.js'
import {
  applyDelta,
  applyLiveEvent,
  emptyStreaming,
  fromTurnStart,
  mergeEvents,
  prependEvents,
} from './session-log.js'
import type { SessionEvent } from './wire.js'

const event = (seq: number, type = 'step/end'): SessionEvent => ({ seq, time: seq, type, data: {} })
const transcript = (count: number): TranscriptState => ({
  sessionId: 's',
  events: Array.from({ length: count }, (_, i) => event(i)),
  firstSeq: 0,
  loading: false,
  streaming: emptyStreaming,
})

describe('session log', () => {
  it('merges by seq: no duplicates, no events past a gap', () => {
    const merged = mergeEvents([event(0), event(1)], [event(1), event(2), event(4), event(3)])
    expect(merged.map((e) => e.seq)).toEqual([0, 1, 2, 3])
  })

  it('appends the next live event, ignores duplicates and reports gaps', () => {
    const base = transcript(3)
    expect(applyLiveEvent(base, event(1))).toBe('duplicate')
    expect(applyLiveEvent(base, event(5))).toBe('gap')
    const next = applyLiveEvent(base, event(3))
    expect(next !== 'gap' && next !== 'duplicate' && next.events.length).toBe(4)
  })

  it('keeps streamed text until the step lands, then drops it', () => {
    let state = applyDelta(applyDelta(transcript(2), 'text', 'Hel'), 'text', 'lo')
    state = applyDelta(state, 'reasoning', 'hmm')
    expect(state.streaming).toEqual({ text: 'Hello', reasoning: 'hmm', toolInput: '' })
    const kept = applyLiveEvent(state, event(2, 'snapshot/taken'))
    expect(typeof kept !== 'string' && kept.streaming.text).toBe('Hello')
    const landed = applyLiveEvent(state, event(2, 'assistant/message'))
    expect(typeof landed !== 'string' && landed.streaming).toEqual(emptyStreaming)
  })

  it('keeps a window that starts later (tail first): appends after its end, prepends a page that meets its start', () => {
    const window: TranscriptState = { ...transcript(0), firstSeq: 10, events: [event(10), event(11)] }
    expect(applyLiveEvent(window, event(11))).toBe('duplicate')
    expect(applyLiveEvent(window, event(13))).toBe('gap')
    const next = applyLiveEvent(window, event(12))
    expect(typeof next !== 'string' && next.events.map((e) => e.seq)).toEqual([10, 11, 12])
    expect(mergeEvents(window.events, [event(12), event(14)], 10).map((e) => e.seq)).toEqual([10, 11, 12])
    const grown = prependEvents(window, [event(8), event(9)])
    expect(grown?.firstSeq).toBe(8)
    expect(grown?.events.map((e) => e.seq)).toEqual([8, 9, 10, 11])
    // A page that does not meet the window, or has a hole, is refused.
    expect(prependEvents(window, [event(7), event(8)])).toBe(null)
    expect(prependEvents(window, [event(7), event(9)])).toBe(null)
  })

  it('starts a page inside the log at its first turn, unless it has none', () => {
    const page = [
      event(5, 'tool/result'),
      event(6, 'turn/end'),
      event(7, 'turn/start'),
      event(8, 'user/message'),
    ]
    expect(fromTurnStart(page).map((e) => e.seq)).toEqual([7, 8])
    expect(fromTurnStart(page.slice(0, 2))).toHaveLength(2)
    const whole = [event(0, 'session/title'), event(1, 'turn/start')]
    expect(fromTurnStart(whole)).toBe(whole)
  })
})
