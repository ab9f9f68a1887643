// Disk → live sessions (docs/architecture.md §4): a session is read from its log and its chain
// of parents, repaired on the way by a writer (a torn tail cut off, a turn a crash left open
// closed as interrupted), and published in the SessionStore. Loads of one session are shared.
import {
  closingEventsForOpenTurn,
  type Session,
  type SessionEvent,
  type SessionStore,
  type SessionWriters,
  TangentError,
} from '@tangent/core'
import type { CatalogKeeper } from './catalog-keeper.js'
import { createOptionsOf, type SessionHeaderLine } from './log-format.js'
import {
  corruptLog,
  type ParsedLog,
  readSessionLog,
  readSessionLogByLines,
  readSmallLogSync,
} from './read-log.js'
import { SessionWriter } from './session-writer.js'
import { sessionNotFound } from './store-errors.js'
import { type StorePaths, sessionLogFile, tornFile } from './store-paths.js'
import { cutTornTail } from './torn-tail.js'

const interruptedMessage = 'The process stopped while this turn was running (crash repair).'

export interface SessionLoaderOptions {
  paths: StorePaths
  store: SessionStore
  writers: SessionWriters<SessionWriter>
  catalog: CatalogKeeper
  readOnly: boolean
  maxLineBytes: number
  /** Resolves when everything appended to the session so far is fsynced. */
  flush: (id: string) => Promise<void>
}

export class SessionLoader {
  readonly #paths: StorePaths
  readonly #store: SessionStore
  readonly #writers: SessionWriters<SessionWriter>
  readonly #catalog: CatalogKeeper
  readonly #readOnly: boolean
  readonly #maxLineBytes: number
  readonly #flush: (id: string) => Promise<void>
  readonly #loading = new Map<string, Promise<Session>>()

  constructor(options: SessionLoaderOptions) {
    this.#paths = options.paths
    this.#store = options.store
    this.#writers = options.writers
    this.#catalog = options.catalog
    this.#readOnly = options.readOnly
    this.#maxLineBytes = options.maxLineBytes
    this.#flush = options.flush
  }

