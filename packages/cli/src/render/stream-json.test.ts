import { describe, expect, it } from 'vitest'
import type { SessionEvent, TurnDelta } from '../backend.js'
import { StreamJsonLines } from './stream-json.js'

function capture() {
  const chunks: string[] = []
  const seen: string[] = []
  const out = { write: (chunk: string) => chunks.push(chunk) > 0 }
  const next = {
    onEvent: (event: SessionEvent) => seen.push(`event ${event.seq}`),
    onDelta: (delta: TurnDelta) => seen.push(`delta ${delta.text}`),
  }
  return { chunks, seen, lines: new StreamJsonLines(out, next) }
}

const event = (seq: number, type: string, extra: Record<string, unknown> = {}) =>
  ({ seq, time: 1000 + seq, type, data: { n: seq }, ...extra }) as SessionEvent

describe('StreamJsonLines', () => {
  it('writes each event as one whole line of its four fields, and passes everything on', () => {
    const { chunks, seen, lines } = capture()
    lines.onEvent(event(2, 'turn/start', { sessionId: 'not-a-log-field' }))
    lines.onDelta({ kind: 'text', text: 'hel' })
    lines.onEvent(event(3, 'turn/end'))
    expect(chunks).toEqual([
      '{"seq":2,"time":1002,"type":"turn/start","data":{"n":2}}\n',
      '{"seq":3,"time":1003,"type":"turn/end","data":{"n":3}}\n',
    ])
    expect(seen).toEqual(['event 2', 'delta hel', 'event 3'])
  })

  it('writes nothing before the turn/start nor after the turn/end (another client may append), then the result line', () => {
    const { chunks, seen, lines } = capture()
    lines.onEvent(event(3, 'session/title'))
    lines.onEvent(event(4, 'turn/start'))
    lines.onEvent(event(5, 'turn/end'))
    lines.onEvent(event(6, 'session/title'))
    lines.onEvent(event(7, 'turn/start'))
    lines.result({ sessionId: 's1', turnEndSeq: 5, reason: 'completed', text: 'hi' })
    expect(chunks.map((chunk) => JSON.parse(chunk))).toEqual([
      { seq: 4, time: 1004, type: 'turn/start', data: { n: 4 } },
      { seq: 5, time: 1005, type: 'turn/end', data: { n: 5 } },
      { type: 'result', sessionId: 's1', turnEndSeq: 5, reason: 'completed', text: 'hi' },
    ])
    expect(seen).toEqual(['event 3', 'event 4', 'event 5', 'event 6', 'event 7'])
  })
})
