import { describe, expect, it } from 'vitest'
import { fastParamChecks, fastParams, parseMethodParams } from './fast-params.js'
import { maxLastEvents } from './limits.js'
import { type MethodName, methods } from './methods.js'

// A small seeded generator, so a failure names the case that reproduces it.
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ids = [
  'a',
  '01J00000000000000000000004',
  'A-b_c',
  'x'.repeat(128),
  'x'.repeat(129),
  '',
  '_a',
  '-a',
  '../etc',
  'a/b',
  'a\0b',
  'a.b',
  ' a',
]
const numbers = [
  0,
  -0,
  1,
  2,
  17,
  -1,
  1.5,
  0.1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53,
  2 ** 53 - 1,
  maxLastEvents,
  maxLastEvents + 1,
  -(2 ** 53),
]
const others = [true, false, null, undefined, '3', '', {}, [], [1], { seq: 1 }, 3n]

/** Values each key's schema accepts. */
const valid: Record<string, readonly unknown[]> = {
  id: ids.slice(0, 4),
  sessionId: ids.slice(0, 4),
  workspaceId: ids.slice(0, 4),
  fromSeq: [0, 1, 17, 2 ** 53 - 1],
  beforeSeq: [0, 2, 2 ** 53 - 1],
  last: [1, 2, maxLastEvents],
  includeArchived: [true, false],
  usage: [true, false],
}

/** The values of the key's own type (right and wrong ones) each key is mostly drawn from. */
const pools: Record<string, readonly unknown[]> = {
  id: ids,
  sessionId: ids,
  workspaceId: ids,
  fromSeq: numbers,
  beforeSeq: numbers,
  last: numbers,
  includeArchived: [true, false, 'true', 0],
  usage: [true, false, 'false', 0],
}

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)] as T
}

/** Params near what the method's schema accepts: each known key absent, valid-ish or wrong, sometimes an extra key. */
function generate(method: MethodName, next: () => number): unknown {
  const roll = next()
  if (roll < 0.04) return pick(next, [null, undefined, 'x', 3, [], [{ sessionId: 'a' }], true])
  const check = fastParamChecks[method]
  if (!check) throw new Error(`no check for ${method}`)
  const params: Record<string, unknown> = roll < 0.08 ? Object.create(null) : {}
  const keys = [...Object.keys(check.required), ...Object.keys(check.optional)]
  for (const key of keys) {
    const required = Object.hasOwn(check.required, key)
    const presence = next()
    if (presence < (required ? 0.05 : 0.4)) continue
    const kind = next()
    params[key] =
      kind < 0.5
        ? pick(next, valid[key] ?? others)
        : kind < 0.8
          ? pick(next, pools[key] ?? others)
          : pick(next, [...ids, ...numbers, ...others])
  }
  const extra = next()
  if (extra < 0.08) params.extra = pick(next, [1, 'x', undefined])
  else if (extra < 0.1) params[Symbol('s') as unknown as string] = 1
  else if (extra < 0.12) Object.defineProperty(params, keys[0] ?? 'k', { get: () => 'a', enumerable: true })
  else if (extra < 0.14) Object.defineProperty(params, keys[0] ?? 'k', { value: 'a', enumerable: false })
  if (next() < 0.03) return Object.assign(Object.create({ inherited: 1 }), params)
  return params
}

describe('fastParams', () => {
  const checked = Object.keys(fastParamChecks) as MethodName[]

  it('covers the reads of show and sessions', () => {
    expect(checked.sort()).toEqual(['session.get', 'session.list', 'session.resolve'])
  })

  for (const method of checked) {
    it(`${method}: what it accepts, zod accepts with a deep-equal result (seeded cases)`, () => {
      let accepted = 0
      let zodAccepted = 0
      for (let seed = 1; seed <= 600; seed++) {
        const params = generate(method, random(seed * 7919 + method.length))
        const fast = fastParams(method, params)
        const parsed = methods[method].params.safeParse(params)
        if (parsed.success) zodAccepted++
        if (fast !== undefined) {
          accepted++
          expect(parsed.success, `seed ${seed}`).toBe(true)
          expect(fast, `seed ${seed}`).toStrictEqual(parsed.data)
          expect(fast, `seed ${seed}: a copy`).not.toBe(params)
        }
        // The combined check is zod's answer, refusals and their issues included.
        const combined = parseMethodParams(method, params)
        expect(combined.success, `seed ${seed}`).toBe(parsed.success)
        if (combined.success) expect(combined.data).toStrictEqual(parsed.data)
        else expect(combined.error.issues).toEqual(parsed.error?.issues)
      }
      // Enough of both sides ran: the fast path takes most of what zod takes here.
      expect(accepted).toBeGreaterThan(50)
      expect(accepted).toBeGreaterThan(zodAccepted * 0.5)
      expect(zodAccepted).toBeLessThan(600)
    })
  }

  it('accepts what the CLI sends, as given', () => {
    expect(fastParams('session.resolve', { id: '01J0' })).toEqual({ id: '01J0' })
    expect(fastParams('session.get', { sessionId: 'a', fromSeq: 0 })).toEqual({ sessionId: 'a', fromSeq: 0 })
    expect(fastParams('session.list', { includeArchived: false })).toEqual({ includeArchived: false })
    expect(fastParams('session.list', {})).toEqual({})
    expect(fastParams('session.get', { sessionId: 'a', last: undefined })).toStrictEqual({
      sessionId: 'a',
      last: undefined,
    })
  })

  it('is not sure of extra keys, wrong types, out-of-range numbers or a missing id', () => {
    expect(fastParams('session.list', { includeArchived: false, more: 1 })).toBeUndefined()
    expect(fastParams('session.list', { includeArchived: 'yes' })).toBeUndefined()
    expect(fastParams('session.get', { sessionId: 'a', fromSeq: -1 })).toBeUndefined()
    expect(fastParams('session.get', { sessionId: 'a', fromSeq: 1.5 })).toBeUndefined()
    expect(fastParams('session.get', { sessionId: 'a', last: 0 })).toBeUndefined()
    expect(fastParams('session.get', { sessionId: 'a', last: maxLastEvents + 1 })).toBeUndefined()
    expect(fastParams('session.get', { fromSeq: 0 })).toBeUndefined()
    expect(fastParams('session.get', { sessionId: undefined })).toBeUndefined()
    expect(fastParams('session.resolve', { id: '../x' })).toBeUndefined()
    expect(fastParams('session.prompt', { sessionId: 'a', text: 'hi' })).toBeUndefined()
  })
})
