// The store's side of the catalog (docs/architecture.md §4): keeps each live session's record
// current (title and model from its markers), writes the changes after a delay (one write at a
// time), and — for a reader — reads the catalog on first use and again when the writer changed it.
import { existsSync, statSync } from 'node:fs'
import {
  markersBefore,
  markersOf,
  noteMarker,
  type Session,
  type SessionEvent,
  type SessionMarkers,
  type SessionWriters,
} from '@tangent/core'
import { Catalog } from './catalog.js'
import type { CatalogRecord } from './catalog-format.js'
import { reviewDamaged } from './damaged-logs.js'
import { entryExists } from './data-dir.js'
import type { SessionHeaderLine } from './log-format.js'
import type { SessionWriter } from './session-writer.js'
import type { StoreWarning } from './store-errors.js'
import { archivedMarkerFile, type StorePaths } from './store-paths.js'

export interface CatalogKeeperOptions {
  paths: StorePaths
  readOnly: boolean
  /** How long catalog changes wait before they are written. */
  delayMs: number
  /** The live sessions' writers: their durable sizes go into the records; a background write's failure goes to them. */
  writers: SessionWriters<SessionWriter>
  warn: (warning: StoreWarning) => void
}

export class CatalogKeeper {
  readonly #paths: StorePaths
  readonly #readOnly: boolean
  readonly #delayMs: number
  readonly #writers: SessionWriters<SessionWriter>
  readonly #warn: (warning: StoreWarning) => void
  /** A writer's catalog from its open; a reader's from its first list or get (null before). */
  #catalog: Catalog | null
  readonly #markers = new Map<string, SessionMarkers>()
  /** A reader's view of the catalog files and sessions directory when it last read them; null: never. */
  #catalogStamp: string | null = null
  /** A reader's read of the catalog in progress (concurrent callers share it). */
  #catalogReading: Promise<void> | null = null
  #catalogTimer: NodeJS.Timeout | null = null
  #catalogWrite: Promise<void> = Promise.resolve()
  /** The store closed: nothing more is scheduled. */
  #stopped = false

  constructor(options: CatalogKeeperOptions, catalog: Catalog | null) {
    this.#paths = options.paths
    this.#readOnly = options.readOnly
    this.#delayMs = options.delayMs
    this.#writers = options.writers
    this.#warn = options.warn
    this.#catalog = catalog
  }

