// The catalog: one entry per session (title, lineage, counts, archived flag) so listing
// never parses logs. Kept in memory, persisted atomically to `<dir>/catalog.json`, and
// rebuilt from the logs when missing, damaged or stale.
import { closeSync, constants, type Dirent, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { z } from 'zod'
import { fileKind, writeFileAtomic } from './durable-fs.js'
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
  /**
   * Set when the chain of parents of this session loops (damaged headers: A's parent is B,
   * B's is A): the ids on the loop, in order. Such a session is listed, but neither it nor a
   * fork that reads its prefix through the loop can load (`corrupt-log`).
   */
  parentLoop: z.array(z.string()).optional(),
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

/** The public part of a record, as a copy (spelled out: a rest spread is ~10× slower on 10,000 records). */
export function entryOf(record: CatalogRecord): CatalogEntry {
  if (record.parentLoop !== undefined) return { ...plainEntryOf(record), parentLoop: [...record.parentLoop] }
  return plainEntryOf(record)
}

function plainEntryOf(record: CatalogRecord): CatalogEntry {
  return {
    id: record.id,
    title: record.title,
    cwd: record.cwd,
    parentSession: record.parentSession,
    forkedAt: record.forkedAt,
    origin: record.origin,
    archived: record.archived,
    eventCount: record.eventCount,
    inheritedEventCount: record.inheritedEventCount,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    header: record.header,
    model: record.model,
  }
}

// A plain loop: the file is written in order, and sort() calls its comparator even on sorted input.
function isSorted(records: readonly CatalogRecord[]): boolean {
  for (let i = 1; i < records.length; i++) if (compareRecords(records[i - 1]!, records[i]!) > 0) return false
  return true
}

/** Listing order: oldest first, then by id (code units, as ids are ASCII). */
function compareRecords(a: CatalogRecord, b: CatalogRecord): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

export class Catalog {
  readonly #records = new Map<string, CatalogRecord>()
  /** Ids in listing order; null when a record was added, removed or moved since. */
  #order: string[] | null = null
  /** Ids whose log has no readable header. */
  readonly damaged = new Set<string>()
  /** Why each log scanned at this open is damaged (for warnings; not stored in the file). */
  readonly problems = new Map<string, string>()
  /**
   * `<id>.jsonl` entries that are not regular files (FIFO, directory, symbolic link) or could
   * not be read: never listed, never read, never written. Found again at every open.
   */
  readonly skipped = new Map<string, { file: string; why: string }>()
  /** Loops of parents among the records (each loop once, in order). */
  loops: string[][] = []
  /** Why `catalog.json` was not used (rebuilt), when it exists but could not be used. */
  catalogProblem: string | null = null
  /** True when memory holds changes the file does not. */
  dirty = false
  /** Temp files of interrupted log rewrites seen in `sessions/` at open (the writer removes them). */
  tempLogFiles: readonly string[] = []

  get(id: string): CatalogRecord | undefined {
    return this.#records.get(id)
  }

  set(record: CatalogRecord): void {
    const previous = this.#records.get(record.id)
    if (previous?.createdAt !== record.createdAt) this.#order = null
    this.#records.set(record.id, record)
    this.dirty = true
  }

  delete(id: string): void {
    if (this.#records.delete(id)) {
      this.#order = null
      this.dirty = true
    } else if (this.damaged.delete(id)) this.dirty = true
  }

  records(): IterableIterator<CatalogRecord> {
    return this.#records.values()
  }

  /**
   * The records in listing order. The order is kept between calls (only adding, removing or
   * re-dating a record resets it), and the file is written in it, so a fresh open sorts a
   * run that is already in order.
   */
  sorted(): CatalogRecord[] {
    if (this.#order === null) {
      const records = [...this.#records.values()]
      if (!isSorted(records)) records.sort(compareRecords)
      this.#order = records.map((record) => record.id)
      return records
    }
    return this.#order.map((id) => this.#records.get(id)!)
  }

  /**
   * Reads the catalog and checks it against the sessions directory (one readdir): a
   * missing, damaged or incomplete catalog is rebuilt from the logs. With `verifySizes`
   * (the catalog is not known to match the logs: the last writer did not close cleanly, or
   * its last catalog write failed) each log's size is compared with the size its record
   * was true for, and logs that changed are rescanned.
   */
  static async open(paths: StorePaths, options: { verifySizes: boolean }): Promise<Catalog> {
    const catalog = new Catalog()
    const listing = listSessionsDir(paths)
    catalog.tempLogFiles = listing.temp
    for (const [id, skipped] of listing.skipped) catalog.skipped.set(id, skipped)
    const stored = readCatalogFile(paths.catalogFile, (why) => {
      catalog.catalogProblem = why
    })
    if (stored === null) {
      await catalog.#addScanned(paths, listing, [...listing.logs])
      catalog.findLoops()
      return catalog
    }
    for (const record of stored.sessions) {
      if (!listing.logs.has(record.id)) {
        catalog.dirty = true // deleted behind the catalog's back
        continue
      }
      const archived = listing.archived.has(record.id)
      if (record.archived !== archived) {
        record.archived = archived // the record was parsed just now: nobody else holds it
        catalog.dirty = true
      }
      catalog.#records.set(record.id, record)
    }
    for (const id of stored.damaged) if (listing.logs.has(id)) catalog.damaged.add(id)
    // Logs the catalog does not know (created after its last write): scanned one by one.
    const unknown = [...listing.logs].filter((id) => !catalog.#records.has(id) && !catalog.damaged.has(id))
    if (unknown.length > 0) await catalog.#addScanned(paths, listing, unknown)
    if (options.verifySizes) await catalog.#rescanChanged(paths)
    catalog.findLoops()
    return catalog
  }

  /** Writes the catalog atomically; `logBytesOf` gives the durable size of logs written since. */
  async persist(file: string, logBytesOf: (id: string) => number | null | undefined): Promise<void> {
    const sessions = this.sorted().map((record) => {
      const bytes = logBytesOf(record.id)
      return bytes === undefined ? record : { ...record, logBytes: bytes }
    })
    this.dirty = false
    try {
      await writeFileAtomic(file, [JSON.stringify({ version: 1, sessions, damaged: [...this.damaged] })])
    } catch (error) {
      this.dirty = true // the file does not hold these changes: the next write (or close) tries again
      throw error
    }
  }

  /**
   * Marks each record whose chain of parents loops (or leads into a loop) with the loop,
   * and lists each loop once. Only damaged headers make one: the store never writes one.
   */
  findLoops(): void {
    const loopOf = new Map<string, string[] | null>()
    this.loops = []
    for (const start of this.#records.keys()) {
      if (loopOf.has(start)) continue
      const path: string[] = []
      const onPath = new Map<string, number>()
      let current: string | null = start
      while (current !== null && this.#records.has(current) && !loopOf.has(current) && !onPath.has(current)) {
        onPath.set(current, path.length)
        path.push(current)
        current = this.#records.get(current)!.parentSession
      }
      let found: string[] | null = null
      if (current !== null && onPath.has(current)) {
        found = path.slice(onPath.get(current)!)
        this.loops.push(found)
      } else if (current !== null) found = loopOf.get(current) ?? null
      for (const id of path) loopOf.set(id, found)
    }
    for (const record of this.#records.values()) {
      const loop = loopOf.get(record.id) ?? null
      if (loop) record.parentLoop = loop
      else if (record.parentLoop !== undefined) delete record.parentLoop
    }
  }

  /**
   * Scans the logs `ids` and adds their records. A "ref" log's title and model may come
   * from its prefix: that is looked up in its parents' logs, scanned on demand.
   */
  async #addScanned(paths: StorePaths, listing: SessionsListing, ids: readonly string[]): Promise<void> {
    const scans = new Map<string, LogScan | null>()
    const scanOf = async (id: string): Promise<LogScan | null> => {
      if (!scans.has(id)) {
        scans.set(id, null) // also while scanning: a loop of parents ends here
        if (listing.logs.has(id) && !this.skipped.has(id)) {
          const file = sessionLogFile(paths, id)
          try {
            const scan = await scanLog(file)
            if (scan.header === null) this.problems.set(id, scan.problem)
            else if (scan.header.id !== id)
              this.problems.set(id, `its header names session ${scan.header.id}`)
            else scans.set(id, scan)
          } catch (error) {
            // One unreadable file must not keep the store from opening: it is skipped, and said.
            this.skipped.set(id, { file, why: (error as Error).message })
          }
        }
      }
      return scans.get(id) ?? null
    }
    await forEachLimited(ids, scanConcurrency, async (id) => {
      await scanOf(id)
    })
    const before = async (
      id: string,
      count: number,
      pick: 'titles' | 'models',
      depth = 0,
    ): Promise<string | ModelRef | null> => {
      const scan = await scanOf(id)
      if (!scan || depth > listing.logs.size) return null // a loop of damaged headers names nothing
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
    for (const id of ids) {
      const scan = scans.get(id)
      if (!scan) {
        if (!this.skipped.has(id)) this.damaged.add(id)
        continue
      }
      const parent = scan.header.parentSession
      const ref = scan.startSeq > 0 && parent !== undefined
      this.#records.set(
        id,
        recordOf(scan, {
          archived: listing.archived.has(id),
          inheritedTitle: ref ? ((await before(parent, scan.startSeq, 'titles')) as string | null) : null,
          inheritedModel: ref ? ((await before(parent, scan.startSeq, 'models')) as ModelRef | null) : null,
        }),
      )
    }
    this.#order = null
    this.dirty = true
  }

  async #rescanChanged(paths: StorePaths): Promise<void> {
    await forEachLimited([...this.#records.values()], scanConcurrency * 4, async (record) => {
      const file = sessionLogFile(paths, record.id)
      try {
        const stats = await lstat(file)
        if (!stats.isFile()) {
          this.delete(record.id)
          this.skipped.set(record.id, { file, why: `it is a ${fileKind(stats)}, not a regular file` })
          return
        }
        if (record.logBytes === stats.size) return
        const scan = await scanLog(file)
        if (scan.header === null || scan.header.id !== record.id) {
          this.delete(record.id)
          this.damaged.add(record.id)
          this.problems.set(
            record.id,
            scan.header === null ? scan.problem : `its header names session ${scan.header.id}`,
          )
          return
        }
        this.set(recordOf(scan, record))
      } catch (error) {
        this.delete(record.id)
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          this.skipped.set(record.id, { file, why: (error as Error).message })
      }
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
  /** Ids of the `<id>.jsonl` entries that are regular files. */
  logs: Set<string>
  archived: Set<string>
  /** Temp files of atomic log rewrites (`.<id>.jsonl.tmp-…`) that a crash left behind. */
  temp: string[]
  /** `<id>.jsonl` entries that are not regular files: a FIFO, a directory, a symbolic link. */
  skipped: Map<string, { file: string; why: string }>
}

// Synchronous, like the catalog read below: one readdir and one read at open, no thread-pool hops.
function listSessionsDir(paths: StorePaths): SessionsListing {
  let entries: Dirent[]
  try {
    // The entry types come with the names (no stat per file): a FIFO, directory or link is
    // never opened (a FIFO would hang the open; a link could lead out of the data directory).
    entries = readdirSync(paths.sessionsDir, { withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { logs: new Set(), archived: new Set(), temp: [], skipped: new Map() }
    throw error
  }
  const logs = new Set<string>()
  const archived = new Set<string>()
  const temp: string[] = []
  const skipped = new Map<string, { file: string; why: string }>()
  for (const entry of entries) {
    const name = entry.name
    if (name.startsWith('.')) {
      if (name.includes('.jsonl.tmp-')) temp.push(name)
      continue
    }
    if (name.endsWith('.jsonl')) {
      const id = name.slice(0, -'.jsonl'.length)
      if (entry.isFile()) logs.add(id)
      else
        skipped.set(id, {
          file: sessionLogFile(paths, id),
          why: `it is a ${fileKind(entry)}, not a regular file`,
        })
    } else if (name.endsWith('.archived')) archived.add(name.slice(0, -'.archived'.length))
  }
  return { logs, archived, temp, skipped }
}

/** The stored records, or null when the file is missing or damaged (then it is rebuilt). */
function readCatalogFile(file: string, problem: (why: string) => void): StoredCatalog | null {
  let text: string
  try {
    // Not through a link, not blocking on a FIFO; anything but a regular file is rebuilt.
    const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
    try {
      const stats = fstatSync(fd)
      if (!stats.isFile()) {
        problem(`it is a ${fileKind(stats)}, not a regular file`)
        return null
      }
      text = readFileSync(fd, 'utf8')
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return null
    if (code === 'ELOOP' || code === 'EMLINK' || code === 'EISDIR' || code === 'ENXIO') {
      problem(`it is not a regular file (${code})`)
      return null
    }
    throw error
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null // damaged: the logs are the truth, the catalog is rebuilt from them
  }
  return isStoredCatalog(value) ? { ...value, damaged: value.damaged ?? [] } : null
}

const isCount = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isNullableString = (value: unknown) => value === null || typeof value === 'string'
const isModel = (value: unknown) =>
  value === null ||
  (isObject(value) &&
    typeof value.provider === 'string' &&
    typeof value.model === 'string' &&
    (value.reasoningEffort === undefined || typeof value.reasoningEffort === 'string'))
const origins = new Set(SessionOrigin.options as readonly string[])

/**
 * The fast check of a catalog file, equivalent to `CatalogFile` (zod is ~10× slower on
 * 10,000 entries, and listing must stay fast); a file that fails it is rebuilt from the logs.
 */
function isStoredCatalog(value: unknown): value is Omit<StoredCatalog, 'damaged'> & { damaged?: string[] } {
  if (!isObject(value) || value.version !== 1 || !Array.isArray(value.sessions)) return false
  if (
    value.damaged !== undefined &&
    !(Array.isArray(value.damaged) && value.damaged.every((id) => typeof id === 'string'))
  )
    return false
  return value.sessions.every(
    (record: unknown) =>
      isObject(record) &&
      typeof record.id === 'string' &&
      isNullableString(record.title) &&
      typeof record.cwd === 'string' &&
      isNullableString(record.parentSession) &&
      (record.forkedAt === null || typeof record.forkedAt === 'number') &&
      typeof record.origin === 'string' &&
      origins.has(record.origin) &&
      typeof record.archived === 'boolean' &&
      isCount(record.eventCount) &&
      isCount(record.inheritedEventCount) &&
      typeof record.createdAt === 'number' &&
      typeof record.updatedAt === 'number' &&
      isObject(record.header) &&
      isModel(record.model) &&
      (record.logBytes === null || isCount(record.logBytes)) &&
      isNullableString(record.inheritedTitle) &&
      isModel(record.inheritedModel),
  )
}

async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await task(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}
