// The Backend when no Host runs: this process opens the JSONL store (taking the
// writer lock unless read-only) and runs the agent in-process with file snapshots.
import fs from 'node:fs'
import { Agent, defaultModelId, ModelRegistry } from '@tangent/agent'
import { currentModel, resolveForkAnchor, type Session, TangentError } from '@tangent/core'
import { FileState } from '@tangent/files'
import { JsonlStore } from '@tangent/store-jsonl'
import type {
  Backend,
  CompareResult,
  DeleteResult,
  ForkRequest,
  ModelStatus,
  RestoreResult,
  SessionEvent,
  SessionSummary,
  SnapshotEntry,
  TurnObserver,
  TurnResult,
} from './backend.js'
import { commonAncestor, lineageOf } from './compare-sessions.js'
import { summaryFromCatalog, summaryFromSession } from './local-summary.js'

export interface LocalBackendOptions {
  home: string
  env: Record<string, string | undefined>
  /** Read-only commands do not take the writer lock, so they work beside another writer. */
  readOnly: boolean
}

export async function openLocalBackend(options: LocalBackendOptions): Promise<LocalBackend> {
  const jsonl = await openStore(options)
  return new LocalBackend(jsonl, options)
}

async function openStore(options: LocalBackendOptions): Promise<JsonlStore> {
  try {
    return await JsonlStore.open({ dir: options.home, readOnly: options.readOnly })
  } catch (error) {
    if (TangentError.hasCode(error, 'store-locked')) {
      const pid = typeof error.data.pid === 'number' ? `process ${error.data.pid}` : 'another process'
      const lock = typeof error.data.file === 'string' ? ` (lock ${error.data.file})` : ''
      throw new TangentError(
        'store-locked',
        `The data dir ${options.home} is locked by ${pid}${lock}: another tangent is writing it. Wait for it to finish, or run \`tangent serve\` so every command goes through one Host. If that process is gone, remove the lock file.`,
        error.data,
        { cause: error },
      )
    }
    throw error
  }
}

export class LocalBackend implements Backend {
  readonly kind = 'local' as const
  readonly #jsonl: JsonlStore
  readonly #models: ModelRegistry
  readonly #files: FileState
  readonly #agents = new Map<string, Agent>()
  readonly #defaultModel: string | undefined

  constructor(jsonl: JsonlStore, options: LocalBackendOptions) {
    this.#jsonl = jsonl
    this.#models = new ModelRegistry({ env: options.env })
    this.#files = new FileState({ home: options.home })
    this.#defaultModel = options.env.TANGENT_MODEL || undefined
  }

