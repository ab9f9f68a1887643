import { describe, expect, it } from 'vitest'
import { findParentLoops } from './parent-loops.js'

const entries = (pairs: [string, string | null][]) =>
  new Map(pairs.map(([id, parentSession]) => [id, { parentSession }]))

describe('findParentLoops', () => {
  it('flags the loop and the forks that read through it, and lists the loop once', () => {
    const found = findParentLoops(
      entries([
        ['a', 'b'],
        ['b', 'a'],
        ['c', 'a'],
        ['d', null],
        ['e', 'd'],
        ['f', 'gone'],
      ]),
    )
    expect(found.loops).toEqual([['a', 'b']])
    expect(Object.fromEntries(found.loopOf)).toEqual({ a: ['a', 'b'], b: ['a', 'b'], c: ['a', 'b'] })
  })

  it('finds a session that is its own parent', () => {
    expect(findParentLoops(entries([['x', 'x']])).loops).toEqual([['x']])
  })
})
