// Turns (docs/architecture.md §6, §7): a prompt — and a branch's check after it (§13.2) — a
// subagent's turn (§14.1), abort, the answer to a permission request (§12.1), the model, and
// compaction (§12.4), each through the session's live agent under its busy rules and claim.
import type { PromptResult } from '@tangent/agent'
import { permissionNotPending } from '@tangent/agent/light'
import { type PromptImage, type Session, type SessionPersistence, turnAnswerText } from '@tangent/core'
import type {
  SessionCompactParams,
  SessionCompactResult,
  SessionPromptResult,
  SessionSetModelParams,
  SessionSummary,
} from '@tangent/protocol'
import type { AgentPool } from './agent-pool.js'
import type { AgentModule } from './agents.js'
import { runCheck } from './check.js'
import { sessionNotFound } from './fork-point.js'
import { headerMetaOf } from './header-meta.js'
import type { SessionBusy } from './session-busy.js'
import type { SessionHooks } from './session-hooks.js'
import type { WriteAccess } from './write-access.js'

export interface TurnsDeps {
  /** Its `turnEnd` hooks run after each prompt's turn, before the prompt answers (§12.7). */
  hooks: SessionHooks
  store: SessionPersistence
  access: WriteAccess
  busy: SessionBusy
  agents: AgentPool
  agentModule: AgentModule
  load(sessionId: string): Promise<Session>
  summary(sessionId: string): Promise<SessionSummary>
  /** How long a branch's check may run (TANGENT_CHECK_TIMEOUT_MS, default 10 minutes). */
  checkTimeoutMs: number
}

/** The answer to a tool call waiting for approval (docs/architecture.md §12.1). */
export interface PermissionAnswer {
  sessionId: string
  callId: string
  decision: 'once' | 'always' | 'deny'
  reason?: string | undefined
  by?: 'user' | 'flag' | 'no-terminal' | undefined
}

export class Turns {
  readonly #deps: TurnsDeps
  readonly #store: SessionPersistence
  readonly #access: WriteAccess
  readonly #busy: SessionBusy
  readonly #agents: AgentPool

  constructor(deps: TurnsDeps) {
    this.#deps = deps
    this.#store = deps.store
    this.#access = deps.access
    this.#busy = deps.busy
    this.#agents = deps.agents
  }

  /**
   * Runs one turn; resolves when it ends (aborted and error included). Its images are checked,
   * and refused for a model that does not take them, before anything is logged (Agent.prompt).
   */
  async prompt(params: {
    sessionId: string
    text: string
    images?: readonly PromptImage[] | undefined
  }): Promise<SessionPromptResult> {
    this.#access.assertWritable('run a turn')
    await this.#deps.agentModule.load()
    const session = await this.#deps.load(params.sessionId)
    this.#access.assertOnThisMachine(session, 'run a turn in it')
    const takeover = this.#access.takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'send another prompt')
    const check = headerMetaOf(session.header).exploration?.check
    // Synchronous from the check to the turn's first append: two prompts cannot both start.
    const turn = this.#access
      .claimedTurn(session, 'send another prompt', () =>
        this.#agents.prompt(session, params.text, params.images ?? []),
      )
      .then(async (result) => {
        await this.#turnEndHooks(session, result)
        return result
      })
    if (check === undefined) return turn
    // A branch with a check stays busy until its check is recorded (docs/architecture.md §13.2).
    return this.#busy.exclusively(session, `running its check \`${check}\``, async () => {
      const result = await turn
      if (result.reason === 'aborted' || result.reason === 'interrupted') return result
      const ran = await runCheck(check, session.header.cwd, {
        timeoutMs: this.#deps.checkTimeoutMs,
        afterSeq: result.turnEndSeq,
      })
      await this.#access.claimed(session.id, async () => {
        const live = this.#store.store.get(session.id) ?? session
        live.append('check/ran', ran)
        await this.#store.flush(session.id)
      })
      return result
    })
  }

  /** The `turnEnd` hooks of a turn that ended: how, where in the log, and its last text. */
  async #turnEndHooks(session: Session, result: PromptResult): Promise<void> {
    const live = this.#store.store.get(session.id) ?? session
    await this.#deps.hooks.fire(
      'turnEnd',
      { sessionId: session.id, cwd: live.header.cwd },
      {
        turnStartSeq: result.turnStartSeq,
        turnEndSeq: result.turnEndSeq,
        reason: result.reason,
        text: turnAnswerText(live.events.slice(result.turnStartSeq, result.turnEndSeq + 1)),
      },
    )
  }

  /** Runs a subagent's turn in its (just forked) session: the `task` tool's delegate (§14.1). */
  async promptSubagent(sessionId: string, text: string): Promise<PromptResult> {
    this.#access.assertWritable('run a subagent')
    await this.#deps.agentModule.load()
    const child = this.#store.store.get(sessionId)
    if (!child) throw sessionNotFound(sessionId)
    this.#busy.assertIdle(child, 'run a subagent')
    return this.#access.claimedTurn(child, 'run a subagent', () => this.#agents.prompt(child, text))
  }

  /** Answers a tool call waiting for approval; `permission-not-pending` when none of that id waits. */
  async answerPermission(params: PermissionAnswer): Promise<{ answered: true }> {
    this.#access.assertWritable('answer a permission request')
    const agent = this.#agents.get(params.sessionId)
    if (!agent?.running) {
      await this.#deps.summary(params.sessionId)
      throw permissionNotPending(params.sessionId, params.callId)
    }
    agent.answerPermission(params.callId, {
      decision: params.decision,
      ...(params.reason ? { reason: params.reason } : {}),
      ...(params.by ? { by: params.by } : {}),
    })
    return { answered: true }
  }

  async abort(params: { sessionId: string }): Promise<{ aborted: boolean }> {
    const agent = this.#agents.get(params.sessionId)
    if (agent) return { aborted: agent.abort() }
    await this.#deps.summary(params.sessionId)
    return { aborted: false }
  }

  async setModel(params: SessionSetModelParams): Promise<SessionSummary> {
    this.#access.assertWritable('change the model')
    await this.#deps.agentModule.load()
    const session = await this.#deps.load(params.sessionId)
    const takeover = this.#access.takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'change its model')
    await this.#access.claimed(session.id, async () => {
      this.#busy.assertIdle(session, 'change its model')
      this.#agents.obtain(session).setModel(params.model, params.reasoningEffort)
      await this.#store.flush(session.id)
    })
    return this.#deps.summary(session.id)
  }

  /**
   * Summarises the history between turns into a `context/compacted` event (docs/architecture.md
   * §12.4). The session is busy meanwhile; abort() stops it and nothing is recorded.
   */
  async compact(params: SessionCompactParams): Promise<SessionCompactResult> {
    this.#access.assertWritable('compact a session')
    await this.#deps.agentModule.load()
    const session = await this.#deps.load(params.sessionId)
    const takeover = this.#access.takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'compact it')
    const result = await this.#busy.exclusively(session, 'compacting its history', () =>
      this.#access.claimed(session.id, () => this.#agents.compact(session)),
    )
    const { seq, throughSeq, summary, model, tokensBefore, tokensAfter } = result
    return {
      seq,
      throughSeq,
      summary,
      model,
      ...(tokensBefore !== undefined ? { tokensBefore } : {}),
      ...(tokensAfter !== undefined ? { tokensAfter } : {}),
    }
  }

  /** Sessions with a running turn. */
  running(): string[] {
    return [...this.#store.store.sessions()]
      .filter((session) => session.isTurnOpen)
      .map((session) => session.id)
  }
}
