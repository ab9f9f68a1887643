// A handle on one session: its id, and each operation of docs/protocol.md about it as one method,
// called with the protocol's params (less the session id) and answering the protocol's result.
import type {
  MethodParams,
  SessionCompareResult,
  SessionEvent,
  SessionExploreResult,
  SessionKeepResult,
  SessionModeId,
  SessionSummary,
  SnapshotListResult,
  SnapshotRestoreResult,
} from '@tangent/protocol'
import type { SessionApi } from '@tangent/runtime'
import { type PromptOptions, Turn } from './turn.js'

/** A method's params without the session id the handle gives. */
type Own<M extends Parameters<SessionApi['call']>[0]> = Omit<MethodParams<M>, 'sessionId'>

/** `session.explore`'s answer, with a handle on each branch (in the order of `branches`). */
export interface Exploration extends SessionExploreResult {
  branches: TangentSession[]
}

export class TangentSession {
  readonly id: string
  readonly #api: SessionApi

  /** Made by `Tangent` (create, session, fork, explore); the id is a whole, existing one. */
  constructor(api: SessionApi, id: string) {
    this.#api = api
    this.id = id
  }

  /** The session as it is now: title, status, model, mode, lineage, files (`SessionSummary`). */
  async summary(): Promise<SessionSummary> {
    return (await this.#api.call('session.get', { sessionId: this.id, last: 1 })).session
  }

  /** Its log's events, inherited ones included (`session.get`: `fromSeq`, `beforeSeq`, `last`). */
  async events(range: Own<'session.get'> = {}): Promise<SessionEvent[]> {
    return (await this.#api.call('session.get', { sessionId: this.id, ...range })).events
  }

  /** Starts a turn: iterate it for its events, await `.result` for how it ended and its text. */
  prompt(text: string, options: PromptOptions = {}): Turn {
    return new Turn(this.#api, this.id, text, options)
  }

  /** Stops the running turn; false when none runs. */
  async abort(): Promise<boolean> {
    return (await this.#api.call('session.abort', { sessionId: this.id })).aborted
  }

  /**
   * Answers a tool call the permission policy asked about (the `permission/requested` event's
   * `callId`): `once`, `always` or `deny` (with a `reason` the model sees).
   */
  async answerPermission(answer: Own<'session.answerPermission'>): Promise<void> {
    await this.#api.call('session.answerPermission', { sessionId: this.id, ...answer })
  }

  /** A new session that continues this one from a completed turn (`atSeq`, `before`, `files`, …). */
  async fork(options: Own<'session.fork'> = {}): Promise<TangentSession> {
    const forked = await this.#api.call('session.fork', { sessionId: this.id, ...options })
    return new TangentSession(this.#api, forked.session.id)
  }

  /**
   * N branches from one fork point (`branches`: a prompt each, and a model if wanted), each in its
   * own worktree by default, their first turns run with `check` after each. Resolves once every
   * branch's turn and check have ended (`wait: false`: as soon as they have started).
   */
  async explore(options: Own<'session.explore'>): Promise<Exploration> {
    const explored = await this.#api.call('session.explore', { sessionId: this.id, wait: true, ...options })
    return {
      ...explored,
      branches: explored.sessions.map((session) => new TangentSession(this.#api, session.id)),
    }
  }

  /** Keeps this branch: its file changes into its parent's folder, its siblings archived (by default). */
  keep(options: Own<'session.keep'> = {}): Promise<SessionKeepResult> {
    return this.#api.call('session.keep', { sessionId: this.id, ...options })
  }

  /** Where this session and `other` part, their events since, and how their files differ. */
  compare(other: TangentSession | string): Promise<SessionCompareResult> {
    return this.#api.call('session.compare', { a: this.id, b: idOf(other) })
  }

  /** The file snapshots of its turns (what `restore` can go back to). */
  snapshots(): Promise<SnapshotListResult> {
    return this.#api.call('snapshot.list', { sessionId: this.id })
  }

  /** Writes its folder's files back as they were at `seq` (`files-conflict` unless `force` when they changed). */
  restore(options: Own<'snapshot.restore'>): Promise<SnapshotRestoreResult> {
    return this.#api.call('snapshot.restore', { sessionId: this.id, ...options })
  }

  /** Undoes a restore (by default the latest one not undone yet). */
  undoRestore(options: Own<'snapshot.undoRestore'> = {}): Promise<SnapshotRestoreResult> {
    return this.#api.call('snapshot.undoRestore', { sessionId: this.id, ...options })
  }

  rename(title: string): Promise<SessionSummary> {
    return this.#api.call('session.rename', { sessionId: this.id, title })
  }

  /** The model of its next turns (`provider:model`, e.g. `demo:scripted`). */
  setModel(model: string, reasoningEffort?: string): Promise<SessionSummary> {
    return this.#api.call('session.setModel', {
      sessionId: this.id,
      model,
      ...(reasoningEffort !== undefined ? { reasoningEffort } : {}),
    })
  }

  /** How much the agent may do unasked: `ask`, `edit` or `plan` (docs/architecture.md §12.1). */
  setMode(mode: SessionModeId): Promise<SessionSummary> {
    return this.#api.call('session.setMode', { sessionId: this.id, mode })
  }
}

export function idOf(session: TangentSession | string): string {
  return typeof session === 'string' ? session : session.id
}
