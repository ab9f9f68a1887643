// Parses one session log file: the header, its events (checked and in seq order),
// and what follows the last good line (a torn tail). Never repairs: callers decide.
import { type SessionEvent, TangentError } from '@tangent/core'
import { zod } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { maxLineBytes, readLines } from './line-reader.js'
import {
  eventLineProblem,
  isEventLineShape,
  logFormatVersion,
  parseHeaderLine,
  type SessionHeaderLine,
} from './log-format.js'

export interface ParsedLog {
  /** Null when not even the header line is complete: the whole file is a torn tail. */
  readonly header: SessionHeaderLine | null
  /** The events written in this file (seq from `startSeq`), in order. */
  readonly events: SessionEvent[]
  /** Seq of the file's first event: inheritedEventCount for "ref" logs, else 0. */
  readonly startSeq: number
  /** Bytes of the good lines (the log's length after repair). */
  readonly goodBytes: number
  /** True when bytes follow the good lines: an incomplete or unparsable final line. */
  readonly torn: boolean
}

export function corruptLog(file: string, line: number, why: string): TangentError {
  return new TangentError(
    'corrupt-log',
    `Session log ${file} is damaged at line ${line}: ${why}. Fix or remove that line (the lines after it are intact), then load again.`,
    { file, line },
  )
}

/** A line that failed to parse; it is a torn tail if nothing but a partial line follows it. */
interface BadLine {
  line: number
  why: string
}

/**
 * Reads `file`. A bad line followed by more lines is corruption (`corrupt-log`); a bad
 * final line, or bytes after the last newline, are reported as `torn`. A line that is not
 * UTF-8 is a bad line (the store writes only UTF-8). A first line that is JSON but not a
 * header this version reads (another version, a damaged header) is `corrupt-log` at once:
 * it is not a torn write, so crash repair must not cut it. A line over `maxLineBytes` is
 * `corrupt-log` naming it, and is never read whole. A log that is not a regular file (a
 * symbolic link, FIFO, directory) is refused.
 * `maxEvents` stops after that many events (reading a parent's prefix).
 */
export async function readSessionLog(file: string, maxEvents = Number.POSITIVE_INFINITY): Promise<ParsedLog> {
  let header: SessionHeaderLine | null = null
  let startSeq = 0
  const events: SessionEvent[] = []
  let bad: BadLine | null = null
  const result = await readLines(file, (text, line, utf8) => {
    if (bad) throw corruptLog(file, bad.line, bad.why)
    if (!utf8) {
      bad = { line, why: 'not valid UTF-8' }
      return undefined
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      bad = { line, why: `not JSON (${(error as Error).message})` }
      return undefined
    }
    if (line === 1) {
      const parsed = parseHeaderLine(value)
      if (!parsed.success) throw headerError(file, value, parsed.error)
      header = parsed.data
      startSeq = header.seed === 'ref' ? header.inheritedEventCount : 0
      return maxEvents > 0
    }
    if (!isEventLineShape(value)) {
      bad = { line, why: `not an event line (${eventLineProblem(value)})` }
      return undefined
    }
    const expected = startSeq + events.length
    if (value.seq !== expected) {
      bad = { line, why: `seq ${value.seq} where ${expected} was expected` }
      return undefined
    }
    events.push(value as SessionEvent)
    return events.length < maxEvents
  })
  const badLine = bad as BadLine | null
  if (badLine && (result.tail.length > 0 || result.oversized))
    throw corruptLog(file, badLine.line, badLine.why)
  if (result.oversized)
    throw corruptLog(
      file,
      result.oversized.line,
      `the line is longer than ${maxLineBytes / 1024 / 1024} MiB, the longest line a log may hold (it starts at byte ${result.oversized.start})`,
    )
  if (result.stopped) return { header, events, startSeq, goodBytes: result.consumedBytes, torn: false }
  return {
    header: badLine?.line === 1 ? null : header,
    events,
    startSeq,
    goodBytes: badLine ? result.lastLineStart : result.consumedBytes,
    torn: badLine !== null || result.tail.length > 0,
  }
}

/**
 * A first line that is JSON but not a header this version reads: another format version
 * (written by a newer Tangent?) or a damaged header. Never a torn write, so never cut.
 */
export function headerError(file: string, value: unknown, error: z.ZodError): TangentError {
  const version =
    typeof value === 'object' && value !== null ? (value as { version?: unknown }).version : undefined
  if (version !== undefined && version !== logFormatVersion)
    return new TangentError(
      'corrupt-log',
      `Session log ${file} is in format version ${JSON.stringify(version)}, and this version of Tangent reads version ${logFormatVersion} (was it written by a newer Tangent?). It is left as it is: open it with the version that wrote it.`,
      { file, line: 1, version },
    )
  return corruptLog(file, 1, `not a session header (${zod().prettifyError(error)})`)
}
