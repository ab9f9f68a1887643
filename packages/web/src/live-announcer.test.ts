import { describe, expect, it } from 'vitest'
import { initialHostState } from './host-state.js'
import { lastTurnEndSeq, turnEndAnnouncement } from './live-announcer.js'
import type { SessionEvent } from './wire.js'

let seq = 0
const event = (type: string, data: unknown): SessionEvent => ({ seq: seq++, time: 0, type, data })
const reply = (text: string) => event('assistant/message', { content: [{ type: 'text', text }] })

describe('turnEndAnnouncement', () => {
  it('reads the start of the reply that ended the turn', () => {
    const events = [
      event('turn/start', {}),
      reply('first step, not this'),
      event('tool/result', {}),
      reply('Done:\n  wrote   the file.'),
      event('turn/end', { reason: 'completed' }),
    ]
    expect(turnEndAnnouncement(events)).toBe('Reply finished: Done: wrote the file.')
    const long = [event('turn/start', {}), reply('x'.repeat(500)), event('turn/end', { reason: 'completed' })]
    expect(turnEndAnnouncement(long)).toBe(`Reply finished: ${'x'.repeat(160)}…`)
  })

  it('never reads an earlier turn’s reply, and says how a turn ended otherwise', () => {
    const earlier = [event('turn/start', {}), reply('old'), event('turn/end', { reason: 'completed' })]
    expect(
      turnEndAnnouncement([...earlier, event('turn/start', {}), event('turn/end', { reason: 'completed' })]),
    ).toBe('Reply finished.')
    const ended = (data: unknown) => turnEndAnnouncement([event('turn/start', {}), event('turn/end', data)])
    expect(ended({ reason: 'error', error: 'provider said no' })).toBe('The turn failed: provider said no')
    expect(ended({ reason: 'aborted' })).toBe('The turn was stopped.')
    expect(ended({ reason: 'max-steps' })).toBe('The turn stopped at its step limit.')
    expect(turnEndAnnouncement([event('turn/start', {})])).toBe(null)
  })
})

describe('lastTurnEndSeq', () => {
  const stateWith = (events: SessionEvent[], loading = false) => ({
    ...initialHostState('s'),
    transcript: {
      sessionId: 's',
      events,
      firstSeq: events[0]?.seq ?? 0,
      loading,
      streaming: { text: '', reasoning: '', toolInput: '' },
    },
  })

  it("is the seq of the open session's last turn/end, -1 before any, null while it loads", () => {
    seq = 0
    const start = [event('turn/start', {}), event('user/message', {})]
    expect(lastTurnEndSeq(stateWith(start) as never)).toBe(-1)
    const ended = [...start, reply('hi'), event('turn/end', { reason: 'completed' })]
    expect(lastTurnEndSeq(stateWith(ended) as never)).toBe(3)
    // A whole turn arriving in one update (both ends in one frame) still raises it.
    const twice = [
      ...ended,
      event('turn/start', {}),
      reply('again'),
      event('turn/end', { reason: 'completed' }),
    ]
    expect(lastTurnEndSeq(stateWith(twice) as never)).toBe(6)
    expect(lastTurnEndSeq(stateWith(twice, true) as never)).toBeNull()
  })
})
