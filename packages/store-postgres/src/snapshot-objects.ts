// The snapshot objects of the sessions in the database (docs/architecture.md §4, "Where snapshot
// objects live"): git blobs and trees, once each by id, so a Host on another machine can
// materialise any tree an event names. Batched (ANY($1), unnest) and chunked, so a first
// snapshot of 10,000 files is a handful of round trips.
import { type SnapshotObject, type SnapshotObjectStore, TangentError } from '@tangent/core'
import type { Database } from './database.js'
import { storeClosed, storeReadOnly } from './errors.js'

/** Ids per query of has/get. */
const idsPerQuery = 2_000
/** Objects and bytes per insert: one statement stays well under the server's limits. */
const objectsPerInsert = 1_000
const bytesPerInsert = 8 * 1024 * 1024
/** Tree objects read per query while marking. */
const treesPerRead = 500

/**
 * What names a tree in a session's events and header: a key `tree` or ending in `Tree`
 * (`snapshot/taken`'s tree, the header's baseTree, `files/restored`'s undoTree/targetTree…) with
 * a 40-hex value. A regular expression over the stored JSON text, so a new event type naming a
 * tree the same way is covered without a change here; it may match more than the schema does
 * (that only keeps more). Text the log quotes inside a string has its quotes escaped and does
 * not match.
 */
export const treeReferencePattern = '"(?:tree|[A-Za-z]*Tree)"\\s*:\\s*"([0-9a-f]{40})"'

const objectId = /^[0-9a-f]{40}$/

export interface PgSnapshotObjectsOptions {
  db: Database
  readOnly: boolean
  isClosed: () => boolean
  /** How long an object no event names yet is kept by collect() (default 10 minutes). */
  graceMs?: number
}

/** One entry of a git tree object: `<mode> <name>\0<20-byte id>`. */
export interface TreeEntry {
  mode: string
  name: string
  id: string
}

/** Parses git's binary tree format; throws on malformed data. */
export function parseTree(data: Uint8Array): TreeEntry[] {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const entries: TreeEntry[] = []
  let at = 0
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at)
    const nul = space < 0 ? -1 : bytes.indexOf(0, space)
    if (space < 0 || nul < 0 || nul + 21 > bytes.length) throw new Error('malformed git tree object')
    entries.push({
      mode: bytes.toString('latin1', at, space),
      name: bytes.toString('utf8', space + 1, nul),
      id: bytes.toString('hex', nul + 1, nul + 21),
    })
    at = nul + 21
  }
  return entries
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

export class PgSnapshotObjects implements SnapshotObjectStore {
  readonly #db: Database
  readonly #readOnly: boolean
  readonly #isClosed: () => boolean
  readonly graceMs: number

  constructor(options: PgSnapshotObjectsOptions) {
    this.#db = options.db
    this.#readOnly = options.readOnly
    this.#isClosed = options.isClosed
    this.graceMs = options.graceMs ?? 10 * 60_000
  }

