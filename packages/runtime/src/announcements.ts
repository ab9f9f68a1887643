// What a runtime announces (docs/architecture.md §1, §7): sessions created, updated and deleted
// — here, and with a shared store on other Hosts — each appended event and streamed delta, and
// shared activity (§5); and each session's subscribers, who get its events from a seq on, then
// every later one, with no gap and no duplicate, and its live deltas.
import type { AgentDelta } from '@tangent/agent'
import { type Session, type SessionPersistence, TangentError } from '@tangent/core'
import type { SessionSummary, SessionEvent as WireSessionEvent } from '@tangent/protocol'
import type { RuntimeEmitter } from './runtime-events.js'
import type { toSessionSummary } from './session-summary.js'
import { sessionsRunningIn } from './shared-activity.js'

/** Receives one session's events (backlog first, then live, no gap, no duplicate) and deltas. */
export interface SessionListener {
  onEvent(event: WireSessionEvent): void
  onDelta?(delta: AgentDelta): void
}

/** Event types that change what a SessionSummary shows (status, title, model, mode). */
const summaryEventTypes: ReadonlySet<string> = new Set([
  'turn/start',
  'turn/end',
  'session/title',
  'model/selection',
  'session/mode',
])

export interface AnnouncementsDeps {
  store: SessionPersistence
  emitter: RuntimeEmitter
  load(sessionId: string): Promise<Session>
  summaryOf(entry: Parameters<typeof toSessionSummary>[0], live: Session | undefined): SessionSummary
  /** Another Host deleted the session (shared store): what this process remembers of it goes. */
  onRemoteDelete(sessionId: string): void
  report(error: unknown): void
}

export class Announcements {
  readonly #deps: AnnouncementsDeps
  readonly #store: SessionPersistence
  readonly #emitter: RuntimeEmitter
  /** Per session, summary announcements run in order, so the last one sent is the newest. */
  readonly #announcing = new Map<string, Promise<void>>()
  readonly #sessionListeners = new Map<string, Set<SessionListener>>()
  readonly #unwire: (() => void)[] = []

  constructor(deps: AnnouncementsDeps) {
    this.#deps = deps
    this.#store = deps.store
    this.#emitter = deps.emitter
  }

  /**
   * Sends `listener` the session's events from `fromSeq` (when given), then every later
   * one, with no gap and no duplicate, and its live deltas; returns the unsubscribe.
   */
  async subscribe(
    sessionId: string,
    options: { fromSeq?: number | undefined },
    listener: SessionListener,
  ): Promise<() => void> {
    const session = await this.#deps.load(sessionId)
    if (options.fromSeq !== undefined && options.fromSeq > session.events.length) {
      throw new TangentError(
        'invalid-params',
        `fromSeq ${options.fromSeq} is past the end of session ${sessionId} (${session.events.length} events): subscribe from at most its length.`,
        { issues: [{ path: ['fromSeq'], message: 'past the end of the session' }], sessionId },
      )
    }
    // No await from here to the registration: nothing can be appended in between.
    if (options.fromSeq !== undefined)
      for (const event of session.events.slice(options.fromSeq)) listener.onEvent(event)
    let set = this.#sessionListeners.get(sessionId)
    if (!set) {
      set = new Set()
      this.#sessionListeners.set(sessionId, set)
    }
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.#sessionListeners.get(sessionId) === set)
        this.#sessionListeners.delete(sessionId)
    }
  }

  /** A deleted session's subscribers get nothing more. */
  dropSubscribers(sessionId: string): void {
    this.#sessionListeners.delete(sessionId)
  }

  /** Announces the store's changes: sessions made and appended to here, and other Hosts' changes. */
  wire(): void {
    const store = this.#store.store
    this.#unwire.push(
      // Another Host's sessions (shared store): lists and trees update everywhere.
      this.#store.onRemoteChange(({ sessionId, kind }) => {
        if (kind === 'deleted') {
          this.#deps.onRemoteDelete(sessionId)
          this.#emitter.emit('session-deleted', sessionId)
        } else this.announce(sessionId, kind === 'created' ? 'session-created' : 'session-updated')
      }),
      store.on('created', (session, via) => {
        if (via !== 'load') this.announce(session.id, 'session-created')
      }),
      store.on('appended', (session, event) => {
        this.#emitter.emit('event', session.id, event)
        const listeners = this.#sessionListeners.get(session.id)
        if (listeners) for (const listener of [...listeners]) this.#safely(() => listener.onEvent(event))
        if (summaryEventTypes.has(event.type)) this.announce(session.id, 'session-updated')
        // A subagent shares its parent's directory by design (docs/architecture.md §14.1): no warning.
        if (event.type === 'turn/start' && session.header.origin !== 'subagent') {
          const cwd = session.header.cwd
          const running = sessionsRunningIn(store, cwd)
          if (running.length >= 2) this.#emitter.emit('shared-activity', { cwd, sessionIds: running })
        }
      }),
    )
  }

  /** Stops announcing the store's changes (the runtime is closing). */
  unwire(): void {
    for (const unwire of this.#unwire) unwire()
  }

  onDelta(sessionId: string, delta: AgentDelta): void {
    this.#emitter.emit('delta', sessionId, delta)
    const listeners = this.#sessionListeners.get(sessionId)
    if (listeners) for (const listener of [...listeners]) this.#safely(() => listener.onDelta?.(delta))
  }

  #safely(work: () => void): void {
    try {
      work()
    } catch (error) {
      this.#deps.report(error)
    }
  }

  announce(sessionId: string, name: 'session-created' | 'session-updated'): void {
    if (!this.#emitter.has(name)) return
    const previous = this.#announcing.get(sessionId) ?? Promise.resolve()
    const next = previous
      .then(async () => {
        const entry = await this.#store.get(sessionId)
        const live = this.#store.store.get(sessionId)
        if (!entry && !live) return // deleted meanwhile
        this.#emitter.emit(name, this.#deps.summaryOf(entry, live))
      })
      .catch(this.#deps.report)
      .finally(() => {
        if (this.#announcing.get(sessionId) === next) this.#announcing.delete(sessionId)
      })
    this.#announcing.set(sessionId, next)
  }

  /** Resolves when every announcement under way has been sent (or failed). */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.#announcing.values()])
  }
}
