import { asSeq, type SessionEvent } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { timeline, treeAt } from './timeline.js'

function event(seq: number, type: string, data: unknown): SessionEvent {
  return { seq: asSeq(seq), time: 0, type, data }
}

const events: SessionEvent[] = [
  event(0, 'turn/start', {}),
  event(1, 'snapshot/taken', { tree: 'inherited', changed: ['a'] }),
  event(2, 'turn/end', { reason: 'completed' }),
  event(3, 'turn/start', {}),
  event(4, 'snapshot/taken', { tree: 'own-1', changed: ['b'], skipped: ['big.bin'] }),
  event(5, 'snapshot/taken', { tree: 'own-2', changed: ['c'] }),
  event(6, 'turn/end', { reason: 'completed' }),
]

describe('treeAt', () => {
  it('returns the latest snapshot tree at or before seq', () => {
    expect(treeAt(events, 1)).toBe('inherited')
    expect(treeAt(events, 3)).toBe('inherited')
    expect(treeAt(events, 4)).toBe('own-1')
    expect(treeAt(events, 100)).toBe('own-2')
  })

  it('falls back to baseTree, else null, before any snapshot', () => {
    expect(treeAt(events, 0, 'base')).toBe('base')
    expect(treeAt(events, 0)).toBeNull()
  })
})

describe('timeline', () => {
  it('lists only the session own snapshots (seq >= inheritedEventCount)', () => {
    expect(timeline({ events, inheritedEventCount: 3 })).toEqual([
      { seq: 4, tree: 'own-1', changed: ['b'], skipped: ['big.bin'] },
      { seq: 5, tree: 'own-2', changed: ['c'], skipped: [] },
    ])
    expect(timeline({ events, inheritedEventCount: 7 })).toEqual([])
    expect(timeline({ events, inheritedEventCount: 0 }).map((entry) => entry.seq)).toEqual([1, 4, 5])
  })
})
