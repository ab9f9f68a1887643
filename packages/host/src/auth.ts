// Access control: the per-start token (HTTP bearer, WebSocket query) compared in constant
// time, and the Host and Origin checks that keep other web pages out (DNS rebinding included).
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

/**
 * The `Host` header values that name this Host: the loopback names and the bound host, each with
 * the bound port. A page served from any other name (a DNS-rebinding page that points its own
 * name at 127.0.0.1) sends that name, so this set is what keeps it out.
 */
export function ownHosts(host: string, port: number): ReadonlySet<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host])
  return new Set([...names].map((name) => `${name.toLowerCase()}:${port}`))
}

/** The origins a page served by this Host has: the bound host and the loopback names. */
export function ownOrigins(host: string, port: number): ReadonlySet<string> {
  return new Set([...ownHosts(host, port)].map((name) => `http://${name}`))
}

/** A `Host` header must be present and name this Host (case-insensitive). */
export function isAllowedHost(hostHeader: string | undefined, allowed: ReadonlySet<string>): boolean {
  return hostHeader !== undefined && allowed.has(hostHeader.trim().toLowerCase())
}

/** A missing Origin (non-browser clients) is allowed; a present one must be the Host's own. */
export function isAllowedOrigin(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  return origin === undefined || allowed.has(origin.toLowerCase())
}

/**
 * Why a request is refused for its Host or Origin header, or null when both are the Host's own.
 * The message is the 403 body: it names the header and what is accepted.
 */
export function foreignRequestReason(
  headers: { host: string | undefined; origin: string | undefined },
  allowedHosts: ReadonlySet<string>,
): string | null {
  if (!isAllowedHost(headers.host, allowedHosts)) {
    const shown = headers.host === undefined ? 'no Host header' : `Host ${JSON.stringify(headers.host)}`
    return `Forbidden: ${shown} is not this Tangent Host; use ${[...allowedHosts].map((h) => `http://${h}`).join(' or ')} (a page on another name is refused: DNS rebinding).`
  }
  const origins = new Set([...allowedHosts].map((name) => `http://${name}`))
  if (!isAllowedOrigin(headers.origin, origins)) {
    return `Forbidden: requests from the web page at Origin ${JSON.stringify(headers.origin)} are refused; only the Host's own pages may call it.`
  }
  return null
}
