import { describe, expect, it } from 'vitest'
import { commonAncestor, lineageOf } from './compare-sessions.js'

// A ← B (at 5) ← C (at 9); A ← D (at 3); E alone.
const parents: Record<string, { parentSession: string | null; forkedAt: number | null }> = {
  A: { parentSession: null, forkedAt: null },
  B: { parentSession: 'A', forkedAt: 5 },
  C: { parentSession: 'B', forkedAt: 9 },
  D: { parentSession: 'A', forkedAt: 3 },
  E: { parentSession: null, forkedAt: null },
}
const source = { parentOf: async (id: string) => parents[id]! }

async function compare(a: string, b: string) {
  return commonAncestor(await lineageOf(a, source), await lineageOf(b, source))
}

describe('commonAncestor', () => {
  it('finds the nearest shared session and the last shared seq', async () => {
    expect(await compare('C', 'B')).toEqual({ ancestor: 'B', forkSeq: 9 })
    expect(await compare('C', 'D')).toEqual({ ancestor: 'A', forkSeq: 3 })
    expect(await compare('B', 'C')).toEqual({ ancestor: 'B', forkSeq: 9 })
    expect(await compare('C', 'A')).toEqual({ ancestor: 'A', forkSeq: 5 })
  })

  it('says null for unrelated sessions', async () => {
    expect(await compare('C', 'E')).toEqual({ ancestor: null, forkSeq: null })
  })
})
