// The catalog: one entry per session (title, lineage, counts, archived flag) so listing
// never parses logs. Kept in memory, persisted atomically to `<dir>/catalog.json`, and
// rebuilt from the logs when missing, damaged or stale.
import { readdirSync, readFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { z } from 'zod'
import { writeFileAtomic } from './durable-fs.js'
import { SessionOrigin } from './log-format.js'
import { type LogScan, type ModelRef, scanLog } from './log-scan.js'
import { type StorePaths, sessionLogFile } from './store-paths.js'

export const ModelRefSchema = z.object({
  provider: z.string(),
  model: z.string(),
  reasoningEffort: z.string().optional(),
})

export const CatalogEntry = z.object({
  id: z.string(),
  title: z.string().nullable(),
  cwd: z.string(),
  parentSession: z.string().nullable(),
  forkedAt: z.number().nullable(),
  origin: SessionOrigin,
  archived: z.boolean(),
  eventCount: z.number().int().nonnegative(),
  inheritedEventCount: z.number().int().nonnegative(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The header line as on disk, extra meta included. */
  header: z.record(z.string(), z.unknown()),
  model: ModelRefSchema.nullable(),
})
export type CatalogEntry = z.infer<typeof CatalogEntry>

/** What the catalog file stores per session: the entry plus what keeps it current cheaply. */
export const CatalogRecord = CatalogEntry.extend({
  /** Size of the log when this record was true (null: unknown, rescan after a crash). */
  logBytes: z.number().int().nonnegative().nullable(),
  /** Title and model as of the end of an inherited ("ref") prefix, which lives in another log. */
  inheritedTitle: z.string().nullable(),
  inheritedModel: ModelRefSchema.nullable(),
})
export type CatalogRecord = z.infer<typeof CatalogRecord>

export const CatalogFile = z.object({
  version: z.literal(1),
  sessions: z.array(CatalogRecord),
  /** Logs without a readable header (kept for a human to look at, never listed). */
  damaged: z.array(z.string()).default([]),
})
type StoredCatalog = z.infer<typeof CatalogFile>

const scanConcurrency = 4

export function entryOf(record: CatalogRecord): CatalogEntry {
  const { logBytes: _bytes, inheritedTitle: _title, inheritedModel: _model, ...entry } = record
  return entry
}

export class Catalog {
  readonly #records = new Map<string, CatalogRecord>()
  /** Ids whose log has no readable header. */
  readonly damaged = new Set<string>()
  /** True when memory holds changes the file does not. */
  dirty = false

  get(id: string): CatalogRecord | undefined {
    return this.#records.get(id)
  }

  set(record: CatalogRecord): void {
    this.#records.set(record.id, record)
    this.dirty = true
  }

  delete(id: string): void {
    if (this.#records.delete(id) || this.damaged.delete(id)) this.dirty = true
  }

  records(): IterableIterator<CatalogRecord> {
    return this.#records.values()
  }

  /**
   * Reads the catalog and checks it against the sessions directory (one readdir): a
   * missing, damaged or incomplete catalog is rebuilt from the logs. With `verifySizes`
   * (the last writer did not close cleanly) each log's size is compared too, and logs
   * that changed are rescanned.
   */
  static async open(paths: StorePaths, options: { verifySizes: boolean }): Promise<Catalog> {
    const catalog = new Catalog()
    const listing = listSessionsDir(paths)
    const stored = readCatalogFile(paths.catalogFile)
    const complete =
      stored !== null &&
      stored.sessions.length + stored.damaged.length === listing.logs.size &&
      stored.sessions.every((record) => listing.logs.has(record.id)) &&
      stored.damaged.every((id) => listing.logs.has(id))
    if (!complete) {
      await catalog.#rebuild(paths, listing)
      return catalog
    }
    for (const record of stored.sessions) catalog.#records.set(record.id, record)
    for (const id of stored.damaged) catalog.damaged.add(id)
    for (const record of stored.sessions) {
      const archived = listing.archived.has(record.id)
      if (record.archived !== archived) catalog.set({ ...record, archived })
    }
    if (options.verifySizes) await catalog.#rescanChanged(paths)
    return catalog
  }

  /** Writes the catalog atomically; `logBytesOf` gives the durable size of logs written since. */
  async persist(file: string, logBytesOf: (id: string) => number | null | undefined): Promise<void> {
    const sessions = [...this.#records.values()].map((record) => {
      const bytes = logBytesOf(record.id)
      return bytes === undefined ? record : { ...record, logBytes: bytes }
    })
    this.dirty = false
    await writeFileAtomic(file, [JSON.stringify({ version: 1, sessions, damaged: [...this.damaged] })])
  }

  async #rebuild(paths: StorePaths, listing: SessionsListing): Promise<void> {
    const scans = new Map<string, LogScan>()
    await forEachLimited([...listing.logs], scanConcurrency, async (id) => {
      const scan = await scanLog(sessionLogFile(paths, id))
      if (scan && scan.header.id === id) scans.set(id, scan)
      else this.damaged.add(id)
    })
    const before = (
      id: string,
      count: number,
      pick: 'titles' | 'models',
      depth = 0,
    ): string | ModelRef | null => {
      const scan = scans.get(id)
      if (!scan || depth > scans.size) return null // a loop of damaged headers names nothing
      const list = scan[pick] as { seq: number; title?: string; model?: ModelRef }[]
      for (let i = list.length - 1; i >= 0; i--) {
        const item = list[i]!
        if (item.seq < count) return item.title ?? item.model ?? null
      }
      const parent = scan.header.parentSession
      return scan.startSeq > 0 && parent
        ? before(parent, Math.min(count, scan.startSeq), pick, depth + 1)
        : null
    }
    for (const [id, scan] of scans) {
      const parent = scan.header.parentSession
      const ref = scan.startSeq > 0 && parent !== undefined
      const record = recordOf(scan, {
        archived: listing.archived.has(id),
        inheritedTitle: ref ? (before(parent, scan.startSeq, 'titles') as string | null) : null,
        inheritedModel: ref ? (before(parent, scan.startSeq, 'models') as ModelRef | null) : null,
      })
      this.#records.set(id, record)
    }
    this.dirty = true
  }

  async #rescanChanged(paths: StorePaths): Promise<void> {
    await forEachLimited([...this.#records.values()], scanConcurrency * 4, async (record) => {
      const file = sessionLogFile(paths, record.id)
      const { size } = await stat(file)
      if (record.logBytes === size) return
      const scan = await scanLog(file)
      if (!scan || scan.header.id !== record.id) {
        this.delete(record.id)
        this.damaged.add(record.id)
        return
      }
      this.set(recordOf(scan, record))
    })
  }
}

