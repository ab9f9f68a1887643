// The composer's side of the store: sending a message (starting a session when none is open,
// naming a session after its first message), stopping the turn, and the text handed to the
// composer — a message the Host refused before its turn, or "Edit in new branch".
import { RpcError } from '@tangent/protocol'
import { type HostState, isSessionRunning } from './host-state.js'
import { isInheritedTitle } from './session-display.js'
import type { SessionsStore } from './sessions-store.js'
import type { StoreDeps } from './store-deps.js'
import { titleFromMessage } from './store-helpers.js'

export interface ComposerDeps extends StoreDeps {
  readonly sessions: SessionsStore
}

export class ComposerStore {
  readonly #deps: ComposerDeps
  #draftNonce = 0

  constructor(deps: ComposerDeps) {
    this.#deps = deps
    // A queued message goes out once its session's turn has ended.
    deps.state.subscribe(() => this.#sendQueued())
  }

  async send(text: string): Promise<void> {
    const { state, sessions } = this.#deps
    let sessionId = state.get().openSessionId
    if (sessionId === null) {
      const created = await sessions.createSession(state.get().activeWorkspaceId)
      if (!created) return
      sessionId = created.id
    }
    await this.#sendTo(sessionId, text)
  }

  /**
   * Queues a message for the open session while its turn runs, sent when the turn ends. One
   * per session: false (nothing queued) when one is queued already or no session is open.
   */
  queue(text: string): boolean {
    const { state } = this.#deps
    const { openSessionId, queued } = state.get()
    if (openSessionId === null || queued.has(openSessionId)) return false
    state.set({ queued: new Map(queued).set(openSessionId, text) })
    return true
  }

  /** Takes a session's queued message back (to edit it, or cancelled): its text, if one was queued. */
  unqueue(sessionId: string): string | undefined {
    const { state } = this.#deps
    const queued = state.get().queued
    const text = queued.get(sessionId)
    if (text === undefined) return undefined
    const next = new Map(queued)
    next.delete(sessionId)
    state.set({ queued: next })
    return text
  }

  /** Sends each queued message whose session no longer runs a turn (taken off the queue first). */
  #sendQueued(): void {
    const current = this.#deps.state.get()
    if (current.queued.size === 0 || current.connection !== 'open') return
    for (const [sessionId, text] of current.queued) {
      if (isSessionRunning(current, sessionId)) continue
      if (this.unqueue(sessionId) !== undefined) void this.#sendTo(sessionId, text)
    }
  }

  async #sendTo(sessionId: string, text: string): Promise<void> {
    const { state, sessions, notices } = this.#deps
    if (this.#needsTitle(sessionId)) {
      // A session is named after its first message, so the tree reads like a list of topics
      // rather than ids; a branch likewise after its first own message, not its parent's
      // name. A title is a standalone event: it goes in before the turn.
      await sessions.rename(sessionId, titleFromMessage(text))
    }
    try {
      await this.#deps.client().call('session.prompt', { sessionId, text })
    } catch (error) {
      notices.report(error)
      // Refused before the turn started (nothing was appended): the message goes back in the
      // box, so a refusal never costs the user what they typed.
      if (refusedBeforeTurn(error) && state.get().openSessionId === sessionId) {
        state.set({ draft: { sessionId, text, nonce: ++this.#draftNonce, returned: true } })
      }
    }
  }

  #needsTitle(sessionId: string): boolean {
    const { sessions, transcript } = this.#deps.state.get()
    const summary = sessions.get(sessionId)
    if (summary?.status !== 'idle') return false
    if (summary.title.trim() === '') return true
    const parent = summary.parentSession === null ? undefined : sessions.get(summary.parentSession)
    if (!parent || !isInheritedTitle(summary.title, parent)) return false
    if (!transcript || transcript.sessionId !== sessionId || transcript.loading) return false
    // A window that starts after the fork point holds a page of the branch's own events: it has turns.
    if (transcript.firstSeq > summary.inheritedEventCount) return false
    return !transcript.events.some(
      (event) => event.seq >= summary.inheritedEventCount && event.type === 'turn/start',
    )
  }

  async abort(): Promise<void> {
    const sessionId = this.#deps.state.get().openSessionId
    if (sessionId === null) return
    try {
      await this.#deps.client().call('session.abort', { sessionId })
    } catch (error) {
      this.#deps.notices.report(error)
    }
  }

  /** The patch that puts `text` in a session's composer (none: clears what was handed over). */
  drafting(sessionId: string, text: string | undefined): Pick<HostState, 'draft'> {
    return { draft: text === undefined ? null : { sessionId, text, nonce: ++this.#draftNonce } }
  }

  clearDraft(): void {
    this.#deps.state.set({ draft: null })
  }
}

/**
 * Codes with which `session.prompt` refuses before appending anything (docs/protocol.md): the
 * message was not taken. Any other failure may come after the turn started (a lost connection
 * mid-turn), when the message is already in the log.
 */
const refusedPromptCodes: ReadonlySet<string> = new Set([
  'session-busy',
  'session-elsewhere',
  'session-not-found',
  'model-unavailable',
  'invalid-model',
  'images-unsupported',
  'invalid-params',
  'payload-too-large',
  'store-read-only',
])

function refusedBeforeTurn(error: unknown): boolean {
  return error instanceof RpcError && error.dataCode !== undefined && refusedPromptCodes.has(error.dataCode)
}
