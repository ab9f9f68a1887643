import { describe, expect, it } from 'vitest'
import { forkPointLabel, isInheritedTitle, titleOf } from './session-display.js'

describe('session display', () => {
  it('titles an untitled session by the end of its id', () => {
    expect(titleOf({ title: '  ', id: 'abcdef123456' })).toBe('Untitled 3456')
    expect(titleOf({ title: 'Plan', id: 'x' })).toBe('Plan')
    expect(titleOf(undefined)).toBe('')
  })

  it('labels the fork point', () => {
    expect(forkPointLabel('p', 12)).toBe('from #12')
    expect(forkPointLabel('p', -1)).toBe('from start')
    expect(forkPointLabel(null, 3)).toBeNull()
  })

  it('knows a fork title the branch got from its parent', () => {
    const parent = { title: 'Fix the parser', id: '01HXYZABCDEF' }
    expect(isInheritedTitle('Fix the parser', parent)).toBe(true)
    expect(isInheritedTitle('Fix the parser · fork 1', parent)).toBe(true)
    expect(isInheritedTitle('Fix the parser · fork 12', parent)).toBe(true)
    expect(isInheritedTitle('Fix the parser · fork one', parent)).toBe(false)
    expect(isInheritedTitle('Keep one parser', parent)).toBe(false)
    expect(isInheritedTitle('Session ABCDEF · fork 2', { title: '', id: '01HXYZABCDEF' })).toBe(true)
  })
})
