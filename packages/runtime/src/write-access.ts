// Who may write a session, and when (docs/architecture.md §4, §7): never a read-only process;
// with a shared store (PostgreSQL) every write holds the session's claim, a turn another Host left
// open is taken over (or refused as `session-busy`), and turns and restores run only on the
// machine the session's files live on.
import { type Session, type SessionPersistence, TangentError } from '@tangent/core'
import { headerMetaOf } from './header-meta.js'
import type { SessionBusy } from './session-busy.js'

export interface WriteAccessDeps {
  store: SessionPersistence
  busy: SessionBusy
  /** The data directory, named when a read-only process is asked to write. */
  home: string
  readOnly: boolean
  /** This machine's name (the runtime's `machine`). */
  machine: string
  /** Whether an agent of this process is running a turn of the session. */
  runsHere(sessionId: string): boolean
  report(error: unknown): void
}

export class WriteAccess {
  readonly #store: SessionPersistence
  readonly #busy: SessionBusy
  readonly #deps: WriteAccessDeps

  constructor(deps: WriteAccessDeps) {
    this.#store = deps.store
    this.#busy = deps.busy
    this.#deps = deps
  }

  assertWritable(action: string): void {
    if (this.#deps.readOnly) {
      throw new TangentError(
        'store-read-only',
        `This process opened ${this.#deps.home} read-only: it cannot ${action}.`,
        { home: this.#deps.home },
      )
    }
  }

  /**
   * Runs `work` holding the session's write claim (docs/architecture.md §4). With a shared store
   * (PostgreSQL) another Host's claim makes this `session-busy`; with JSONL the writer lock of the
   * data directory already makes this process the only writer, and nothing is claimed.
   */
  async claimed<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    if (!this.#store.shared) return work()
    await this.#store.claim(sessionId)
    try {
      return await work()
    } finally {
      await this.#store.release(sessionId).catch(this.#deps.report)
    }
  }

  /**
   * Starts a turn under the session's claim, held until the turn ends. Without a shared store the
   * turn starts synchronously (two prompts cannot both pass the idle check); with one, the idle
   * check runs again once the claim is held.
   */
  claimedTurn<T>(session: Session, what: string, start: () => Promise<T>): Promise<T> {
    if (!this.#store.shared) return start()
    return (async () => {
      // Busy here from the call on (as an unshared turn is), not only once the claim is held.
      await this.#busy.exclusively(session, 'starting a turn', () => this.#store.claim(session.id))
      try {
        this.#busy.assertStartable(session, what)
        return await start()
      } finally {
        await this.#store.release(session.id).catch(this.#deps.report)
      }
    })()
  }

  /** A restore or undo: the directory and session are held from the call on, then the claim. */
  claimedFiles<T>(session: Session, what: string, work: () => Promise<T>): Promise<T> {
    return this.#busy.rewritingFiles(session, what, () => this.claimed(session.id, work))
  }

  /**
   * With a shared store, a turn open here that no agent of this process runs is another Host's —
   * running, or left open by a Host that died. Claiming it tells which: `session-busy` naming the
   * Host, or the engine closes the abandoned turn as interrupted (docs/architecture.md §4).
   * Undefined (nothing to wait for) otherwise, so a caller without a shared store stays synchronous.
   */
  takeOverAbandoned(session: Session): Promise<void> | undefined {
    if (!this.#store.shared || !session.isTurnOpen || this.#deps.runsHere(session.id)) return undefined
    return (async () => {
      await this.#store.claim(session.id)
      await this.#store.release(session.id)
    })()
  }

  /** `session-elsewhere` when the session's files live on another machine (shared store only). */
  assertOnThisMachine(session: Session, what: string): void {
    if (!this.#store.shared) return
    const machine = headerMetaOf(session.header).machine
    const here = this.#deps.machine
    if (machine === undefined || machine === here) return
    throw new TangentError(
      'session-elsewhere',
      `Session ${session.id} works in ${session.header.cwd} on machine ${machine}; this Host runs on ${here}, so it cannot ${what}: its files are there. To continue it here, fork it with its own worktree — the fork point's files come from the store: \`tangent fork ${session.id} --files worktree\` (or "Continue on this machine" in the web UI). Or run its turns and restores from a Host on ${machine}.`,
      { sessionId: session.id, machine, cwd: session.header.cwd },
    )
  }
}
