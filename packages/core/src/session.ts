// A live session: a header plus an append-only list of frozen events.
// Only a SessionStore creates sessions; appends are announced through it.
import { TangentError } from './errors.js'
import { EventIndex } from './event-index.js'
import {
  asSeq,
  eventDataSchemas,
  eventTypePattern,
  isCoreEventType,
  type ModelSelectionData,
  type SessionEvent,
  type SessionModeData,
  type SessionSeq,
} from './events.js'
import { deepFreeze } from './freeze.js'
import type { GrammarSnapshot, GrammarState } from './grammar.js'
import type { SessionId } from './ids.js'
import { defaultSessionMode, isSessionModeId, type SessionModeId } from './session-modes.js'

export type SessionOrigin = 'user' | 'fork' | 'subagent'

export interface SessionHeader {
  readonly id: SessionId
  readonly cwd: string
  readonly createdAt: number
  readonly title?: string
  readonly parentSession?: SessionId
  /** The parent's seq the fork copied through (-1 for an empty prefix). */
  readonly forkedAt?: number
  readonly isSeeded: boolean
  readonly origin: SessionOrigin
  readonly inheritedEventCount: number
  /** Anything else a plugin records at creation (files mode, baseTree, …). */
  readonly [extra: string]: unknown
}

/** Header fields a caller may set on create or fork; the rest is derived. */
export interface SessionMeta {
  cwd?: string
  title?: string
  createdAt?: number
  origin?: SessionOrigin
  [extra: string]: unknown
}

/** How a session's appends reach its store. */
export interface SessionHooks {
  /** False once the store no longer holds this object: appends are refused. */
  isLive(session: Session): boolean
  /** Before the event enters the session: throwing refuses it and leaves the session unchanged. */
  appending(session: Session, event: SessionEvent): void
  appended(session: Session, event: SessionEvent): void
}

export class Session {
  readonly id: SessionId
  readonly header: Readonly<SessionHeader>
  readonly #events: SessionEvent[]
  /** Built on first use (docs/architecture.md §4): a load that only reads the events never needs it. */
  #index: EventIndex | null
  readonly #grammar: GrammarState
  readonly #hooks: SessionHooks
  readonly #now: () => number

  /** @internal Use `SessionStore.create` / `fork`. */
  constructor(
    header: SessionHeader,
    events: SessionEvent[],
    grammar: GrammarState,
    hooks: SessionHooks,
    now: () => number,
    index: EventIndex | null = null,
  ) {
    this.id = header.id
    this.header = Object.freeze(header) // the store's own fresh object: frozen, not copied
    this.#events = events
    this.#index = index
    this.#grammar = grammar
    this.#hooks = hooks
    this.#now = now
  }

  /** Every event, inherited ones first; `events[i].seq === i`. */
  get events(): readonly SessionEvent[] {
    return this.#events
  }

  get inheritedEventCount(): number {
    return this.header.inheritedEventCount
  }

  get lastSeq(): number {
    return this.#events.length - 1
  }

  /** The events this session wrote itself (not inherited through a fork). */
  ownEvents(): readonly SessionEvent[] {
    return this.#events.slice(this.header.inheritedEventCount)
  }

  isOwnSeq(seq: number): boolean {
    return Number.isInteger(seq) && seq >= this.header.inheritedEventCount && seq < this.#events.length
  }

  /** The grammar state after the last event (is a turn open, which calls are unanswered). */
  get grammar(): GrammarSnapshot {
    return this.#grammar.snapshot()
  }

  get isTurnOpen(): boolean {
    return this.#grammar.phase !== 'idle'
  }

  /** The latest `session/title`, else the header's title. */
  get title(): string | undefined {
    const event = this.latestOfType('session/title')
    return event ? (event.data as { title: string }).title : this.header.title
  }

  /** The latest `model/selection` in the log (inherited ones count), or null. */
  get model(): ModelSelectionData | null {
    const event = this.latestOfType('model/selection')
    return event ? (event.data as ModelSelectionData) : null
  }

  /**
   * The mode in force: the latest `session/mode` naming a mode this version knows (inherited ones
   * count; a loaded log's events are not schema-checked, and the catalogs skip the same ones), else
   * the default `edit`.
   */
  get mode(): SessionModeId {
    const seqs = this.seqsOfType('session/mode')
    for (let i = seqs.length - 1; i >= 0; i--) {
      const mode = (this.#events[seqs[i]!]!.data as Partial<SessionModeData> | null)?.mode
      if (isSessionModeId(mode)) return mode
    }
    return defaultSessionMode
  }

  /**
   * The latest event of `type` at or before `atOrBefore` (default: the end), or
   * undefined. O(log n) for the indexed types (titles, models, snapshots, turn
   * markers), a backwards scan for any other.
   */
  latestOfType(type: string, atOrBefore: number = this.#events.length - 1): SessionEvent | undefined {
    const last = Math.min(atOrBefore, this.#events.length - 1)
    if (EventIndex.isIndexed(type)) {
      const seq = this.#indexed().latest(type, last)
      return seq < 0 ? undefined : this.#events[seq]
    }
    for (let i = last; i >= 0; i--) if (this.#events[i]!.type === type) return this.#events[i]
    return undefined
  }

  /** Seqs of an indexed event type (`turn/end`, `snapshot/taken`, …), in order. */
  seqsOfType(type: string): readonly number[] {
    if (!EventIndex.isIndexed(type)) {
      return this.#events.filter((event) => event.type === type).map((event) => event.seq)
    }
    return this.#indexed().seqs(type)
  }

  /** @internal The index of the first `count` events, for a fork's child. */
  indexPrefix(count: number): EventIndex {
    return this.#indexed().prefix(count)
  }

  /**
   * Appends one event and returns it frozen. Core event data is checked against its
   * schema and the log's grammar; a violation is a programmer error and throws
   * without changing the log. The store may refuse an event too (one too large to
   * store, a read-only or closed store): that throws before anything changes as well.
   */
  append<T extends string>(type: T, data: unknown, time: number = this.#now()): SessionEvent<T> {
    if (typeof type !== 'string' || !eventTypePattern.test(type)) {
      throw new TangentError(
        'invalid-event',
        `Invalid event type ${JSON.stringify(type)}: use "noun/verb".`,
        { type },
      )
    }
    if (isCoreEventType(type)) {
      const parsed = eventDataSchemas[type].safeParse(data)
      if (!parsed.success) {
        throw new TangentError('invalid-event', `Invalid data for ${type}: ${parsed.error.message}`, { type })
      }
    }
    if (!this.#hooks.isLive(this)) {
      throw new TangentError(
        'session-stale',
        `Session object ${this.id} is stale: its store no longer holds it.`,
        {
          sessionId: this.id,
        },
      )
    }
    const seq = asSeq(this.#events.length)
    const event = deepFreeze({ seq, time, type, data: data ?? null }) as SessionEvent<T>
    this.#hooks.appending(this, event)
    this.#grammar.accept(seq, type, data)
    this.#events.push(event)
    this.#index?.add(event) // else built from every event, this one included, on first use
    this.#hooks.appended(this, event)
    return event
  }

  #indexed(): EventIndex {
    this.#index ??= EventIndex.build(this.#events)
    return this.#index
  }

  eventAt(seq: SessionSeq | number): SessionEvent | undefined {
    return this.#events[seq]
  }
}
