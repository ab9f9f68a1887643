// The line of a `retry` delta (docs/protocol.md `session.delta`): `retry 1/2 in 2000 ms: REASON`.

export interface RetryNotice {
  attempt: number
  maxRetries: number
  delayMs: number
  reason: string
}

export function parseRetryLine(line: string): RetryNotice | null {
  const match = /^retry (\d+)\/(\d+) in (\d+) ms: (.*)$/.exec(line)
  if (!match) return null
  return {
    attempt: Number(match[1]),
    maxRetries: Number(match[2]),
    delayMs: Number(match[3]),
    reason: match[4]!,
  }
}