  /** The catalog, once read: a writer's always, a reader's after its first list or get. */
  get known(): Catalog {
    if (this.#catalog === null) throw new Error('internal: the catalog was used before it was read')
    return this.#catalog
  }

  /** Every listed session's id and header line, as of the last read (none before the first). */
  headers(): Iterable<{ readonly id: string; readonly header: Readonly<Record<string, unknown>> }> {
    return this.#catalog?.records() ?? []
  }

  /** Ids of logs without a readable header and of skipped entries, as of the last read. */
  damaged(): string[] {
    if (this.#catalog === null) return []
    return [...this.#catalog.damaged, ...this.#catalog.skipped.keys()]
  }

  // ── live sessions → records ─────────────────────────────────────────────────────

  /** A session created or forked here: its record, with what a fork inherits from its parent's markers. */
  created(session: Session, header: SessionHeaderLine, parentId: string | undefined): void {
    let markers: SessionMarkers
    let inherited: Pick<CatalogRecord, 'inheritedTitle' | 'inheritedModel' | 'inheritedMode'>
    if (parentId !== undefined) {
      markers = markersBefore(this.#markers.get(parentId), session.inheritedEventCount)
      inherited = {
        inheritedTitle: markers.titles.at(-1)?.title ?? null,
        inheritedModel: markers.models.at(-1)?.model ?? null,
        inheritedMode: markers.modes.at(-1)?.mode,
      }
    } else {
      markers = markersOf(session)
      inherited = { inheritedTitle: null, inheritedModel: null }
    }
    this.#markers.set(session.id, markers)
    this.known.set(sessionRecord(session, header, markers, { archived: false, ...inherited }))
    this.schedule()
  }

  appended(session: Session, event: SessionEvent): void {
    const record = this.known.get(session.id)
    if (!record) return
    // Updated in place: this runs on every append, and the catalog is written later.
    record.eventCount = event.seq + 1
    record.updatedAt = event.time
    const marker = noteMarker(this.#markers.get(session.id), event)
    if (marker && 'title' in marker) record.title = marker.title
    else if (marker && 'mode' in marker) record.mode = marker.mode
    else if (marker) record.model = marker.model
    this.known.touch(session.id)
    this.schedule()
  }

  /** A session loaded from its log of `logBytes` bytes, the first `prefixLength` of its events inherited. */
  loaded(session: Session, header: SessionHeaderLine, prefixLength: number, logBytes: number): void {
    // A reader that has not read the catalog has no record to keep current: when it reads the
    // catalog, that is checked against the logs (docs/architecture.md §4).
    if (this.#catalog === null) return
    const id = session.id
    const markers = markersOf(session)
    this.#markers.set(id, markers)
    const previous = this.known.get(id)
    const inheritedMarkers = markersOf(session, prefixLength)
    this.known.set(
      sessionRecord(session, header, markers, {
        archived: previous?.archived ?? existsSync(archivedMarkerFile(this.#paths, id)),
        inheritedTitle: inheritedMarkers.titles.at(-1)?.title ?? null,
        inheritedModel: inheritedMarkers.models.at(-1)?.model ?? null,
        inheritedMode: inheritedMarkers.modes.at(-1)?.mode,
        logBytes, // what it was read from: a load of an unchanged log changes no record
      }),
    )
  }

  /** The session is no longer live here. */
  forget(id: string): void {
    this.#markers.delete(id)
  }

  // ── writing ─────────────────────────────────────────────────────────────────────

  schedule(): void {
    if (this.#readOnly || this.#stopped || this.#catalogTimer) return
    this.#catalogTimer = setTimeout(() => {
      this.#catalogTimer = null
      this.persist().catch((error: unknown) => this.#writers.fail(error))
    }, this.#delayMs)
    this.#catalogTimer.unref()
  }

  /**
   * Writes the catalog's changes (one write at a time; docs/architecture.md §4). A log's size
   * is recorded only when nothing of it is pending.
   */
  persist(sizes?: [string, number | null][]): Promise<void> {
    const write = this.#catalogWrite.then(() => this.known.persist(this.#paths, sizes ?? this.logSizes()))
    this.#catalogWrite = write.catch(() => undefined) // the failure reaches whoever awaits `write`
    return write
  }

  /** The durable size of each log a writer holds; null while some of it is pending. */
  logSizes(): [string, number | null][] {
    return [...this.#writers].map(([id, writer]) => [id, writer.idle && !writer.error ? writer.size : null])
  }

  /** Nothing more is scheduled (the store is closing); a write already scheduled is dropped. */
  stop(): void {
    this.#stopped = true
    if (this.#catalogTimer) clearTimeout(this.#catalogTimer)
    this.#catalogTimer = null
  }

  /** The last write, at close: after the write in progress, with the sizes taken before the writers went. */
  async persistLast(sizes: [string, number | null][]): Promise<void> {
    await this.#catalogWrite
    await this.persist(sizes) // writes nothing when the files hold everything
  }

  // ── a reader's catalog ──────────────────────────────────────────────────────────

  /**
   * A reader reads the catalog on first use, and again when the writer has changed it or added
   * or removed logs. Concurrent callers share one read.
   */
  refresh(): Promise<void> {
    this.#catalogReading ??= this.#readCatalog().finally(() => {
      this.#catalogReading = null
    })
    return this.#catalogReading
  }

  async #readCatalog(): Promise<void> {
    const stamp = catalogStamp(this.#paths)
    if (stamp === this.#catalogStamp) return
    const first = this.#catalogStamp === null
    // A live writer's catalog lags its logs; so does one that was not closed cleanly.
    const verifySizes =
      first && (existsSync(this.#paths.lockFile) || !existsSync(this.#paths.catalogCleanFile))
    this.#catalog = await Catalog.open(this.#paths, { verifySizes })
    this.#catalogStamp = stamp
    if (first) await reviewDamaged(this.#catalog, this.#paths, this.#readOnly, this.#warn)
    await this.#saveCatalog()
  }

  /**
   * A reader that rebuilt the catalog, or brought it up to date, saves it once for the next
   * reader (docs/architecture.md §4): as a new snapshot, only while no writer holds the lock
   * (checked again just before the rename) and only if neither catalog file changed since it
   * read them. It takes no lock; a failure (a read-only file system) costs only the next
   * reader the same work.
   */
  async #saveCatalog(): Promise<void> {
    const catalog = this.known
    const noWriter = () => !entryExists(this.#paths.lockFile)
    if (!catalog.dirty || !noWriter()) return
    // No data directory (`tangent sessions` on a new machine): the write could only fail, and
    // trying would load node:fs/promises for nothing (~3 ms of the command).
    if (!entryExists(this.#paths.dir)) return
    try {
      if (await catalog.saveSnapshot(this.#paths, noWriter)) {
        // Its own write is not a change a reader must re-read for; the rest of the stamp stays.
        const [, journal, sessions] = (this.#catalogStamp ?? '').split('|')
        this.#catalogStamp = [fileStamp(this.#paths.catalogFile), journal, sessions].join('|')
      }
    } catch {
      // Nothing was replaced (writeReplacing removes its temp file); the catalog in memory is right.
    }
  }
}

/** A live session's record; what lives outside the log (archived, inherited values, its size) is given. */
function sessionRecord(
  session: Session,
  header: SessionHeaderLine,
  markers: SessionMarkers,
  outside: Pick<CatalogRecord, 'archived' | 'inheritedTitle' | 'inheritedModel' | 'inheritedMode'> & {
    logBytes?: number
  },
): CatalogRecord {
  const last = session.events.at(-1)
  const mode = markers.modes.at(-1)?.mode
  return {
    id: session.id,
    title: markers.titles.at(-1)?.title ?? session.header.title ?? null,
    cwd: session.header.cwd,
    parentSession: session.header.parentSession ?? null,
    forkedAt: session.header.forkedAt ?? null,
    origin: session.header.origin,
    archived: outside.archived,
    eventCount: session.events.length,
    inheritedEventCount: session.inheritedEventCount,
    createdAt: session.header.createdAt,
    updatedAt: last && session.isOwnSeq(last.seq) ? last.time : session.header.createdAt,
    header: header as Record<string, unknown>,
    model: markers.models.at(-1)?.model ?? null,
    ...(mode !== undefined ? { mode } : {}),
    logBytes: outside.logBytes ?? null,
    inheritedTitle: outside.inheritedTitle,
    inheritedModel: outside.inheritedModel,
    ...(outside.inheritedMode !== undefined ? { inheritedMode: outside.inheritedMode } : {}),
  }
}

function fileStamp(file: string): string {
  const stats = statSync(file, { throwIfNoEntry: false })
  return stats ? `${stats.ino}:${stats.mtimeMs}:${stats.size}` : '-'
}

/** A reader's view of the catalog's two files and the sessions directory. */
function catalogStamp(paths: StorePaths): string {
  return [
    fileStamp(paths.catalogFile),
    fileStamp(paths.catalogJournalFile),
    fileStamp(paths.sessionsDir),
  ].join('|')
}
