// `tangent run --stream-json`: the turn as NDJSON on stdout, one line per event as it is
// appended (the log's own shape: seq, time, type, data), then one `result` line.
import type { SessionEvent, TurnDelta, TurnObserver, TurnResult } from '../backend.js'
import type { OutputStream } from '../context.js'

/** The last line of `--stream-json`: what `run --json` prints, tagged `result`. */
export interface StreamJsonResult {
  type: 'result'
  sessionId: string
  turnEndSeq: number
  reason: TurnResult['reason']
  text: string
}

/**
 * Writes each event of the turn as one line, then passes it on to `next` (the terminal printer,
 * silenced). Lines run from the turn's `turn/start` (a turn appends nothing of its own before it)
 * to its `turn/end`: what another client appends to the session around the turn is not this
 * turn's, and the `result` line names that `turn/end` as the last. Deltas are not events (they
 * are not in the log) and are not written.
 */
export class StreamJsonLines implements TurnObserver {
  readonly #out: OutputStream
  readonly #next: TurnObserver
  #state: 'before' | 'in-turn' | 'ended' = 'before'
  readonly onSharedActivity?: TurnObserver['onSharedActivity']

  constructor(out: OutputStream, next: TurnObserver) {
    this.#out = out
    this.#next = next
    if (next.onSharedActivity) this.onSharedActivity = next.onSharedActivity.bind(next)
  }

  onEvent(event: SessionEvent): void {
    if (this.#state === 'before' && event.type === 'turn/start') this.#state = 'in-turn'
    if (this.#state === 'in-turn') {
      // Only the four fields of the log's line (docs/protocol.md SessionEvent): a stable shape
      // whichever SessionApi (this process or a Host) delivered the event.
      writeLine(this.#out, { seq: event.seq, time: event.time, type: event.type, data: event.data })
      if (event.type === 'turn/end') this.#state = 'ended'
    }
    this.#next.onEvent(event)
  }

  onDelta(delta: TurnDelta): void {
    this.#next.onDelta(delta)
  }

  result(value: Omit<StreamJsonResult, 'type'>): void {
    writeLine(this.#out, { type: 'result', ...value } satisfies StreamJsonResult)
  }
}

function writeLine(out: OutputStream, value: unknown): void {
  // One write per line: a reader never sees half a line followed by another writer's.
  out.write(`${JSON.stringify(value)}\n`)
}
