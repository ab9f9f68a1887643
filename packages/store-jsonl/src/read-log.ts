// Parses one session log file: the header, its events (checked and in seq order),
// and what follows the last good line (a torn tail). Never repairs: callers decide.
import { closeSync, readFileSync } from 'node:fs'
import { type SessionEvent, TangentError } from '@tangent/core'
import { zod } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { openRegularFileForReading } from './durable-fs.js'
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
    `Session log ${file} is damaged at line ${line}: ${why}. Mend that line by hand (copy the file first), or keep the session up to it by cutting the log before line ${line} (everything from there on is then lost: each event carries its seq, so deleting only that line leaves a gap the next load refuses), then load again.`,
    { file, line },
  )
}

/**
 * The biggest log read whole as text. A bigger one goes through `readLines`, whose single read
 * into a buffer and block-wise decoding cost less per byte than decoding a file through
 * `readFileSync` (measured: 1.2× slower at 0.7 MB); for a small log the fewer steps win.
 */
const wholeReadBytes = 64 * 1024

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
  return readWholeLog(file, maxEvents) ?? readLogByLines(file, maxEvents)
}

/**
 * `readSessionLog` after `readSmallLogSync` answered null for the same file: straight to the
 * byte-exact reader, without opening and reading the file whole a second time.
 */
export function readSessionLogByLines(file: string): Promise<ParsedLog> {
  return readLogByLines(file, Number.POSITIVE_INFINITY)
}

/**
 * `readSessionLog`'s common case without a promise: a small log whose lines are all good, else
 * null (then `readSessionLog` decides). Throws what `readSessionLog` throws (a missing file, a
 * symbolic link, a damaged header).
 */
export function readSmallLogSync(file: string): ParsedLog | null {
  return readWholeLog(file, Number.POSITIVE_INFINITY)
}

/** The checks of each line, in order; `bad` is the first line that failed (and stops it). */
function logParser(file: string, maxEvents: number) {
  const state = {
    header: null as SessionHeaderLine | null,
    startSeq: 0,
    events: [] as SessionEvent[],
    bad: null as BadLine | null,
  }
  const onLine = (text: string, line: number, utf8: boolean): boolean | undefined => {
    if (state.bad) throw corruptLog(file, state.bad.line, state.bad.why)
    if (!utf8) {
      state.bad = { line, why: 'not valid UTF-8' }
      return undefined
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      state.bad = { line, why: `not JSON (${(error as Error).message})` }
      return undefined
    }
    if (line === 1) {
      const parsed = parseHeaderLine(value)
      if (!parsed.success) throw headerError(file, value, parsed.error)
      state.header = parsed.data
      state.startSeq = parsed.data.seed === 'ref' ? parsed.data.inheritedEventCount : 0
      return maxEvents > 0
    }
    if (!isEventLineShape(value)) {
      state.bad = { line, why: `not an event line (${eventLineProblem(value)})` }
      return undefined
    }
    const expected = state.startSeq + state.events.length
    if (value.seq !== expected) {
      state.bad = { line, why: `seq ${value.seq} where ${expected} was expected` }
      return undefined
    }
    state.events.push(value as SessionEvent)
    return state.events.length < maxEvents
  }
  return { state, onLine }
}

/**
 * The common case in one read (docs/architecture.md §4): a log of up to `wholeReadBytes` whose
 * lines are all complete and good, read as text through one descriptor (still opened without
 * following a link and checked to be a regular file). Null for anything else — a torn tail, a
 * bad line, a U+FFFD (bytes that may not be UTF-8), a bigger log —, which `readLogByLines` then
 * reads byte by byte, from the start: it alone decides what is torn and what is corrupt.
 */
function readWholeLog(file: string, maxEvents: number): ParsedLog | null {
  const { fd, size } = openRegularFileForReading(file)
  let text: string
  try {
    if (size > wholeReadBytes) return null
    text = readFileSync(fd, 'utf8') // to the end: a log that grew since the fstat is read whole
  } finally {
    closeSync(fd)
  }
  if ((text.length > 0 && text.charCodeAt(text.length - 1) !== 10) || text.includes('\uFFFD')) return null
  const { state, onLine } = logParser(file, maxEvents)
  const lines = text.split('\n')
  lines.pop() // the empty string after the last newline
  let end = 0 // in characters
  for (let i = 0; i < lines.length; i++) {
    const more = onLine(lines[i]!, i + 1, true)
    if (state.bad) return null
    end += lines[i]!.length + 1
    if (more === false) break
  }
  // Bytes, not characters: the same count as the byte-exact reader's.
  const goodBytes = end === text.length ? Buffer.byteLength(text) : Buffer.byteLength(text.slice(0, end))
  return { header: state.header, events: state.events, startSeq: state.startSeq, goodBytes, torn: false }
}

async function readLogByLines(file: string, maxEvents: number): Promise<ParsedLog> {
  const { state, onLine } = logParser(file, maxEvents)
  const result = await readLines(file, onLine)
  const { header, events, startSeq } = state
  const badLine = state.bad as BadLine | null
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
