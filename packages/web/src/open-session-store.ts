// The open session: which one, and its transcript — the end of its log, loaded tail first
// (`session.get {last}`) and kept live by its subscription (events, streamed text, usage) — plus
// who else works in its folder. Older pages and jumps are `transcript-pages.ts`.
import type { BoardStore } from './board-store.js'
import type { HostState } from './host-state.js'
import { ancestorsOf, explorationGroupKey } from './lineage.js'
import {
  applyDelta,
  applyLiveEvent,
  emptyStreaming,
  endSeqOf,
  fromTurnStart,
  mergeEvents,
} from './session-log.js'
import type { SessionsStore } from './sessions-store.js'
import type { StoreDeps } from './store-deps.js'
import { writeHash } from './store-helpers.js'
import type { ViewStore } from './view-store.js'
import type { SessionEvent } from './wire.js'
import type { WorkspacesStore } from './workspaces-store.js'

/**
 * Events read per `session.get` page: a long log opens with its last page, and older pages come
 * as the reader scrolls up (docs/architecture.md §8).
 */
export const transcriptPageSize = 500

/** Events after which the open session's usage figures change. */
const usageEventTypes: ReadonlySet<string> = new Set(['step/end', 'context/compacted', 'model/selection'])

export interface OpenSessionDeps extends StoreDeps {
  readonly view: ViewStore
  readonly workspaces: WorkspacesStore
  readonly sessions: SessionsStore
  readonly board: BoardStore
}

export class OpenSessionStore {
  readonly #deps: OpenSessionDeps
  /** Changes whenever another session is opened, so late answers for the old one are dropped. */
  #openToken = 0
  /** Events that arrived while the open session's log was loading. */
  #buffered: SessionEvent[] = []
  #catchingUp = false
  /** A usage re-read is running; `#usageWanted` is the session to read next. */
  #usageReading = false
  #usageWanted: string | null = null

  constructor(deps: OpenSessionDeps) {
    this.#deps = deps
  }

  async openSession(sessionId: string): Promise<void> {
    const { state, board } = this.#deps
    // Choosing a session leaves the board for its transcript.
    if (state.get().board !== null) board.closeBoard()
    const { openSessionId, transcript } = state.get()
    if (openSessionId === sessionId && transcript?.sessionId === sessionId) return
    await this.switchTo(sessionId)
  }

