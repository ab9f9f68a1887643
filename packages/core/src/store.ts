// SessionStore: the live sessions of one process, and the fork operation
// (decision record seeds/000, docs/architecture.md §3). Persistence listens to its events.
import { TangentError } from './errors.js'
import type { EventIndex } from './event-index.js'
import type { SessionEvent, SessionSeq } from './events.js'
import { deepFreeze } from './freeze.js'
import { GrammarState } from './grammar.js'
import { assertValidSessionId, createSessionIdGenerator, type SessionId } from './ids.js'
import { Session, type SessionHeader, type SessionMeta } from './session.js'

/** Why a session appeared in the store. */
export type SessionCreatedVia =
  /** A new session (possibly seeded). */
  | 'create'
  /** A fork of `header.parentSession`. */
  | 'fork'
  /** Read back from storage: already durable, nothing to write. */
  | 'load'

export interface SessionStoreEvents {
  created: (session: Session, via: SessionCreatedVia) => void
  /** Before an event enters a session: a listener that throws refuses it, and nothing changes. */
  appending: (session: Session, event: SessionEvent) => void
  appended: (session: Session, event: SessionEvent) => void
  disposed: (sessionId: SessionId) => void
}

export interface CreateSessionOptions {
  /** Events the session starts with (seqs must be 0..n-1 and the grammar valid; a turn may be open). */
  seed?: readonly SessionEvent[]
  meta?: SessionMeta
  /** Lineage of a seeded session (set by fork and by storage on load). */
  lineage?: { parentSession?: SessionId; forkedAt?: number; inheritedEventCount?: number }
  /** True when the session comes from storage: listeners must not write it again. */
  loaded?: boolean
}

export interface ForkOptions {
  /** Extra header fields for the child (title, files mode, …). `cwd` defaults to the source's. */
  meta?: SessionMeta
}

export interface SessionStoreOptions {
  /** Clock for event times and `createdAt` (tests pin it). */
  now?: () => number
  /** Id generator (default: monotonic ULIDs). */
  generateId?: () => SessionId
}

type Listeners = { [K in keyof SessionStoreEvents]: Set<SessionStoreEvents[K]> }

