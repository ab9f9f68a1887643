// Explore (docs/architecture.md §13.1): N branches from one fork point — one per prompt, or per
// model — each in its own worktree by default, grouped as one exploration (labels A, B, C…),
// their first turns run in parallel with a concurrency limit. Built on the runtime's fork and
// prompt, so every rule of those (anchors, busy sessions, approvals, checks) holds here too.
import type { Session } from '@tangent/core'
import type {
  SessionExploreParams,
  SessionExploreResult,
  SessionForkParams,
  SessionForkResult,
  SessionPromptResult,
  SessionSummary,
} from '@tangent/protocol'
import type { SessionHeaderMeta } from './header-meta.js'

/** What explore needs of the runtime (it is the runtime's own operations, nothing new). */
export interface ExploreRuntime {
  load(sessionId: string): Promise<Session>
  fork(params: SessionForkParams, meta: Pick<SessionHeaderMeta, 'exploration'>): Promise<SessionForkResult>
  setModel(params: { sessionId: string; model: string }): Promise<SessionSummary>
  /** Throws `invalid-model` for a model no provider has (before any branch is forked for it). */
  validateModel(id: string): void
  prompt(params: { sessionId: string; text: string }): Promise<SessionPromptResult>
  /** The session's summary now. */
  summary(sessionId: string): Promise<SessionSummary>
  /** Appends a log-only event and makes it durable. */
  record(session: Session, type: string, data: unknown): Promise<void>
  report(error: unknown): void
}

/** Branch labels, in order. */
export const branchLabels = 'ABCDEFGH'

export interface ExplorationStartedData {
  exploration: string
  boundary: number
  files: 'shared' | 'worktree'
  check?: string
  branches: { sessionId: string; label: string; prompt: string; model?: string }[]
}

export class Explorations {
  readonly #runtime: ExploreRuntime
  readonly #running = new Set<Promise<void>>()
  /** Per exploration whose branch turns run in this process: when they have all ended (checks recorded). */
  readonly #runs = new Map<string, Promise<void>>()
  /** Explorations whose branches are being made or run: a retry with the same requestId waits for the first. */
  readonly #starting = new Map<string, Promise<SessionExploreResult>>()

  constructor(runtime: ExploreRuntime) {
    this.#runtime = runtime
  }

  /** With `wait`, answers once the branches' first turns (and checks) have ended, with their summaries then. */
  explore(params: SessionExploreParams): Promise<SessionExploreResult> {
    const started = this.#start(params)
    return params.wait ? started.then((result) => this.#ended(result)) : started
  }

  async #ended(result: SessionExploreResult): Promise<SessionExploreResult> {
    await this.#runs.get(result.exploration)
    const sessions = await Promise.all(result.sessions.map((session) => this.#runtime.summary(session.id)))
    return { ...result, sessions }
  }

  #start(params: SessionExploreParams): Promise<SessionExploreResult> {
    // node:crypto on first use: importing it costs start-up that a command that only reads never needs.
    const { createHash, randomBytes } = process.getBuiltinModule('node:crypto')
    if (params.requestId === undefined) return this.#explore(params, `ex_${randomBytes(8).toString('hex')}`)
    // Idempotent like fork: the same requestId gives the same exploration and the same branches.
    const id = `ex_${createHash('sha256').update(`${params.sessionId}\0${params.requestId}`).digest('hex').slice(0, 16)}`
    const started = this.#starting.get(id)
    if (started) return started
    const promise = this.#explore(params, id)
    this.#starting.set(id, promise)
    promise.catch(() => this.#starting.delete(id))
    return promise
  }

  /** Resolves when every branch turn started by an exploration has ended (with its check). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running])
  }

  async #explore(params: SessionExploreParams, id: string): Promise<SessionExploreResult> {
    const source = await this.#runtime.load(params.sessionId)
    // A bad model name refuses the exploration whole: no branch is left behind without its turn.
    for (const branch of params.branches)
      if (branch.model !== undefined) this.#runtime.validateModel(branch.model)
    const files = params.files ?? 'worktree'
    // Explored before (a retry after a lost answer): the same branches, nothing runs twice.
    const recorded = source.events.some(
      (event) =>
        event.type === 'exploration/started' && (event.data as { exploration?: unknown }).exploration === id,
    )
    // Each branch's turn starts as soon as the branch exists: the others' worktrees are made meanwhile.
    const runner = recorded ? null : this.#runner(params.concurrency ?? 3)
    if (runner) {
      this.#runs.set(id, runner.done)
      void runner.done.finally(() => this.#runs.delete(id))
    }
    const sessions: SessionSummary[] = []
    const titles = branchTitles(params.branches, source.title || 'Session', branchLabels)
    const leftOut = new Set<string>()
    let boundary: number | undefined
    try {
      for (const [index, branch] of params.branches.entries()) {
        const label = branchLabels[index]!
        const forked = await this.#runtime.fork(
          {
            sessionId: source.id,
            // Every branch forks at the boundary the first one resolved to.
            ...(boundary === undefined
              ? {
                  ...(params.atSeq !== undefined ? { atSeq: params.atSeq } : {}),
                  ...(params.before !== undefined ? { before: params.before } : {}),
                }
              : { atSeq: boundary }),
            files,
            title: titles[index]!,
            ...(params.requestId !== undefined ? { requestId: `${params.requestId}#${label}` } : {}),
          },
          { exploration: { id, label, ...(params.check !== undefined ? { check: params.check } : {}) } },
        )
        boundary ??= forked.boundary
        for (const relative of forked.worktree?.leftOut ?? []) leftOut.add(relative)
        const session =
          branch.model !== undefined && !sameModelId(forked.session.model, branch.model)
            ? await this.#runtime.setModel({ sessionId: forked.session.id, model: branch.model })
            : forked.session
        sessions.push(session)
        runner?.add(session.id, branch.prompt)
      }
    } finally {
      runner?.close()
    }
    if (!recorded) {
      // The source's log says it was explored (once).
      const started: ExplorationStartedData = {
        exploration: id,
        boundary: boundary!,
        files,
        ...(params.check !== undefined ? { check: params.check } : {}),
        branches: sessions.map((session, index) => ({
          sessionId: session.id,
          label: branchLabels[index]!,
          prompt: params.branches[index]!.prompt,
          ...(params.branches[index]!.model !== undefined ? { model: params.branches[index]!.model } : {}),
        })),
      }
      await this.#runtime.record(source, 'exploration/started', started)
    }
    return {
      exploration: id,
      boundary: boundary!,
      sessions,
      ...(files === 'worktree' ? { leftOut: [...leftOut].sort() } : {}),
    }
  }

  /**
   * Runs branch prompts as they are added, at most `concurrency` at once; a branch that already
   * has a turn of its own (a retry after a restart) is not prompted again. Failures are
   * reported, never thrown.
   */
  #runner(concurrency: number): {
    add(sessionId: string, prompt: string): void
    close(): void
    /** Resolves when it is closed and every branch it was given has ended. */
    done: Promise<void>
  } {
    const queue: { sessionId: string; prompt: string }[] = []
    let active = 0
    let closed = false
    let finish: () => void = () => {}
    const done = new Promise<void>((resolve) => {
      finish = resolve
    })
    const pump = () => {
      while (active < concurrency && queue.length > 0) {
        const next = queue.shift()!
        active++
        void this.#runBranch(next.sessionId, next.prompt).finally(() => {
          active--
          pump()
        })
      }
      if (closed && active === 0 && queue.length === 0) finish()
    }
    this.#running.add(done)
    void done.finally(() => this.#running.delete(done))
    return {
      done,
      add: (sessionId, prompt) => {
        queue.push({ sessionId, prompt })
        pump()
      },
      close: () => {
        closed = true
        pump()
      },
    }
  }

