// The largest event a session log holds (docs/architecture.md §4): 64 MiB as one JSON line, a
// JSONL line or a PostgreSQL row alike. Both engines refuse a larger event before it enters the
// session, with the same error, so the session stays writable and a log moves between engines.
import { TangentError } from './errors.js'

export const maxEventLineBytes = 64 * 1024 * 1024

/** The UTF-8 size of `line` when it is over `limit` bytes, else null (most lines are not counted). */
export function oversizedEventLineBytes(line: string, limit: number): number | null {
  // A string's length counts UTF-16 units, at most 3 bytes each in UTF-8.
  if (line.length * 3 <= limit) return null
  const bytes = Buffer.byteLength(line)
  return bytes > limit ? bytes : null
}

/**
 * `invalid-event` for an event of `bytes` over `limit`: nothing was appended and the session is
 * unchanged. The message says what to do for what a person or the agent can make smaller.
 */
export function eventTooLargeError(
  sessionId: string,
  event: { readonly type: string; readonly seq: number },
  bytes: number,
  limit: number,
): TangentError {
  const size = `${formatBytes(bytes)} as a log line, over the ${formatBytes(limit)} one event may hold`
  const advice =
    event.type === 'user/message'
      ? 'Send a shorter message: put long text in a file in the project and ask the agent to read it.'
      : event.type === 'tool/result'
        ? "Make the tool's output smaller."
        : 'Make it smaller.'
  return new TangentError(
    'invalid-event',
    `Event ${event.type} of session ${sessionId} is ${size}: it was not appended and the session is unchanged. ${advice}`,
    { type: event.type, seq: event.seq, sessionId, bytes, limit },
  )
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`
  return `${bytes} bytes`
}
