// Reading sessions and events back (docs/architecture.md §4): a session row becomes an index
// entry; a session's events are its own rows after those its chain of parents lends it.

import {
  isSessionModeId,
  type SessionEvent,
  type SessionOrigin,
  type StoredModelRef,
  type StoredSession,
  TangentError,
} from '@tangent/core'
import type pg from 'pg'

/** The columns of `sessions` an index entry needs (never the events). */
export const sessionColumns =
  'id, header, parent_session, forked_at, inherited_event_count, event_count, title, model, mode, cwd, origin, archived, created_at, updated_at'

export interface SessionRow {
  id: string
  header: Record<string, unknown>
  parent_session: string | null
  forked_at: number | null
  inherited_event_count: number
  event_count: number
  title: string | null
  model: StoredModelRef | null
  mode: string | null
  cwd: string
  origin: string
  archived: boolean
  created_at: number
  updated_at: number
}

export function entryOfRow(row: SessionRow): StoredSession {
  return {
    id: row.id,
    title: row.title,
    cwd: row.cwd,
    parentSession: row.parent_session,
    forkedAt: row.forked_at,
    origin: row.origin as SessionOrigin,
    archived: row.archived,
    eventCount: row.event_count,
    inheritedEventCount: row.inherited_event_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    header: row.header,
    model: row.model,
    // A value this version does not know (a newer Tangent's mode) reads as none: `edit`.
    ...(isSessionModeId(row.mode) ? { mode: row.mode } : {}),
  }
}

/**
 * Every event of session `id` below `limit` (all when null), in seq order, in one query: the
 * chain of parents is walked by a recursive query, each link lending the seqs below the own
 * rows of the one after it. A loop of parents (damaged rows) stops at the first repeat.
 */
const chainEventsSql = `
  WITH RECURSIVE chain (id, parent, own_from, below, path) AS (
    SELECT id, parent_session, own_from, coalesce($2::integer, 2147483647), ARRAY[id]
      FROM sessions WHERE id = $1
    UNION ALL
    SELECT s.id, s.parent_session, s.own_from, least(c.own_from, c.below), c.path || s.id
      FROM chain c JOIN sessions s ON s.id = c.parent
     WHERE c.own_from > 0 AND NOT s.id = ANY (c.path)
  )
  SELECT e.seq, e.line FROM chain c
    JOIN events e ON e.session_id = c.id AND e.seq >= c.own_from AND e.seq < c.below
   ORDER BY e.seq`

/**
 * Copies the first `$2` events of session `$1` (read through its chain) into session `$3`'s own
 * rows: deleting a parent keeps its forks whole (docs/architecture.md §4).
 */
export const copyPrefixSql = `
  INSERT INTO events (session_id, seq, line)
  SELECT $3, prefix.seq, prefix.line FROM (${chainEventsSql}) AS prefix
  ON CONFLICT DO NOTHING`

export async function readChainEvents(
  client: pg.ClientBase | pg.Pool,
  id: string,
  limit: number | null,
): Promise<SessionEvent[]> {
  const { rows } = await client.query<{ seq: number; line: string }>(chainEventsSql, [id, limit])
  return eventsOfRows(id, rows, 0)
}

/** Parses rows `from`, `from + 1`, … into events; a gap or a bad line is corrupt-log. */
export function eventsOfRows(
  id: string,
  rows: readonly { seq: number; line: string }[],
  from: number,
): SessionEvent[] {
  const events: SessionEvent[] = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    if (row.seq !== from + i)
      throw corruptRows(
        id,
        row.seq,
        `seq ${from + i} is missing (the chain of parents is incomplete or damaged)`,
      )
    let event: SessionEvent
    try {
      event = JSON.parse(row.line) as SessionEvent
    } catch (error) {
      throw corruptRows(id, row.seq, `its line is not JSON (${(error as Error).message})`)
    }
    if (
      typeof event !== 'object' ||
      event === null ||
      event.seq !== row.seq ||
      typeof event.type !== 'string'
    )
      throw corruptRows(id, row.seq, 'its line is not the event of that seq')
    events[i] = event
  }
  return events
}

export function corruptRows(id: string, seq: number, why: string): TangentError {
  return new TangentError(
    'corrupt-log',
    `Session ${id} cannot be read from the database: at seq ${seq}, ${why}.`,
    { sessionId: id, line: seq, file: `events/${id}` },
  )
}
