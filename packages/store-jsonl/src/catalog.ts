// The catalog: one entry per session (title, lineage, counts, archived flag) so listing
// never parses logs. Kept in memory; on disk a snapshot (`<dir>/catalog.json`, written
// atomically) plus a journal of the changes since (`<dir>/catalog.journal`, appended), so a
// change writes bytes in proportion to the change (docs/architecture.md §4); rebuilt from the
// logs when missing, damaged or stale.
import { type Dirent, lstatSync, readdirSync } from 'node:fs'
import type { SessionModeId } from '@tangent/core/session-modes'
import {
  type CatalogEntry,
  type CatalogRecord,
  currentIdentity,
  type FileIdentity,
  identityOf,
  readCatalogFiles,
  sameIdentity,
  writeReplacing,
} from './catalog-format.js'
import { fileKind, openFlags, openRegularFile, unlinkIfPresent, writeAll } from './durable-fs.js'
import { type LogScan, type ModelRef, scanLog } from './log-scan.js'
import { type StorePaths, sessionLogFile } from './store-paths.js'

const scanConcurrency = 4
/** The journal is folded into a new snapshot once it outgrows half the snapshot (at least this). */
const minJournalBytes = 64 * 1024
/** A change of more records than this share of the catalog is written as a snapshot at once. */
const snapshotShare = 0.25

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
    ...(record.mode !== undefined ? { mode: record.mode } : {}),
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
  /** Why part of `catalog.journal` was not used (the catalog was checked against the logs). */
  journalProblem: string | null = null
  /** Temp files of interrupted log rewrites seen in `sessions/` at open (the writer removes them). */
  tempLogFiles: readonly string[] = []
  /** Ids whose record (or absence) the files do not hold yet. */
  readonly #changed = new Set<string>()
  /** The next write is a whole snapshot (no usable one, a damaged journal, a failed write). */
  #snapshotDue = false
  /** The token of the snapshot the journal extends; null: none (a version 1 or no snapshot). */
  #token: string | null = null
  /** The snapshot and journal files as read or last written by this catalog. */
  #snapshotIdentity: FileIdentity | null = null
  #journalIdentity: FileIdentity | null = null
  #snapshotBytes = 0
  /** Bytes of the journal that extend the snapshot (0: no journal of this snapshot yet). */
  #journalBytes = 0

  /** True when memory holds changes the files do not. */
  get dirty(): boolean {
    return this.#snapshotDue || this.#changed.size > 0
  }

  get(id: string): CatalogRecord | undefined {
    return this.#records.get(id)
  }

  set(record: CatalogRecord): void {
    const previous = this.#records.get(record.id)
    // The same record again (a load of a log the catalog is current for) is no change to write.
    if (previous && previous !== record && sameRecord(previous, record)) return
    if (previous?.createdAt !== record.createdAt) this.#order = null
    this.#records.set(record.id, record)
    this.damaged.delete(record.id)
    this.#changed.add(record.id)
  }

  /** Says that the record of `id` was changed in place (an append). */
  touch(id: string): void {
    this.#changed.add(id)
  }

  delete(id: string): void {
    if (this.#records.delete(id)) {
      this.#order = null
      this.#changed.add(id)
    } else if (this.damaged.delete(id)) this.#changed.add(id)
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
    const stored = readCatalogFiles(paths, (why) => {
      catalog.catalogProblem = why
    })
    catalog.#snapshotIdentity = stored.snapshotIdentity
    catalog.#journalIdentity = stored.journalIdentity
    if (stored.catalog === null) {
      catalog.#snapshotDue = true
      await catalog.#addScanned(paths, listing, [...listing.logs])
      catalog.findLoops()
      return catalog
    }
    catalog.#token = stored.catalog.token ?? null
    catalog.#snapshotBytes = stored.snapshotBytes
    catalog.#journalBytes = stored.journalBytes
    catalog.journalProblem = stored.journalProblem
    // A torn or damaged journal: what it lost is found in the logs, and the next write starts over.
    if (stored.journalUntrusted) catalog.#snapshotDue = true
    for (const record of stored.catalog.sessions) {
      if (!listing.logs.has(record.id)) {
        catalog.#changed.add(record.id) // deleted behind the catalog's back
        continue
      }
      const archived = listing.archived.has(record.id)
      if (record.archived !== archived) {
        record.archived = archived // the record was parsed just now: nobody else holds it
        catalog.#changed.add(record.id)
      }
      catalog.#records.set(record.id, record)
    }
    for (const id of stored.catalog.damaged) if (listing.logs.has(id)) catalog.damaged.add(id)
    // Logs the catalog does not know (created after its last write): scanned one by one.
    // Both sets hold only listed logs: when they cover all of them, no pass over the 10,000 ids.
    let known = catalog.#records.size
    for (const id of catalog.damaged) if (!catalog.#records.has(id)) known++
    const unknown: string[] = []
    if (known < listing.logs.size)
      for (const id of listing.logs)
        if (!catalog.#records.has(id) && !catalog.damaged.has(id)) unknown.push(id)
    if (unknown.length > 0) await catalog.#addScanned(paths, listing, unknown)
    if (options.verifySizes || stored.journalUntrusted) await catalog.#rescanChanged(paths)
    catalog.findLoops()
    return catalog
  }

  /**
   * Writes what changed since the last write (docs/architecture.md §4): as records appended to
   * the journal, or — when there is no snapshot to extend, the journal would outgrow half the
   * snapshot, over a quarter of the records changed, or the files are not the ones this catalog last wrote — as
   * a new snapshot. `live` gives the durable size of each log a writer holds (null: not
   * durable yet), so its record says which size it is true for.
   */
  async persist(paths: StorePaths, live: Iterable<[id: string, logBytes: number | null]>): Promise<void> {
    for (const [id, bytes] of live) {
      const record = this.#records.get(id)
      if (record && record.logBytes !== bytes) {
        record.logBytes = bytes
        this.#changed.add(id)
      }
    }
    if (!this.dirty) return
    const ids = [...this.#changed]
    this.#changed.clear()
    try {
      if (this.#snapshotDue || this.#token === null || ids.length > this.#records.size * snapshotShare + 16)
        await this.#writeSnapshot(paths)
      else {
        const data = Buffer.from(this.#journalLines(ids))
        const limit = Math.max(minJournalBytes, this.#snapshotBytes / 2)
        if (this.#journalBytes + data.length > limit || !this.#filesAreMine(paths))
          await this.#writeSnapshot(paths)
        else await this.#appendJournal(paths, data)
      }
    } catch (error) {
      // The files do not hold these changes, and the journal's end is unknown: the next write
      // (or close) writes them again, as a whole snapshot.
      for (const id of ids) this.#changed.add(id)
      this.#snapshotDue = true
      throw error
    }
  }

  /**
   * A reader's save of a catalog it rebuilt or brought up to date (docs/architecture.md §4):
   * a new snapshot, written to a temp file and renamed over `catalog.json` only if, just
   * before the rename, `mayReplace()` holds and neither catalog file changed since this
   * catalog read them. Returns whether it was saved.
   */
  async saveSnapshot(paths: StorePaths, mayReplace: () => boolean): Promise<boolean> {
    const saved = await this.#writeSnapshot(paths, () => mayReplace() && this.#filesAreMine(paths))
    if (saved) this.#changed.clear()
    return saved
  }

  /** True when both catalog files are still those this catalog read or wrote last. */
  #filesAreMine(paths: StorePaths): boolean {
    return (
      sameIdentity(currentIdentity(paths.catalogFile), this.#snapshotIdentity) &&
      sameIdentity(currentIdentity(paths.catalogJournalFile), this.#journalIdentity)
    )
  }

  /** The journal lines for `ids`: removals first, then records in listing order. */
  #journalLines(ids: readonly string[]): string {
    const lines: string[] = []
    const records: CatalogRecord[] = []
    for (const id of ids) {
      const record = this.#records.get(id)
      if (record) records.push(record)
      else lines.push(`${JSON.stringify(this.damaged.has(id) ? { damaged: id } : { delete: id })}\n`)
    }
    records.sort(compareRecords)
    for (const record of records) lines.push(`${JSON.stringify({ set: record })}\n`)
    return lines.join('')
  }

  /**
   * Writes every record as a new snapshot: temp file (0600), fsync, rename, fsync of the
   * directory; the old journal, which names the old snapshot, is then removed (left behind by
   * a crash, it names another token and is ignored). With `beforeRename`, a false answer
   * abandons the write.
   */
  async #writeSnapshot(paths: StorePaths, beforeRename?: () => boolean): Promise<boolean> {
    const token = process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex') // node:crypto on first use: a reader never writes
    const text = JSON.stringify({ version: 2, token, sessions: this.sorted(), damaged: [...this.damaged] })
    const written = await writeReplacing(paths.catalogFile, Buffer.from(text), beforeRename)
    if (written === null) return false
    this.#token = token
    this.#snapshotIdentity = written
    this.#snapshotBytes = written.size
    this.#snapshotDue = false
    this.#journalBytes = 0
    this.#journalIdentity = null
    if (!beforeRename)
      await unlinkIfPresent(paths.catalogJournalFile) // a reader leaves it: a writer may own it
    else this.#journalIdentity = currentIdentity(paths.catalogJournalFile)
    return true
  }

  /** Appends records to the journal (one fsync); the first ones create it with its header. */
  async #appendJournal(paths: StorePaths, data: Buffer): Promise<void> {
    const file = paths.catalogJournalFile
    if (this.#journalBytes === 0) {
      const header = Buffer.from(
        `${JSON.stringify({ type: 'catalog-journal', version: 1, snapshot: this.#token })}\n`,
      )
      const written = await writeReplacing(file, Buffer.concat([header, data]))
      this.#journalIdentity = written
      this.#journalBytes = written!.size
      return
    }
    const handle = await openRegularFile(file, openFlags.append)
    try {
      await writeAll(handle, data, file)
      await handle.datasync()
      this.#journalIdentity = identityOf(await handle.stat())
    } finally {
      await handle.close()
    }
    this.#journalBytes += data.length
  }

  /**
   * Marks each record whose chain of parents loops (or leads into a loop) with the loop,
   * and lists each loop once. Only damaged headers make one: the store never writes one.
   */
  findLoops(): void {
    this.loops = []
    // One walk per chain, with one path and one map reused: a session without a parent (most of
    // them) costs no allocation, which matters at 10,000 records in a fresh process.
    const loopOf = new Map<string, string[] | null>()
    const onPath = new Map<string, number>()
    const path: string[] = []
    for (const startRecord of this.#records.values()) {
      if (startRecord.parentSession === null || loopOf.has(startRecord.id)) continue
      let current: string | null = startRecord.id
      while (current !== null && !loopOf.has(current) && !onPath.has(current)) {
        const record = this.#records.get(current)
        if (record === undefined) break
        onPath.set(current, path.length)
        path.push(current)
        current = record.parentSession
      }
      let found: string[] | null = null
      if (current !== null && onPath.has(current)) {
        found = path.slice(onPath.get(current)!)
        this.loops.push(found)
      } else if (current !== null) found = loopOf.get(current) ?? null
      for (const id of path) loopOf.set(id, found)
      path.length = 0
      onPath.clear()
    }
    for (const record of this.#records.values()) {
      const loop = record.parentSession === null ? null : (loopOf.get(record.id) ?? null)
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
      pick: 'titles' | 'models' | 'modes',
      depth = 0,
    ): Promise<string | ModelRef | null> => {
      const scan = await scanOf(id)
      if (!scan || depth > listing.logs.size) return null // a loop of damaged headers names nothing
      const list = scan[pick] as { seq: number; title?: string; model?: ModelRef; mode?: string }[]
      for (let i = list.length - 1; i >= 0; i--) {
        const item = list[i]!
        if (item.seq < count) return item.title ?? item.model ?? item.mode ?? null
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
          inheritedMode: ref
            ? (((await before(parent, scan.startSeq, 'modes')) as SessionModeId | null) ?? undefined)
            : undefined,
        }),
      )
    }
    this.#order = null
    // Not a file it could not read: that is found again at every open, and is no change to write.
    for (const id of ids) if (!this.skipped.has(id)) this.#changed.add(id)
  }

  async #rescanChanged(paths: StorePaths): Promise<void> {
    // One synchronous lstat per log (10,000 of them take milliseconds; through the thread pool,
    // on a busy machine, seconds); only the logs whose size changed are read.
    const changed: CatalogRecord[] = []
    for (const record of [...this.#records.values()]) {
      const file = sessionLogFile(paths, record.id)
      try {
        const stats = lstatSync(file)
        if (!stats.isFile()) {
          this.delete(record.id)
          this.skipped.set(record.id, { file, why: `it is a ${fileKind(stats)}, not a regular file` })
        } else if (record.logBytes !== stats.size) changed.push(record)
      } catch (error) {
        this.delete(record.id)
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          this.skipped.set(record.id, { file, why: (error as Error).message })
      }
    }
    await forEachLimited(changed, scanConcurrency * 4, async (record) => {
      const file = sessionLogFile(paths, record.id)
      try {
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
        // The same record (a log with a torn tail keeps its size until a writer repairs it) is no change.
        this.set(recordOf(scan, record))
      } catch (error) {
        this.delete(record.id)
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          this.skipped.set(record.id, { file, why: (error as Error).message })
      }
    })
  }
}

/** True when two records say the same (parentLoop aside: it is worked out at every open). */
function sameRecord(a: CatalogRecord, b: CatalogRecord): boolean {
  const { parentLoop: _a, ...restA } = a
  const { parentLoop: _b, ...restB } = b
  return JSON.stringify(restA) === JSON.stringify(restB)
}

/** A record from a scan; what lives outside the log (archived, inherited values) is given. */
export function recordOf(
  scan: LogScan,
  outside: Pick<CatalogRecord, 'archived' | 'inheritedTitle' | 'inheritedModel' | 'inheritedMode'>,
): CatalogRecord {
  const header = scan.header
  const mode = scan.modes.at(-1)?.mode ?? outside.inheritedMode
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
    ...(mode !== undefined ? { mode } : {}),
    logBytes: scan.goodBytes,
    inheritedTitle: outside.inheritedTitle,
    inheritedModel: outside.inheritedModel,
    ...(outside.inheritedMode !== undefined ? { inheritedMode: outside.inheritedMode } : {}),
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

async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await task(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}
