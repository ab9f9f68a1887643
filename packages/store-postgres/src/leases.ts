// One writer per session across Hosts (docs/architecture.md §4): a lease row per claimed
// session, with a fencing token from a sequence. A claim takes the lease when it is free,
// expired or already ours; a heartbeat renews held leases every ttl/3; every batch commit
// checks the token in its own transaction (session-writer.ts), so a Host that lost its lease
// (paused past the ttl, taken over) can never write after the new holder.
import type pg from 'pg'
import { sessionBusy } from './errors.js'

export interface Acquired {
  token: string
  /** The lease before this claim: null when there was none. */
  previous: { holder: string; expired: boolean } | null
}

export async function acquireLease(
  pool: pg.Pool,
  id: string,
  holder: string,
  ttlMs: number,
): Promise<Acquired> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const before = await client.query<{ holder: string; expired: boolean }>(
      'SELECT holder, expires_at < now() AS expired FROM leases WHERE session_id = $1 FOR UPDATE',
      [id],
    )
    const taken = await client.query<{ token: string }>(
      `INSERT INTO leases (session_id, holder, token, expires_at)
       VALUES ($1, $2, nextval('lease_tokens'), now() + $3 * interval '1 millisecond')
       ON CONFLICT (session_id) DO UPDATE
         SET holder = excluded.holder, token = excluded.token, expires_at = excluded.expires_at
         WHERE leases.expires_at < now() OR leases.holder = excluded.holder
       RETURNING token`,
      [id, holder, ttlMs],
    )
    if (taken.rows.length === 0) {
      await client.query('ROLLBACK')
      // Held by a live holder (it may have been inserted after our SELECT: read it again).
      const now = await client.query<{ holder: string }>('SELECT holder FROM leases WHERE session_id = $1', [
        id,
      ])
      throw sessionBusy(id, now.rows[0]?.holder ?? before.rows[0]?.holder ?? null)
    }
    await client.query('COMMIT')
    return { token: taken.rows[0]!.token, previous: before.rows[0] ?? null }
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'session-busy')) {
      broken = error as Error
      await client.query('ROLLBACK').catch(() => undefined)
    }
    throw error
  } finally {
    client.release(broken)
  }
}

/** Renews the given leases; returns the ids whose lease is no longer ours. */
export async function renewLeases(
  pool: pg.Pool,
  holder: string,
  leases: ReadonlyMap<string, string>,
  ttlMs: number,
): Promise<string[]> {
  if (leases.size === 0) return []
  const ids = [...leases.keys()]
  const tokens = ids.map((id) => leases.get(id)!)
  const { rows } = await pool.query<{ session_id: string }>(
    `UPDATE leases l SET expires_at = now() + $2 * interval '1 millisecond'
       FROM unnest($3::text[], $4::bigint[]) AS mine (session_id, token)
      WHERE l.session_id = mine.session_id AND l.token = mine.token AND l.holder = $1
      RETURNING l.session_id`,
    [holder, ttlMs, ids, tokens],
  )
  const renewed = new Set(rows.map((row) => row.session_id))
  return ids.filter((id) => !renewed.has(id))
}

export async function releaseLease(pool: pg.Pool, id: string, holder: string, token: string): Promise<void> {
  await pool.query('DELETE FROM leases WHERE session_id = $1 AND holder = $2 AND token = $3', [
    id,
    holder,
    token,
  ])
}

/** The live holder of a session's lease other than `holder`, or null (none, expired, or ours). */
export async function otherLiveHolder(pool: pg.Pool, id: string, holder: string): Promise<string | null> {
  const { rows } = await pool.query<{ holder: string }>(
    'SELECT holder FROM leases WHERE session_id = $1 AND expires_at >= now() AND holder <> $2',
    [id, holder],
  )
  return rows[0]?.holder ?? null
}