  /** Leaves the open session's live feed and loads another one. */
  async switchTo(sessionId: string): Promise<void> {
    const previous = this.#deps.state.get().transcript?.sessionId
    if (previous !== undefined && previous !== sessionId) {
      this.#deps
        .client()
        .call('session.unsubscribe', { sessionId: previous })
        .catch((error: unknown) => this.#deps.notices.report(error))
    }
    await this.#load(sessionId)
  }

  /** On connecting: opens the session the address or the workspace's memory names, if it still exists. */
  async reopen(sessionId: string | null): Promise<void> {
    if (sessionId === null) return
    if (this.#deps.state.get().sessions.has(sessionId)) await this.#load(sessionId)
    else this.#deps.state.set({ openSessionId: null, transcript: null })
  }

  /** The patch that closes a session when it is the open one (it was deleted). */
  closing(sessionId: string): Partial<HostState> {
    if (this.#deps.state.get().openSessionId !== sessionId) return {}
    writeHash(null)
    return { openSessionId: null, transcript: null }
  }

  async #load(sessionId: string): Promise<void> {
    const { state, view, workspaces, sessions, notices } = this.#deps
    const token = ++this.#openToken
    const summary = state.get().sessions.get(sessionId)
    const expand = ancestorsOf(state.get().sessions, sessionId)
    if (summary?.exploration) expand.push(explorationGroupKey(summary.exploration.id))
    this.#buffered = []
    state.set({
      openSessionId: sessionId,
      ...workspaces.selecting(summary?.workspaceId),
      transcript: { sessionId, events: [], firstSeq: 0, loading: true, streaming: emptyStreaming },
      ...view.expanding(expand),
      sharedActivity: null,
    })
    writeHash(sessionId)
    const client = this.#deps.client()
    try {
      // get, then subscribe from where the log ended: the Host replays anything appended in
      // between, so there is no gap and no duplicate (duplicates are dropped anyway).
      // Tail first: the last page, older ones as the reader scrolls up (docs/protocol.md).
      const page = await client.call('session.get', { sessionId, last: transcriptPageSize })
      const { session, usage } = page
      const events = fromTurnStart(page.events)
      if (token !== this.#openToken) return
      const firstSeq = events[0]?.seq ?? 0
      await client.call('session.subscribe', { sessionId, fromSeq: firstSeq + events.length })
      if (token !== this.#openToken) {
        // Another session was opened meanwhile, and its unsubscribe may have gone out first.
        if (state.get().transcript?.sessionId !== sessionId) {
          client.call('session.unsubscribe', { sessionId }).catch((error: unknown) => notices.report(error))
        }
        return
      }
      sessions.upsert(session)
      const merged = mergeEvents(events, this.#buffered, firstSeq)
      this.#buffered = []
      state.set({
        transcript: { sessionId, events: merged, firstSeq, loading: false, streaming: emptyStreaming, usage },
      })
      workspaces.remember(session.workspaceId, sessionId)
    } catch (error) {
      if (token === this.#openToken) {
        state.set({ transcript: null, openSessionId: null })
        writeHash(null)
      }
      notices.report(error)
    }
  }

  /** A `session.event` notification. */
  onEvent(sessionId: string, event: SessionEvent): void {
    const transcript = this.#deps.state.get().transcript
    if (!transcript || transcript.sessionId !== sessionId) return
    if (transcript.loading) {
      this.#buffered.push(event)
      return
    }
    const next = applyLiveEvent(transcript, event)
    if (next === 'gap') void this.#catchUp(sessionId)
    else if (next !== 'duplicate') this.#deps.state.setLive({ transcript: next })
    if (next !== 'duplicate' && usageEventTypes.has(event.type)) void this.#readUsage(sessionId)
  }

  /** A `session.delta` notification: text streamed by the running step. */
  onDelta(sessionId: string, kind: string, text: string): void {
    const transcript = this.#deps.state.get().transcript
    if (!transcript || transcript.sessionId !== sessionId || transcript.loading) return
    this.#deps.state.setLive({ transcript: applyDelta(transcript, kind, text) })
  }

  /** A `files.sharedActivity` notification: other sessions at work in the open session's folder. */
  onSharedActivity(cwd: string, sessionIds: readonly string[]): void {
    this.#deps.state.set({ sharedActivity: sessionIds.length >= 2 ? { cwd, sessionIds } : null })
  }

  /**
   * Re-reads the open session's usage (session.get from the end of its log: no events, the
   * Host's one pass over them) after a step ends, a compaction or a model change: one read at
   * a time, then one more for the session that asked meanwhile.
   */
  async #readUsage(sessionId: string): Promise<void> {
    const { state } = this.#deps
    this.#usageWanted = sessionId
    if (this.#usageReading) return
    this.#usageReading = true
    try {
      while (this.#usageWanted !== null) {
        const wanted = this.#usageWanted
        this.#usageWanted = null
        const before = state.get().transcript
        if (!before || before.sessionId !== wanted) continue
        const fromSeq = endSeqOf(before)
        const { usage } = await this.#deps.client().call('session.get', { sessionId: wanted, fromSeq })
        const transcript = state.get().transcript
        if (transcript && transcript.sessionId === wanted) state.set({ transcript: { ...transcript, usage } })
      }
    } catch (error) {
      this.#deps.notices.report(error)
    } finally {
      this.#usageReading = false
    }
  }

  /** Fills a gap in the open log (should not happen: the Host sends in order without gaps). */
  async #catchUp(sessionId: string): Promise<void> {
    const { state } = this.#deps
    if (this.#catchingUp) return
    this.#catchingUp = true
    try {
      const open = state.get().transcript
      const from = open ? endSeqOf(open) : 0
      const { events } = await this.#deps.client().call('session.get', { sessionId, fromSeq: from })
      const transcript = state.get().transcript
      if (!transcript || transcript.sessionId !== sessionId) return
      state.set({
        transcript: { ...transcript, events: mergeEvents(transcript.events, events, transcript.firstSeq) },
      })
    } catch (error) {
      this.#deps.notices.report(error)
    } finally {
      this.#catchingUp = false
    }
  }
}
