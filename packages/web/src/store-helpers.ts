// Small helpers of the store that have nothing to do with the Host: titles, request ids,
// and the `#session=<id>` part of the page URL that survives a reload (`&seq=<n>`: an event).
/** The first line of a message, cut at a word boundary near 60 characters. */
export function titleFromMessage(text: string): string {
  const line = text.trim().split('\n')[0]!.trim()
  if (line.length <= 60) return line
  const cut = line.slice(0, 60)
  const space = cut.lastIndexOf(' ')
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`
}

export function writeHash(sessionId: string | null): void {
  const hash = sessionId === null ? '' : `#session=${encodeURIComponent(sessionId)}`
  if (window.location.hash !== hash) {
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`)
  }
}

/** A request id for idempotent forks; `crypto.randomUUID` needs a secure context, this does not. */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** The session named in the page URL (`#session=<id>`, maybe `&seq=<n>`), if any. */
export function readHash(): string | null {
  return hashTarget(window.location.hash)?.sessionId ?? null
}

/**
 * What a `#session=<id>` address names: a session, and with `&seq=<n>` one of its events (a
 * link to an event: the transcript jumps to it).
 */
export function hashTarget(hash: string): { sessionId: string; seq: number | null } | null {
  const match = /^#session=([^&]+)(?:&seq=(\d+))?$/.exec(hash)
  if (!match) return null
  return { sessionId: decodeURIComponent(match[1]!), seq: match[2] === undefined ? null : Number(match[2]) }
}
