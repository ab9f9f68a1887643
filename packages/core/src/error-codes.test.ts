import { describe, expect, it } from 'vitest'
import { errorCodeList, errorCodes, isErrorCode } from './error-codes.js'
import { TangentError } from './errors.js'

describe('error codes', () => {
  it('list every key of errorCodes once, in kebab-case', () => {
    expect(errorCodeList).toEqual(Object.keys(errorCodes))
    for (const code of errorCodeList) expect(code).toMatch(/^[a-z]+(-[a-z]+)*$/)
  })

  it('include the codes core itself raises', () => {
    for (const code of [
      'session-not-found',
      'session-stale',
      'session-exists',
      'invalid-boundary',
      'open-turn',
      'invalid-session-id',
      'fork-unavailable',
      'grammar-violation',
      'invalid-event',
    ]) {
      expect(isErrorCode(code), code).toBe(true)
    }
  })

  it('isErrorCode is false for unknown strings and Object.prototype keys', () => {
    expect(isErrorCode('session-busy')).toBe(true)
    expect(isErrorCode('Session-Busy')).toBe(false)
    expect(isErrorCode('constructor')).toBe(false)
    expect(isErrorCode('__proto__')).toBe(false)
  })

  it('a TangentError carries one of them', () => {
    const error = new TangentError('store-read-only', 'read-only')
    expect(isErrorCode(error.code)).toBe(true)
    expect(error.toJSON().code).toBe('store-read-only')
  })
})
