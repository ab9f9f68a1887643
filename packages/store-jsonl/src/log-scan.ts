// A cheap, tolerant pass over a log for the catalog: counts lines and picks out the
// title, model and mode events without parsing every event. Loading (not scanning) validates.
import { isSessionModeId, type SessionModeId } from '@tangent/core/session-modes'
import { readLines } from './line-reader.js'
import { parseHeaderLine, type SessionHeaderLine } from './log-format.js'
import { headerError } from './read-log.js'

export interface ModelRef {
  provider: string
  model: string
  reasoningEffort?: string
}

export interface LogScan {
  header: SessionHeaderLine
  /** Events in this log, after its seq offset (ref logs start at inheritedEventCount). */
  eventCount: number
  startSeq: number
  /** `session/title`, `model/selection` and `session/mode` events of this file, by seq. */
  titles: { seq: number; title: string }[]
  models: { seq: number; model: ModelRef }[]
  modes: { seq: number; mode: SessionModeId }[]
  /** Time of the last event in this file, if any. */
  lastTime: number | null
  /** Bytes of the good lines (a torn tail is not counted). */
  goodBytes: number
}

const typeKey = ',"type":"'

/** The event type of a line the store wrote (`{"seq":…,"time":…,"type":"…"`), without JSON.parse. */
function quickType(text: string): string | null {
  if (!text.startsWith('{"seq":')) return null
  const at = text.indexOf(typeKey)
  if (at < 0) return null
  const end = text.indexOf('"', at + typeKey.length)
  return end < 0 ? null : text.slice(at + typeKey.length, end)
}

function parseOrNull(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null
  } catch {
    return null // tolerant by design: loading the session reports the damage with its line
  }
}

/** Why a log has no header the catalog can use (a torn creation, a foreign or damaged file). */
export interface LogScanProblem {
  readonly header: null
  readonly problem: string
}

/** Scans `file`; a problem when it has no valid header (a torn or foreign file). */
export async function scanLog(file: string): Promise<LogScan | LogScanProblem> {
  let header: SessionHeaderLine | null = null
  let headerProblem: string | null = null
  let lastUtf8 = true
  const titles: LogScan['titles'] = []
  const models: LogScan['models'] = []
  const modes: LogScan['modes'] = []
  let count = 0
  let startSeq = 0
  let lastText: string | null = null
  const read = await readLines(file, (text, line, utf8) => {
    if (line === 1) {
      const value = utf8 ? parseOrNull(text) : null
      const parsed = parseHeaderLine(value)
      if (!parsed.success) {
        headerProblem =
          value === null
            ? 'its first line is not a JSON object'
            : headerError(file, value, parsed.error).message
        return false
      }
      header = parsed.data
      startSeq = header.seed === 'ref' ? header.inheritedEventCount : 0
      return undefined
    }
    const seq = startSeq + count
    count++
    lastText = text
    lastUtf8 = utf8
    let type = quickType(text)
    let value: Record<string, unknown> | null = null
    if (type === null) {
      value = parseOrNull(text)
      type = typeof value?.type === 'string' ? value.type : null
    }
    if (type === 'session/title' || type === 'model/selection' || type === 'session/mode') {
      const data = (value ?? parseOrNull(text))?.data as Record<string, unknown> | undefined
      if (type === 'session/title' && typeof data?.title === 'string') titles.push({ seq, title: data.title })
      if (type === 'model/selection' && typeof data?.provider === 'string' && typeof data.model === 'string')
        models.push({ seq, model: data as unknown as ModelRef })
      if (type === 'session/mode' && isSessionModeId(data?.mode)) modes.push({ seq, mode: data.mode })
    }
    return undefined
  })
  const problem = headerProblem as string | null // assigned in the callback
  if (problem !== null) return { header: null, problem }
  if (header === null)
    return { header: null, problem: 'no complete header line (a creation that a crash interrupted?)' }
  let lastTime: number | null = null
  let goodBytes = read.consumedBytes
  if (lastText !== null) {
    const last = lastUtf8 ? parseOrNull(lastText) : null
    if (last && typeof last.time === 'number') lastTime = last.time
    else {
      // An unparsable final line is a torn tail: not an event.
      count--
      goodBytes = read.lastLineStart
    }
  }
  // A line over the limit: the events before it are counted; loading it names the line.
  return { header, eventCount: count, startSeq, titles, models, modes, lastTime, goodBytes }
}
