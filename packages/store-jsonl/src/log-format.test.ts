// The structural header check must decide exactly as the zod schema does: it replaces zod on
// every load, so a header zod refuses must never load (docs/architecture.md §4).
import { describe, expect, it } from 'vitest'
import { parseHeaderLine, SessionHeaderLine } from './log-format.js'

const valid = {
  type: 'session',
  version: 1,
  id: '01JABCDEF',
  createdAt: 1_700_000_000_000,
  cwd: '/work',
  title: 'hello',
  parentSession: '01JPARENT',
  forkedAt: 9,
  inheritedEventCount: 10,
  seed: 'ref',
  origin: 'fork',
  workspaceId: 'w1',
  files: { mode: 'shared' },
}

/** Values each field is replaced with (or deleted, `undefined`). */
const replacements: unknown[] = [
  undefined,
  null,
  0,
  -1,
  -2,
  1.5,
  2,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  'x',
  '../escape',
  'session',
  'inline',
  'ref',
  'user',
  'subagent',
  'nope',
  '01JOTHER',
  true,
  [],
  {},
]

function mutations(): unknown[] {
  const out: unknown[] = [valid, null, 1, 'session', [], [valid], {}]
  for (const key of Object.keys(valid)) {
    for (const replacement of replacements) {
      const copy: Record<string, unknown> = { ...valid }
      if (replacement === undefined) delete copy[key]
      else copy[key] = replacement
      out.push(copy)
      // The same with an inline seed, where parentSession is optional.
      out.push({ ...copy, seed: 'inline' })
    }
  }
  return out
}

describe('parseHeaderLine', () => {
  it('accepts and refuses exactly what SessionHeaderLine does, and returns the same header', () => {
    const cases = mutations()
    let accepted = 0
    for (const value of cases) {
      const fast = parseHeaderLine(value)
      const zod = SessionHeaderLine.safeParse(value)
      expect({ value, success: fast.success }).toEqual({ value, success: zod.success })
      if (fast.success && zod.success) {
        expect(fast.data).toEqual(zod.data)
        accepted++
      }
      if (!fast.success) expect(fast.error.issues.length).toBeGreaterThan(0)
    }
    // Both kinds are exercised: the comparison would prove nothing if all failed.
    expect(accepted).toBeGreaterThan(20)
    expect(cases.length - accepted).toBeGreaterThan(100)
  })
})
