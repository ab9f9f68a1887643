// The on-disk format of a session log: a header line, then one event per line.
// Lines come from disk, so they are validated: a structural check first, zod (loaded then,
// docs/architecture.md §9) to explain what it refuses.
import { eventTypePattern, type Session, type SessionEvent, sessionIdPattern } from '@tangent/core'
import { lazySchema, zod } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

export const logFormatVersion = 1

/** A header's `origin` (a plain list too: the fast checks use it without building the schema). */
export const sessionOrigins = ['user', 'fork', 'subagent'] as const
export const SessionOrigin = lazySchema((z) => z.enum(sessionOrigins))

/** Line 1 of `sessions/<id>.jsonl`. Extra meta (workspaceId, files, baseTree, …) is kept as is. */
export const SessionHeaderLine = lazySchema((z) =>
  z
    .looseObject({
      type: z.literal('session'),
      version: z.literal(logFormatVersion),
      id: z.string().regex(sessionIdPattern),
      createdAt: z.number(),
      cwd: z.string(),
      title: z.string().optional(),
      parentSession: z.string().regex(sessionIdPattern).optional(),
      forkedAt: z.number().int().min(-1).optional(),
      inheritedEventCount: z.number().int().nonnegative(),
      /** "ref": the first inheritedEventCount events live in the parent's log; "inline": all are here. */
      seed: z.enum(['ref', 'inline']),
      origin: SessionOrigin,
    })
    .refine((header) => header.seed === 'inline' || header.parentSession !== undefined, {
      message: 'a header with seed "ref" needs a parentSession',
    }),
)
export type SessionHeaderLine = z.infer<typeof SessionHeaderLine>

const headerSeeds: ReadonlySet<unknown> = new Set(['ref', 'inline'])
const headerOrigins: ReadonlySet<unknown> = new Set(sessionOrigins)
const isInteger = (value: unknown, min: number) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min
const isOptional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value)
const isSessionIdString = (value: unknown) => typeof value === 'string' && sessionIdPattern.test(value)

/**
 * The header line parsed from JSON, checked like `SessionHeaderLine` (which runs only when this
 * structural check fails: to explain the failure, or to accept what it accepts). Every store
 * open parses headers, and zod costs more than reading a small log.
 */
export function parseHeaderLine(value: unknown): z.ZodSafeParseResult<SessionHeaderLine> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const line = value as Record<string, unknown>
    if (
      line.type === 'session' &&
      line.version === logFormatVersion &&
      isSessionIdString(line.id) &&
      typeof line.createdAt === 'number' &&
      Number.isFinite(line.createdAt) &&
      typeof line.cwd === 'string' &&
      isOptional(line.title, (title) => typeof title === 'string') &&
      isOptional(line.parentSession, isSessionIdString) &&
      isOptional(line.forkedAt, (forkedAt) => isInteger(forkedAt, -1)) &&
      isInteger(line.inheritedEventCount, 0) &&
      headerSeeds.has(line.seed) &&
      headerOrigins.has(line.origin) &&
      (line.seed === 'inline' || line.parentSession !== undefined)
    )
      return { success: true, data: line as SessionHeaderLine }
  }
  return SessionHeaderLine.safeParse(value)
}

export const SessionEventLine = lazySchema((z) =>
  z.object({
    seq: z.number().int().nonnegative(),
    time: z.number(),
    type: z.string().regex(eventTypePattern),
    data: z.unknown().refine((value) => value !== undefined, { message: 'data is required' }),
  }),
)
export type SessionEventLine = z.infer<typeof SessionEventLine>

/** Header keys the store derives; extra meta may not override them. */
const reservedHeaderKeys = new Set([
  'type',
  'version',
  'id',
  'createdAt',
  'cwd',
  'title',
  'parentSession',
  'forkedAt',
  'inheritedEventCount',
  'seed',
  'origin',
  'isSeeded',
])

