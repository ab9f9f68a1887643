import { describe, expect, it } from 'vitest'
import { hashTarget, titleFromMessage } from './store-helpers.js'

describe('titleFromMessage', () => {
  it('keeps a short first line as it is', () => {
    expect(titleFromMessage('  Fix the parser\nwith details below')).toBe('Fix the parser')
  })
  it('cuts a long line at a word boundary and marks the cut', () => {
    const title = titleFromMessage(
      'Refactor the session store so that forks share their prefix without copying any events at all',
    )
    expect(title.length).toBeLessThanOrEqual(61)
    expect(title.endsWith('…')).toBe(true)
    expect(title).toBe('Refactor the session store so that forks share their prefix…')
  })
})

describe('hashTarget', () => {
  it('reads a session and, with &seq=, one of its events', () => {
    expect(hashTarget('#session=abc')).toEqual({ sessionId: 'abc', seq: null })
    expect(hashTarget('#session=abc&seq=120')).toEqual({ sessionId: 'abc', seq: 120 })
    expect(hashTarget('#session=abc&seq=x')).toBe(null)
    expect(hashTarget('#other')).toBe(null)
  })
})
