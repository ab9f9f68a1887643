import { describe, expect, it } from 'vitest'
import { sameJson } from './same-json.js'

const shared = { big: 'x'.repeat(1000), list: [1, 2, { deep: true }] }
class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

/** Pairs whose answer must be JSON.stringify's: equal, different, and every case JSON treats apart. */
const pairs: [string, unknown, unknown][] = [
  ['the same reference', shared, shared],
  ['equal copies', { a: [1, 'two', null, true], b: { c: 3 } }, { a: [1, 'two', null, true], b: { c: 3 } }],
  ['a shared part inside new objects', { raw: shared, line: 4 }, { raw: shared, line: 4 }],
  ['a different number', { a: 1 }, { a: 2 }],
  ['a different string', { a: 'x' }, { a: 'y' }],
  ['a string and a number', '1', 1],
  ['a string and its JSON', '"a"', 'a'],
  ['key order', { a: 1, b: 2 }, { b: 2, a: 1 }],
  ['an extra key', { a: 1 }, { a: 1, b: 2 }],
  ['an undefined key against none', { a: 1, b: undefined }, { a: 1 }],
  ['an undefined key against null', { a: undefined }, { a: null }],
  ['a function key against none', { a: 1, f: () => 1 }, { a: 1 }],
  ['undefined in an array against null', [1, undefined], [1, null]],
  ['a hole in an array against null', new Array(3).fill(1, 0, 1), [1, null, null]],
  ['NaN against null', { n: Number.NaN }, { n: null }],
  ['Infinity against null', [Number.POSITIVE_INFINITY], [null]],
  ['-0 against 0', { n: -0 }, { n: 0 }],
  ['an array against an object with its keys', [1, 2], { 0: 1, 1: 2 }],
  ['arrays of another length', [1, 2], [1, 2, 3]],
  ['empty array against empty object', [], {}],
  ['a Date against its ISO string', { d: new Date(0) }, { d: '1970-01-01T00:00:00.000Z' }],
  ['a toJSON object against its value', { toJSON: () => 5 }, 5],
  ['a class instance against a plain object', new Point(1, 2), { x: 1, y: 2 }],
  ['a null-prototype object', Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
  ['null against an empty object', null, {}],
  ['undefined against null', undefined, null],
]

describe('sameJson', () => {
  it.each(pairs)('%s: as JSON.stringify says', (_, a, b) => {
    const expected = JSON.stringify(a) === JSON.stringify(b)
    expect(sameJson(a, b)).toBe(expected)
    expect(sameJson(b, a)).toBe(expected)
  })

  it('answers both ways on the cases that differ (the table is not all "equal")', () => {
    const answers = pairs.map(([, a, b]) => sameJson(a, b))
    expect(answers).toContain(true)
    expect(answers).toContain(false)
  })

  it('compares a shared record by reference, without walking it', () => {
    let reads = 0
    const record = new Proxy(
      { a: 1 },
      {
        get(target, key, receiver) {
          reads++
          return Reflect.get(target, key, receiver)
        },
      },
    )
    expect(sameJson({ raw: record, line: 1 }, { raw: record, line: 1 })).toBe(true)
    expect(reads).toBe(0)
  })
})
