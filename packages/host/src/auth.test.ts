import { describe, expect, it } from 'vitest'
import {
  bearerToken,
  foreignRequestReason,
  generateToken,
  isAllowedHost,
  isAllowedOrigin,
  ownHosts,
  ownOrigins,
  tokensEqual,
} from './auth.js'

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

  it('allows only the Host’s own names with its port in Host (DNS rebinding sends another name)', () => {
    const allowed = ownHosts('127.0.0.1', 4317)
    expect(isAllowedHost('127.0.0.1:4317', allowed)).toBe(true)
    expect(isAllowedHost('localhost:4317', allowed)).toBe(true)
    expect(isAllowedHost('LocalHost:4317', allowed)).toBe(true)
    expect(isAllowedHost('[::1]:4317', allowed)).toBe(true)
    expect(isAllowedHost(undefined, allowed)).toBe(false)
    expect(isAllowedHost('127.0.0.1', allowed)).toBe(false)
    expect(isAllowedHost('127.0.0.1:4318', allowed)).toBe(false)
    expect(isAllowedHost('evil.example:4317', allowed)).toBe(false)
    expect(isAllowedHost('localhost.evil.example:4317', allowed)).toBe(false)
    // An explicit --host adds that name; a wildcard bind adds only its literal.
    expect(isAllowedHost('box.lan:9', ownHosts('box.lan', 9))).toBe(true)
    expect(isAllowedHost('[fe80::1]:9', ownHosts('fe80::1', 9))).toBe(true)
    expect(isAllowedHost('box.lan:9', ownHosts('0.0.0.0', 9))).toBe(false)
  })

  it('gives the reason for a foreign Host or Origin, and none for the Host’s own', () => {
    const allowed = ownHosts('127.0.0.1', 4317)
    expect(foreignRequestReason({ host: 'localhost:4317', origin: undefined }, allowed)).toBeNull()
    expect(
      foreignRequestReason({ host: 'localhost:4317', origin: 'http://127.0.0.1:4317' }, allowed),
    ).toBeNull()
    expect(foreignRequestReason({ host: 'evil.example:4317', origin: undefined }, allowed)).toMatch(
      /^Forbidden: Host "evil.example:4317" is not this Tangent Host; use http:\/\/127\.0\.0\.1:4317/,
    )
    expect(foreignRequestReason({ host: undefined, origin: undefined }, allowed)).toMatch(/no Host header/)
    expect(foreignRequestReason({ host: '127.0.0.1:4317', origin: 'http://evil.example' }, allowed)).toMatch(
      /Origin "http:\/\/evil.example" are refused/,
    )
  })
})
