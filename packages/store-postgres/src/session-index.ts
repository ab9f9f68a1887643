// The index (docs/architecture.md §4): every session's entry in memory, loaded at open and kept
// current (by this Host's appends and by other Hosts' notifications), so `list`, `listView`,
// `get` and `headers` read no rows.
import { findParentLoops, type StoredSession } from '@tangent/core'
import type pg from 'pg'
import { entryOfRow, type SessionRow, sessionColumns } from './rows.js'
import type { StoreWarnings } from './warnings.js'

export class SessionIndex {
  readonly #index = new Map<string, StoredSession>()
  /** Entries in listing order; null when an entry was added, removed or moved since. */
  #order: StoredSession[] | null = null

  async load(pool: pg.Pool, warnings: StoreWarnings): Promise<void> {
    // Sorted by the server in listing order (ids compared byte-wise, as JavaScript compares ASCII).
    const { rows } = await pool.query<SessionRow>(
      `SELECT ${sessionColumns} FROM sessions ORDER BY created_at, id COLLATE "C"`,
    )
    const order: StoredSession[] = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const entry = entryOfRow(rows[i]!)
      order[i] = entry
      this.#index.set(entry.id, entry)
    }
    this.#order = order
    // Damaged rows can name each other as parents: listed flagged, as JSONL lists them.
    const { loops, loopOf } = findParentLoops(this.#index)
    for (const [id, loop] of loopOf) this.#index.get(id)!.parentLoop = [...loop]
    for (const loop of loops)
      warnings.warn({
        kind: 'parent-loop',
        file: warnings.location,
        message: `Sessions ${[...loop, loop[0]].join(' → ')} name each other as parents (damaged rows): they are listed with parentLoop set, and neither they nor forks reading through them can load. Fix parent_session in the row of one of them.`,
      })
  }

  get(id: string): StoredSession | undefined {
    return this.#index.get(id)
  }

  has(id: string): boolean {
    return this.#index.has(id)
  }

  ids(): string[] {
    return [...this.#index.keys()]
  }

  values(): IterableIterator<StoredSession> {
    return this.#index.values()
  }

  set(entry: StoredSession): void {
    const previous = this.#index.get(entry.id)
    this.#index.set(entry.id, entry)
    if (!previous || previous.createdAt !== entry.createdAt || this.#order === null) this.#order = null
    else this.#order[this.#order.indexOf(previous)] = entry
  }

  remove(id: string): boolean {
    const existed = this.#index.delete(id)
    if (existed) this.#order = null
    return existed
  }

  /** Listing order: oldest first, then by id (as JSONL's catalog). */
  sorted(): StoredSession[] {
    this.#order ??= [...this.#index.values()].sort(
      (a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    return this.#order
  }
}
