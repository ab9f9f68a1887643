import { describe, expect, it } from 'vitest'
import { deepFreeze } from './freeze.js'

describe('deepFreeze', () => {
  it('freezes an event as JSON.parse makes it, all the way down', () => {
    const event = deepFreeze(
      JSON.parse(
        '{"seq":1,"type":"assistant/message","data":{"content":[{"type":"tool-call","input":{"path":"a","edits":[{"old":"x"}]}}]}}',
      ),
    )
    const part = event.data.content[0]
    for (const value of [
      event,
      event.data,
      event.data.content,
      part,
      part.input,
      part.input.edits,
      part.input.edits[0],
    ])
      expect(Object.isFrozen(value)).toBe(true)
    expect(() => {
      part.input.edits[0].old = 'y'
    }).toThrow(TypeError)
  })

  it('freezes objects without a prototype and objects already frozen on the outside', () => {
    const inner = { list: [{ n: 1 }] }
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { inner })
    deepFreeze(Object.freeze({ bare }))
    expect(Object.isFrozen(bare)).toBe(true)
    expect(Object.isFrozen(inner.list[0])).toBe(true)
  })

  it('walks only own properties of a class instance, never what its prototype adds', () => {
    class Box {
      own = { a: 1 }
    }
    const shared = { mutable: true }
    Object.defineProperty(Box.prototype, 'shared', { value: shared, enumerable: true })
    const box = new Box()
    deepFreeze({ box })
    expect(Object.isFrozen(box.own)).toBe(true)
    expect(Object.isFrozen(shared)).toBe(false)
  })

  it('ends on a cycle and on nesting deeper than its untracked walk', () => {
    const cyclic: Record<string, unknown> = { name: 'a' }
    cyclic.self = { back: cyclic }
    expect(deepFreeze(cyclic)).toBe(cyclic)
    expect(Object.isFrozen(cyclic.self)).toBe(true)
    let deep: Record<string, unknown> = { leaf: { x: 1 } }
    const root = deep
    for (let i = 0; i < 100; i++) {
      const next = { child: null as unknown }
      deep.child = next
      deep = next
    }
    deep.child = root
    deepFreeze(root)
    expect(Object.isFrozen(deep)).toBe(true)
    expect(Object.isFrozen(root.leaf)).toBe(true)
  })
})