  /**
   * Of `ids`, those held. A writer also touches them (at most once a minute each): the caller
   * is about to record a tree made of them, so a concurrent collect() on another Host must
   * treat them as young even when no event names them yet.
   */
  async has(ids: readonly string[]): Promise<Set<string>> {
    this.#assertOpen()
    const held = new Set<string>()
    for (const batch of chunks(
      [...new Set(ids)].filter((id) => objectId.test(id)),
      idsPerQuery,
    )) {
      const { rows } = await this.#db.withRetry(() =>
        this.#db.pool.query<{ id: string }>(
          this.#readOnly
            ? 'SELECT id FROM snapshot_objects WHERE id = ANY($1::text[])'
            : `WITH touched AS (
                 UPDATE snapshot_objects SET touched_at = now()
                 WHERE id = ANY($1::text[]) AND touched_at < now() - interval '1 minute'
               )
               SELECT id FROM snapshot_objects WHERE id = ANY($1::text[])`,
          [batch],
        ),
      )
      for (const row of rows) held.add(row.id)
    }
    return held
  }

  /** Inserts what is not held; one already held is only touched (as has() does), never rewritten. */
  async put(objects: readonly SnapshotObject[]): Promise<void> {
    this.#assertWritable('store snapshot objects')
    const seen = new Set<string>()
    let batch: SnapshotObject[] = []
    let batchBytes = 0
    const flush = async () => {
      if (batch.length === 0) return
      const rows = batch
      batch = []
      batchBytes = 0
      await this.#db.withRetry(() =>
        this.#db.pool.query(
          `INSERT INTO snapshot_objects (id, type, data, bytes)
           SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::integer[])
           ON CONFLICT (id) DO UPDATE SET touched_at = now()
             WHERE snapshot_objects.touched_at < now() - interval '1 minute'`,
          [
            rows.map((object) => object.id),
            rows.map((object) => object.type),
            rows.map((object) =>
              Buffer.from(object.data.buffer, object.data.byteOffset, object.data.byteLength),
            ),
            rows.map((object) => object.data.byteLength),
          ],
        ),
      )
    }
    for (const object of objects) {
      if (!objectId.test(object.id) || (object.type !== 'blob' && object.type !== 'tree')) {
        throw new TangentError(
          'invalid-params',
          `A snapshot object needs a 40-hex git id and the type blob or tree (got ${String(object.id).slice(0, 64)}, ${String(object.type)}).`,
          { id: String(object.id).slice(0, 64) },
        )
      }
      if (seen.has(object.id)) continue
      seen.add(object.id)
      if (
        batch.length >= objectsPerInsert ||
        (batch.length > 0 && batchBytes + object.data.byteLength > bytesPerInsert)
      )
        await flush()
      batch.push(object)
      batchBytes += object.data.byteLength
    }
    await flush()
  }

  async get(ids: readonly string[]): Promise<SnapshotObject[]> {
    this.#assertOpen()
    const found: SnapshotObject[] = []
    for (const batch of chunks(
      [...new Set(ids)].filter((id) => objectId.test(id)),
      idsPerQuery,
    )) {
      const { rows } = await this.#db.withRetry(() =>
        this.#db.pool.query<{ id: string; type: 'blob' | 'tree'; data: Buffer }>(
          'SELECT id, type, data FROM snapshot_objects WHERE id = ANY($1::text[])',
          [batch],
        ),
      )
      for (const row of rows) found.push({ id: row.id, type: row.type, data: row.data })
    }
    return found
  }

  async bytes(): Promise<number> {
    this.#assertOpen()
    const { rows } = await this.#db.withRetry(() =>
      this.#db.pool.query<{ bytes: string }>(
        'SELECT coalesce(sum(bytes), 0)::bigint AS bytes FROM snapshot_objects',
      ),
    )
    return Number(rows[0]?.bytes ?? 0)
  }

  /**
   * Mark and sweep: the roots are the trees every session's events and header name
   * (treeReferencePattern); marking reads only tree objects, a batch at a time, and holds the
   * reachable ids. Unmarked objects not touched within the grace period go, in one transaction
   * against a temporary table of the marked ids.
   */
  async collect(): Promise<{ removed: number; bytesBefore: number; bytesAfter: number }> {
    this.#assertWritable('collect snapshot objects')
    const bytesBefore = await this.bytes()
    const { rows: roots } = await this.#db.withRetry(() =>
      this.#db.pool.query<{ id: string }>(
        `SELECT m[1] AS id FROM events, regexp_matches(line, $1, 'g') AS m
         UNION
         SELECT m[1] AS id FROM sessions, regexp_matches(header::text, $1, 'g') AS m`,
        [treeReferencePattern],
      ),
    )
    const marked = new Set<string>()
    let frontier = roots.map((row) => row.id)
    for (const id of frontier) marked.add(id)
    while (frontier.length > 0) {
      const next: string[] = []
      for (const batch of chunks(frontier, treesPerRead)) {
        const { rows } = await this.#db.withRetry(() =>
          this.#db.pool.query<{ id: string; data: Buffer }>(
            "SELECT id, data FROM snapshot_objects WHERE id = ANY($1::text[]) AND type = 'tree'",
            [batch],
          ),
        )
        for (const row of rows) {
          let entries: TreeEntry[]
          try {
            entries = parseTree(row.data)
          } catch {
            continue // a damaged tree marks nothing below it; it is a root or reached, so it stays
          }
          for (const entry of entries) {
            if (entry.mode === '160000' || marked.has(entry.id)) continue // a submodule's commit is not stored
            marked.add(entry.id)
            if (entry.mode === '40000') next.push(entry.id)
          }
        }
      }
      frontier = next
    }
    const removed = await this.#db.withRetry(() =>
      this.#db.transaction(async (client) => {
        await client.query('CREATE TEMPORARY TABLE marked_objects (id text PRIMARY KEY) ON COMMIT DROP')
        for (const batch of chunks([...marked], 5_000)) {
          await client.query('INSERT INTO marked_objects SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [
            batch,
          ])
        }
        const result = await client.query(
          `DELETE FROM snapshot_objects o
           WHERE o.touched_at < now() - make_interval(secs => $1)
             AND NOT EXISTS (SELECT 1 FROM marked_objects m WHERE m.id = o.id)`,
          [this.graceMs / 1000],
        )
        return result.rowCount ?? 0
      }),
    )
    return { removed, bytesBefore, bytesAfter: await this.bytes() }
  }

  #assertOpen(): void {
    if (this.#isClosed()) throw storeClosed()
  }

  #assertWritable(what: string): void {
    this.#assertOpen()
    if (this.#readOnly) throw storeReadOnly(what)
  }
}
