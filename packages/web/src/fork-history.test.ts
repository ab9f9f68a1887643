import { describe, expect, it } from 'vitest'
import { forkBoundary, forkHistory } from './fork-history.js'
import type { SessionEvent } from './wire.js'

function log(...types: string[]): SessionEvent[] {
  return types.map((type, seq) => ({
    seq,
    time: seq,
    type,
    data: type === 'context/compacted' ? { throughSeq: 5 } : {},
  }))
}

// Three turns; a manual compaction (seq 6) after the second, then the third turn.
const events = log(
  'turn/start', // 0
  'user/message',
  'turn/end', // 2
  'turn/start', // 3
  'user/message',
  'turn/end', // 5
  'context/compacted', // 6
  'turn/start', // 7
  'user/message',
  'turn/end', // 9
)

describe('forkHistory', () => {
  it('follows the anchor rules: the cut runs on over what follows a turn to the next turn', () => {
    expect(forkBoundary(events, {})).toBe(9)
    expect(forkBoundary(events, { atSeq: 1 })).toBe(2)
    expect(forkBoundary(events, { atSeq: 4 })).toBe(6)
    expect(forkBoundary(events, { atSeq: 8, before: true })).toBe(6)
    expect(forkBoundary(events, { atSeq: 1, before: true })).toBe(-1)
  })

  it('says whether the fork keeps the full history or starts from the summary', () => {
    expect(forkHistory(events, { atSeq: 1 })).toEqual({ kind: 'full', compactionSeq: 6 })
    expect(forkHistory(events, { atSeq: 4 })).toEqual({ kind: 'summary', compactionSeq: 6 })
    expect(forkHistory(events, {})).toEqual({ kind: 'summary', compactionSeq: 6 })
    expect(forkHistory(events.slice(0, 6), {})).toBeNull()
  })
})
