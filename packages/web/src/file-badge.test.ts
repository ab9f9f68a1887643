import { describe, expect, it } from 'vitest'
import { fewOf } from './file-badge.js'

describe('fewOf', () => {
  it('names up to five and says how many more', () => {
    expect(fewOf(['a', 'b'])).toBe('a, b')
    expect(fewOf(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c, d, e')
    const many = Array.from({ length: 10_000 }, (_, i) => `session ${i}`)
    const text = fewOf(many)
    expect(text).toBe('session 0, session 1, session 2, session 3, session 4 and 9995 more')
    expect(text.length).toBeLessThan(100)
  })
})
