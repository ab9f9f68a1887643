// What a runtime tells its front-ends: the Host turns these into notifications
// (docs/protocol.md "Notifications"); the CLI prints them.
import type { AgentDelta } from '@tangent/agent'
import type { SessionEvent } from '@tangent/core'
import type { SessionSummary } from '@tangent/protocol'

export interface SharedActivity {
  cwd: string
  sessionIds: string[]
}

export interface RuntimeEventMap {
  /** A session was created or forked (not: loaded from disk). */
  'session-created': (session: SessionSummary) => void
  /** Status, title, model, archived flag or counts changed; per session, the last one sent is the newest. */
  'session-updated': (session: SessionSummary) => void
  'session-deleted': (sessionId: string) => void
  /** Every appended event, synchronously, in seq order. */
  event: (sessionId: string, event: SessionEvent) => void
  /** Streamed text of a running step (not in the log). */
  delta: (sessionId: string, delta: AgentDelta) => void
  /** Two or more sessions run turns in one directory: they share its files. */
  'shared-activity': (activity: SharedActivity) => void
}

export type RuntimeEventName = keyof RuntimeEventMap

/** A small typed emitter: a listener that throws is reported, never breaks the emitter. */
export class RuntimeEmitter {
  readonly #listeners = new Map<RuntimeEventName, Set<(...args: never[]) => void>>()
  readonly #report: (error: unknown) => void

  constructor(report: (error: unknown) => void) {
    this.#report = report
  }

  on<E extends RuntimeEventName>(name: E, listener: RuntimeEventMap[E]): () => void {
    let set = this.#listeners.get(name)
    if (!set) {
      set = new Set()
      this.#listeners.set(name, set)
    }
    set.add(listener as (...args: never[]) => void)
    return () => set.delete(listener as (...args: never[]) => void)
  }

  has(name: RuntimeEventName): boolean {
    return (this.#listeners.get(name)?.size ?? 0) > 0
  }

  emit<E extends RuntimeEventName>(name: E, ...args: Parameters<RuntimeEventMap[E]>): void {
    const set = this.#listeners.get(name)
    if (!set) return
    for (const listener of [...set]) {
      try {
        ;(listener as unknown as (...values: Parameters<RuntimeEventMap[E]>) => void)(...args)
      } catch (error) {
        this.#report(error)
      }
    }
  }
}