/** The header line of a live session. */
export function headerLineOf(session: Session, seed: 'ref' | 'inline'): SessionHeaderLine {
  const header = session.header
  const line: Record<string, unknown> = {
    type: 'session',
    version: logFormatVersion,
    id: header.id,
    createdAt: header.createdAt,
    cwd: header.cwd,
  }
  if (header.title !== undefined) line.title = header.title
  if (header.parentSession !== undefined) line.parentSession = header.parentSession
  if (header.forkedAt !== undefined) line.forkedAt = header.forkedAt
  line.inheritedEventCount = header.inheritedEventCount
  line.seed = seed
  line.origin = header.origin
  for (const [key, value] of Object.entries(header)) {
    if (!reservedHeaderKeys.has(key) && value !== undefined) line[key] = value
  }
  return line as SessionHeaderLine
}

/** The meta and lineage to hand `SessionStore.create` when loading a header. */
export function createOptionsOf(header: SessionHeaderLine): {
  meta: Record<string, unknown> & { cwd: string; createdAt: number; origin: SessionHeaderLine['origin'] }
  lineage: { parentSession?: string; forkedAt?: number; inheritedEventCount: number }
} {
  const meta: Record<string, unknown> & {
    cwd: string
    createdAt: number
    origin: SessionHeaderLine['origin']
  } = { cwd: header.cwd, createdAt: header.createdAt, origin: header.origin }
  if (header.title !== undefined) meta.title = header.title
  for (const [key, value] of Object.entries(header)) {
    if (!reservedHeaderKeys.has(key)) meta[key] = value
  }
  const lineage: { parentSession?: string; forkedAt?: number; inheritedEventCount: number } = {
    inheritedEventCount: header.inheritedEventCount,
  }
  if (header.parentSession !== undefined) lineage.parentSession = header.parentSession
  if (header.forkedAt !== undefined) lineage.forkedAt = header.forkedAt
  return { meta, lineage }
}

/**
 * One event as its log line, without the newline (the writer adds it). Core builds events as
 * {seq, time, type, data} and loaded ones keep their line's order, so the event is stringified as
 * is (no copy). No `\n` is appended here: that makes a rope, which encoding to bytes must flatten
 * first — for a batch of large lines several times the cost of the encoding itself.
 */
export function eventLine(event: SessionEvent): string {
  return JSON.stringify(event)
}

/** The bytes of `line` (without its newline) when the line is over `limit` bytes, else null. */
export function oversizedLineBytes(line: string, limit: number): number | null {
  // A string's length counts UTF-16 units, at most 3 bytes each in UTF-8: most lines need no count.
  if (line.length * 3 <= limit) return null
  const bytes = Buffer.byteLength(line)
  return bytes > limit ? bytes : null
}

/**
 * The fast check of an event line, equivalent to `SessionEventLine` (which runs only to
 * explain a failure): loading parses every line, so the hot path avoids zod.
 */
export function isEventLineShape(value: unknown): value is SessionEventLine {
  if (typeof value !== 'object' || value === null) return false
  const line = value as Record<string, unknown>
  const seq = line.seq
  return (
    typeof seq === 'number' &&
    Number.isSafeInteger(seq) &&
    seq >= 0 &&
    typeof line.time === 'number' &&
    typeof line.type === 'string' &&
    isEventType(line.type) &&
    line.data !== undefined
  )
}

/**
 * Types a log holds are a handful repeated thousands of times: each is matched against the
 * pattern once per process (a set lookup costs less than the match). Bounded, so a log of
 * made-up types cannot grow it without end.
 */
const eventTypesSeen = new Set<string>()

function isEventType(type: string): boolean {
  if (eventTypesSeen.has(type)) return true
  if (!eventTypePattern.test(type)) return false
  if (eventTypesSeen.size < 1024) eventTypesSeen.add(type)
  return true
}

/** Why a parsed value is not an event line, in zod's words. */
export function eventLineProblem(value: unknown): string {
  const result = SessionEventLine.safeParse(value)
  return result.success ? 'not an event line' : zod().prettifyError(result.error)
}