  async listSessions(options: { includeArchived: boolean }): Promise<SessionSummary[]> {
    const entries = await this.#jsonl.list()
    return entries
      .filter((entry) => options.includeArchived || !entry.archived)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
      .map((entry) => summaryFromCatalog(entry, this.#isRunning(entry.id)))
  }

  async getSession(sessionId: string): Promise<{ session: SessionSummary; events: SessionEvent[] }> {
    const session = await this.#load(sessionId)
    return { session: await this.#summary(session), events: [...session.events] }
  }

  async createSession(options: { cwd: string; title?: string | undefined; model?: string | undefined }) {
    // Like the Host: a real path, the model recorded from the start, validated before anything is written.
    const selection = this.#checkModel(options.model ?? this.#defaultModel ?? defaultModelId)
    const cwd = fs.realpathSync(options.cwd)
    const session = this.#jsonl.store.create(undefined, { meta: { cwd } })
    session.append('model/selection', selection)
    if (options.title) session.append('session/title', { title: options.title })
    await this.#jsonl.flush(session.id)
    return this.#summary(session)
  }

  async prompt(sessionId: string, text: string, observer: TurnObserver): Promise<TurnResult> {
    const agent = await this.#agent(sessionId)
    const offEvent = this.#jsonl.store.on('appended', (session, event) => {
      if (session.id === sessionId) observer.onEvent(event)
    })
    const offDelta = agent.onDelta((delta) => observer.onDelta(delta))
    try {
      return await agent.prompt(text)
    } finally {
      offEvent()
      offDelta()
      await this.#jsonl.flush(sessionId)
    }
  }

  async abort(sessionId: string): Promise<boolean> {
    return this.#agents.get(sessionId)?.abort() ?? false
  }

  async fork(request: ForkRequest): Promise<{ session: SessionSummary; boundary: number }> {
    const source = await this.#load(request.sessionId)
    const boundary = resolveForkAnchor(source.events, { atSeq: request.atSeq, before: request.before })
    const childId = this.#jsonl.store.newId()
    // The source's own base tree holds only when the cut keeps all it inherited.
    const inheritsWholePrefix = boundary >= source.inheritedEventCount - 1
    const baseTree =
      this.#files.treeAt(source.events, boundary) ?? (inheritsWholePrefix ? baseTreeOf(source) : null)
    let files = { mode: 'shared', path: source.header.cwd }
    if (request.files === 'worktree') {
      const worktree = await this.#files.createWorktree({
        cwd: source.header.cwd,
        tree: baseTree,
        sessionId: childId,
      })
      files = { mode: 'worktree', path: worktree.path }
    }
    let child: Session
    try {
      child = this.#jsonl.store.fork(source, boundary, childId, {
        meta: {
          cwd: files.path,
          files,
          baseTree,
          ...(typeof source.header.workspaceId === 'string'
            ? { workspaceId: source.header.workspaceId }
            : {}),
        },
      })
    } catch (error) {
      if (files.mode === 'worktree') await this.#files.removeWorktree(files.path, { force: true })
      throw error
    }
    // The child runs with the source's latest model, even one chosen after the fork point.
    const latest = currentModel(source.events)
    const inherited = currentModel(child.events)
    if (latest !== null && JSON.stringify(latest) !== JSON.stringify(inherited)) {
      child.append('model/selection', latest)
    }
    if (request.title) child.append('session/title', { title: request.title })
    await this.#jsonl.flush(child.id)
    return { session: await this.#summary(child), boundary }
  }

  async rename(sessionId: string, title: string): Promise<SessionSummary> {
    const session = await this.#load(sessionId)
    if (session.isTurnOpen) {
      throw new TangentError(
        'session-busy',
        `Session ${sessionId} is running a turn: rename it when the turn ends.`,
        {
          sessionId,
        },
      )
    }
    session.append('session/title', { title })
    await this.#jsonl.flush(sessionId)
    return this.#summary(session)
  }

  async setArchived(sessionId: string, archived: boolean): Promise<SessionSummary> {
    await this.#requireKnown(sessionId)
    const entry = await this.#jsonl.setArchived(sessionId, archived)
    return summaryFromCatalog(entry, this.#isRunning(sessionId))
  }

  async delete(sessionId: string): Promise<DeleteResult> {
    const session = await this.#load(sessionId)
    const files = session.header.files as { mode?: unknown; path?: unknown } | undefined
    const { materialized } = await this.#jsonl.delete(sessionId)
    this.#agents.delete(sessionId)
    if (files?.mode !== 'worktree' || typeof files.path !== 'string') return { deleted: true, materialized }
    // Like the Host: a clean worktree goes with its session; one with uncommitted work stays.
    const removal = await this.#files.removeWorktree(files.path)
    return {
      deleted: true,
      materialized,
      worktree: {
        path: files.path,
        removed: removal.removed,
        ...(removal.reason ? { reason: removal.reason } : {}),
      },
    }
  }

  async setModel(sessionId: string, model: string, reasoningEffort?: string): Promise<SessionSummary> {
    const agent = await this.#agent(sessionId)
    agent.setModel(model, reasoningEffort)
    await this.#jsonl.flush(sessionId)
    return this.#summary(agent.session)
  }

  async models(): Promise<ModelStatus[]> {
    return this.#models.list()
  }

  async compare(a: string, b: string): Promise<CompareResult> {
    const [left, right] = [await this.#load(a), await this.#load(b)]
    const source = {
      parentOf: async (id: string) => {
        const entry = await this.#jsonl.get(id)
        return { parentSession: entry?.parentSession ?? null, forkedAt: entry?.forkedAt ?? null }
      },
    }
    const { ancestor, forkSeq } = commonAncestor(await lineageOf(a, source), await lineageOf(b, source))
    const after = (session: Session) => session.events.filter((event) => event.seq > (forkSeq ?? -1))
    const files = await this.#files.diffTrees(this.#latestTree(left), this.#latestTree(right))
    return { ancestor, forkSeq, a: { events: after(left) }, b: { events: after(right) }, files }
  }

  async snapshots(sessionId: string): Promise<SnapshotEntry[]> {
    const session = await this.#load(sessionId)
    return this.#files.timeline({ events: session.events, inheritedEventCount: session.inheritedEventCount })
  }

  async restore(sessionId: string, seq: number, force: boolean): Promise<RestoreResult> {
    const session = await this.#load(sessionId)
    return this.#files.restore({
      cwd: session.header.cwd,
      events: session.events,
      inheritedEventCount: session.inheritedEventCount,
      baseTree: baseTreeOf(session),
      toSeq: seq,
      force,
    })
  }

  async close(): Promise<void> {
    for (const agent of this.#agents.values()) agent.abort()
    await this.#jsonl.close()
  }

  #latestTree(session: Session): string | null {
    return this.#files.treeAt(session.events, session.events.length - 1, baseTreeOf(session))
  }

  #checkModel(id: string): { provider: string; model: string } {
    const parsed = ModelRegistry.parse(id)
    this.#models.resolve(id)
    return parsed
  }

  async #agent(sessionId: string): Promise<Agent> {
    const known = this.#agents.get(sessionId)
    if (known !== undefined) return known
    const session = await this.#load(sessionId)
    const agent = new Agent({
      session,
      flush: () => this.#jsonl.flush(sessionId),
      models: this.#models,
      ...(this.#defaultModel ? { defaultModel: this.#defaultModel } : {}),
      snapshot: (live) => this.#files.snapshot(live.header.cwd),
    })
    this.#agents.set(sessionId, agent)
    return agent
  }

  #isRunning(sessionId: string): boolean {
    return this.#agents.get(sessionId)?.running ?? false
  }

  async #load(sessionId: string): Promise<Session> {
    await this.#requireKnown(sessionId)
    return this.#jsonl.load(sessionId)
  }

  async #requireKnown(sessionId: string): Promise<void> {
    if ((await this.#jsonl.get(sessionId)) === undefined) {
      throw new TangentError(
        'session-not-found',
        `No session ${sessionId} in ${this.#jsonl.dir}. See \`tangent sessions --all\` for the ids.`,
        { sessionId },
      )
    }
  }

  async #summary(session: Session): Promise<SessionSummary> {
    return summaryFromSession(session, await this.#jsonl.get(session.id), this.#isRunning(session.id))
  }
}

/** The file tree a session started from (its fork point's), recorded in its header. */
function baseTreeOf(session: Session): string | null {
  return typeof session.header.baseTree === 'string' ? session.header.baseTree : null
}
