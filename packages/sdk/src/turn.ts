// One turn started by `TangentSession.prompt`: its log events as they are appended, from its
// `turn/start` to its `turn/end`, and its outcome. The same events (types, data, seqs) whether
// the session is in this process or behind a Host: both are read from the session's log.
import { turnAnswerText } from '@tangent/core'
import type { PromptImage, SessionDeltaNotification, SessionEvent, TurnEndReason } from '@tangent/protocol'
import type { SessionApi } from '@tangent/runtime'

/** A live delta of the running turn (docs/protocol.md `session.delta`, without its session id). */
export type TurnDelta = Omit<SessionDeltaNotification, 'sessionId'>

export interface PromptOptions {
  /** Images of the prompt (media type and standard base64), checked by the runtime. */
  images?: PromptImage[]
  /**
   * The live text and tool-input deltas of the turn, as they stream (never logged: the events
   * carry the whole messages).
   */
  onDelta?: (delta: TurnDelta) => void
}

/** How a turn ended (`session.prompt`'s answer) and the text the model answered with. */
export interface TurnResult {
  reason: TurnEndReason
  turnStartSeq: number
  turnEndSeq: number
  /** The text of every assistant message of the turn, joined by a blank line (`tangent run --json`'s `text`). */
  text: string
}

/**
 * The turn runs from the moment `prompt` is called, whether or not anyone iterates it. Iterate it
 * (any number of times, each from its first event) for its events; `result` resolves when it has
 * ended. A turn that cannot start (`session-busy`, `session-not-found`, `invalid-params`) rejects
 * `result` and throws from the iteration with that TangentError. Leaving the iteration early
 * does not stop the turn: `TangentSession.abort` does.
 */
export class Turn implements AsyncIterable<SessionEvent> {
  readonly result: Promise<TurnResult>
  readonly #events: SessionEvent[] = []
  #finished = false
  #failure: { error: unknown } | null = null
  #waiting: (() => void)[] = []

  constructor(api: SessionApi, sessionId: string, text: string, options: PromptOptions = {}) {
    this.result = this.#run(api, sessionId, text, options)
    // Whoever awaits `result` or iterates still gets the error: this only keeps a program that
    // reads the events alone from dying of an unhandled rejection.
    this.result.catch(() => undefined)
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    let index = 0
    while (true) {
      if (index < this.#events.length) {
        yield this.#events[index++]!
        continue
      }
      if (this.#failure) throw this.#failure.error
      if (this.#finished) return
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    }
  }

  async #run(api: SessionApi, sessionId: string, text: string, options: PromptOptions): Promise<TurnResult> {
    // The turn's events are the first `turn/start` appended after this subscription and what
    // follows it, up to its `turn/end`: the runtime starts a turn only on an idle session, so the
    // next one to start after this prompt's call is this prompt's.
    let startSeq: number | null = null
    let nextSeq = 0
    let ended = false
    const accept = (event: SessionEvent) => {
      if (ended) return
      if (startSeq === null) {
        if (event.type !== 'turn/start') return
        startSeq = event.seq
      }
      if (event.seq < startSeq || event.seq < nextSeq) return
      nextSeq = event.seq + 1
      if (event.type === 'turn/end') ended = true
      this.#push(event)
    }
    try {
      const unsubscribe = await api.subscribe(
        sessionId,
        {},
        { onEvent: accept, onDelta: (delta) => options.onDelta?.(delta) },
      )
      try {
        const answer = await api.call('session.prompt', {
          sessionId,
          text,
          ...(options.images && options.images.length > 0 ? { images: options.images } : {}),
        })
        // Over a socket the notifications may trail the answer: the rest comes from the log.
        if (!ended) {
          startSeq ??= answer.turnStartSeq
          const rest = await api.call('session.get', {
            sessionId,
            fromSeq: Math.max(nextSeq, startSeq),
            beforeSeq: answer.turnEndSeq + 1,
          })
          for (const event of rest.events) accept(event)
        }
        return {
          reason: answer.reason,
          turnStartSeq: answer.turnStartSeq,
          turnEndSeq: answer.turnEndSeq,
          text: turnAnswerText(this.#events),
        }
      } finally {
        await unsubscribe()
      }
    } catch (error) {
      this.#failure = { error }
      throw error
    } finally {
      this.#finished = true
      this.#wake()
    }
  }

  #push(event: SessionEvent): void {
    this.#events.push(event)
    this.#wake()
  }

  #wake(): void {
    const waiting = this.#waiting
    this.#waiting = []
    for (const resolve of waiting) resolve()
  }
}
