// The catalog's files on disk (docs/architecture.md §4): the record schemas, the snapshot
// `catalog.json` and the journal `catalog.journal` — reading both (the journal applied to its
// snapshot), the fast structural checks, and the replace-by-rename that both are written with.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type Stats } from 'node:fs'
import { lazySchema } from '@tangent/core/lazy-zod'
import { isSessionModeId, sessionModeIds } from '@tangent/core/session-modes'
import type { z } from 'zod'
import { fileKind, replaceFile } from './durable-fs.js'
import { SessionOrigin, sessionOrigins } from './log-format.js'
import { type StorePaths, storePaths } from './store-paths.js'

export const ModelRefSchema = lazySchema((z) =>
  z.object({
    provider: z.string(),
    model: z.string(),
    reasoningEffort: z.string().optional(),
  }),
)

export const CatalogEntry = lazySchema((z) =>
  z.object({
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
    /** The latest `session/mode` (absent: none, or a catalog written before modes). */
    mode: z.enum(sessionModeIds).optional(),
    /**
     * Set when the chain of parents of this session loops (damaged headers: A's parent is B,
     * B's is A): the ids on the loop, in order. Such a session is listed, but neither it nor a
     * fork that reads its prefix through the loop can load (`corrupt-log`).
     */
    parentLoop: z.array(z.string()).optional(),
  }),
)
export type CatalogEntry = z.infer<typeof CatalogEntry>

/** What the catalog file stores per session: the entry plus what keeps it current cheaply. */
export const CatalogRecord = lazySchema((z) =>
  CatalogEntry.extend({
    /** Size of the log when this record was true (null: unknown, rescan after a crash). */
    logBytes: z.number().int().nonnegative().nullable(),
    /** Title, model and mode as of the end of an inherited ("ref") prefix, which lives in another log. */
    inheritedTitle: z.string().nullable(),
    inheritedModel: ModelRefSchema.nullable(),
    inheritedMode: z.enum(sessionModeIds).optional(),
  }),
)
export type CatalogRecord = z.infer<typeof CatalogRecord>

/**
 * The snapshot `catalog.json`. Version 1 (commit 88184bf and before) has no token and no
 * journal; version 2 names itself with a token, which the journal's first line repeats.
 */
export const CatalogFile = lazySchema((z) =>
  z.object({
    version: z.union([z.literal(1), z.literal(2)]),
    /** Version 2: this snapshot's name; only a journal that names it extends it. */
    token: z.string().optional(),
    sessions: z.array(CatalogRecord),
    /** Logs without a readable header (kept for a human to look at, never listed). */
    damaged: z.array(z.string()).default([]),
  }),
)
export type StoredCatalog = z.infer<typeof CatalogFile>

/** The first line of `catalog.journal`: which snapshot its records extend. */
export const CatalogJournalHeader = lazySchema((z) =>
  z.object({
    type: z.literal('catalog-journal'),
    version: z.literal(1),
    snapshot: z.string(),
  }),
)

/**
 * One line of the journal after its header, applied in order: a session's whole record (new
 * or changed), a session gone, or a log found without a readable header.
 */
export const CatalogJournalRecord = lazySchema((z) =>
  z.union([
    z.object({ set: CatalogRecord }),
    z.object({ delete: z.string() }),
    z.object({ damaged: z.string() }),
  ]),
)

/**
 * Which file a name is: a file renamed over it has another inode, one appended to another size
 * and time. (Not ctime: the rename that puts a file in place changes it.)
 */
export interface FileIdentity {
  ino: number
  size: number
  mtimeMs: number
}

export function identityOf(stats: Stats): FileIdentity {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs }
}

export function currentIdentity(file: string): FileIdentity | null {
  const stats = lstatSync(file, { throwIfNoEntry: false })
  return stats ? identityOf(stats) : null
}

export function sameIdentity(a: FileIdentity | null, b: FileIdentity | null): boolean {
  if (a === null || b === null) return a === b
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs
}

/** What the catalog files hold, as `Catalog.open` uses them. */
export interface StoredCatalogFiles {
  /** The snapshot with the journal applied; null when the snapshot is missing or damaged (rebuilt). */
  catalog: (StoredCatalog & { damaged: string[] }) | null
  snapshotIdentity: FileIdentity | null
  journalIdentity: FileIdentity | null
  snapshotBytes: number
  /** Bytes of the journal that extend this snapshot and were applied (0: none). */
  journalBytes: number
  /** A torn or damaged journal: part of it was not applied. */
  journalUntrusted: boolean
  /** Why, when it is damaged (a torn last line is a crash's ordinary trace, not a problem). */
  journalProblem: string | null
}

/**
 * Reads `catalog.json` and, when it names itself (version 2), the records of `catalog.journal`
 * that extend it, in order. A journal that names another snapshot is one a newer snapshot
 * already holds (a crash between the two steps of a snapshot write, or a reader's save): it
 * is ignored. A torn last line, or a line that does not parse, ends what is applied.
 */