  async #runBranch(sessionId: string, prompt: string): Promise<void> {
    try {
      const session = await this.#runtime.load(sessionId)
      const ownTurn = session.events
        .slice(session.inheritedEventCount)
        .some((event) => event.type === 'turn/start')
      if (!ownTurn) await this.#runtime.prompt({ sessionId, text: prompt })
    } catch (error) {
      this.#runtime.report(error)
    }
  }
}

function sameModelId(model: SessionSummary['model'], id: string): boolean {
  return model !== null && `${model.provider}:${model.model}` === id
}

const clipTitle = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * Each branch's title: what tells it from its siblings first, so rows cut by the sidebar's width
 * still differ (docs/protocol.md `session.explore`). Prompts that differ give their distinct
 * part (the words they do not all share at the start and end, "…" where words were left out);
 * one prompt sent to several models gives the model, then the prompt; one prompt N times gives
 * the prompt (the label tells the branches apart). Without any prompt text: `<source> · A`.
 */
export function branchTitles(
  branches: readonly { prompt: string; model?: string | undefined }[],
  sourceTitle: string,
  labels: string,
): string[] {
  const texts = branches.map((branch) => branch.prompt.replace(/\s+/g, ' ').trim())
  if (texts.every((text) => text === ''))
    return branches.map((_, index) => `${sourceTitle} · ${labels[index]}`)
  const samePrompt = texts.every((text) => text === texts[0])
  if (samePrompt) {
    const models = new Set(branches.map((branch) => branch.model ?? ''))
    return branches.map((branch) =>
      clipTitle(models.size > 1 ? `${branch.model ?? 'default model'} · ${texts[0]}` : texts[0]!),
    )
  }
  const words = texts.map((text) => text.split(' '))
  const shortest = Math.min(...words.map((list) => list.length))
  let head = 0
  while (head < shortest && words.every((list) => list[head] === words[0]![head])) head++
  let tail = 0
  while (
    tail < shortest - head &&
    words.every((list) => list[list.length - 1 - tail] === words[0]![words[0]!.length - 1 - tail])
  )
    tail++
  return words.map((list) => {
    const middle = list.slice(head, list.length - tail).join(' ')
    if (middle === '') return clipTitle(list.join(' '))
    return clipTitle(`${head > 0 ? '…' : ''}${middle}${tail > 0 ? '…' : ''}`)
  })
}
