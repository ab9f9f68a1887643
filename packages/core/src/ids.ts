// Session ids reach the file system (`sessions/<id>.jsonl`), so they are validated
// here, once, for everyone: no separators, no dots, nothing that could escape a directory.
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

/** Crockford's base32, the alphabet of ULIDs. */
const ulidAlphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const ulidMaxTime = 2 ** 48 - 1

/**
 * A generator of time-sortable ids: ULIDs (https://github.com/ulid/spec), 10 characters of
 * milliseconds then 16 of randomness (80 bits from node:crypto), monotonic within one
 * generator: an id made in the same millisecond as the previous one (or after the clock went
 * back) is the previous one's random part plus one, so ids sort in the order they were made.
 * node:crypto is taken on the first id, not at import: importing it costs more start-up than
 * a command that only reads takes in all (docs/architecture.md §9), and such a command never
 * makes an id.
 */
export function createSessionIdGenerator(): () => SessionId {
  let lastTime = -1
  /** The last id's random part, as 16 digits of base32. */
  let random = new Uint8Array(16)
  return () => {
    const now = Date.now()
    if (now > lastTime) {
      lastTime = now
      random = process.getBuiltinModule('node:crypto').randomBytes(16)
      for (let i = 0; i < random.length; i++) random[i] = random[i]! & 31 // 256 is a multiple of 32: uniform
    } else incrementBase32(random)
    return encodeUlidTime(lastTime) + Array.from(random, (digit) => ulidAlphabet[digit]).join('')
  }
}

function encodeUlidTime(time: number): string {
  if (!Number.isSafeInteger(time) || time < 0 || time > ulidMaxTime)
    throw new Error(`internal: the clock reads ${time}, which a ULID cannot hold`)
  let text = ''
  for (let rest = time, i = 0; i < 10; i++, rest = Math.floor(rest / 32))
    text = ulidAlphabet[rest % 32] + text
  return text
}

function incrementBase32(digits: Uint8Array): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i] = digits[i]! + 1
      return
    }
    digits[i] = 0
  }
  throw new Error('internal: 2^80 ids in one millisecond') // ulid's monotonic factory refuses this too
}
