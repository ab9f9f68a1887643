// The open transcript's window grown backwards: the page of events before it as the reader
// scrolls up, or back to a seq to jump to (docs/architecture.md §8, "Tail first", "Jump to a seq").
import type { TranscriptState } from './host-state.js'
import { transcriptPageSize } from './open-session-store.js'
import { fromTurnStart, prependEvents } from './session-log.js'
import type { StoreDeps } from './store-deps.js'

/** Events loaded before a jump's target, so the turn it is in usually starts on screen too. */
const jumpMargin = 200

export interface TranscriptPagesDeps extends StoreDeps {
  /** Opens a session (the one a jump goes to). */
  readonly openSession: (sessionId: string) => Promise<void>
}

export class TranscriptPages {
  readonly #deps: TranscriptPagesDeps
  /** The older page being read, if any. */
  #olderRead: Promise<boolean> | null = null
  #jumpNonce = 0

  constructor(deps: TranscriptPagesDeps) {
    this.#deps = deps
  }

  /**
   * Puts the page of events before the loaded window in front of it (`session.get {beforeSeq,
   * last}`), or the events from `fromSeq` on when given. False when there is nothing older.
   */
  async loadOlder(fromSeq?: number): Promise<boolean> {
    // One read at a time: a scroll asking again meanwhile is answered by the read under way; a
    // jump waits for it, then reads on if it still needs to.
    if (this.#olderRead && fromSeq === undefined) return false
    while (this.#olderRead) await this.#olderRead
    const transcript = this.#deps.state.get().transcript
    if (!transcript || transcript.loading || transcript.firstSeq === 0) return false
    if (fromSeq !== undefined && fromSeq >= transcript.firstSeq) return true
    const read = this.#readOlder(transcript, fromSeq)
    this.#olderRead = read
    try {
      return await read
    } finally {
      this.#olderRead = null
    }
  }

  async #readOlder(transcript: TranscriptState, fromSeq: number | undefined): Promise<boolean> {
    const { state } = this.#deps
    const { sessionId, firstSeq } = transcript
    state.set({ transcript: { ...transcript, loadingOlder: true } })
    try {
      const { events } = await this.#deps.client().call('session.get', {
        sessionId,
        beforeSeq: firstSeq,
        ...(fromSeq !== undefined ? { fromSeq: Math.max(0, fromSeq) } : { last: transcriptPageSize }),
      })
      const current = state.get().transcript
      if (!current || current.sessionId !== sessionId) return false
      const grown = prependEvents({ ...current, loadingOlder: false }, fromTurnStart(events))
      state.set({ transcript: grown ?? { ...current, loadingOlder: false } })
      return grown !== null
    } catch (error) {
      const current = state.get().transcript
      if (current?.sessionId === sessionId) state.set({ transcript: { ...current, loadingOlder: false } })
      this.#deps.notices.report(error)
      return false
    }
  }

  /**
   * Brings event `seq` of a session into view: opens the session, loads the log back to it
   * (and a little before, so its turn starts on screen), and asks the transcript to show it.
   */
  async jumpTo(sessionId: string, seq: number): Promise<void> {
    await this.#deps.openSession(sessionId)
    const transcript = this.#deps.state.get().transcript
    if (!transcript || transcript.sessionId !== sessionId || transcript.loading) return
    await this.loadOlder(seq - jumpMargin)
    this.#deps.state.set({ jump: { sessionId, seq, nonce: ++this.#jumpNonce } })
  }
}
