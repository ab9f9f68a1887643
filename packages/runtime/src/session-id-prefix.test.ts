import { TangentError } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { maxAmbiguousCandidates, resolveSessionIdPrefix } from './session-id-prefix.js'

const sessions = [
  { id: '01JF3K2M4N5P6Q7R8S9T0VWXYZ', title: 'Plan the refactor' },
  { id: '01JF3K2M4N5P6Q7R8S9T0VWXY1', title: 'Plan the refactor · fork 1' },
  { id: '01JG0000000000000000000000', title: '' },
  { id: 'custom', title: 'a custom id' },
  { id: 'CUSTOM', title: 'the same letters in upper case' },
  { id: 'ab', title: 'a short custom id' },
]

function failure(input: string, list = sessions): TangentError {
  try {
    resolveSessionIdPrefix(input, list)
  } catch (error) {
    if (TangentError.isInstance(error)) return error
    throw error
  }
  throw new Error(`expected ${input} to fail`)
}

describe('resolveSessionIdPrefix', () => {
  it('answers an exact id, also one shorter than a prefix may be, and exact case first', () => {
    expect(resolveSessionIdPrefix('01JG0000000000000000000000', sessions)).toBe('01JG0000000000000000000000')
    expect(resolveSessionIdPrefix('ab', sessions)).toBe('ab')
    expect(resolveSessionIdPrefix('custom', sessions)).toBe('custom')
    expect(resolveSessionIdPrefix('CUSTOM', sessions)).toBe('CUSTOM')
  })

  it('answers the one session a prefix starts, in any case', () => {
    expect(resolveSessionIdPrefix('01JG', sessions)).toBe('01JG0000000000000000000000')
    expect(resolveSessionIdPrefix('01jg00', sessions)).toBe('01JG0000000000000000000000')
    expect(resolveSessionIdPrefix('01jf3k2m4n5p6q7r8s9t0vwxyz', sessions)).toBe('01JF3K2M4N5P6Q7R8S9T0VWXYZ')
  })

  it('refuses a prefix several ids start with, naming them with their titles', () => {
    const error = failure('01jf3k')
    expect(error.code).toBe('ambiguous-id')
    expect(error.data).toEqual({
      prefix: '01jf3k',
      count: 2,
      candidates: [sessions[0], sessions[1]],
    })
    expect(error.message).toContain('01JF3K2M4N5P6Q7R8S9T0VWXYZ (Plan the refactor)')
    expect(error.message).toContain('01JF3K2M4N5P6Q7R8S9T0VWXY1 (Plan the refactor · fork 1)')
    // Two ids that differ only in case: the other case is ambiguous, not a guess.
    expect(failure('Custom').code).toBe('ambiguous-id')
  })

  it(`names at most ${maxAmbiguousCandidates} candidates and counts the rest`, () => {
    const many = Array.from({ length: 15 }, (_, index) => ({
      id: `01ABCD${String(index).padStart(4, '0')}`,
      title: '',
    }))
    const error = failure('01ab', many)
    expect(error.data.count).toBe(15)
    expect(error.data.candidates).toHaveLength(maxAmbiguousCandidates)
    expect(error.message).toContain('and 5 more')
  })

  it('answers session-not-found for an unknown id and for a prefix under four characters', () => {
    expect(failure('01JZ').data).toEqual({ sessionId: '01JZ' })
    expect(failure('01J').code).toBe('session-not-found')
    expect(failure('01J').message).toContain('at least 4 characters')
    expect(failure('c').code).toBe('session-not-found')
  })
})
