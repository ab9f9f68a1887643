// When a session is busy (docs/architecture.md §7): a turn runs, or an operation that must not
// overlap one (a restore, its undo, a delete) is under way; and while a restore rewrites a
// directory, every session sharing it waits. Files always match the log's order.
import { type Session, type SessionStore, TangentError } from '@tangent/core'
import { sessionsRunningIn } from './shared-activity.js'

export class SessionBusy {
  readonly #sessions: SessionStore
  /**
   * Sessions in an operation that must not overlap a turn (restore, delete): id → what, newest
   * last (operations nest: a branch's check holds the session while its turn is being started).
   */
  readonly #exclusive = new Map<string, string[]>()
  /** Directories a restore (or its undo) is rewriting: cwd → the session doing it. */
  readonly #rewriting = new Map<string, string>()

  constructor(sessions: SessionStore) {
    this.#sessions = sessions
  }

  /**
   * Refuses calls that need an idle session (no turn, no restore or delete under way), and
   * any call while a restore rewrites the session's directory: files match the log's order.
   */
  assertIdle(session: Session, action: string): void {
    const other = this.#exclusive.get(session.id)?.at(-1)
    if (session.isTurnOpen || other !== undefined) {
      throw new TangentError(
        'session-busy',
        `Session ${session.id} is ${other ?? 'running a turn'}: wait for it to end${other ? '' : ' or abort it'} before you ${action}.`,
        { sessionId: session.id },
      )
    }
    this.assertNotRewritten(session, action)
  }

  /**
   * Refuses a turn that is about to start (its session already held for it) when one is open
   * now — another Host's, caught up while the claim was taken — or a restore rewrites its directory.
   */
  assertStartable(session: Session, action: string): void {
    if (session.isTurnOpen) {
      throw new TangentError(
        'session-busy',
        `Session ${session.id} is running a turn: wait for it to end or abort it before you ${action}.`,
        { sessionId: session.id },
      )
    }
    this.assertNotRewritten(session, action)
  }

  assertNotRewritten(session: Session, action: string): void {
    const restoring = this.#rewriting.get(session.header.cwd)
    if (restoring !== undefined) {
      throw new TangentError(
        'session-busy',
        `Session ${restoring} is restoring files in ${session.header.cwd}, which session ${session.id} shares: wait for the restore to end before you ${action}.`,
        { sessionId: session.id, otherSessionId: restoring },
      )
    }
  }

  /**
   * A restore rewrites the session's directory: it waits for no one, so it is refused while
   * any session runs a turn in that directory, and it holds the directory until it is recorded.
   */
  async rewritingFiles<T>(session: Session, what: string, work: () => Promise<T>): Promise<T> {
    const cwd = session.header.cwd
    const running = sessionsRunningIn(this.#sessions, cwd).filter((id) => id !== session.id)
    if (running.length > 0) {
      throw new TangentError(
        'session-busy',
        `Session ${running.join(', ')} is running a turn in ${cwd}, which session ${session.id} shares: restore its files when that turn ends (or abort it).`,
        { sessionId: session.id, otherSessionId: running[0] },
      )
    }
    this.#rewriting.set(cwd, session.id)
    try {
      return await this.exclusively(session, what, work)
    } finally {
      this.#rewriting.delete(cwd)
    }
  }

  async exclusively<T>(session: Session, what: string, work: () => Promise<T>): Promise<T> {
    const held = this.#exclusive.get(session.id) ?? []
    held.push(what)
    this.#exclusive.set(session.id, held)
    try {
      return await work()
    } finally {
      held.splice(held.lastIndexOf(what), 1)
      if (held.length === 0 && this.#exclusive.get(session.id) === held) this.#exclusive.delete(session.id)
    }
  }
}
