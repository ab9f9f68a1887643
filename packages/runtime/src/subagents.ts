// Subagents as forks (docs/architecture.md §14.1): the `task` tool of a running session forks it
// through its last completed turn — the one place a fork trims, because the parent's turn is
// still open — runs the child's turn through the runtime's agents and answers with its final
// text. Depth and per-turn limits refuse with an error the model reads.
import type { PromptResult, TaskAnswer, TaskDelegate } from '@tangent/agent'
import { type Session, TangentError } from '@tangent/core'
import type { FileMode } from '@tangent/protocol'
import { headerMetaOf, type SessionHeaderMeta } from './header-meta.js'

export interface SubagentLimits {
  /** How deep subagents may nest: 1 lets a user session delegate, not its children (default 2). */
  maxDepth: number
  /** Subagents one turn of one session may spawn (default 4). */
  maxPerTurn: number
}

export interface SubagentHost {
  load(sessionId: string): Promise<Session>
  /** Forks `sessionId` through `boundary` exactly (no anchor rules) as a subagent; answers the child's id. */
  fork(params: {
    sessionId: string
    boundary: number
    files: FileMode
    title: string
    subagentOf: NonNullable<SessionHeaderMeta['subagentOf']>
  }): Promise<string>
  /** Starts the child's turn; synchronously running once the promise exists, so an abort reaches it. */
  prompt(sessionId: string, text: string): Promise<PromptResult>
  abort(sessionId: string): void
}

/** TANGENT_SUBAGENT_MAX_DEPTH and TANGENT_SUBAGENT_MAX_PER_TURN, over the defaults. */
export function subagentLimitsOf(
  env: Record<string, string | undefined>,
  given: Partial<SubagentLimits> = {},
): SubagentLimits {
  const count = (value: string | undefined, fallback: number) => {
    const parsed = Number(value)
    return value !== undefined && value.trim() !== '' && Number.isInteger(parsed) && parsed >= 0
      ? parsed
      : fallback
  }
  return {
    maxDepth: given.maxDepth ?? count(env.TANGENT_SUBAGENT_MAX_DEPTH, 2),
    maxPerTurn: given.maxPerTurn ?? count(env.TANGENT_SUBAGENT_MAX_PER_TURN, 4),
  }
}

export class Subagents {
  readonly #host: SubagentHost
  readonly #limits: SubagentLimits
  /** Per parent session: the turn (its turn/start seq) the count belongs to, and how many it spawned. */
  readonly #spawned = new Map<string, { turnStartSeq: number; count: number }>()

  constructor(host: SubagentHost, limits: SubagentLimits) {
    this.#host = host
    this.#limits = limits
  }

  /** The delegate the agent of `sessionId` gets for its `task` tool. */
  delegateFor(sessionId: string): TaskDelegate {
    return (request) => this.spawn(sessionId, request)
  }

  /** Forks the parent through its last completed turn, runs the child's turn, answers with its final text. */
  async spawn(
    parentId: string,
    request: { prompt: string; files?: FileMode; callId: string; signal: AbortSignal },
  ): Promise<TaskAnswer> {
    const parent = await this.#host.load(parentId)
    const depth = (headerMetaOf(parent.header).subagentOf?.depth ?? 0) + 1
    const { maxDepth, maxPerTurn } = this.#limits
    if (depth > maxDepth) {
      throw new TangentError(
        'tool-failed',
        `Refused: a subagent here would be nested ${depth} deep and the limit is ${maxDepth} (TANGENT_SUBAGENT_MAX_DEPTH). Do this subtask yourself.`,
        { sessionId: parentId, depth, maxDepth },
      )
    }
    // The open turn is the one delegating; the child's prefix ends just before it.
    const turnStartSeq = parent.isTurnOpen ? (parent.latestOfType('turn/start')?.seq ?? -1) : -1
    const used = this.#spawned.get(parentId)
    const count = used?.turnStartSeq === turnStartSeq ? used.count : 0
    if (count >= maxPerTurn) {
      throw new TangentError(
        'tool-failed',
        `Refused: this turn already spawned ${count} subagents, the limit (TANGENT_SUBAGENT_MAX_PER_TURN). Do the rest yourself.`,
        { sessionId: parentId, maxPerTurn },
      )
    }
    this.#spawned.set(parentId, { turnStartSeq, count: count + 1 })
    const boundary = parent.isTurnOpen ? turnStartSeq - 1 : parent.lastSeq
    const childId = await this.#host.fork({
      sessionId: parentId,
      boundary,
      files: request.files ?? 'shared',
      title: `Task: ${clip(request.prompt.replace(/\s+/g, ' ').trim(), 60)}`,
      subagentOf: { callId: request.callId, depth },
    })
    if (request.signal.aborted) {
      return { sessionId: childId, reason: 'aborted', text: '', error: 'the parent turn was aborted first' }
    }
    // Started synchronously after the check: an abort of the parent from here on reaches the child.
    const turn = this.#host.prompt(childId, request.prompt)
    const stop = () => this.#host.abort(childId)
    request.signal.addEventListener('abort', stop, { once: true })
    try {
      const result = await turn
      const child = await this.#host.load(childId)
      const ended = child.events[result.turnEndSeq]?.data as { error?: unknown } | undefined
      return {
        sessionId: childId,
        reason: result.reason,
        text: finalText(child, result),
        ...(typeof ended?.error === 'string' ? { error: ended.error } : {}),
      }
    } finally {
      request.signal.removeEventListener('abort', stop)
    }
  }
}

/** The text of the turn's last assistant message that has text. */
function finalText(session: Session, turn: PromptResult): string {
  for (let seq = turn.turnEndSeq; seq > turn.turnStartSeq; seq--) {
    const event = session.events[seq]
    if (event?.type !== 'assistant/message') continue
    const content = (event.data as { content: { type: string; text?: string }[] }).content
    const text = content
      .filter((part) => part.type === 'text')
      .map((part) => part.text ?? '')
      .join('')
    if (text.trim() !== '') return text
  }
  return ''
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
