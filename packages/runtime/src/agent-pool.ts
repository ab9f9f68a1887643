// The live agents of a runtime, one per session, created lazily (on the first prompt or
// model change) so sessions that are only read or forked never start one.
import type { Agent, AgentDelta, CompactResult, PromptResult } from '@tangent/agent'
import type { PromptImage, Session } from '@tangent/core'

/** Makes the live agent of a session. */
export type AgentFactory = (session: Session) => Agent

interface LiveAgent {
  session: Session
  agent: Agent
  stopDeltas: () => void
}

export class AgentPool {
  readonly #agents = new Map<string, LiveAgent>()
  readonly #turns = new Set<Promise<unknown>>()
  readonly #createAgent: AgentFactory
  readonly #onDelta: (sessionId: string, delta: AgentDelta) => void

  constructor(createAgent: AgentFactory, onDelta: (sessionId: string, delta: AgentDelta) => void) {
    this.#createAgent = createAgent
    this.#onDelta = onDelta
  }

  get(sessionId: string): Agent | undefined {
    return this.#agents.get(sessionId)?.agent
  }

  /** The session's agent, made on first use (again if the store now holds a newer Session object). */
  obtain(session: Session): Agent {
    const existing = this.#agents.get(session.id)
    if (existing && (existing.session === session || existing.agent.running)) return existing.agent
    existing?.stopDeltas()
    const agent = this.#createAgent(session)
    const stopDeltas = agent.onDelta((delta) => this.#onDelta(session.id, delta))
    this.#agents.set(session.id, { session, agent, stopDeltas })
    return agent
  }

  /** Runs one turn through the session's agent; `settled()` waits for it. */
  prompt(session: Session, text: string, images: readonly PromptImage[] = []): Promise<PromptResult> {
    return this.#track(this.obtain(session).prompt(text, images))
  }

  /** Compacts the session's history through its agent; `settled()` waits for it too. */
  compact(session: Session): Promise<CompactResult> {
    return this.#track(this.obtain(session).compact())
  }

  #track<T>(work: Promise<T>): Promise<T> {
    const tracked = work.then(
      () => undefined,
      () => undefined,
    )
    this.#turns.add(tracked)
    void tracked.then(() => this.#turns.delete(tracked))
    return work
  }

  /** Resolves when every turn and compaction started through this pool has ended. */
  async settled(): Promise<void> {
    while (this.#turns.size > 0) await Promise.all([...this.#turns])
  }

  /** Aborts a running turn and forgets the agent (session deleted, Host closing). */
  remove(sessionId: string): void {
    const live = this.#agents.get(sessionId)
    if (!live) return
    live.agent.abort()
    live.stopDeltas()
    this.#agents.delete(sessionId)
  }

  /** Aborts every running turn; their prompts settle with reason `aborted` (`interrupted` when the Host stops). */
  abortAll(options: { interrupted?: boolean } = {}): void {
    for (const live of this.#agents.values()) live.agent.abort(options)
  }
}
