// Live sessions → database (docs/architecture.md §4): the SessionStore's events become rows. A
// created or forked session gets its writer (group commit, session-writer.ts; a fork is one row
// naming its parent and boundary), an append is checked (claimed here, not too large) before it
// enters the session and queued after, a disposed session's writer drains and goes. The index
// entry follows; another Host's events being applied (catch-up) are not written again.
import {
  eventTooLargeError,
  markersBefore,
  markersOf,
  noteMarker,
  oversizedEventLineBytes,
  type Session,
  type SessionEvent,
  type SessionMarkers,
  type SessionWriters,
} from '@tangent/core'
import type { CatchUp } from './catch-up.js'
import type { Claims } from './claims.js'
import type { Database } from './database.js'
import { sessionBusy, sessionExists, storeClosed, storeReadOnly } from './errors.js'
import { storedHeaderOf } from './session-header.js'
import type { SessionIndex } from './session-index.js'
import { PgSessionWriter, type WriterContext } from './session-writer.js'
import type { StoreWarnings } from './warnings.js'

export interface LiveWritesOptions {
  db: Database
  writers: SessionWriters<PgSessionWriter>
  index: SessionIndex
  claims: Claims
  catchUp: CatchUp
  /** This process's name in leases. */
  holder: string
  retryWindowMs: number
  maxLineBytes: number
  readOnly: boolean
  isClosed: () => boolean
  /** True while session `id` is being deleted (its writer is the delete's to close). */
  isDeleting: (id: string) => boolean
  /** Forgets a live session whose creation was refused. */
  dispose: (id: string) => void
  warnings: StoreWarnings
}

export class LiveWrites {
  readonly #db: Database
  readonly #writers: SessionWriters<PgSessionWriter>
  readonly #index: SessionIndex
  readonly #claims: Claims
  readonly #catchUp: CatchUp
  readonly #holder: string
  readonly #retryWindowMs: number
  readonly #maxLineBytes: number
  readonly #readOnly: boolean
  readonly #isClosed: () => boolean
  readonly #isDeleting: (id: string) => boolean
  readonly #dispose: (id: string) => void
  readonly #warnings: StoreWarnings
  /** The event `appending` checked, with its line, for `appended` to enqueue without stringifying again. */
  #checked: { event: SessionEvent; line: string } | null = null
  readonly #markers = new Map<string, SessionMarkers>()

  constructor(options: LiveWritesOptions) {
    this.#db = options.db
    this.#writers = options.writers
    this.#index = options.index
    this.#claims = options.claims
    this.#catchUp = options.catchUp
    this.#holder = options.holder
    this.#retryWindowMs = options.retryWindowMs
    this.#maxLineBytes = options.maxLineBytes
    this.#readOnly = options.readOnly
    this.#isClosed = options.isClosed
    this.#isDeleting = options.isDeleting
    this.#dispose = options.dispose
    this.#warnings = options.warnings
  }

