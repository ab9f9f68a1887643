// Seqs of the few event types that callers look up by "latest at or before a seq"
// (title, model, snapshots, turn markers), so those lookups and forks cost
// O(log n) instead of a scan of the whole history.
import type { SessionEvent } from './events.js'

export const indexedEventTypes: readonly string[] = [
  'model/selection',
  'session/title',
  'snapshot/taken',
  // A restore of the session's files (the files plugin): it records a tree like a snapshot.
  'files/restored',
  'turn/start',
  'turn/end',
  // What the model is sent besides the history: looked up before every turn and model call.
  'context/instructions',
  'context/compacted',
  // "Always" answers: a session's permission rules are read before every tool call.
  'permission/answered',
  // The session's mode: read before every tool call too.
  'session/mode',
]
const indexed: ReadonlySet<string> = new Set(indexedEventTypes)

export class EventIndex {
  readonly #seqs = new Map<string, number[]>()

  static build(events: readonly SessionEvent[]): EventIndex {
    const index = new EventIndex()
    for (let i = 0; i < events.length; i++) index.add(events[i]!)
    return index
  }

  static isIndexed(type: string): boolean {
    return indexed.has(type)
  }

  add(event: SessionEvent): void {
    if (!indexed.has(event.type)) return
    let list = this.#seqs.get(event.type)
    if (!list) {
      list = []
      this.#seqs.set(event.type, list)
    }
    list.push(event.seq)
  }

  /** The index of the first `count` events (a fork's prefix). */
  prefix(count: number): EventIndex {
    const copy = new EventIndex()
    for (const [type, list] of this.#seqs) {
      const end = upperBound(list, count - 1)
      if (end > 0) copy.#seqs.set(type, list.slice(0, end))
    }
    return copy
  }

  /** Seqs of `type` in order (indexed types only). */
  seqs(type: string): readonly number[] {
    return this.#seqs.get(type) ?? []
  }

  /** The latest seq of `type` at or before `atOrBefore`, or -1. */
  latest(type: string, atOrBefore: number): number {
    const list = this.#seqs.get(type)
    if (!list) return -1
    const end = upperBound(list, atOrBefore)
    return end > 0 ? list[end - 1]! : -1
  }
}

/** Number of items of the sorted `list` that are <= `value`. */
function upperBound(list: readonly number[], value: number): number {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (list[mid]! <= value) low = mid + 1
    else high = mid
  }
  return low
}
