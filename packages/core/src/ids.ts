// Session ids reach the file system (`sessions/<id>.jsonl`), so they are validated
// here, once, for everyone: no separators, no dots, nothing that could escape a directory.
import { monotonicFactory } from 'ulid'
import { TangentError } from './errors.js'

export type SessionId = string

export const sessionIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

export function isValidSessionId(value: unknown): value is SessionId {
  return typeof value === 'string' && sessionIdPattern.test(value)
}

export function assertValidSessionId(value: unknown): asserts value is SessionId {
  if (!isValidSessionId(value)) {
    throw new TangentError(
      'invalid-session-id',
      `Invalid session id ${JSON.stringify(String(value)).slice(0, 140)}: use 1-128 characters of A-Z, a-z, 0-9, "_" and "-", starting with a letter or digit.`,
      { sessionId: String(value).slice(0, 200) },
    )
  }
}

/** A generator of time-sortable ids (ULIDs), monotonic within one generator. */
export function createSessionIdGenerator(): () => SessionId {
  // Made on the first id: finding the random source costs more than opening a small session,
  // and a store that only reads never makes an id.
  let next: (() => string) | null = null
  return () => {
    next ??= monotonicFactory()
    return next()
  }
}