  #writerContext(before?: () => Promise<void>): WriterContext {
    return {
      pool: this.#db.pool,
      holder: this.#holder,
      retryWindowMs: this.#retryWindowMs,
      leaseToken: (id) => this.#claims.token(id),
      before,
      retrying: (error) =>
        this.#warnings.warn({
          kind: 'write-retried',
          file: this.#warnings.location,
          message: `A commit lost its connection (${(error as Error).message}): retrying on a new one for up to ${this.#retryWindowMs} ms; rows already written by the lost commit are recognised, not doubled.`,
        }),
    }
  }

  onCreated(session: Session, via: 'create' | 'fork' | 'load'): void {
    if (via === 'load') return
    const id = session.id
    const refusal = this.#isClosed()
      ? storeClosed()
      : this.#readOnly
        ? storeReadOnly('create or fork sessions')
        : this.#isDeleting(id) || this.#index.has(id) || this.#writers.has(id)
          ? sessionExists(id)
          : null
    if (refusal) {
      this.#dispose(id)
      throw refusal
    }
    const parentId = via === 'fork' ? session.header.parentSession : undefined
    const inherited = session.inheritedEventCount
    const markers =
      parentId !== undefined ? markersBefore(this.#markers.get(parentId), inherited) : markersOf(session)
    const header = storedHeaderOf(session)
    const title = markers.titles.at(-1)?.title ?? session.header.title ?? null
    const model = markers.models.at(-1)?.model ?? null
    const mode = markers.modes.at(-1)?.mode
    const forkRequestId = typeof header.forkRequestId === 'string' ? header.forkRequestId : null
    const writer = new PgSessionWriter(
      id,
      this.#writerContext(parentId !== undefined ? () => this.#flushIfWriting(parentId) : undefined),
      {
        id,
        header,
        parentSession: session.header.parentSession ?? null,
        forkedAt: session.header.forkedAt ?? null,
        inheritedEventCount: inherited,
        ownFrom: parentId !== undefined ? inherited : 0,
        title,
        model,
        mode: mode ?? null,
        cwd: session.header.cwd,
        origin: session.header.origin,
        createdAt: session.header.createdAt,
        forkRequestId,
      },
      parentId !== undefined ? inherited : 0,
    )
    if (parentId === undefined)
      for (const event of session.events) writer.enqueue(event, JSON.stringify(event), false)
    writer.start()
    this.#writers.set(id, writer)
    this.#markers.set(id, markers)
    this.#index.set({
      id,
      title,
      cwd: session.header.cwd,
      parentSession: session.header.parentSession ?? null,
      forkedAt: session.header.forkedAt ?? null,
      origin: session.header.origin,
      archived: false,
      eventCount: session.events.length,
      inheritedEventCount: inherited,
      createdAt: session.header.createdAt,
      updatedAt: session.header.createdAt,
      header,
      model,
      ...(mode !== undefined ? { mode } : {}),
    })
  }

  /** A session loaded from `durable` committed events: a writer (unless read-only) and its markers. */
  loaded(session: Session, durable: number): void {
    if (!this.#readOnly)
      this.#writers.set(session.id, new PgSessionWriter(session.id, this.#writerContext(), null, durable))
    this.#markers.set(session.id, markersOf(session))
  }

  /**
   * Refuses an append this process may not make: read-only, closed, a session it has not
   * claimed, or an event too large for the log (before it enters the session, as JSONL does:
   * docs/architecture.md §4).
   */
  onAppending(session: Session, event: SessionEvent): void {
    if (this.#catchUp.isApplying(session)) return // another Host's event, already stored
    if (this.#readOnly) throw storeReadOnly('append')
    if (this.#isClosed() || !this.#writers.has(session.id)) throw storeClosed()
    if (!this.#claims.isHeld(session.id))
      throw sessionBusy(
        session.id,
        null,
        `Session ${session.id} is not claimed by this Host (${this.#holder}): claim it before appending — another Host may be writing it.`,
      )
    const line = JSON.stringify(event)
    const bytes = oversizedEventLineBytes(line, this.#maxLineBytes)
    if (bytes !== null) {
      this.#checked = null
      throw eventTooLargeError(session.id, event, bytes, this.#maxLineBytes)
    }
    this.#checked = { event, line }
  }

  onAppended(session: Session, event: SessionEvent): void {
    if (!this.#catchUp.isApplying(session)) {
      const writer = this.#writers.get(session.id)
      if (!writer) throw storeClosed()
      const checked = this.#checked
      this.#checked = null
      writer.enqueue(event, checked?.event === event ? checked.line : JSON.stringify(event), true)
    }
    const entry = this.#index.get(session.id)
    if (!entry) return
    entry.eventCount = event.seq + 1
    entry.updatedAt = event.time
    const marker = noteMarker(this.#markers.get(session.id), event)
    if (marker && 'title' in marker) entry.title = marker.title
    else if (marker && 'mode' in marker) entry.mode = marker.mode
    else if (marker) entry.model = marker.model
  }

  onDisposed(id: string): void {
    this.#markers.delete(id)
    // A delete closes its writer itself; otherwise it drains what is queued and goes.
    if (!this.#isDeleting(id)) this.#writers.retire(id)
  }

  async #flushIfWriting(id: string): Promise<void> {
    await this.#writers.get(id)?.flush()
  }
}