/** A record from a scan; what lives outside the log (archived, inherited values) is given. */
export function recordOf(
  scan: LogScan,
  outside: Pick<CatalogRecord, 'archived' | 'inheritedTitle' | 'inheritedModel'>,
): CatalogRecord {
  const header = scan.header
  return {
    id: header.id,
    title: scan.titles.at(-1)?.title ?? outside.inheritedTitle ?? header.title ?? null,
    cwd: header.cwd,
    parentSession: header.parentSession ?? null,
    forkedAt: header.forkedAt ?? null,
    origin: header.origin,
    archived: outside.archived,
    eventCount: scan.startSeq + scan.eventCount,
    inheritedEventCount: header.inheritedEventCount,
    createdAt: header.createdAt,
    updatedAt: scan.lastTime ?? header.createdAt,
    header,
    model: scan.models.at(-1)?.model ?? outside.inheritedModel ?? null,
    logBytes: scan.goodBytes,
    inheritedTitle: outside.inheritedTitle,
    inheritedModel: outside.inheritedModel,
  }
}

interface SessionsListing {
  logs: Set<string>
  archived: Set<string>
}

// Synchronous, like the catalog read below: one readdir and one read at open, no thread-pool hops.
function listSessionsDir(paths: StorePaths): SessionsListing {
  let names: string[]
  try {
    names = readdirSync(paths.sessionsDir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { logs: new Set(), archived: new Set() }
    throw error
  }
  const logs = new Set<string>()
  const archived = new Set<string>()
  for (const name of names) {
    if (name.startsWith('.')) continue
    if (name.endsWith('.jsonl')) logs.add(name.slice(0, -'.jsonl'.length))
    else if (name.endsWith('.archived')) archived.add(name.slice(0, -'.archived'.length))
  }
  return { logs, archived }
}

/** The stored records, or null when the file is missing or damaged (then it is rebuilt). */
function readCatalogFile(file: string): StoredCatalog | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null // damaged: the logs are the truth, the catalog is rebuilt from them
  }
  const parsed = CatalogFile.safeParse(value)
  return parsed.success ? parsed.data : null
}

async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await task(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}