export class SessionStore {
  readonly #sessions = new Map<SessionId, Session>()
  /** Every Session object this store ever published: tells "stale" from "never ours". */
  readonly #published = new WeakSet<Session>()
  readonly #listeners: Listeners = {
    created: new Set(),
    appending: new Set(),
    appended: new Set(),
    disposed: new Set(),
  }
  readonly #now: () => number
  /** Made on first use: a store that only loads never generates an id. */
  #generateId: (() => SessionId) | null

  constructor(options: SessionStoreOptions = {}) {
    this.#now = options.now ?? Date.now
    this.#generateId = options.generateId ?? null
  }

  /** Subscribes to store events; returns the unsubscribe function. */
  on<K extends keyof SessionStoreEvents>(name: K, listener: SessionStoreEvents[K]): () => void {
    this.#listeners[name].add(listener)
    return () => this.#listeners[name].delete(listener)
  }

  get(id: SessionId): Session | undefined {
    return this.#sessions.get(id)
  }

  has(id: SessionId): boolean {
    return this.#sessions.has(id)
  }

  /** Live sessions, in insertion order. */
  sessions(): IterableIterator<Session> {
    return this.#sessions.values()
  }

  /** Generates a fresh id (time-sortable) without creating anything. */
  newId(): SessionId {
    return this.#newId()
  }

  #newId(): SessionId {
    this.#generateId ??= createSessionIdGenerator()
    return this.#generateId()
  }

  create(id?: SessionId, options: CreateSessionOptions = {}): Session {
    const sessionId = id ?? this.#newId()
    assertValidSessionId(sessionId)
    if (this.#sessions.has(sessionId)) {
      throw new TangentError('session-exists', `Session ${sessionId} already exists.`, { sessionId })
    }
    const seed = options.seed ?? []
    const grammar = new GrammarState()
    const events: SessionEvent[] = []
    for (let i = 0; i < seed.length; i++) {
      const event = seed[i]!
      if (event.seq !== i) {
        throw new TangentError(
          'invalid-event',
          `Seed event ${i} has seq ${event.seq}: seqs must be dense from 0.`,
          {
            seq: event.seq,
            index: i,
          },
        )
      }
      grammar.accept(i, event.type, event.data)
      events.push(deepFreeze(event))
    }
    const meta = options.meta ?? {}
    const lineage = options.lineage ?? {}
    const header: SessionHeader = {
      ...meta,
      id: sessionId,
      cwd: meta.cwd ?? '',
      createdAt: meta.createdAt ?? this.#now(),
      // A loaded log passes its whole history as `seed`: what was inherited is in `lineage`.
      isSeeded: (lineage.inheritedEventCount ?? seed.length) > 0 || lineage.parentSession !== undefined,
      origin: meta.origin ?? (lineage.parentSession !== undefined ? 'fork' : 'user'),
      inheritedEventCount: lineage.inheritedEventCount ?? seed.length,
      ...(lineage.parentSession !== undefined ? { parentSession: lineage.parentSession } : {}),
      ...(lineage.forkedAt !== undefined ? { forkedAt: lineage.forkedAt } : {}),
    }
    return this.#publish(header, events, grammar, options.loaded ? 'load' : 'create')
  }

  /**
   * Forks `source` through `boundary` (inclusive; default its last event; -1 for an
   * empty prefix). Never trims: the boundary must exist and must not fall inside a
   * turn. The child shares the source's frozen events and continues its seqs.
   */
  fork(
    source: Session | SessionId,
    boundary?: SessionSeq | number,
    childId?: SessionId,
    options: ForkOptions = {},
  ) {
    const parent = this.#resolveSource(source)
    const last = parent.events.length - 1
    const cut = boundary === undefined ? last : boundary
    if (!Number.isInteger(cut) || cut < -1 || cut > last) {
      throw new TangentError(
        'invalid-boundary',
        `Invalid fork boundary ${String(boundary)} for session ${parent.id}: use a seq from -1 to ${last}.`,
        {
          sessionId: parent.id,
          boundary: typeof boundary === 'number' ? boundary : String(boundary),
          lastSeq: last,
        },
      )
    }
    const openTurnSeq = openTurnAt(parent.events, cut)
    if (openTurnSeq !== null) {
      throw new TangentError(
        'open-turn',
        `Cannot fork session ${parent.id} at seq ${cut}: it falls inside the turn that starts at seq ${openTurnSeq}. Fork at a turn/end or a later standalone event.`,
        { sessionId: parent.id, boundary: cut, turnStartSeq: openTurnSeq },
      )
    }
    const id = childId ?? this.#newId()
    assertValidSessionId(id)
    if (this.#sessions.has(id)) {
      throw new TangentError('session-exists', `Session ${id} already exists.`, { sessionId: id })
    }
    const meta = options.meta ?? {}
    const header: SessionHeader = {
      ...meta,
      id,
      cwd: meta.cwd ?? parent.header.cwd,
      createdAt: meta.createdAt ?? this.#now(),
      parentSession: parent.id,
      forkedAt: cut,
      isSeeded: true,
      origin: meta.origin ?? 'fork',
      inheritedEventCount: cut + 1,
    }
    // The prefix ends outside any turn, so the child's grammar starts idle.
    return this.#publish(
      header,
      parent.events.slice(0, cut + 1),
      new GrammarState(),
      'fork',
      parent.indexPrefix(cut + 1),
    )
  }

  /** Forgets the live object (storage keeps the session). Later use of it is stale. */
  dispose(id: SessionId): boolean {
    const existed = this.#sessions.delete(id)
    if (existed) for (const listener of this.#listeners.disposed) listener(id)
    return existed
  }

  #resolveSource(source: Session | SessionId): Session {
    if (typeof source === 'string') {
      assertValidSessionId(source)
      const found = this.#sessions.get(source)
      if (!found)
        throw new TangentError('session-not-found', `Session ${source} not found.`, { sessionId: source })
      return found
    }
    const live = this.#sessions.get(source.id)
    if (live === source) return source
    if (!this.#published.has(source)) {
      throw new TangentError('session-not-found', `Session ${source.id} is not held by this store.`, {
        sessionId: source.id,
      })
    }
    throw new TangentError(
      'session-stale',
      `This Session object for ${source.id} is stale: the store no longer holds it. Use store.get(id) (or load it again).`,
      { sessionId: source.id },
    )
  }

  #publish(
    header: SessionHeader,
    events: SessionEvent[],
    grammar: GrammarState,
    via: SessionCreatedVia,
    index?: EventIndex,
  ): Session {
    const session = new Session(header, events, grammar, this.#hooks, this.#now, index)
    this.#sessions.set(session.id, session)
    this.#published.add(session)
    for (const listener of this.#listeners.created) listener(session, via)
    return session
  }

  readonly #hooks = {
    isLive: (session: Session) => this.#sessions.get(session.id) === session,
    appending: (session: Session, event: SessionEvent) => {
      for (const listener of this.#listeners.appending) listener(session, event)
    },
    appended: (session: Session, event: SessionEvent) => {
      for (const listener of this.#listeners.appended) listener(session, event)
    },
  }
}

/** Seq of the unmatched `turn/start` whose turn holds `boundary`, or null when it is outside any turn. */
export function openTurnAt(events: readonly SessionEvent[], boundary: number): number | null {
  for (let i = boundary; i >= 0; i--) {
    const type = events[i]!.type
    if (type === 'turn/end') return null
    if (type === 'turn/start') return i
  }
  return null
}
