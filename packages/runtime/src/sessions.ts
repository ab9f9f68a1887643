// Sessions and their lineage (docs/architecture.md §1, §3, §7): loading one (live, else from the
// store), summaries, the listing, a page of a session's events with its usage, ids by unique
// prefix, comparing two sessions from their common ancestor; and the writes that name a session:
// create, rename, mode, archive.
import type { ModelRegistry } from '@tangent/agent/light'
import { type ModelSelectionData, type Session, type SessionPersistence, TangentError } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type {
  SessionCompareParams,
  SessionCompareResult,
  SessionCreateParams,
  SessionGetResult,
  SessionListParams,
  SessionSetModeParams,
  SessionSummary,
} from '@tangent/protocol'
import { latestTree, sessionNotFound } from './fork-point.js'
import { headerMetaFields } from './header-meta.js'
import { commonAncestor, lineageOf, type ParentOf } from './lineage.js'
import type { RuntimeEmitter } from './runtime-events.js'
import { byAge } from './runtime-support.js'
import type { SessionBusy } from './session-busy.js'
import type { SessionHooks } from './session-hooks.js'
import { resolveSessionIdPrefix } from './session-id-prefix.js'
import { toSessionSummary } from './session-summary.js'
import { compareUsageOf, modelFactsWith, sessionUsageOf } from './session-usage.js'
import { assertStartFolder } from './start-folder.js'
import type { WorkspaceFolders } from './workspace-folders.js'
import type { WorkspaceRegistry } from './workspaces.js'
import type { WriteAccess } from './write-access.js'

/** A session and a range of its events: [fromSeq, beforeSeq), then its last `last` (docs/protocol.md). */
export interface SessionPage {
  sessionId: string
  fromSeq?: number | undefined
  beforeSeq?: number | undefined
  last?: number | undefined
  /** False: no `usage`, and a session only on disk is read for the range alone where its store can. */
  usage?: boolean | undefined
}

export interface SessionsDeps {
  /** Its `sessionStart` hooks run once a new session is durable (§12.7). */
  hooks: SessionHooks
  store: SessionPersistence
  access: WriteAccess
  busy: SessionBusy
  emitter: RuntimeEmitter
  registry: WorkspaceRegistry
  folders: WorkspaceFolders
  models: ModelRegistry
  /** The model of new sessions and of logs without a selection. */
  defaultModel: string
  /** The cwd of sessions made without one. */
  startFolder: string
  /** This machine's name, recorded in a session made on a shared store. */
  machine: string
  fileState(): Promise<FileState>
}

export class Sessions {
  readonly #deps: SessionsDeps
  readonly #store: SessionPersistence
  /**
   * session.get's usage per session, for the log length (and default model) it was summed at: a
   * log only grows, so a page of a long session does not walk its whole history again.
   */
  readonly #usageCache = new WeakMap<
    Session,
    { count: number; defaultModel: string; usage: SessionGetResult['usage'] }
  >()

  constructor(deps: SessionsDeps) {
    this.#deps = deps
    this.#store = deps.store
  }

