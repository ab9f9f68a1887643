import { describe, expect, it } from 'vitest'
import type { TranscriptState } from './host-state.js'
import { applyDelta, applyLiveEvent, emptyStreaming, mergeEvents } from './session-log.js'
import type { SessionEvent } from './wire.js'

const event = (seq: number, type = 'step/end'): SessionEvent => ({ seq, time: seq, type, data: {} })
const transcript = (count: number): TranscriptState => ({
  sessionId: 's',
  events: Array.from({ length: count }, (_, i) => event(i)),
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
})
