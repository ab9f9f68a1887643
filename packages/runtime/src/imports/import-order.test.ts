import { describe, expect, it } from 'vitest'
import { importOrder } from './import-order.js'

const meta = (id: string, forkedFrom?: string) =>
  JSON.stringify({
    type: 'session_meta',
    payload: { id, ...(forkedFrom ? { forked_from_id: forkedFrom, forked_from_ordinal_exclusive: 3 } : {}) },
  })

describe('importOrder', () => {
  it('puts a Codex rollout after the one it was forked from, the rest as given', () => {
    expect(importOrder([meta('c', 'b'), '{"type":"session"}', meta('b', 'a'), meta('a')])).toEqual([
      3, 2, 0, 1,
    ])
    expect(importOrder([meta('a'), meta('b', 'a'), 'not json {', meta('x', 'elsewhere')])).toEqual([
      0, 1, 2, 3,
    ])
  })

  it('takes every file once, whatever the ids say (cycles, duplicates, a fork of itself)', () => {
    expect(importOrder([meta('a', 'b'), meta('b', 'a')]).sort()).toEqual([0, 1])
    expect(importOrder([meta('a', 'a'), meta('a'), meta('a', 'a')])).toEqual([0, 1, 2])
    const chain = Array.from({ length: 5000 }, (_, i) =>
      meta(`s${i}`, i > 0 ? `s${i - 1}` : undefined),
    ).reverse()
    const order = importOrder(chain)
    expect(order[0]).toBe(4999)
    expect(new Set(order).size).toBe(5000)
  })
})
