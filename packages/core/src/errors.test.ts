import { describe, expect, it } from 'vitest'
import { TangentError } from './errors.js'

describe('TangentError', () => {
  it('carries a code, a message, data and a cause, and is an Error', () => {
    const cause = new Error('disk full')
    const error = new TangentError('open-turn', 'Fork at a turn/end.', { boundary: 3 }, { cause })
    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(TangentError)
    expect(error.name).toBe('TangentError')
    expect(error.code).toBe('open-turn')
    expect(error.message).toBe('Fork at a turn/end.')
    expect(error.data).toEqual({ boundary: 3 })
    expect(error.cause).toBe(cause)
  })

  it('defaults data to an empty object', () => {
    expect(new TangentError('session-not-found', 'gone').data).toEqual({})
  })

  it('serialises to {name, code, message, data} through toJSON and JSON.stringify', () => {
    const error = new TangentError('invalid-boundary', 'Use a seq from -1 to 4.', { boundary: 9, lastSeq: 4 })
    const json = {
      name: 'TangentError',
      code: 'invalid-boundary',
      message: 'Use a seq from -1 to 4.',
      data: { boundary: 9, lastSeq: 4 },
    }
    expect(error.toJSON()).toEqual(json)
    expect(JSON.parse(JSON.stringify(error))).toEqual(json)
  })

  it('isInstance recognises errors of another copy of the package by the shared symbol marker', () => {
    const foreign = { [Symbol.for('tangent.error')]: true, code: 'session-stale', message: 'stale', data: {} }
    expect(foreign instanceof TangentError).toBe(false)
    expect(TangentError.isInstance(foreign)).toBe(true)
    expect(TangentError.isInstance(new TangentError('internal', 'y'))).toBe(true)
  })

  it('isInstance rejects other values', () => {
    expect(TangentError.isInstance(new Error('plain'))).toBe(false)
    expect(TangentError.isInstance({ code: 'open-turn', message: 'm' })).toBe(false)
    expect(TangentError.isInstance({ [Symbol('tangent.error')]: true })).toBe(false)
    expect(TangentError.isInstance({ [Symbol.for('tangent.error')]: 'yes' })).toBe(false)
    expect(TangentError.isInstance(null)).toBe(false)
    expect(TangentError.isInstance(undefined)).toBe(false)
    expect(TangentError.isInstance('TangentError')).toBe(false)
  })

  it('hasCode checks the marker and the code', () => {
    const error = new TangentError('session-exists', 'exists')
    expect(TangentError.hasCode(error, 'session-exists')).toBe(true)
    expect(TangentError.hasCode(error, 'session-not-found')).toBe(false)
    const foreign = { [Symbol.for('tangent.error')]: true, code: 'open-turn' }
    expect(TangentError.hasCode(foreign, 'open-turn')).toBe(true)
    expect(TangentError.hasCode({ code: 'open-turn' }, 'open-turn')).toBe(false)
    expect(TangentError.hasCode(undefined, 'open-turn')).toBe(false)
  })
})
