import { describe, expect, it } from 'vitest'
import { bearerToken, generateToken, isAllowedOrigin, ownOrigins, tokensEqual } from './auth.js'

describe('auth', () => {
  it('generates distinct url-safe tokens', () => {
    const a = generateToken()
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(generateToken()).not.toBe(a)
  })

  it('compares tokens exactly; missing or empty never matches', () => {
    expect(tokensEqual('secret', 'secret')).toBe(true)
    expect(tokensEqual('secret', 'secret2')).toBe(false)
    expect(tokensEqual('secret', '')).toBe(false)
    expect(tokensEqual('secret', null)).toBe(false)
    expect(tokensEqual('secret', undefined)).toBe(false)
  })

  it('reads bearer tokens', () => {
    expect(bearerToken('Bearer abc')).toBe('abc')
    expect(bearerToken('bearer abc ')).toBe('abc')
    expect(bearerToken('Basic abc')).toBeUndefined()
    expect(bearerToken(undefined)).toBeUndefined()
  })

  it('allows no Origin or the Host’s own, refuses others', () => {
    const allowed = ownOrigins('127.0.0.1', 4317)
    expect(isAllowedOrigin(undefined, allowed)).toBe(true)
    expect(isAllowedOrigin('http://127.0.0.1:4317', allowed)).toBe(true)
    expect(isAllowedOrigin('http://localhost:4317', allowed)).toBe(true)
    expect(isAllowedOrigin('http://LOCALHOST:4317', allowed)).toBe(true)
    expect(isAllowedOrigin('http://localhost:4318', allowed)).toBe(false)
    expect(isAllowedOrigin('https://127.0.0.1:4317', allowed)).toBe(false)
    expect(isAllowedOrigin('http://evil.example', allowed)).toBe(false)
    expect(isAllowedOrigin('null', allowed)).toBe(false)
    expect(isAllowedOrigin('http://[::1]:9', ownOrigins('::1', 9))).toBe(true)
  })
})