  /** Session `id`, not live here, read from disk (one read shared by concurrent callers). */
  load(id: string): Session | Promise<Session> {
    let pending = this.#loading.get(id)
    if (!pending) {
      // The common case — a small log, all of it good, no prefix to read — without an await:
      // the same checks, in one synchronous step (docs/architecture.md §4).
      const triedWhole = !this.#writers.has(id)
      const small = triedWhole ? this.#readSmallLog(id) : null
      if (small !== null && this.#readOnly && small.header !== null && !inheritsByRef(small.header)) {
        if (small.header.id !== id) throw wrongHeaderId(sessionLogFile(this.#paths, id), small.header)
        return this.#publishLog(id, sessionLogFile(this.#paths, id), small, [])
      }
      const first = small ?? (triedWhole ? 'by-lines' : null)
      pending = this.#loadFromDisk(id, first).finally(() => this.#loading.delete(id))
      this.#loading.set(id, pending)
    }
    return pending
  }

  /** Settles once a load of `id` in flight has (its failure is its caller's to see); undefined: none. */
  settled(id: string): Promise<unknown> | undefined {
    return this.#loading.get(id)?.catch(() => undefined)
  }

  /**
   * `read`, for the first attempt: the log as `load` already read it, or `by-lines` when `load`
   * found it not readable whole (too big, or not all good: the byte-exact reader decides).
   */
  async #loadFromDisk(id: string, read: ParsedLog | 'by-lines' | null): Promise<Session> {
    const draining = this.#writers.get(id) // a disposed session's writer may still be draining
    if (draining) await draining.settle()
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#readAndPublish(id, attempt === 0 ? read : null)
      } catch (error) {
        // A reader can race a writer that materialises this fork and deletes its parent.
        if (attempt < 2 && TangentError.hasCode(error, 'parent-log-missing')) continue
        throw error
      }
    }
  }

  /** A log `readSmallLogSync` reads whole (a small log, all of it good), else null. */
  #readSmallLog(id: string): ParsedLog | null {
    try {
      return readSmallLogSync(sessionLogFile(this.#paths, id))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw sessionNotFound(id)
      throw error
    }
  }

  /** `read`: as for `#loadFromDisk` (null: read here from scratch). */
  async #readAndPublish(id: string, read: ParsedLog | 'by-lines' | null): Promise<Session> {
    const file = sessionLogFile(this.#paths, id)
    let log: ParsedLog
    try {
      if (read === 'by-lines') log = await readSessionLogByLines(file)
      else log = read ?? (await readSessionLog(file))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw sessionNotFound(id)
      throw error
    }
    if (log.header === null) {
      // Not even a complete header: a creation that never became durable.
      if (!this.#readOnly) {
        await cutTornTail(file, tornFile(this.#paths, id), 0)
        this.#catalog.known.delete(id)
        this.#catalog.schedule()
      }
      throw sessionNotFound(id)
    }
    const header = log.header
    if (header.id !== id) throw wrongHeaderId(file, header)
    if (log.torn && !this.#readOnly) await cutTornTail(file, tornFile(this.#paths, id), log.goodBytes)
    const prefix =
      header.seed === 'ref' && header.parentSession !== undefined
        ? await this.#readPrefix(header.parentSession, header.inheritedEventCount, file)
        : []
    const live = this.#store.get(id)
    if (live) return live
    const session = this.#publishLog(id, file, log, prefix)
    if (!this.#readOnly && session.isTurnOpen) {
      // Written, not just patched in memory: the session must be forkable after a restart too.
      for (const closing of closingEventsForOpenTurn(session.grammar, 'interrupted', interruptedMessage))
        session.append(closing.type, closing.data)
      await this.#flush(id)
    }
    if (!this.#readOnly) this.#catalog.schedule()
    return session
  }

  /** Creates the loaded session from its log and its inherited prefix (checked by the store). */
  #publishLog(id: string, file: string, log: ParsedLog, prefix: SessionEvent[]): Session {
    const header = log.header as SessionHeaderLine
    const events = prefix.length > 0 ? prefix.concat(log.events) : log.events
    if (events.length < header.inheritedEventCount)
      throw corruptLog(file, 1, `it inherits ${header.inheritedEventCount} events but holds ${events.length}`)
    const { meta, lineage } = createOptionsOf(header)
    let session: Session
    try {
      session = this.#store.create(id, { seed: events, meta, lineage, loaded: true })
    } catch (error) {
      const seq = TangentError.isInstance(error) ? error.data.seq : undefined
      if (typeof seq !== 'number') throw error
      const why = (error as Error).message
      if (seq >= log.startSeq) throw corruptLog(file, seq - log.startSeq + 2, why)
      throw corruptLog(file, 1, `its inherited prefix is invalid at seq ${seq}: ${why}`)
    }
    if (!this.#readOnly) {
      this.#writers.set(
        id,
        new SessionWriter({ file, exists: true, size: log.goodBytes, maxLineBytes: this.#maxLineBytes }),
      )
    }
    this.#catalog.loaded(session, header, prefix.length, log.goodBytes)
    return session
  }

  /** Events 0..count-1 of session `id`: from the live session, else from its log (up the chain). */
  async #readPrefix(
    id: string,
    count: number,
    childFile: string,
    seen: ReadonlySet<string> = new Set(),
  ): Promise<SessionEvent[]> {
    if (count === 0) return []
    // Only damaged headers can make a cycle; without this it would never end.
    if (seen.has(id)) throw corruptLog(childFile, 1, `its chain of parents loops back to session ${id}`)
    const live = this.#store.get(id)
    if (live && live.events.length >= count) return live.events.slice(0, count)
    const file = sessionLogFile(this.#paths, id)
    let log: ParsedLog
    try {
      log = await readSessionLog(file, count)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      throw new TangentError(
        'parent-log-missing',
        `Session log ${childFile} reads its first ${count} events from session ${id}, whose log is missing. Restore ${file}.`,
        { file: childFile, line: 1, parentSession: id },
      )
    }
    if (log.header === null) throw corruptLog(file, 1, 'no complete header line')
    const header = log.header
    const inherited = Math.min(count, log.startSeq)
    const head =
      inherited > 0 && header.parentSession !== undefined
        ? await this.#readPrefix(header.parentSession, inherited, file, new Set([...seen, id]))
        : []
    const events = head.length > 0 ? head.concat(log.events) : log.events
    if (events.length < count)
      throw corruptLog(file, 1, `it has ${events.length} events but a fork of it inherits ${count}`)
    return events.length > count ? events.slice(0, count) : events
  }
}

/** A ref log whose prefix is read from its parent's. */
function inheritsByRef(header: SessionHeaderLine): boolean {
  return header.seed === 'ref' && header.inheritedEventCount > 0
}

function wrongHeaderId(file: string, header: SessionHeaderLine): TangentError {
  return corruptLog(file, 1, `the header names session ${header.id}`)
}
