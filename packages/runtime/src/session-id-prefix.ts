// Session ids from people: the whole id, or a unique prefix of one, as git takes hashes
// (docs/architecture.md §12.6, docs/protocol.md `session.resolve`). Pure: the runtime
// passes the sessions that exist.
import { TangentError } from '@tangent/core'
import { sessionNotFound } from './fork-point.js'

/** A prefix shorter than this matches nothing (an exact id of any length still does). */
export const minSessionIdPrefix = 4
/** At most this many candidates are named in an `ambiguous-id`. */
export const maxAmbiguousCandidates = 10

export interface SessionIdCandidate {
  id: string
  title: string
}

/**
 * The one session `input` names: the session whose id it is exactly, else the only session
 * whose id starts with it, compared without regard to case (ULIDs are case-insensitive).
 * `ambiguous-id` (naming the candidates) when several start with it; `session-not-found`
 * when none does or when a prefix is shorter than `minSessionIdPrefix`.
 */
export function resolveSessionIdPrefix(input: string, sessions: Iterable<SessionIdCandidate>): string {
  const wanted = input.toUpperCase()
  const matches: SessionIdCandidate[] = []
  for (const session of sessions) {
    if (session.id === input) return session.id
    if (session.id.toUpperCase().startsWith(wanted)) matches.push(session)
  }
  // The whole id in another case (a ULID typed in lower case) is that session, not a prefix.
  const whole = matches.filter((session) => session.id.length === input.length)
  if (whole.length === 1) return whole[0]!.id
  if (input.length < minSessionIdPrefix) {
    throw new TangentError(
      'session-not-found',
      `No session has the id ${input}, and a prefix needs at least ${minSessionIdPrefix} characters: list sessions with \`tangent sessions --all\`.`,
      { sessionId: input, minPrefix: minSessionIdPrefix },
    )
  }
  if (matches.length === 0) throw sessionNotFound(input)
  if (matches.length === 1) return matches[0]!.id
  const candidates = matches.slice(0, maxAmbiguousCandidates).map(({ id, title }) => ({ id, title }))
  const named = candidates.map((session) => `${session.id} (${session.title || 'untitled'})`).join(', ')
  const more = matches.length > candidates.length ? ` and ${matches.length - candidates.length} more` : ''
  throw new TangentError(
    'ambiguous-id',
    `${input} is the start of ${matches.length} session ids: ${named}${more}. Type more characters.`,
    { prefix: input, count: matches.length, candidates },
  )
}
