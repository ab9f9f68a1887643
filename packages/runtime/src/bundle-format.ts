// The Tangent bundle (docs/architecture.md, "Moving in and out"): a session and the ancestors it
// inherits from, as JSON lines, ancestors first. Line 1 describes the bundle; then, per session, a
// `session` line (its header) followed by its own `event` lines (a fork's start after its fork
// point: the prefix is its parent's, which comes before it). Parsed here as untrusted input: every
// line is checked and the first problem is an `invalid-bundle` error naming its line.
import { isValidSessionId, maxEventLineBytes, type SessionEvent, TangentError } from '@tangent/core'

export const bundleFormatName = 'tangent-bundle'
export const bundleFormatVersion = 1

/** Line 1 of a bundle. */
export interface BundleDescription {
  format: typeof bundleFormatName
  version: number
  /** ISO 8601. */
  exportedAt: string
  /** The session the bundle was made for (its last session). */
  sessionId: string
  /** The Tangent version that wrote it. */
  tangentVersion: string
}

/**
 * The header fields a bundle carries. An import keeps only these: the rest of a stored header names
 * things of the machine that wrote it (worktree paths, workspace ids, snapshot trees, a check command
 * run after turns) that an untrusted file must not set here.
 */
export interface BundleSessionHeader {
  id: string
  parentSession?: string
  forkedAt?: number
  title?: string
  cwd: string
  createdAt: number
  origin: 'user' | 'fork' | 'subagent'
  /** Informational (the events' `model/selection` decide the model). */
  model?: { provider: string; model: string; reasoningEffort?: string }
  subagentOf?: { callId: string; depth: number }
}

export interface BundleSession {
  header: BundleSessionHeader
  /** Its own events: seqs from `forkedAt + 1` for a fork of a session in the bundle (or here), else from 0. */
  events: SessionEvent[]
  /** The 1-based line of its `session` line, for messages. */
  line: number
}

export interface ParsedBundle {
  description: BundleDescription
  sessions: BundleSession[]
}

/** Longest line a bundle may hold: that of the largest event a log may hold, and some room. */
export const maxBundleLineBytes = maxEventLineBytes + 1024

/** Whether a file's first line is a Tangent bundle's (any version: `parseBundle` says which it reads). */
export function isBundleFirstLine(line: string): boolean {
  try {
    const value = JSON.parse(line) as unknown
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { format?: unknown }).format === bundleFormatName
    )
  } catch {
    return false
  }
}

export function bundleDescriptionLine(description: BundleDescription): string {
  return JSON.stringify(description)
}

export function bundleSessionLine(header: BundleSessionHeader): string {
  return JSON.stringify({ kind: 'session', header })
}

export function bundleEventLine(event: SessionEvent): string {
  return JSON.stringify({
    kind: 'event',
    seq: event.seq,
    time: event.time,
    type: event.type,
    data: event.data,
  })
}

/** Splits and checks a bundle's text; the events' grammar is checked by the import (bundle.ts), which replays them. */
export function parseBundle(text: string): ParsedBundle {
  const lines = text.split('\n')
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  if (lines.length === 0) throw invalid(1, 'the bundle is empty')
  const description = parseDescription(lines[0]!)
  const sessions: BundleSession[] = []
  const seen = new Set<string>()
  for (let index = 1; index < lines.length; index++) {
    const number = index + 1
    const record = parseLine(lines[index]!, number)
    if (record.kind === 'session') {
      const header = parseHeader(record.header, number)
      if (seen.has(header.id)) throw invalid(number, `session ${header.id} appears twice`)
      seen.add(header.id)
      sessions.push({ header, events: [], line: number })
    } else if (record.kind === 'event') {
      const current = sessions.at(-1)
      if (!current) throw invalid(number, 'an event before any session line')
      current.events.push(parseEvent(record, number, current))
    } else {
      throw invalid(
        number,
        `unknown line kind ${JSON.stringify(record.kind)} (expected "session" or "event")`,
      )
    }
  }
  if (sessions.length === 0) throw invalid(lines.length, 'the bundle holds no session')
  if (sessions.at(-1)!.header.id !== description.sessionId)
    throw invalid(
      1,
      `the bundle says it is of session ${description.sessionId} but ends with ${sessions.at(-1)!.header.id}`,
    )
  assertParentsFirst(sessions)
  return { description, sessions }
}

function parseDescription(line: string): BundleDescription {
  const value = parseLine(line, 1) as Record<string, unknown>
  if (value.format !== bundleFormatName)
    throw invalid(1, `not a Tangent bundle (no "format": "${bundleFormatName}")`)
  if (value.version !== bundleFormatVersion)
    throw invalid(
      1,
      `bundle version ${JSON.stringify(value.version)} is not supported (this Tangent reads version ${bundleFormatVersion}): update Tangent`,
    )
  const { exportedAt, sessionId, tangentVersion } = value
  if (typeof exportedAt !== 'string' || typeof tangentVersion !== 'string')
    throw invalid(1, 'the description needs "exportedAt" and "tangentVersion" strings')
  if (!isValidSessionId(sessionId))
    throw invalid(1, `"sessionId" ${JSON.stringify(sessionId)} is not a session id`)
  return { format: bundleFormatName, version: bundleFormatVersion, exportedAt, sessionId, tangentVersion }
}

