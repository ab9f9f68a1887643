// Access control: the per-start token (HTTP bearer, WebSocket query) compared in constant
// time, and the WebSocket Origin check that keeps other web pages out.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export function generateToken(): string {
  return randomBytes(24).toString('base64url')
}

export function tokensEqual(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string' || given.length === 0) return false
  // Hashing first gives equal lengths, so the comparison time says nothing about the token.
  const a = createHash('sha256').update(expected).digest()
  const b = createHash('sha256').update(given).digest()
  return timingSafeEqual(a, b)
}

/** The token of an `Authorization: Bearer TOKEN` header. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return match?.[1]
}

/** The origins a page served by this Host has: the bound host and the loopback names. */
export function ownOrigins(host: string, port: number): ReadonlySet<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host])
  return new Set([...names].map((name) => `http://${name}:${port}`))
}

/** A missing Origin (non-browser clients) is allowed; a present one must be the Host's own. */
export function isAllowedOrigin(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  return origin === undefined || allowed.has(origin.toLowerCase())
}