  /** The default model and the model facts usage figures are priced with (docs/architecture.md §12.5). */
  get usageOptions() {
    return { defaultModel: this.#deps.defaultModel, facts: modelFactsWith(this.#deps.models) }
  }

  async load(sessionId: string): Promise<Session> {
    const live = this.#store.store.get(sessionId)
    if (live) return live
    try {
      return await this.#store.load(sessionId)
    } catch (error) {
      if (TangentError.hasCode(error, 'session-not-found')) throw sessionNotFound(sessionId)
      throw error
    }
  }

  summaryOf(entry: Parameters<typeof toSessionSummary>[0], live: Session | undefined): SessionSummary {
    return toSessionSummary(entry, live, {
      workspaceOf: this.#deps.folders.workspaceOf,
      ...(this.#store.shared ? { machine: this.#deps.machine } : {}),
    })
  }

  async summary(sessionId: string): Promise<SessionSummary> {
    const entry = await this.#store.get(sessionId)
    const live = this.#store.store.get(sessionId)
    if (!entry && !live) throw sessionNotFound(sessionId)
    return this.summaryOf(entry, live)
  }

  /** A session's parent and fork point: from the live header, else the catalog. */
  readonly parentOf: ParentOf = async (id: string) => {
    const header = this.#store.store.get(id)?.header
    if (header) return { parentSession: header.parentSession ?? null, forkedAt: header.forkedAt ?? null }
    const entry = await this.#store.get(id)
    return entry ? { parentSession: entry.parentSession, forkedAt: entry.forkedAt } : undefined
  }

  /**
   * A model the registry can name (`provider:model` of a known provider, `demo:scripted` of the
   * demo one), else `invalid-model`; unavailable is fine: that is checked at prompt.
   */
  validateModel(id: string): ModelSelectionData {
    return this.#deps.models.validate(id)
  }

  // --- reading -------------------------------------------------------------------------

  async list(params: SessionListParams = {}): Promise<SessionSummary[]> {
    if (params.workspaceId !== undefined) this.#deps.registry.get(params.workspaceId)
    // Already in listing order (oldest first, then id): one pass, no re-sort.
    const entries = await this.#store.listView()
    const live = this.#store.store
    const summaries: SessionSummary[] = []
    const wanted = (summary: SessionSummary) =>
      (params.includeArchived === true || !summary.archived) &&
      (params.workspaceId === undefined || summary.workspaceId === params.workspaceId)
    for (const entry of entries) {
      // An archived entry's summary is archived: not built when it would be left out.
      if (entry.archived && params.includeArchived !== true) continue
      const summary = this.summaryOf(entry, live.get(entry.id))
      if (wanted(summary)) summaries.push(summary)
    }
    // A session created a moment ago may not have reached the catalog yet.
    let added = false
    const sessions = [...live.sessions()]
    const listed = sessions.length > 0 ? new Set(entries.map((entry) => entry.id)) : null
    for (const session of sessions) {
      if (listed?.has(session.id)) continue
      const summary = this.summaryOf(undefined, session)
      if (wanted(summary)) {
        summaries.push(summary)
        added = true
      }
    }
    return added ? summaries.sort(byAge) : summaries
  }

  async get(params: SessionPage): Promise<SessionGetResult> {
    if (params.usage === false) {
      const range = await this.#rangeFromStore(params)
      if (range) return range
    }
    const session = await this.load(params.sessionId)
    const entry = await this.#store.get(params.sessionId)
    // Synchronous from here: the summary, the events and the usage describe the same moment.
    // While its log cannot be written (a full disk) only the durable events are served.
    const servable = this.#store.servableEventCount(session)
    // The range [fromSeq, beforeSeq) of the servable events, then its last `last` (docs/protocol.md).
    const end = Math.min(params.beforeSeq ?? servable, servable)
    const from = Math.max(params.fromSeq ?? 0, params.last === undefined ? 0 : end - params.last)
    const events = session.events.slice(from, Math.max(from, end))
    if (params.usage === false) return { session: this.summaryOf(entry, session), events }
    return { session: this.summaryOf(entry, session), events, usage: this.#usageOf(session) }
  }

  /**
   * session.get without usage of a session that is not live: its summary from the store's index
   * and the range read by the store alone (a 100 MB log's tail costs what a small one's does:
   * `tangent sessions` reads every listed session's tail). Undefined: load it (no index entry, a
   * store that cannot, a range the store would not answer as a load would, or the session became
   * live meanwhile).
   */
  async #rangeFromStore(params: SessionPage): Promise<SessionGetResult | undefined> {
    const store = this.#store
    if (store.readEventRange === undefined || store.store.get(params.sessionId)) return undefined
    const entry = await store.get(params.sessionId)
    if (!entry || entry.parentLoop !== undefined) return undefined
    const end = Math.min(params.beforeSeq ?? entry.eventCount, entry.eventCount)
    const from = Math.max(params.fromSeq ?? 0, params.last === undefined ? 0 : end - params.last)
    const events =
      from >= end
        ? []
        : await store.readEventRange(params.sessionId, {
            fromSeq: from,
            beforeSeq: end,
            eventCount: entry.eventCount,
          })
    // Loaded while the log was read: the live session is the truth now (it may have grown).
    if (events === null || store.store.get(params.sessionId)) return undefined
    return { session: this.summaryOf(entry, undefined), events }
  }

  #usageOf(session: Session): SessionGetResult['usage'] {
    const cached = this.#usageCache.get(session)
    const defaultModel = this.#deps.defaultModel
    if (cached && cached.count === session.events.length && cached.defaultModel === defaultModel)
      return cached.usage
    const usage = sessionUsageOf(session, this.usageOptions)
    this.#usageCache.set(session, { count: session.events.length, defaultModel, usage })
    return usage
  }

  /** The full id of a session named by its id or a unique prefix (session-id-prefix.ts); archived ones too. */
  async resolve(params: { id: string }): Promise<{ sessionId: string }> {
    const live = this.#store.store.get(params.id)
    if (live) return { sessionId: live.id }
    // Ids and titles only: the catalog's entries (archived ones too) and sessions only in memory.
    const candidates = new Map<string, { id: string; title: string }>()
    for (const entry of await this.#store.listView())
      candidates.set(entry.id, { id: entry.id, title: entry.title ?? '' })
    for (const session of this.#store.store.sessions())
      candidates.set(session.id, { id: session.id, title: session.title ?? '' })
    return { sessionId: resolveSessionIdPrefix(params.id, candidates.values()) }
  }

  async compare(params: SessionCompareParams): Promise<SessionCompareResult> {
    const a = await this.load(params.a)
    const b = await this.load(params.b)
    const { ancestor, forkSeq } = commonAncestor(
      await lineageOf(a.id, this.parentOf),
      await lineageOf(b.id, this.parentOf),
      {
        a: a.lastSeq,
        b: b.lastSeq,
      },
    )
    const from = (forkSeq ?? -1) + 1
    const files = await (await this.#deps.fileState()).diffTrees(latestTree(a), latestTree(b))
    return {
      ancestor,
      forkSeq,
      a: { events: a.events.slice(from), usage: compareUsageOf(a, this.usageOptions, forkSeq) },
      b: { events: b.events.slice(from), usage: compareUsageOf(b, this.usageOptions, forkSeq) },
      files,
    }
  }

  // --- writing -------------------------------------------------------------------------

  async create(params: SessionCreateParams = {}): Promise<SessionSummary> {
    const { access, folders, registry } = this.#deps
    access.assertWritable('create a session')
    const workspace = params.workspaceId !== undefined ? registry.get(params.workspaceId) : undefined
    let cwd: string
    if (params.cwd !== undefined) cwd = await folders.real(params.cwd)
    else if (workspace) cwd = workspace.path
    else {
      assertStartFolder(this.#deps.startFolder)
      cwd = this.#deps.startFolder
    }
    folders.assertOutsideData(cwd)
    const model = this.validateModel(params.model ?? this.#deps.defaultModel)
    const workspaceId = workspace?.id ?? registry.workspaceOf(cwd, undefined) ?? undefined
    const id = this.#store.store.newId()
    await access.claimed(id, async () => {
      const session = this.#store.store.create(id, {
        meta: {
          cwd,
          ...headerMetaFields({
            ...(workspaceId !== undefined ? { workspaceId } : {}),
            ...(this.#store.shared ? { machine: this.#deps.machine } : {}),
          }),
        },
      })
      session.append('model/selection', model)
      if (params.title !== undefined) session.append('session/title', { title: params.title })
      await this.#store.flush(session.id)
    })
    await this.#deps.hooks.fire(
      'sessionStart',
      { sessionId: id, cwd },
      {
        model: `${model.provider}:${model.model}`,
        ...(params.title !== undefined ? { title: params.title } : {}),
      },
    )
    return this.summary(id)
  }

  async rename(params: { sessionId: string; title: string }): Promise<SessionSummary> {
    const { access, busy } = this.#deps
    access.assertWritable('rename a session')
    const session = await this.load(params.sessionId)
    const takeover = access.takeOverAbandoned(session)
    if (takeover) await takeover
    busy.assertIdle(session, 'rename it')
    await access.claimed(session.id, async () => {
      busy.assertIdle(session, 'rename it')
      session.append('session/title', { title: params.title })
      await this.#store.flush(session.id)
    })
    return this.summary(session.id)
  }

  /**
   * Sets the session's mode (docs/architecture.md §12.1). Allowed while a turn runs: the permission
   * policy reads the mode at each tool call, so the change counts from the turn's next call.
   */
  async setMode(params: SessionSetModeParams): Promise<SessionSummary> {
    const { access } = this.#deps
    access.assertWritable('change the mode of a session')
    const session = await this.load(params.sessionId)
    const takeover = access.takeOverAbandoned(session)
    if (takeover) await takeover
    await access.claimed(session.id, async () => {
      const live = this.#store.store.get(session.id) ?? session
      if (live.mode === params.mode) return
      live.append('session/mode', { mode: params.mode })
      await this.#store.flush(session.id)
    })
    return this.summary(session.id)
  }

  async setArchived(params: { sessionId: string; archived: boolean }): Promise<SessionSummary> {
    this.#deps.access.assertWritable('archive a session')
    await this.summary(params.sessionId)
    await this.#store.setArchived(params.sessionId, params.archived)
    const summary = await this.summary(params.sessionId)
    this.#deps.emitter.emit('session-updated', summary)
    return summary
  }
}
