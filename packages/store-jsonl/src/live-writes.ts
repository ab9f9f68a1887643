// Live sessions → disk (docs/architecture.md §4): the SessionStore's events become log lines.
// A created or forked session gets its writer (a fork's log points at its parent's prefix), an
// append is checked before it enters the session and queued after, a disposed session's writer
// drains and lets its file go. The catalog records follow (CatalogKeeper).
import {
  eventTooLargeError,
  type Session,
  type SessionEvent,
  type SessionWriters,
  type TangentError,
} from '@tangent/core'
import type { CatalogKeeper } from './catalog-keeper.js'
import { entryExists } from './data-dir.js'
import { eventLine, headerLineOf, oversizedLineBytes } from './log-format.js'
import { SessionWriter } from './session-writer.js'
import { sessionExists, storeClosed, storeReadOnly } from './store-errors.js'
import { type StorePaths, sessionLogFile } from './store-paths.js'

export interface LiveWritesOptions {
  paths: StorePaths
  writers: SessionWriters<SessionWriter>
  catalog: CatalogKeeper
  readOnly: boolean
  maxLineBytes: number
  isClosed: () => boolean
  /** True while session `id` is being deleted (its writer is the delete's to close). */
  isDeleting: (id: string) => boolean
  /** Forgets a live session whose creation was refused. */
  dispose: (id: string) => void
}

export class LiveWrites {
  readonly #paths: StorePaths
  readonly #writers: SessionWriters<SessionWriter>
  readonly #catalog: CatalogKeeper
  readonly #readOnly: boolean
  readonly #maxLineBytes: number
  readonly #isClosed: () => boolean
  readonly #isDeleting: (id: string) => boolean
  readonly #dispose: (id: string) => void
  /** The line of the event last checked by `onAppending`, so it is serialised once. */
  #checked: { event: SessionEvent; line: string } | null = null

  constructor(options: LiveWritesOptions) {
    this.#paths = options.paths
    this.#writers = options.writers
    this.#catalog = options.catalog
    this.#readOnly = options.readOnly
    this.#maxLineBytes = options.maxLineBytes
    this.#isClosed = options.isClosed
    this.#isDeleting = options.isDeleting
    this.#dispose = options.dispose
  }

  onCreated(session: Session, via: 'create' | 'fork' | 'load'): void {
    if (via === 'load') return
    const refusal = this.#creationRefusal(session.id)
    if (refusal) {
      this.#dispose(session.id)
      throw refusal
    }
    const parentId = via === 'fork' ? session.header.parentSession : undefined
    const seed = parentId !== undefined ? 'ref' : 'inline'
    const header = headerLineOf(session, seed)
    const writer = new SessionWriter({
      file: sessionLogFile(this.#paths, session.id),
      exists: false,
      maxLineBytes: this.#maxLineBytes,
      // The prefix a ref log points at must be durable before the fork is.
      ...(parentId !== undefined ? { before: () => this.#flushIfWriting(parentId) } : {}),
    })
    writer.enqueueLine(JSON.stringify(header))
    if (parentId === undefined) for (const event of session.events) writer.enqueueEvent(event)
    this.#writers.set(session.id, writer)
    this.#catalog.created(session, header, parentId)
  }

  #creationRefusal(id: string): TangentError | null {
    if (this.#isClosed()) return storeClosed()
    if (this.#readOnly) return storeReadOnly('create or fork sessions')
    const known = this.#catalog.known
    if (this.#isDeleting(id) || known.get(id) || known.damaged.has(id) || known.skipped.has(id))
      return sessionExists(id)
    if (this.#writers.has(id) || entryExists(sessionLogFile(this.#paths, id))) return sessionExists(id)
    return null
  }

  /**
   * Refuses an event the log cannot hold before it enters the session (docs/architecture.md §4):
   * once in memory it would be served, yet never written, and every later flush would fail.
   */
  onAppending(session: Session, event: SessionEvent): void {
    if (this.#readOnly) throw storeReadOnly('append')
    if (!this.#writers.has(session.id)) throw storeClosed()
    const line = eventLine(event)
    const bytes = oversizedLineBytes(line, this.#maxLineBytes)
    if (bytes !== null) {
      this.#checked = null
      throw eventTooLargeError(session.id, event, bytes, this.#maxLineBytes)
    }
    this.#checked = { event, line }
  }

  onAppended(session: Session, event: SessionEvent): void {
    const writer = this.#writers.get(session.id)
    if (!writer) throw storeClosed()
    const checked = this.#checked
    this.#checked = null
    if (checked?.event === event) writer.enqueueEventLine(event, checked.line)
    else writer.enqueueEvent(event)
    this.#catalog.appended(session, event)
  }

  onDisposed(id: string): void {
    this.#catalog.forget(id)
    // A delete closes its writer itself. Otherwise the log stays; the writer drains what is
    // queued, then lets the file go.
    if (!this.#isDeleting(id)) this.#writers.retire(id)
  }

  async #flushIfWriting(id: string): Promise<void> {
    await this.#writers.get(id)?.flush()
  }
}