function parseLine(line: string, number: number): Record<string, unknown> {
  if (line.length > maxBundleLineBytes / 3 && Buffer.byteLength(line) > maxBundleLineBytes)
    throw invalid(number, `the line is longer than ${maxBundleLineBytes} bytes`)
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    throw invalid(number, `not JSON (${error instanceof Error ? error.message : String(error)})`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(number, 'not a JSON object')
  return value as Record<string, unknown>
}

function parseHeader(value: unknown, number: number): BundleSessionHeader {
  if (typeof value !== 'object' || value === null)
    throw invalid(number, 'a session line needs a "header" object')
  const raw = value as Record<string, unknown>
  if (!isValidSessionId(raw.id))
    throw invalid(number, `session id ${JSON.stringify(raw.id)} is outside the pattern`)
  const header: BundleSessionHeader = {
    id: raw.id,
    cwd: stringOf(raw.cwd, 'cwd', number, 4096),
    createdAt: numberOf(raw.createdAt, 'createdAt', number),
    origin: originOf(raw.origin, number),
  }
  if (raw.parentSession !== undefined && raw.parentSession !== null) {
    if (!isValidSessionId(raw.parentSession))
      throw invalid(number, `parent id ${JSON.stringify(raw.parentSession)} is outside the pattern`)
    if (raw.parentSession === raw.id)
      throw invalid(number, `session ${raw.id} names itself as its parent (a parent cycle)`)
    const forkedAt = raw.forkedAt
    if (typeof forkedAt !== 'number' || !Number.isInteger(forkedAt) || forkedAt < -1)
      throw invalid(number, 'a fork needs "forkedAt": an integer from -1')
    header.parentSession = raw.parentSession
    header.forkedAt = forkedAt
  }
  if (raw.title !== undefined) header.title = stringOf(raw.title, 'title', number, 1000)
  if (isModelRef(raw.model)) header.model = raw.model
  const spawned = raw.subagentOf as { callId?: unknown; depth?: unknown } | undefined
  const depth = spawned?.depth
  if (
    spawned &&
    typeof spawned.callId === 'string' &&
    Number.isInteger(depth) &&
    (depth as number) >= 1 &&
    (depth as number) <= 64
  )
    header.subagentOf = { callId: spawned.callId.slice(0, 200), depth: depth as number }
  return header
}

function parseEvent(record: Record<string, unknown>, number: number, session: BundleSession): SessionEvent {
  const { seq, time, type, data } = record
  const first = session.header.parentSession !== undefined ? session.header.forkedAt! + 1 : 0
  const expected = first + session.events.length
  if (seq !== expected)
    throw invalid(
      number,
      `event seq ${JSON.stringify(seq)} of session ${session.header.id}: expected ${expected} (seqs are dense)`,
    )
  if (typeof type !== 'string' || !/^[a-z][a-z0-9-]*(\/[a-z][a-z0-9-]*)+$/.test(type))
    throw invalid(number, `event type ${JSON.stringify(type)} is not a noun/verb type`)
  if (typeof time !== 'number' || !Number.isFinite(time))
    throw invalid(number, 'an event needs a numeric "time"')
  return { seq: seq as SessionEvent['seq'], time, type, data: data ?? {} }
}

/** Every parent in the bundle comes before its children; a parent named later is a cycle or a misordered file. */
function assertParentsFirst(sessions: readonly BundleSession[]): void {
  const byId = new Map(sessions.map((session) => [session.header.id, session]))
  const before = new Set<string>()
  for (const session of sessions) {
    const parent = session.header.parentSession
    if (parent !== undefined && byId.has(parent) && !before.has(parent)) {
      const loop = loopFrom(session.header.id, byId)
      throw invalid(
        session.line,
        loop
          ? `a parent cycle: ${loop.join(' → ')}`
          : `session ${session.header.id} comes before its parent ${parent} (parents come first)`,
      )
    }
    before.add(session.header.id)
  }
}

function loopFrom(start: string, byId: Map<string, BundleSession>): string[] | null {
  const path: string[] = []
  let current: string | undefined = start
  while (current !== undefined && byId.has(current)) {
    const at = path.indexOf(current)
    if (at >= 0) return [...path.slice(at), current]
    path.push(current)
    current = byId.get(current)!.header.parentSession
  }
  return null
}

function stringOf(value: unknown, name: string, number: number, max: number): string {
  if (typeof value !== 'string' || value.length > max)
    throw invalid(number, `"${name}" must be a string of at most ${max} characters`)
  return value
}

function numberOf(value: unknown, name: string, number: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw invalid(number, `"${name}" must be a number`)
  return value
}

function originOf(value: unknown, number: number): BundleSessionHeader['origin'] {
  if (value === 'user' || value === 'fork' || value === 'subagent') return value
  throw invalid(number, `"origin" ${JSON.stringify(value)} is not user, fork or subagent`)
}

function isModelRef(value: unknown): value is NonNullable<BundleSessionHeader['model']> {
  const ref = value as { provider?: unknown; model?: unknown } | null | undefined
  return typeof ref?.provider === 'string' && typeof ref.model === 'string'
}

export function invalid(line: number, message: string): TangentError {
  return new TangentError('invalid-bundle', `Bundle line ${line}: ${message}.`, { line })
}