export function readCatalogFiles(paths: StorePaths, problem: (why: string) => void): StoredCatalogFiles {
  const files: StoredCatalogFiles = {
    catalog: null,
    snapshotIdentity: null,
    journalIdentity: null,
    snapshotBytes: 0,
    journalBytes: 0,
    journalUntrusted: false,
    journalProblem: null,
  }
  const snapshot = readPrivateFile(paths.catalogFile, problem)
  // Also when it is not read: a reader's save checks that nobody changed it since.
  files.journalIdentity = currentIdentity(paths.catalogJournalFile)
  if (snapshot === null) return files
  files.snapshotIdentity = snapshot.identity
  files.snapshotBytes = snapshot.identity.size
  let value: unknown
  try {
    value = JSON.parse(snapshot.text)
  } catch {
    return files // damaged: the logs are the truth, the catalog is rebuilt from them
  }
  if (!isStoredCatalog(value)) return files
  const catalog = { ...value, damaged: value.damaged ?? [] }
  files.catalog = catalog
  const journal = readPrivateFile(paths.catalogJournalFile, (why) => {
    files.journalUntrusted = true
    files.journalProblem = `${paths.catalogJournalFile}: ${why}`
  })
  if (journal === null) return files
  files.journalIdentity = journal.identity
  if (catalog.token === undefined) return files // a version 1 snapshot is newer than any journal
  const text = journal.text
  const firstEnd = text.indexOf('\n')
  const header = firstEnd < 0 ? null : parseLine(text.slice(0, firstEnd))
  if (!isObject(header) || header.type !== 'catalog-journal' || typeof header.snapshot !== 'string') {
    // Journals are created whole (temp file + rename): a bad first line is damage, not a crash.
    files.journalUntrusted = true
    files.journalProblem = `${paths.catalogJournalFile} has no valid first line`
    return files
  }
  if (header.version !== 1 || header.snapshot !== catalog.token) return files
  const records = new Map<string, CatalogRecord>()
  for (const record of catalog.sessions) records.set(record.id, record)
  const damaged = new Set(catalog.damaged)
  let at = firstEnd + 1
  let line = 2
  while (at < text.length) {
    const end = text.indexOf('\n', at)
    if (end < 0) {
      files.journalUntrusted = true // a torn last line: a writer stopped while appending it
      break
    }
    const entry = parseLine(text.slice(at, end))
    if (!applyJournalRecord(entry, records, damaged)) {
      files.journalUntrusted = true
      files.journalProblem = `${paths.catalogJournalFile} line ${line} is not a catalog record`
      break
    }
    at = end + 1
    line++
  }
  files.journalBytes = at
  catalog.sessions = [...records.values()]
  catalog.damaged = [...damaged]
  return files
}

/**
 * What a data directory's catalog files say, snapshot and journal together, as the next open
 * reads them (before it checks them against the logs); null when there is no usable snapshot.
 * For tests and for looking at a data directory by hand; the store itself uses `Catalog.open`.
 */
export function readStoredCatalog(dir: string): { sessions: CatalogRecord[]; damaged: string[] } | null {
  const { catalog } = readCatalogFiles(storePaths(dir), () => undefined)
  return catalog && { sessions: catalog.sessions, damaged: catalog.damaged }
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function applyJournalRecord(
  entry: unknown,
  records: Map<string, CatalogRecord>,
  damaged: Set<string>,
): boolean {
  if (!isObject(entry)) return false
  if (entry.set !== undefined) {
    if (!isStoredRecord(entry.set)) return false
    records.set(entry.set.id, entry.set as CatalogRecord)
    damaged.delete(entry.set.id)
    return true
  }
  if (typeof entry.delete === 'string') {
    records.delete(entry.delete)
    damaged.delete(entry.delete)
    return true
  }
  if (typeof entry.damaged === 'string') {
    records.delete(entry.damaged)
    damaged.add(entry.damaged)
    return true
  }
  return false
}

/**
 * A catalog file's text and identity, or null when it is missing or not a regular file
 * (then `problem` says why). Not through a link, not blocking on a FIFO.
 */
function readPrivateFile(
  file: string,
  problem: (why: string) => void,
): { text: string; identity: FileIdentity } | null {
  try {
    const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
    try {
      const stats = fstatSync(fd)
      if (!stats.isFile()) {
        problem(`it is a ${fileKind(stats)}, not a regular file`)
        return null
      }
      return { text: readFileSync(fd, 'utf8'), identity: identityOf(stats) }
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
}

/**
 * Replaces `file` with `data` (durable-fs's `replaceFile`) and returns the new file's identity;
 * a false `beforeRename()` abandons the write (returns null).
 */
export async function writeReplacing(
  file: string,
  data: Buffer,
  beforeRename?: () => boolean,
): Promise<FileIdentity | null> {
  const written = await replaceFile(file, [data], beforeRename)
  return written ? identityOf(written.stats) : null
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
const origins: ReadonlySet<string> = new Set(sessionOrigins)

/**
 * The fast check of a catalog file, equivalent to `CatalogFile` (zod is ~10× slower on
 * 10,000 entries, and listing must stay fast); a file that fails it is rebuilt from the logs.
 */
function isStoredCatalog(value: unknown): value is Omit<StoredCatalog, 'damaged'> & { damaged?: string[] } {
  if (!isObject(value) || !Array.isArray(value.sessions)) return false
  if (!(value.version === 1 || (value.version === 2 && typeof value.token === 'string'))) return false
  if (
    value.damaged !== undefined &&
    !(Array.isArray(value.damaged) && value.damaged.every((id) => typeof id === 'string'))
  )
    return false
  return value.sessions.every(isStoredRecord)
}

/** The fast check of one record, equivalent to `CatalogRecord`. */
function isStoredRecord(record: unknown): record is CatalogRecord {
  return (
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
    isModel(record.inheritedModel) &&
    (record.mode === undefined || isSessionModeId(record.mode)) &&
    (record.inheritedMode === undefined || isSessionModeId(record.inheritedMode))
  )
}
