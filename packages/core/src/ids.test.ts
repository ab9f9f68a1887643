import { describe, expect, it } from 'vitest'
import { TangentError } from './errors.js'
import { assertValidSessionId, createSessionIdGenerator, isValidSessionId, sessionIdPattern } from './ids.js'

const valid = ['a', 'Z', '7', 'abc-DEF_123', '01J9ZQ4V6W1K2M3N4P5Q6R7S8T', `a${'b'.repeat(127)}`, '0-_']
const invalid: unknown[] = [
  '',
  '../x',
  '..',
  '.hidden',
  'a/b',
  'a\\b',
  'a\0b',
  '\0',
  'a b',
  'a.jsonl',
  '_leading',
  '-leading',
  'é',
  'a\n',
  `a${'b'.repeat(128)}`,
  undefined,
  null,
  42,
  {},
]

describe('session ids', () => {
  it.each(valid)('accepts %j', (id) => {
    expect(isValidSessionId(id)).toBe(true)
    expect(() => assertValidSessionId(id)).not.toThrow()
  })

  it.each(invalid)('rejects %j with invalid-session-id', (id) => {
    expect(isValidSessionId(id)).toBe(false)
    let caught: unknown
    try {
      assertValidSessionId(id)
    } catch (error) {
      caught = error
    }
    expect(TangentError.hasCode(caught, 'invalid-session-id')).toBe(true)
  })

  it('accepts exactly 128 characters and rejects 129', () => {
    expect(isValidSessionId('x'.repeat(128))).toBe(true)
    expect(isValidSessionId('x'.repeat(129))).toBe(false)
  })

  it('puts a truncated id in the error data and says what to use', () => {
    const long = `../${'x'.repeat(500)}`
    try {
      assertValidSessionId(long)
      expect.unreachable()
    } catch (error) {
      if (!TangentError.isInstance(error)) throw error
      expect((error.data.sessionId as string).length).toBeLessThanOrEqual(200)
      expect(error.message).toMatch(/A-Z, a-z, 0-9/)
    }
  })

  it('sessionIdPattern is anchored at both ends', () => {
    expect(sessionIdPattern.test('ok/../../etc')).toBe(false)
    expect(sessionIdPattern.test('ok\nsecond')).toBe(false)
  })

  it('generates valid, distinct ids whose sorted order is their creation order', () => {
    const next = createSessionIdGenerator()
    // Many ids within the same millisecond: the monotonic generator must still order them.
    const ids = Array.from({ length: 2000 }, () => next())
    for (const id of ids) expect(isValidSessionId(id)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(ids)
  })

  it('makes ULIDs: ten base32 characters of the time in ms, then sixteen random ones, counted up within a millisecond', () => {
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
    const decode = (text: string) =>
      [...text].reduce((value, char) => value * 32n + BigInt(alphabet.indexOf(char)), 0n)
    const before = Date.now()
    const next = createSessionIdGenerator()
    const ids = Array.from({ length: 200 }, () => next())
    const after = Date.now()
    for (const id of ids) {
      expect(id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/)
      expect(decode(id.slice(0, 10))).toBeGreaterThanOrEqual(BigInt(before))
      expect(decode(id.slice(0, 10))).toBeLessThanOrEqual(BigInt(after))
    }
    // Within one millisecond the random part goes up by exactly one.
    const pairs = ids.slice(1).map((id, i) => [ids[i]!, id] as const)
    const sameMs = pairs.filter(([previous, id]) => id.slice(0, 10) === previous.slice(0, 10))
    expect(sameMs.length).toBeGreaterThan(0)
    for (const [previous, id] of sameMs) expect(decode(id.slice(10)) - decode(previous.slice(10))).toBe(1n)
    // Two generators draw their own randomness.
    expect(createSessionIdGenerator()().slice(10)).not.toBe(createSessionIdGenerator()().slice(10))
  })

  it('orders ids of two generators by time across milliseconds', async () => {
    const first = createSessionIdGenerator()()
    await new Promise((resolve) => setTimeout(resolve, 3))
    const second = createSessionIdGenerator()()
    expect(first < second).toBe(true)
  })
})
