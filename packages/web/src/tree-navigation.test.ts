import { describe, expect, it } from 'vitest'
import { parentIndex, type TreeNavItem, treeKeyAction, treePositions, typeAhead } from './tree-navigation.js'

// workspace "alpha" (open) > "parser" (open, 2 forks) > "parser fork", "plan"; "beta" (collapsed)
const items: TreeNavItem[] = [
  { level: 1, expandable: true, expanded: true, label: 'alpha' },
  { level: 2, expandable: true, expanded: true, label: 'parser' },
  { level: 3, expandable: false, expanded: false, label: 'parser fork' },
  { level: 3, expandable: false, expanded: false, label: 'plan' },
  { level: 2, expandable: false, expanded: false, label: 'notes' },
  { level: 1, expandable: true, expanded: false, label: 'beta' },
]

describe('treeKeyAction', () => {
  it('moves with Up/Down (stopping at the ends), Home and End', () => {
    expect(treeKeyAction(items, 2, { key: 'ArrowDown' })).toEqual({ kind: 'move', index: 3 })
    expect(treeKeyAction(items, 5, { key: 'ArrowDown' })).toEqual({ kind: 'move', index: 5 })
    expect(treeKeyAction(items, 0, { key: 'ArrowUp' })).toEqual({ kind: 'move', index: 0 })
    expect(treeKeyAction(items, 3, { key: 'Home' })).toEqual({ kind: 'move', index: 0 })
    expect(treeKeyAction(items, 1, { key: 'End' })).toEqual({ kind: 'move', index: 5 })
  })

  it('Right opens a closed row, then goes to its first child; Left closes, then goes to the parent', () => {
    expect(treeKeyAction(items, 5, { key: 'ArrowRight' })).toEqual({ kind: 'expand' })
    expect(treeKeyAction(items, 1, { key: 'ArrowRight' })).toEqual({ kind: 'move', index: 2 })
    expect(treeKeyAction(items, 4, { key: 'ArrowRight' })).toBe(null)
    expect(treeKeyAction(items, 1, { key: 'ArrowLeft' })).toEqual({ kind: 'collapse' })
    expect(treeKeyAction(items, 3, { key: 'ArrowLeft' })).toEqual({ kind: 'move', index: 1 })
    expect(treeKeyAction(items, 4, { key: 'ArrowLeft' })).toEqual({ kind: 'move', index: 0 })
    expect(treeKeyAction(items, 5, { key: 'ArrowLeft' })).toBe(null)
  })

  it('Enter and Space activate; Shift+F10 and the menu key open the menu; F2 renames; + starts a session', () => {
    expect(treeKeyAction(items, 2, { key: 'Enter' })).toEqual({ kind: 'activate' })
    expect(treeKeyAction(items, 2, { key: ' ' })).toEqual({ kind: 'activate' })
    expect(treeKeyAction(items, 2, { key: 'F10', shiftKey: true })).toEqual({ kind: 'menu' })
    expect(treeKeyAction(items, 2, { key: 'F10' })).toBe(null)
    expect(treeKeyAction(items, 2, { key: 'ContextMenu' })).toEqual({ kind: 'menu' })
    expect(treeKeyAction(items, 2, { key: 'F2' })).toEqual({ kind: 'rename' })
    expect(treeKeyAction(items, 2, { key: '+' })).toEqual({ kind: 'new-session' })
  })

  it('leaves Tab and shortcuts with modifiers to the browser', () => {
    expect(treeKeyAction(items, 2, { key: 'Tab' })).toBe(null)
    expect(treeKeyAction(items, 2, { key: 'ArrowDown', ctrlKey: true })).toBe(null)
    expect(treeKeyAction(items, 2, { key: 'p', metaKey: true }, 'p')).toBe(null)
  })

  it('type-ahead finds the next row starting with the typed text, wrapping around', () => {
    expect(treeKeyAction(items, 0, { key: 'p' }, 'p')).toEqual({ kind: 'move', index: 1 })
    expect(treeKeyAction(items, 4, { key: 'p' }, 'p')).toEqual({ kind: 'move', index: 1 })
    expect(treeKeyAction(items, 0, { key: 'z' }, 'z')).toBe(null)
  })
})

describe('typeAhead', () => {
  it('a repeated letter cycles through the rows with it; a longer prefix stays on a row that still matches', () => {
    expect(typeAhead(items, 1, 'p')).toBe(2)
    expect(typeAhead(items, 2, 'pp')).toBe(3)
    expect(typeAhead(items, 3, 'ppp')).toBe(1)
    expect(typeAhead(items, 1, 'pa')).toBe(1)
    expect(typeAhead(items, 1, 'pl')).toBe(3)
    expect(typeAhead(items, 0, 'BE')).toBe(5)
  })
})

describe('parentIndex', () => {
  it('is the nearest row above with a lower level', () => {
    expect(parentIndex(items, 3)).toBe(1)
    expect(parentIndex(items, 4)).toBe(0)
    expect(parentIndex(items, 0)).toBe(null)
  })
})

describe('treePositions', () => {
  it('numbers siblings under each parent and counts them', () => {
    const { posinset, setsize } = treePositions(items.map((item) => item.level))
    expect([...posinset]).toEqual([1, 1, 1, 2, 2, 2])
    expect([...setsize]).toEqual([2, 2, 2, 2, 2, 2])
    const flat = treePositions([2, 2, 2])
    expect([...flat.posinset]).toEqual([1, 2, 3])
    expect([...flat.setsize]).toEqual([3, 3, 3])
    // Two separate groups at one level are two sets.
    const split = treePositions([1, 2, 2, 1, 2])
    expect([...split.posinset]).toEqual([1, 1, 2, 2, 1])
    expect([...split.setsize]).toEqual([2, 2, 2, 2, 1])
  })
})
