import { describe, expect, it } from 'vitest'
import { titleFromMessage } from './store-helpers.js'

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
