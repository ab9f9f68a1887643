// The runtime: the one implementation of every session operation (docs/architecture.md §1,
// §7), over the store, file state, models and live agents. It alone holds the store and owns
// durability — every operation that appends flushes before it answers — and it emits the
// events front-ends turn into notifications. The Host's methods and the CLI are adapters.
import { readdirSync, realpathSync, statSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
// The agent (with the AI SDK, tools, MCP client and OS sandbox) and file state load on first use,
// so a command that only reads never imports them (docs/architecture.md §9, start-up).
import type { Agent, AgentDelta, AgentOptions, BashSandbox, TaskDelegate } from '@tangent/agent'
import {
  type BashSandboxStatus,
  defaultModelId,
  loadBashGrammar,
  ModelRegistry,
  parseSandboxMode,
  permissionNotPending,
  type SandboxMode,
  sandboxStatusOf,
  userInstructionsPath,
} from '@tangent/agent/light'
import { type ModelSelectionData, type Session, type SessionPersistence, TangentError } from '@tangent/core'
import type { FileState, RestoreResult as RestoreOutcome } from '@tangent/files'
import type {
  FilesRestoredData,
  HostInfoResult,
  SessionBoardParams,
  SessionBoardResult,
  SessionCompactParams,
  SessionCompactResult,
  SessionCompareParams,
  SessionCompareResult,
  SessionCreateParams,
  SessionDeleteParams,
  SessionDeleteResult,
  SessionExploreParams,
  SessionExploreResult,
  SessionFileAcrossParams,
  SessionFileAcrossResult,
  SessionForkParams,
  SessionForkResult,
  SessionGetResult,
  SessionKeepParams,
  SessionKeepResult,
  SessionListParams,
  SessionPromptResult,
  SessionSetModelParams,
  SessionSummary,
  SnapshotEntry,
  SnapshotRestoreParams,
  SnapshotRestoreResult,
  SnapshotUndoRestoreParams,
  SessionEvent as WireSessionEvent,
  Workspace,
  WorkspaceBrowseParams,
  WorkspaceBrowseResult,
} from '@tangent/protocol'
import { AgentPool } from './agent-pool.js'
import { type BoardSource, boardBranch, fileAcross } from './board.js'
import { runCheck } from './check.js'
import { ConfigFiles } from './config.js'
import { Explorations } from './explore.js'
import { browseFolders, realFolder } from './folders.js'
import { resolveBoundary, sameModel, sessionNotFound, skippedAt, treeAt } from './fork-point.js'
import { type ForkOutcome, ForkRequests } from './fork-requests.js'
import { headerMetaFields, headerMetaOf, type SessionHeaderMeta } from './header-meta.js'
import { assertKeepable, type BranchKeptData, summarizeBranch } from './keep.js'
import { keepDeletedWorktree, keepDestination } from './kept-worktree.js'
import { commonAncestor, lineageOf } from './lineage.js'
import { McpServers } from './mcp-servers.js'
import { filePathGuard, permissionDecider } from './permission-policy.js'
import { restoreEventOf, undoableRestore } from './restore-events.js'
import { RuntimeEmitter, type RuntimeEventMap, type RuntimeEventName } from './runtime-events.js'
import { byAge, describeRecovery, forkTitle, runtimeVersion } from './runtime-support.js'
import { SessionBusy } from './session-busy.js'
import { resolveSessionIdPrefix } from './session-id-prefix.js'
import { toSessionSummary, type WorkspaceResolver } from './session-summary.js'
import { compareUsageOf, modelFactsWith, sessionUsageOf } from './session-usage.js'
import { sessionsRunningIn } from './shared-activity.js'
import { openStoreEngine } from './store-engine.js'
import { type SubagentLimits, Subagents, subagentLimitsOf } from './subagents.js'
import { isInside, WorkspaceRegistry } from './workspaces.js'
import { WorktreeOrigins } from './worktree-origins.js'

export interface RuntimeOptions {
  /** TANGENT_HOME: sessions (JSONL engine), catalog, snapshots, workspaces.json. */
  home: string
  /**
   * Where sessions live (docs/architecture.md §4): a `postgres://` URL for the PostgreSQL engine;
   * unset or empty: JSONL under `home`. Default TANGENT_STORE of `env`.
   */
  store?: string | undefined
  /** The largest event a session log takes, as its JSON line (default 64 MiB, docs/architecture.md §4); for tests. */
  maxEventBytes?: number | undefined
  /** Environment for provider keys, TANGENT_MODEL and TANGENT_DEMO_DELAY_MS (default process.env). */
  env?: Record<string, string | undefined>
  /** Model of new sessions and of logs without a selection (default TANGENT_MODEL, else `demo:scripted`). */
  defaultModel?: string
  /** Delay between demo model deltas (default TANGENT_DEMO_DELAY_MS of `env`). */
  demoDelayMs?: number
  /** The folder the user started in: cwd of sessions made without one, base of relative folder paths. */
  startFolder?: string
  /** Open `startFolder` as a workspace (what `tangent serve` does). */
  openStartFolder?: boolean
  /** What `~` means in folder paths (default os.homedir()). */
  homeDir?: string
  /** No writer lock, no writes: for commands that only read beside another writer. */
  readOnly?: boolean
  /** Where unexpected errors are logged (default console.error). */
  report?: (error: unknown) => void
  /**
   * The OS sandbox of the bash tool (docs/architecture.md §12.2): `off`, `auto` (sandboxed where
   * the OS can) or `required` (bash refuses to run unconfined). Default TANGENT_SANDBOX of `env`,
   * else `auto`.
   */
  sandbox?: SandboxMode
  /**
   * Limits of the `task` tool's subagents (docs/architecture.md §14.1); default
   * TANGENT_SUBAGENT_MAX_DEPTH (2) and TANGENT_SUBAGENT_MAX_PER_TURN (4) of `env`.
   */
  subagents?: Partial<SubagentLimits>
  /** The agent of a session (tests, embedders); default: the standard agent with file snapshots. */
  createAgent?: (
    session: Session,
    runtime: {
      flush: () => Promise<void>
      models: ModelRegistry
      bashSandbox?: AgentOptions['bashSandbox']
      /** Runs a subagent for this session (the `task` tool's delegate). */
      delegate: TaskDelegate
      /** The MCP servers' tools (docs/architecture.md §14.3). */
      toolSource: McpServers
    },
  ) => Agent
}

interface ForkAttempt extends ForkOutcome {
  /** The source's workspace the child could not join (only on the attempt that made the child). */
  attachFailedWorkspaceId?: string
}

/** Receives one session's events (backlog first, then live, no gap, no duplicate) and deltas. */
export interface SessionListener {
  onEvent(event: WireSessionEvent): void
  onDelta?(delta: AgentDelta): void
}

/** What a `files/restored` records: a rewind, the undo of one, or the files of a kept branch. */
type RestoreKind =
  | { toSeq: number }
  | { undoOf: number }
  | { keptFrom: { sessionId: string; label?: string } }

/** Event types that change what a SessionSummary shows (status, title, model). */
const summaryEventTypes: ReadonlySet<string> = new Set([
  'turn/start',
  'turn/end',
  'session/title',
  'model/selection',
])

export class Runtime {
  readonly home: string
  readonly version: string
  readonly defaultModel: string
  readonly startFolder: string
  readonly homeDir: string
  readonly readOnly: boolean
  /**
   * This machine's name (TANGENT_MACHINE, else the host name): with a shared store, a session
   * records the machine its files live on, and only a Host there prompts it (docs/architecture.md §4).
   */
  readonly machine: string
  readonly models: ModelRegistry
  /** File state (snapshots, restores, worktrees): made by fileState() on first use. */
  #files: Promise<FileState> | null = null
  readonly #fileStateOptions: ConstructorParameters<typeof FileState>[0]
  /** The agent's module, loaded by #loadAgents() before the first agent is made. */
  #agentModule: typeof import('@tangent/agent') | null = null
  /** The user and project config files (permissions; docs/architecture.md §12.1). */
  readonly config: ConfigFiles
  /** The configured MCP servers, started on the first turn that needs their tools. */
  readonly mcp: McpServers
  readonly #store: SessionPersistence
  readonly #workspaces: WorkspaceRegistry
  readonly #agents: AgentPool
  readonly #forkRequests: ForkRequests
  readonly #explorations: Explorations
  readonly #emitter: RuntimeEmitter
  readonly #report: (error: unknown) => void
  /** Which sessions and directories are busy with an operation that must not overlap a turn. */
  readonly #busy: SessionBusy
  readonly #sandboxMode: SandboxMode
  /** Null when the mode is `off`, and until the agent's module is loaded. */
  #bashSandbox: BashSandbox | null = null
  /** The data directory with symlinks resolved, as session directories are. */
  readonly #realHome: string
  /** The project folders of worktree forks made before their header recorded one. */
  readonly #origins: WorktreeOrigins
  /** Per session, summary announcements run in order, so the last one sent is the newest. */
  readonly #announcing = new Map<string, Promise<void>>()
  readonly #sessionListeners = new Map<string, Set<SessionListener>>()
  readonly #unwire: (() => void)[] = []
  /** The default model and the model facts usage figures are priced with (docs/architecture.md §12.5). */
  get #usageOptions() {
    return { defaultModel: this.defaultModel, facts: modelFactsWith(this.models) }
  }
  /**
   * session.get's usage per session, for the log length (and default model) it was summed at: a
   * log only grows, so a page of a long session does not walk its whole history again.
   */
  readonly #usageCache = new WeakMap<
    Session,
    { count: number; defaultModel: string; usage: SessionGetResult['usage'] }
  >()
  /** How long a branch's check may run (TANGENT_CHECK_TIMEOUT_MS, default 10 minutes). */
  readonly #checkTimeoutMs: number
  #closing: Promise<void> | null = null

  private constructor(init: {
    options: RuntimeOptions
    home: string
    realHome: string
    version: string
    startFolder: string
    store: SessionPersistence
    workspaces: WorkspaceRegistry
    report: (error: unknown) => void
  }) {
    const { options, store } = init
    const env = options.env ?? process.env
    this.home = init.home
    this.#realHome = init.realHome
    this.#origins = new WorktreeOrigins(init.realHome)
    this.version = init.version
    this.startFolder = init.startFolder
    this.homeDir = options.homeDir ?? os.homedir()
    this.readOnly = options.readOnly === true
    this.machine = env.TANGENT_MACHINE?.trim() || os.hostname()
    this.defaultModel = options.defaultModel ?? (env.TANGENT_MODEL || defaultModelId)
    this.#report = init.report
    this.#store = store
    this.#busy = new SessionBusy(store.store)
    this.#workspaces = init.workspaces
    this.#emitter = new RuntimeEmitter(init.report)
    this.models = new ModelRegistry({
      env,
      ...(options.demoDelayMs !== undefined ? { demoDelayMs: options.demoDelayMs } : {}),
    })
    this.#fileStateOptions = {
      home: init.home,
      // A restore a crash interrupted is rolled back by the first operation on its directory,
      // or finished when its files/restored made it into a log.
      onRecovered: (recovered) => init.report(describeRecovery(recovered)),
      isRecorded: (journal) => this.#restoreRecorded(journal),
    }
    this.config = new ConfigFiles({ env, homeDir: this.homeDir })
    const permissions = permissionDecider(this.config, () => this.bashRunsSandboxed())
    this.mcp = new McpServers({ config: this.config, report: init.report, env })
    this.#forkRequests = ForkRequests.fromHeaders(() => store.headers())
    this.#explorations = new Explorations({
      load: (sessionId) => this.#load(sessionId),
      fork: (params, meta) => this.fork(params, meta),
      setModel: (params) => this.setModel(params),
      validateModel: (id) => {
        this.#validateModel(id)
      },
      prompt: (params) => this.prompt(params),
      record: (session, type, data) =>
        this.#claimed(session.id, async () => {
          session.append(type, data)
          await store.flush(session.id)
        }),
      report: init.report,
    })
    this.#checkTimeoutMs = Number(env.TANGENT_CHECK_TIMEOUT_MS) || 10 * 60_000
    this.#sandboxMode = options.sandbox ?? sandboxModeOf(env.TANGENT_SANDBOX, init.report)
    const mode = this.#sandboxMode
    const bashSandboxOf = () =>
      this.#bashSandbox && mode !== 'off' ? { sandbox: this.#bashSandbox, mode } : undefined
    const flushOf = (session: Session) => () => store.flush(session.id)
    const subagents = new Subagents(
      {
        load: (sessionId) => this.#load(sessionId),
        fork: async ({ sessionId, boundary, files, title, subagentOf }) =>
          (await this.#fork({ sessionId, files, title }, { subagentOf }, boundary)).childId,
        prompt: async (sessionId, text) => {
          this.#assertWritable('run a subagent')
          await this.#loadAgents()
          const child = store.store.get(sessionId)
          if (!child) throw sessionNotFound(sessionId)
          this.#busy.assertIdle(child, 'run a subagent')
          return this.#claimedTurn(child, 'run a subagent', () => this.#agents.prompt(child, text))
        },
        abort: (sessionId) => void this.#agents.get(sessionId)?.abort(),
      },
      subagentLimitsOf(env, options.subagents),
    )
    const createAgent =
      options.createAgent ??
      ((session: Session, given: Parameters<NonNullable<RuntimeOptions['createAgent']>>[1]) =>
        new (this.#loadedAgentModule().Agent)({
          session,
          ...given,
          defaultModel: this.defaultModel,
          userInstructionsPath: userInstructionsPath(env),
          snapshot: async (live) => (await this.fileState()).snapshot(live.header.cwd),
          turnStartSnapshot: async (live) =>
            (await this.fileState()).snapshotTurnStart(live.header.cwd, this.#latestTree(live)),
          permissions,
          // A session's folder may hold the data directory: no tool writes the logs (§12.2).
          protectedPaths: dataFilesOf(this.#realHome),
          checkRealPath: filePathGuard(this.config, this.#realHome),
          bashPassEnv: passEnvOf(env.TANGENT_BASH_PASS_ENV),
        }))
    this.#agents = new AgentPool(
      (session) => {
        const bashSandbox = bashSandboxOf()
        return createAgent(session, {
          flush: flushOf(session),
          delegate: subagents.delegateFor(session.id),
          models: this.models,
          toolSource: this.mcp,
          ...(bashSandbox ? { bashSandbox } : {}),
        })
      },
      (sessionId, delta) => this.#onDelta(sessionId, delta),
    )
    this.#wireStore()
  }

  /** Opens the data directory (the writer lock unless readOnly), workspaces and models. */
  static async open(options: RuntimeOptions): Promise<Runtime> {
    const home = path.resolve(options.home)
    const report =
      options.report ??
      ((error: unknown) =>
        console.error(`tangent: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`))
    if (!options.readOnly) await fs.mkdir(home, { recursive: true, mode: 0o700 })
    // Real paths everywhere, so one directory is always the same string (shared activity, workspaces).
    // Synchronous, like the store's reads: a read-only command then never loads node:fs/promises
    // (docs/architecture.md §9, start-up); each is one system call, once per runtime.
    const startFolder = startFolderOf(options)
    // The store's warnings (odd files skipped, a loop of parents, a data dir others can read) are reported.
    const store = await openStoreEngine({
      url: options.store ?? (options.env ?? process.env).TANGENT_STORE,
      env: options.env ?? process.env,
      home,
      readOnly: options.readOnly === true,
      onWarning: (warning) => report(`warning: ${warning.message}`),
      maxEventBytes: options.maxEventBytes,
    })
    try {
      const workspaces = await WorkspaceRegistry.open(home, { readOnly: options.readOnly === true })
      // A read-only command runs over a bad workspaces file (§7): said once, as a warning.
      if (workspaces.problem) report(`warning: ${workspaces.problem.message}`)
      const runtime = new Runtime({
        options,
        home,
        realHome: realHomeOf(home),
        version: runtimeVersion,
        startFolder,
        store,
        workspaces,
        report,
      })
      if (options.openStartFolder && !options.readOnly) {
        assertStartFolder(startFolder)
        await workspaces.open(startFolder)
      }
      if (!options.readOnly) {
        // Restores a crash interrupted are rolled back before anything else touches their directories.
        for (const recovered of await (await runtime.fileState()).recoverInterrupted())
          report(describeRecovery(recovered))
      }
      return runtime
    } catch (error) {
      await store.close()
      throw error
    }
  }

  on<E extends RuntimeEventName>(name: E, listener: RuntimeEventMap[E]): () => void {
    return this.#emitter.on(name, listener)
  }

  /**
   * The file state (@tangent/files: snapshots, restores, worktrees), made on first use: a command
   * that only reads sessions never loads it (docs/architecture.md §9, start-up).
   */
  fileState(): Promise<FileState> {
    this.#files ??= import('@tangent/files').then(({ FileState }) => new FileState(this.#fileStateOptions))
    return this.#files
  }

  /**
   * Loads the agent's module (the agent loop, the AI SDK, tools, the MCP client, the OS sandbox)
   * before the first agent or sandbox probe needs it; every later call returns at once.
   */
  async #loadAgents(): Promise<void> {
    if (this.#agentModule) return
    const agentModule = await import('@tangent/agent')
    if (this.#agentModule) return
    this.#agentModule = agentModule
    // The bash grammar (WASM, ~0.3–1.5 s to load) starts loading with the first agent, beside the
    // model's first call, so the first bash decision does not wait for it. The decider awaits the
    // same load and reports its failure there (it asks, with the reason): nothing is lost here.
    loadBashGrammar().catch(() => undefined)
    if (this.#sandboxMode !== 'off' && !this.#closing)
      this.#bashSandbox = new agentModule.BashSandbox({ dataDirectory: this.#realHome })
  }

  #loadedAgentModule(): typeof import('@tangent/agent') {
    if (!this.#agentModule) throw new Error('internal: an agent was made before its module was loaded')
    return this.#agentModule
  }

  // --- host and workspaces -------------------------------------------------------------

  /**
   * How the bash tool runs here (docs/architecture.md §12.2). The first call probes the machine
   * (one sandboxed `true`); the answer is kept.
   */
  async sandboxStatus(): Promise<BashSandboxStatus> {
    if (this.#sandboxMode !== 'off') await this.#loadAgents()
    return sandboxStatusOf(this.#sandboxMode, this.#bashSandbox ? await this.#bashSandbox.probe() : null)
  }

  /** True when every bash command of this runtime runs in the OS sandbox (for approval policies). */
  async bashRunsSandboxed(): Promise<boolean> {
    return (await this.sandboxStatus()).bash === 'sandboxed'
  }

  async info(): Promise<HostInfoResult> {
    return {
      version: this.version,
      dataDir: this.home,
      defaultModel: this.defaultModel,
      models: this.models.list().map((model) => ({
        id: model.id,
        available: model.available,
        ...(model.reason !== undefined ? { reason: model.reason } : {}),
      })),
      startFolder: this.startFolder,
      homeDir: this.homeDir,
      sandbox: await this.sandboxStatus(),
    }
  }

  listWorkspaces(): Workspace[] {
    return this.#workspaces.list()
  }

  /** Opens (or reopens) the workspace of a folder: absolute, `~`, `~/…` or relative to the start folder. */
  async openWorkspace(params: { path: string }): Promise<Workspace> {
    this.#assertWritable('open a folder')
    const real = await realFolder(params.path, this.#folderBase())
    this.#assertOutsideData(real)
    const workspace = await this.#workspaces.open(real)
    // Sessions made in this folder before it was opened now belong to it, their worktree forks too.
    for (const session of this.#store.store.sessions()) {
      const { projectFolder } = headerMetaOf(session.header)
      if (this.#workspaceOf(session.header.cwd, undefined, projectFolder) === workspace.id)
        this.#announce(session.id, 'session-updated')
    }
    return workspace
  }

  browseFolders(params: WorkspaceBrowseParams): Promise<WorkspaceBrowseResult> {
    return browseFolders(params.path, {
      ...this.#folderBase(),
      ...(params.hidden !== undefined ? { hidden: params.hidden } : {}),
    })
  }

  // --- reading -------------------------------------------------------------------------

  async listSessions(params: SessionListParams = {}): Promise<SessionSummary[]> {
    if (params.workspaceId !== undefined) this.#workspaces.get(params.workspaceId)
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
      const summary = this.#summaryOf(entry, live.get(entry.id))
      if (wanted(summary)) summaries.push(summary)
    }
    // A session created a moment ago may not have reached the catalog yet.
    let added = false
    const sessions = [...live.sessions()]
    const listed = sessions.length > 0 ? new Set(entries.map((entry) => entry.id)) : null
    for (const session of sessions) {
      if (listed?.has(session.id)) continue
      const summary = this.#summaryOf(undefined, session)
      if (wanted(summary)) {
        summaries.push(summary)
        added = true
      }
    }
    return added ? summaries.sort(byAge) : summaries
  }

  async getSession(params: {
    sessionId: string
    fromSeq?: number | undefined
    beforeSeq?: number | undefined
    last?: number | undefined
  }): Promise<SessionGetResult> {
    const session = await this.#load(params.sessionId)
    const entry = await this.#store.get(params.sessionId)
    // Synchronous from here: the summary, the events and the usage describe the same moment.
    // While its log cannot be written (a full disk) only the durable events are served.
    const servable = this.#store.servableEventCount(session)
    // The range [fromSeq, beforeSeq) of the servable events, then its last `last` (docs/protocol.md).
    const end = Math.min(params.beforeSeq ?? servable, servable)
    const from = Math.max(params.fromSeq ?? 0, params.last === undefined ? 0 : end - params.last)
    return {
      session: this.#summaryOf(entry, session),
      events: session.events.slice(from, Math.max(from, end)),
      usage: this.#usageOf(session),
    }
  }

  #usageOf(session: Session): SessionGetResult['usage'] {
    const cached = this.#usageCache.get(session)
    const defaultModel = this.defaultModel
    if (cached && cached.count === session.events.length && cached.defaultModel === defaultModel)
      return cached.usage
    const usage = sessionUsageOf(session, this.#usageOptions)
    this.#usageCache.set(session, { count: session.events.length, defaultModel, usage })
    return usage
  }

  /** The full id of a session named by its id or a unique prefix (session-id-prefix.ts); archived ones too. */
  async resolveSession(params: { id: string }): Promise<{ sessionId: string }> {
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

  async summary(sessionId: string): Promise<SessionSummary> {
    const entry = await this.#store.get(sessionId)
    const live = this.#store.store.get(sessionId)
    if (!entry && !live) throw sessionNotFound(sessionId)
    return this.#summaryOf(entry, live)
  }

  /**
   * Sends `listener` the session's events from `fromSeq` (when given), then every later
   * one, with no gap and no duplicate, and its live deltas; returns the unsubscribe.
   */
  async subscribe(
    sessionId: string,
    options: { fromSeq?: number | undefined },
    listener: SessionListener,
  ): Promise<() => void> {
    const session = await this.#load(sessionId)
    if (options.fromSeq !== undefined && options.fromSeq > session.events.length) {
      throw new TangentError(
        'invalid-params',
        `fromSeq ${options.fromSeq} is past the end of session ${sessionId} (${session.events.length} events): subscribe from at most its length.`,
        { issues: [{ path: ['fromSeq'], message: 'past the end of the session' }], sessionId },
      )
    }
    // No await from here to the registration: nothing can be appended in between.
    if (options.fromSeq !== undefined)
      for (const event of session.events.slice(options.fromSeq)) listener.onEvent(event)
    let set = this.#sessionListeners.get(sessionId)
    if (!set) {
      set = new Set()
      this.#sessionListeners.set(sessionId, set)
    }
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.#sessionListeners.get(sessionId) === set)
        this.#sessionListeners.delete(sessionId)
    }
  }

  async compare(params: SessionCompareParams): Promise<SessionCompareResult> {
    const a = await this.#load(params.a)
    const b = await this.#load(params.b)
    const { ancestor, forkSeq } = commonAncestor(
      await lineageOf(a.id, this.#parentOf),
      await lineageOf(b.id, this.#parentOf),
      {
        a: a.lastSeq,
        b: b.lastSeq,
      },
    )
    const from = (forkSeq ?? -1) + 1
    const files = await (await this.fileState()).diffTrees(this.#latestTree(a), this.#latestTree(b))
    return {
      ancestor,
      forkSeq,
      a: { events: a.events.slice(from), usage: compareUsageOf(a, this.#usageOptions, forkSeq) },
      b: { events: b.events.slice(from), usage: compareUsageOf(b, this.#usageOptions, forkSeq) },
      files,
    }
  }

  async listSnapshots(params: { sessionId: string }): Promise<SnapshotEntry[]> {
    const session = await this.#load(params.sessionId)
    return (await this.fileState()).timeline({
      events: session.events,
      inheritedEventCount: session.inheritedEventCount,
    })
  }

  // --- writing -------------------------------------------------------------------------

  async createSession(params: SessionCreateParams = {}): Promise<SessionSummary> {
    this.#assertWritable('create a session')
    const workspace = params.workspaceId !== undefined ? this.#workspaces.get(params.workspaceId) : undefined
    let cwd: string
    if (params.cwd !== undefined) cwd = await realFolder(params.cwd, this.#folderBase())
    else if (workspace) cwd = workspace.path
    else {
      assertStartFolder(this.startFolder)
      cwd = this.startFolder
    }
    this.#assertOutsideData(cwd)
    const model = this.#validateModel(params.model ?? this.defaultModel)
    const workspaceId = workspace?.id ?? this.#workspaces.workspaceOf(cwd, undefined) ?? undefined
    const id = this.#store.store.newId()
    await this.#claimed(id, async () => {
      const session = this.#store.store.create(id, {
        meta: {
          cwd,
          ...headerMetaFields({
            ...(workspaceId !== undefined ? { workspaceId } : {}),
            ...(this.#store.shared ? { machine: this.machine } : {}),
          }),
        },
      })
      session.append('model/selection', model)
      if (params.title !== undefined) session.append('session/title', { title: params.title })
      await this.#store.flush(session.id)
    })
    return this.summary(id)
  }

  /** Runs one turn; resolves when it ends (aborted and error included). */
  async prompt(params: { sessionId: string; text: string }): Promise<SessionPromptResult> {
    this.#assertWritable('run a turn')
    await this.#loadAgents()
    const session = await this.#load(params.sessionId)
    this.#assertOnThisMachine(session, 'run a turn in it')
    const takeover = this.#takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'send another prompt')
    const check = headerMetaOf(session.header).exploration?.check
    // Synchronous from the check to the turn's first append: two prompts cannot both start.
    const turn = this.#claimedTurn(session, 'send another prompt', () =>
      this.#agents.prompt(session, params.text),
    )
    if (check === undefined) return turn
    // A branch with a check stays busy until its check is recorded (docs/architecture.md §13.2).
    return this.#busy.exclusively(session, `running its check \`${check}\``, async () => {
      const result = await turn
      if (result.reason === 'aborted' || result.reason === 'interrupted') return result
      const ran = await runCheck(check, session.header.cwd, {
        timeoutMs: this.#checkTimeoutMs,
        afterSeq: result.turnEndSeq,
      })
      await this.#claimed(session.id, async () => {
        const live = this.#store.store.get(session.id) ?? session
        live.append('check/ran', ran)
        await this.#store.flush(session.id)
      })
      return result
    })
  }

  // --- explore, board, keep (docs/architecture.md §13) -----------------------------------

  /** N branches from one fork point, run in parallel; answers once they are made and started. */
  explore(params: SessionExploreParams): Promise<SessionExploreResult> {
    this.#assertWritable('explore')
    return this.#explorations.explore(params)
  }

  async board(params: SessionBoardParams): Promise<SessionBoardResult> {
    const sources = await Promise.all(params.sessionIds.map((id) => this.#boardSource(id)))
    const files = await this.fileState()
    const now = Date.now()
    const branches = await Promise.all(sources.map((source) => boardBranch(files, source, now)))
    const lineages = await Promise.all(
      sources.map(async (source) =>
        (await lineageOf(source.session.id, this.#parentOf)).map((link) => link.sessionId),
      ),
    )
    // The nearest session every branch descends from (for one branch: its parent).
    const [first, ...others] = sources.length === 1 ? [lineages[0]!.slice(1)] : lineages
    const ancestor = first!.find((id) => others.every((lineage) => lineage.includes(id))) ?? null
    const trees = new Set(sources.map((source) => headerMetaOf(source.session.header).baseTree ?? null))
    return { ancestor, baseTree: trees.size === 1 ? [...trees][0]! : null, branches }
  }

  async fileAcross(params: SessionFileAcrossParams): Promise<SessionFileAcrossResult> {
    const sources = await Promise.all(params.sessionIds.map((id) => this.#boardSource(id)))
    return fileAcross(await this.fileState(), sources, params.path)
  }

  /**
   * Keeps a branch: merges its file changes since the fork point into its parent's directory
   * (refusing with \`files-conflict\` and the paths, writing nothing), records the keep and a
   * summary in the parent's log, archives its siblings and removes their clean worktrees.
   */
  async keep(params: SessionKeepParams): Promise<SessionKeepResult> {
    this.#assertWritable('keep a branch')
    const branch = await this.#load(params.sessionId)
    const parentId = branch.header.parentSession
    if (typeof parentId !== 'string') {
      throw new TangentError(
        'invalid-params',
        `Session ${branch.id} is not a fork: keep a branch into the session it was forked from.`,
        { issues: [{ path: ['sessionId'], message: 'not a fork' }] },
      )
    }
    const parent = await this.#load(parentId)
    const takeoverBranch = this.#takeOverAbandoned(branch)
    if (takeoverBranch) await takeoverBranch
    const takeoverParent = this.#takeOverAbandoned(parent)
    if (takeoverParent) await takeoverParent
    this.#busy.assertIdle(branch, 'keep it')
    this.#busy.assertIdle(parent, 'keep a branch into it')
    this.#assertOnThisMachine(parent, 'keep a branch into it')
    return this.#claimed(parent.id, () => this.#keep(params, branch, parent))
  }

  async #keep(params: SessionKeepParams, branch: Session, parent: Session): Promise<SessionKeepResult> {
    assertKeepable(parent, branch)
    const files = await this.fileState()
    const meta = headerMetaOf(branch.header)
    const label = meta.exploration?.label
    const mode = meta.files?.mode ?? 'shared'
    let applied: string[] = []
    let restoreSeq: number | undefined
    let tree: string | undefined
    if (mode === 'worktree') {
      // The branch's files as they are now (hand edits in its worktree included).
      tree = (await files.snapshot(branch.header.cwd)).tree
      const theirs = tree
      await this.#busy.rewritingFiles(parent, `keeping branch ${label ?? branch.id}`, async () => {
        const ours = (await files.snapshot(parent.header.cwd)).tree
        const merge = await files.mergeTrees({ base: meta.baseTree ?? null, ours, theirs })
        if (merge.conflicts.length > 0) {
          throw new TangentError(
            'files-conflict',
            `Keeping ${branch.id} would overwrite lines ${parent.id} changed since the fork in ${merge.conflicts.join(', ')}: nothing was written. Resolve them in one of the sessions, then keep again.`,
            { paths: merge.conflicts, undoTree: ours },
          )
        }
        if (merge.changed.length === 0) return
        const recorded = await this.#recordedRestore(
          parent,
          { keptFrom: { sessionId: branch.id, ...(label !== undefined ? { label } : {}) } },
          (commit) =>
            files.restoreTree({
              cwd: parent.header.cwd,
              tree: merge.tree,
              paths: merge.changed,
              expectTree: ours,
              commit,
            }),
        )
        applied = recorded.restored
        restoreSeq = recorded.seq
      })
    }
    const siblings =
      params.archiveOthers === false || meta.exploration === undefined
        ? []
        : (await this.listSessions({})).filter(
            (summary) => summary.exploration?.id === meta.exploration!.id && summary.id !== branch.id,
          )
    const data: BranchKeptData = {
      sessionId: branch.id,
      ...(label !== undefined ? { label } : {}),
      title: branch.title ?? '',
      throughSeq: branch.lastSeq,
      files: mode,
      ...(tree !== undefined ? { tree } : {}),
      applied,
      ...(restoreSeq !== undefined ? { restoreSeq } : {}),
      summary: summarizeBranch(branch, { label, mode, changed: applied }),
      archived: siblings.map((sibling) => sibling.id),
    }
    const kept = parent.append('branch/kept', data)
    await this.#store.flush(parent.id)
    this.#announce(parent.id, 'session-updated')
    const worktrees: SessionKeepResult['worktrees'] = []
    for (const sibling of siblings) {
      await this.setArchived({ sessionId: sibling.id, archived: true })
      if (sibling.files.mode !== 'worktree') continue
      const users = (await this.#sessionsWorkingIn(sibling.files.path)).filter((id) => id !== sibling.id)
      if (users.length > 0) {
        worktrees.push({
          sessionId: sibling.id,
          path: sibling.files.path,
          removed: false,
          reason: `sessions ${users.join(', ')} still work in it`,
        })
        continue
      }
      // A worktree whose files are all in the branch's history (nothing changed since its last
      // snapshot) is removed — a fork at that point brings it back; one with newer changes stays.
      const outcome = await this.#removeCaptured(sibling.id, sibling.files.path)
      worktrees.push({
        sessionId: sibling.id,
        path: sibling.files.path,
        removed: outcome.removed,
        ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
      })
    }
    return {
      kept: branch.id,
      parent: parent.id,
      seq: kept.seq,
      files: { mode, applied, ...(restoreSeq !== undefined ? { restoreSeq } : {}) },
      archived: [...data.archived],
      worktrees,
    }
  }

  /**
   * Removes a branch's worktree when every file in it is as the branch's latest snapshot has it
   * (its own, else the fork point's tree in its header: a branch that ran no tool has none of its
   * own), so a fork of the branch brings it back; otherwise keeps it and says which files differ.
   */
  async #removeCaptured(sessionId: string, worktree: string): Promise<{ removed: boolean; reason?: string }> {
    try {
      const files = await this.fileState()
      // No tree known at all (forked before any snapshot): the tree the worktree was made with.
      const since = this.#latestTree(await this.#load(sessionId)) ?? undefined
      const outcome = await files.removeWorktree(worktree, since !== undefined ? { since } : {})
      if (outcome.dirty !== undefined && outcome.dirty.length > 0) {
        const { dirty } = outcome
        return {
          removed: false,
          reason: `${dirty.length} file(s) changed since the branch's last snapshot were kept: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ', …' : ''}`,
        }
      }
      return { removed: outcome.removed, ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}) }
    } catch (error) {
      return { removed: false, reason: error instanceof Error ? error.message : String(error) }
    }
  }

  async #boardSource(sessionId: string): Promise<BoardSource> {
    const session = await this.#load(sessionId)
    const entry = await this.#store.get(sessionId)
    return {
      session,
      summary: this.#summaryOf(entry, session),
      latestTree: this.#latestTree(session),
      tokens: sessionUsageOf(session, this.#usageOptions).own,
    }
  }

  /** A session's parent and fork point: from the live header, else the catalog. */
  readonly #parentOf = async (id: string) => {
    const header = this.#store.store.get(id)?.header
    if (header) return { parentSession: header.parentSession ?? null, forkedAt: header.forkedAt ?? null }
    const entry = await this.#store.get(id)
    return entry ? { parentSession: entry.parentSession, forkedAt: entry.forkedAt } : undefined
  }

  /** Answers a tool call waiting for approval; `permission-not-pending` when none of that id waits. */
  async answerPermission(params: {
    sessionId: string
    callId: string
    decision: 'once' | 'always' | 'deny'
    reason?: string | undefined
    by?: 'user' | 'flag' | undefined
  }): Promise<{ answered: true }> {
    this.#assertWritable('answer a permission request')
    const agent = this.#agents.get(params.sessionId)
    if (!agent?.running) {
      await this.summary(params.sessionId)
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
    await this.summary(params.sessionId)
    return { aborted: false }
  }

  async setModel(params: SessionSetModelParams): Promise<SessionSummary> {
    this.#assertWritable('change the model')
    await this.#loadAgents()
    const session = await this.#load(params.sessionId)
    const takeover = this.#takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'change its model')
    await this.#claimed(session.id, async () => {
      this.#busy.assertIdle(session, 'change its model')
      this.#agents.obtain(session).setModel(params.model, params.reasoningEffort)
      await this.#store.flush(session.id)
    })
    return this.summary(session.id)
  }

  /**
   * Summarises the history between turns into a `context/compacted` event (docs/architecture.md
   * §12.4). The session is busy meanwhile; abort() stops it and nothing is recorded.
   */
  async compact(params: SessionCompactParams): Promise<SessionCompactResult> {
    this.#assertWritable('compact a session')
    await this.#loadAgents()
    const session = await this.#load(params.sessionId)
    const takeover = this.#takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'compact it')
    const result = await this.#busy.exclusively(session, 'compacting its history', () =>
      this.#claimed(session.id, () => this.#agents.compact(session)),
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

  async rename(params: { sessionId: string; title: string }): Promise<SessionSummary> {
    this.#assertWritable('rename a session')
    const session = await this.#load(params.sessionId)
    const takeover = this.#takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'rename it')
    await this.#claimed(session.id, async () => {
      this.#busy.assertIdle(session, 'rename it')
      session.append('session/title', { title: params.title })
      await this.#store.flush(session.id)
    })
    return this.summary(session.id)
  }

  async setArchived(params: { sessionId: string; archived: boolean }): Promise<SessionSummary> {
    this.#assertWritable('archive a session')
    await this.summary(params.sessionId)
    await this.#store.setArchived(params.sessionId, params.archived)
    const summary = await this.summary(params.sessionId)
    this.#emitter.emit('session-updated', summary)
    return summary
  }

  /**
   * Forks at an anchor (docs/architecture.md §7): the child takes the source's latest model,
   * a distinguishing title, its workspace, and its own directory with `files: 'worktree'`.
   * The same `requestId` returns the same child.
   */
  async fork(
    params: SessionForkParams,
    meta: Pick<SessionHeaderMeta, 'exploration'> = {},
  ): Promise<SessionForkResult> {
    this.#assertWritable('fork a session')
    const attempt = () => this.#fork(params, meta)
    const outcome: ForkAttempt = params.requestId
      ? await this.#forkRequests.run(params.requestId, attempt)
      : await attempt()
    if (outcome.sourceId !== params.sessionId) {
      throw new TangentError(
        'invalid-params',
        `requestId ${JSON.stringify(params.requestId)} was already used to fork session ${outcome.sourceId}: use a new requestId for each fork.`,
        { issues: [{ path: ['requestId'], message: 'already used for a fork of another session' }] },
      )
    }
    if (outcome.attachFailedWorkspaceId !== undefined) {
      throw new TangentError(
        'workspace-attach-failed',
        `Forked ${params.sessionId} into ${outcome.childId}, but the child could not join workspace ${outcome.attachFailedWorkspaceId} (it no longer exists). The child is listed without a workspace.`,
        { sessionId: outcome.childId, workspaceId: outcome.attachFailedWorkspaceId },
      )
    }
    const child = await this.summary(outcome.childId)
    if (child.files.mode !== 'worktree') return { session: child, boundary: outcome.boundary }
    // From the child's header, so a retry of the same requestId (after a restart too) says it again.
    const header = this.#store.store.get(child.id)?.header ?? (await this.#store.get(child.id))?.header ?? {}
    const leftOut = headerMetaOf(header).leftOut ?? []
    return { session: child, boundary: outcome.boundary, worktree: { path: child.files.path, leftOut } }
  }

  async delete(params: SessionDeleteParams): Promise<SessionDeleteResult> {
    this.#assertWritable('delete a session')
    let session: Session
    try {
      session = await this.#load(params.sessionId)
    } catch (error) {
      // A session that cannot be loaded (its log or a parent's is damaged or missing) can still
      // be deleted: nothing can run in it, and its header (files mode, worktree) is in the index.
      if (!TangentError.hasCode(error, 'corrupt-log') && !TangentError.hasCode(error, 'parent-log-missing'))
        throw error
      const entry = await this.#store.get(params.sessionId)
      if (!entry && !this.#store.damaged().includes(params.sessionId)) throw error
      const meta = entry ? headerMetaOf(entry.header) : {}
      return this.#claimed(params.sessionId, () => this.#deleteNow(params, params.sessionId, meta))
    }
    const takeover = this.#takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'delete it')
    const meta = headerMetaOf(session.header)
    return this.#busy.exclusively(session, 'being deleted', () =>
      this.#claimed(session.id, () => this.#deleteNow(params, session.id, meta)),
    )
  }

  /**
   * Deletes a session's log, then its worktree as asked. A worktree with changes removing it
   * would lose is refused before anything is deleted (`worktree-dirty`), unless `worktree` is
   * `keep` or `force`: once the session is gone no Tangent command can remove it any more.
   */
  async #deleteNow(
    params: SessionDeleteParams,
    sessionId: string,
    meta: SessionHeaderMeta,
  ): Promise<SessionDeleteResult> {
    const worktree = meta.files?.mode === 'worktree' ? meta.files.path : undefined
    const choice = params.worktree ?? 'remove'
    if (worktree !== undefined && choice === 'remove') await this.#assertWorktreeClean(sessionId, worktree)
    const keepTo =
      params.keepTo !== undefined
        ? await keepDestination(params, worktree, { folders: this.#folderBase(), realHome: this.#realHome })
        : undefined
    this.#agents.remove(sessionId)
    const { materialized } = await this.#store.delete(sessionId)
    this.#forkRequests.forget(sessionId)
    this.#sessionListeners.delete(sessionId)
    this.#emitter.emit('session-deleted', sessionId)
    for (const childId of materialized) this.#announce(childId, 'session-updated')
    if (worktree === undefined) return { deleted: true as const, materialized }
    const outcome =
      choice === 'keep'
        ? await keepDeletedWorktree(await this.fileState(), worktree, {
            to: keepTo,
            users: await this.#sessionsWorkingIn(worktree),
          })
        : await this.#removeDeletedWorktree(worktree, choice)
    return { deleted: true as const, materialized, worktree: { path: worktree, ...outcome } }
  }

  /** Refuses (`worktree-dirty`) when removing the worktree of `sessionId` would lose changes. */
  async #assertWorktreeClean(sessionId: string, worktree: string): Promise<void> {
    // Kept anyway for the sessions working in it (shared forks): nothing is lost then.
    if ((await this.#sessionsWorkingIn(worktree)).some((id) => id !== sessionId)) return
    let changes: { dirty: string[]; removeBy: string }
    try {
      changes = await (await this.fileState()).worktreeChanges(worktree)
    } catch (error) {
      // Not (or no longer) a worktree Tangent made: nothing of it is removed; the answer says so.
      if (TangentError.hasCode(error, 'not-a-worktree')) return
      throw error
    }
    const { dirty } = changes
    if (dirty.length === 0) return
    throw new TangentError(
      'worktree-dirty',
      `Session ${sessionId} was not deleted: its worktree ${worktree} has ${dirty.length} uncommitted change(s) that removing it would lose: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ', …' : ''}. Commit or copy them and delete again, or delete it with worktree "keep" (the folder stays) or "force" (removed with its changes).`,
      { sessionId, path: worktree, paths: dirty },
    )
  }

  /** The worktree of a deleted session, removed as asked; what was kept says why (never throws). */
  async #removeDeletedWorktree(
    worktree: string,
    choice: 'remove' | 'force',
  ): Promise<{ removed: boolean; reason?: string }> {
    // A worktree other sessions work in (shared forks of this one) is never removed, even by force.
    const users = await this.#sessionsWorkingIn(worktree)
    if (users.length > 0) return { removed: false, reason: `sessions ${users.join(', ')} still work in it` }
    try {
      // Without force only a clean worktree is removed (a change that landed since the check above
      // keeps it, and the reason says how to remove it by hand).
      const outcome = await (await this.fileState()).removeWorktree(worktree, { force: choice === 'force' })
      return { removed: outcome.removed, ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}) }
    } catch (error) {
      return { removed: false, reason: error instanceof Error ? error.message : String(error) }
    }
  }

  /**
   * Rewinds the files this session changed after `seq`; refuses with `files-conflict` when
   * another writer changed them since (unless force). Recorded as a `files/restored` event
   * with its undo tree, the same from every client.
   */
  async restore(params: SnapshotRestoreParams): Promise<SnapshotRestoreResult> {
    this.#assertWritable('restore files')
    const files = await this.fileState()
    const session = await this.#load(params.sessionId)
    const takeover = this.#takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'restore its files')
    if (params.seq > session.lastSeq) {
      throw new TangentError(
        'invalid-params',
        `Session ${session.id} has no seq ${params.seq} (its last is ${session.lastSeq}): pick a seq from \`tangent show\`.`,
        { issues: [{ path: ['seq'], message: 'past the end of the session' }] },
      )
    }
    this.#assertOnThisMachine(session, 'restore its files')
    return this.#claimedFiles(session, 'restoring its files', () =>
      this.#recordedRestore(session, { toSeq: params.seq }, (commit) =>
        files.restore({
          cwd: session.header.cwd,
          events: session.events,
          inheritedEventCount: session.inheritedEventCount,
          baseTree: headerMetaOf(session.header).baseTree ?? null,
          toSeq: params.seq,
          force: params.force ?? false,
          commit,
        }),
      ),
    )
  }

  /**
   * Undoes a restore: writes back what its paths held before it, refusing with
   * `files-conflict` when one changed since the restore (unless force).
   */
  async undoRestore(params: SnapshotUndoRestoreParams): Promise<SnapshotRestoreResult> {
    this.#assertWritable('undo a restore')
    const files = await this.fileState()
    const session = await this.#load(params.sessionId)
    const takeover = this.#takeOverAbandoned(session)
    if (takeover) await takeover
    this.#busy.assertIdle(session, 'undo a restore')
    const target = undoableRestore(session, params.seq)
    this.#assertOnThisMachine(session, 'undo a restore')
    return this.#claimedFiles(session, 'undoing a restore', () =>
      this.#recordedRestore(session, { undoOf: target.seq }, (commit) =>
        files.restoreTree({
          cwd: session.header.cwd,
          tree: target.data.undoTree,
          paths: target.data.restored,
          expectTree: target.data.tree,
          force: params.force ?? false,
          commit,
        }),
      ),
    )
  }

  // --- life cycle ----------------------------------------------------------------------

  /** Sessions with a running turn. */
  runningSessions(): string[] {
    return [...this.#store.store.sessions()]
      .filter((session) => session.isTurnOpen)
      .map((session) => session.id)
  }

  /** Resolves when every turn started through this runtime has ended. */
  async settled(): Promise<void> {
    await this.#explorations.settled()
    await this.#agents.settled()
  }

  /** Removes worktrees no session owns (a crash in the middle of a worktree fork). */
  async reconcileWorktrees(startedAt: number, log: (message: string) => void): Promise<void> {
    const known = new Set((await this.#store.list()).map((entry) => entry.id))
    const entries = await this.#store.listView()
    const result = await (await this.fileState()).reconcileWorktrees(
      (sessionId) => known.has(sessionId) || this.#store.store.has(sessionId),
      // Forks made since start are finishing or published: only older records can be orphans;
      // a worktree a session works in (a shared fork of a deleted one) is never removed.
      {
        createdBefore: startedAt,
        usersOf: (root) => entries.filter((entry) => isInside(entry.cwd, root)).map((entry) => entry.id),
      },
    )
    for (const removed of result.removed) log(`tangent: removed ${removed}, a worktree no session owns`)
    for (const kept of result.kept) log(`tangent: kept ${kept.path} (no session owns it): ${kept.reason}`)
  }

  /**
   * Stops running turns (they end `interrupted`, a wait for approval too: nothing runs
   * unapproved), waits for them, flushes and closes the store. Idempotent.
   */
  close(options: { abort?: boolean } = {}): Promise<void> {
    this.#closing ??= (async () => {
      if (options.abort !== false) this.#agents.abortAll({ interrupted: true })
      await this.#agents.settled()
      await Promise.allSettled([...this.#announcing.values()])
      for (const unwire of this.#unwire) unwire()
      await this.mcp.close()
      await this.#bashSandbox?.dispose()
      await this.#store.close()
    })()
    return this.#closing
  }

  // --- internals -----------------------------------------------------------------------

  /**
   * `exactBoundary` is for subagents only (docs/architecture.md §14.1): the one fork that trims
   * a running session to its last completed turn; every other fork resolves its anchor.
   */
  async #fork(
    params: SessionForkParams,
    extra: Pick<SessionHeaderMeta, 'exploration' | 'subagentOf'>,
    exactBoundary?: number,
  ): Promise<ForkAttempt> {
    const store = this.#store
    const source = await this.#load(params.sessionId)
    // The events as they are now: a running turn may append more, the boundary does not move.
    const boundary = exactBoundary ?? resolveBoundary(source, params)
    const latestModel = source.model
    const sourceMeta = headerMetaOf(source.header)
    const inheritsWholePrefix = boundary >= source.inheritedEventCount - 1
    const baseTree = treeAt(source, boundary) ?? (inheritsWholePrefix ? (sourceMeta.baseTree ?? null) : null)
    const sourceWorkspace =
      sourceMeta.workspaceId ??
      this.#workspaces.workspaceOf(source.header.cwd, undefined, sourceMeta.projectFolder) ??
      undefined
    const attached = sourceWorkspace !== undefined && this.#workspaces.has(sourceWorkspace)
    const title =
      params.title ?? forkTitle(source, await this.#store.listView(), this.#store.store.sessions())

    const childId = store.store.newId()
    // With a shared store the child's files are where the source's are (shared), or here (worktree).
    const machine = this.#store.shared
      ? params.files === 'worktree'
        ? this.machine
        : (sourceMeta.machine ?? this.machine)
      : undefined
    if (params.files === 'worktree') this.#assertOnThisMachine(source, 'fork it with its own worktree')
    return this.#claimed(childId, () =>
      this.#forkInto(params, extra, {
        source,
        boundary,
        latestModel,
        baseTree,
        sourceWorkspace,
        attached,
        title,
        childId,
        machine,
      }),
    )
  }

  async #forkInto(
    params: SessionForkParams,
    extra: Pick<SessionHeaderMeta, 'exploration' | 'subagentOf'>,
    plan: {
      source: Session
      boundary: number
      latestModel: Session['model']
      baseTree: string | null
      sourceWorkspace: string | undefined
      attached: boolean
      title: string
      childId: string
      machine: string | undefined
    },
  ): Promise<ForkAttempt> {
    const store = this.#store
    const { source, boundary, latestModel, baseTree, sourceWorkspace, attached, title, childId } = plan
    let cwd = source.header.cwd
    // The folder the child works for: its workspace follows that folder's (a worktree is elsewhere).
    const projectFolder = headerMetaOf(source.header).projectFolder ?? source.header.cwd
    let worktreePath: string | undefined
    let leftOut: string[] | undefined
    if (params.files === 'worktree') {
      const worktree = await (await this.fileState()).createWorktree({
        cwd: source.header.cwd,
        tree: baseTree,
        sessionId: childId,
        skipped: skippedAt(source, boundary),
      })
      worktreePath = worktree.path
      cwd = worktree.path
      leftOut = worktree.leftOut
    }
    let child: Session
    try {
      // Durability: the child's header points into the source's file through `boundary`.
      await store.flush(source.id)
      const current = store.store.get(source.id) ?? (await store.load(source.id))
      child = store.store.fork(current, boundary, childId, {
        meta: {
          cwd,
          ...headerMetaFields({
            ...(attached ? { workspaceId: sourceWorkspace } : {}),
            ...(projectFolder !== cwd ? { projectFolder } : {}),
            files: { mode: params.files ?? 'shared', path: cwd },
            baseTree,
            ...(leftOut !== undefined ? { leftOut } : {}),
            ...(params.requestId !== undefined ? { forkRequestId: params.requestId } : {}),
            ...extra,
            ...(plan.machine !== undefined ? { machine: plan.machine } : {}),
          }),
          ...(extra.subagentOf ? { origin: 'subagent' as const } : {}),
        },
      })
    } catch (error) {
      if (worktreePath !== undefined)
        await (await this.fileState()).removeWorktree(worktreePath, { force: true })
      throw error
    }
    // The child runs with the source's latest model, even one chosen after the fork point.
    if (latestModel && !sameModel(child.model, latestModel)) child.append('model/selection', latestModel)
    child.append('session/title', { title })
    await store.flush(child.id)
    return {
      sourceId: source.id,
      childId: child.id,
      boundary,
      ...(sourceWorkspace !== undefined && !attached ? { attachFailedWorkspaceId: sourceWorkspace } : {}),
    }
  }

  /**
   * Runs `work` holding the session's write claim (docs/architecture.md §4). With a shared store
   * (PostgreSQL) another Host's claim makes this `session-busy`; with JSONL the writer lock of the
   * data directory already makes this process the only writer, and nothing is claimed.
   */
  async #claimed<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    if (!this.#store.shared) return work()
    await this.#store.claim(sessionId)
    try {
      return await work()
    } finally {
      await this.#store.release(sessionId).catch(this.#report)
    }
  }

  /**
   * Starts a turn under the session's claim, held until the turn ends. Without a shared store the
   * turn starts synchronously (two prompts cannot both pass the idle check); with one, the idle
   * check runs again once the claim is held.
   */
  #claimedTurn<T>(session: Session, what: string, start: () => Promise<T>): Promise<T> {
    if (!this.#store.shared) return start()
    return (async () => {
      // Busy here from the call on (as an unshared turn is), not only once the claim is held.
      await this.#busy.exclusively(session, 'starting a turn', () => this.#store.claim(session.id))
      try {
        this.#busy.assertStartable(session, what)
        return await start()
      } finally {
        await this.#store.release(session.id).catch(this.#report)
      }
    })()
  }

  /** A restore or undo: the directory and session are held from the call on, then the claim. */
  #claimedFiles<T>(session: Session, what: string, work: () => Promise<T>): Promise<T> {
    return this.#busy.rewritingFiles(session, what, () => this.#claimed(session.id, work))
  }

  /**
   * With a shared store, a turn open here that no agent of this process runs is another Host's —
   * running, or left open by a Host that died. Claiming it tells which: `session-busy` naming the
   * Host, or the engine closes the abandoned turn as interrupted (docs/architecture.md §4).
   * Undefined (nothing to wait for) otherwise, so a caller without a shared store stays synchronous.
   */
  #takeOverAbandoned(session: Session): Promise<void> | undefined {
    if (!this.#store.shared || !session.isTurnOpen || this.#agents.get(session.id)?.running) return undefined
    return (async () => {
      await this.#store.claim(session.id)
      await this.#store.release(session.id)
    })()
  }

  /** `session-elsewhere` when the session's files live on another machine (shared store only). */
  #assertOnThisMachine(session: Session, what: string): void {
    if (!this.#store.shared) return
    const machine = headerMetaOf(session.header).machine
    if (machine === undefined || machine === this.machine) return
    throw new TangentError(
      'session-elsewhere',
      `Session ${session.id} works in ${session.header.cwd} on machine ${machine}; this Host runs on ${this.machine}, so it cannot ${what}: its files are there. Read, compare and fork its conversation here; run turns and restores from a Host on ${machine}.`,
      { sessionId: session.id, machine, cwd: session.header.cwd },
    )
  }

  /**
   * Whether a session working in the journal's directory recorded the restore it describes: the
   * record naming the journal's id (an older journal without one: the record with its undo tree).
   */
  async #restoreRecorded(journal: {
    id?: string | undefined
    cwd: string
    undoTree: string
  }): Promise<boolean> {
    for (const entry of await this.#store.listView()) {
      if (entry.cwd !== journal.cwd) continue
      const session = await this.#load(entry.id).catch(() => null)
      if (!session) continue
      for (const seq of session.seqsOfType('files/restored')) {
        const data = restoreEventOf(session.events[seq])?.data
        if (journal.id !== undefined ? data?.journalId === journal.id : data?.undoTree === journal.undoTree)
          return true
      }
    }
    return false
  }

  /**
   * Runs a restore whose `files/restored` is recorded (durably) once its files are written and
   * before its journal is removed (docs/architecture.md §5): after a crash the next start finds
   * either the journal without the record (rolled back) or the record (finished).
   */
  async #recordedRestore(
    session: Session,
    what: RestoreKind,
    run: (commit: (outcome: RestoreOutcome) => Promise<void>) => Promise<RestoreOutcome>,
  ): Promise<SnapshotRestoreResult> {
    // A restore that changed nothing is not recorded (its undo would put back nothing); an undo
    // always is: it marks its restore undone.
    const changedNothing = (outcome: RestoreOutcome) => outcome.restored.length === 0 && !('undoOf' in what)
    let recorded: SnapshotRestoreResult | undefined
    const outcome = await run(async (written) => {
      if (!changedNothing(written)) recorded = await this.#recordRestore(session, written, what)
    })
    if (recorded) return recorded
    if (changedNothing(outcome)) return { restored: [], kept: outcome.kept, undoTree: outcome.undoTree }
    // An undo with nothing to write never commits (no journal either): record it now.
    return this.#recordRestore(session, outcome, what)
  }

  /** Appends the `files/restored` event of a restore or an undo, durably, and answers with its seq. */
  async #recordRestore(
    session: Session,
    outcome: RestoreOutcome,
    what: RestoreKind,
  ): Promise<SnapshotRestoreResult> {
    const data: FilesRestoredData = {
      ...what,
      tree: outcome.snapshot.tree,
      changed: outcome.snapshot.changed,
      skipped: outcome.snapshot.skipped,
      restored: outcome.restored,
      kept: outcome.kept,
      undoTree: outcome.undoTree,
      ...(outcome.journalId !== undefined ? { journalId: outcome.journalId } : {}),
    }
    const event = session.append('files/restored', data)
    await this.#store.flush(session.id)
    return { restored: outcome.restored, kept: outcome.kept, undoTree: outcome.undoTree, seq: event.seq }
  }

  /** Sessions (loaded or only on disk) whose cwd is `folder` or inside it. */
  async #sessionsWorkingIn(folder: string): Promise<string[]> {
    const ids = new Set<string>()
    for (const entry of await this.#store.listView()) if (isInside(entry.cwd, folder)) ids.add(entry.id)
    for (const session of this.#store.store.sessions())
      if (isInside(session.header.cwd, folder)) ids.add(session.id)
    return [...ids].sort()
  }

  /**
   * A session's directory may not be the data directory or inside it (the agent would edit
   * its own logs), except a worktree the runtime made under `worktrees/`.
   */
  #assertOutsideData(cwd: string): void {
    const home = this.#realHome
    if (isInside(cwd, home) && !cwd.startsWith(path.join(home, 'worktrees') + path.sep)) {
      throw new TangentError(
        'invalid-params',
        `${cwd} is inside Tangent's data directory ${home}: a session works in a project folder, not in its own store.`,
        { issues: [{ path: ['cwd'], message: 'inside the data directory' }] },
      )
    }
  }

  #latestTree(session: Session): string | null {
    return treeAt(session, session.lastSeq) ?? headerMetaOf(session.header).baseTree ?? null
  }

  async #load(sessionId: string): Promise<Session> {
    const live = this.#store.store.get(sessionId)
    if (live) return live
    try {
      return await this.#store.load(sessionId)
    } catch (error) {
      if (TangentError.hasCode(error, 'session-not-found')) throw sessionNotFound(sessionId)
      throw error
    }
  }

  #summaryOf(entry: Parameters<typeof toSessionSummary>[0], live: Session | undefined): SessionSummary {
    return toSessionSummary(entry, live, { workspaceOf: this.#workspaceOf })
  }

  /** The workspace resolver, with the project folder of an older worktree fork read from its record. */
  readonly #workspaceOf: WorkspaceResolver = (cwd, recorded, projectFolder) =>
    this.#workspaces.workspaceOf(cwd, recorded, projectFolder ?? this.#origins.folderOf(cwd))

  #folderBase(): { homeDir: string; base: string } {
    return { homeDir: this.homeDir, base: this.startFolder }
  }

  #assertWritable(action: string): void {
    if (this.readOnly) {
      throw new TangentError(
        'store-read-only',
        `This process opened ${this.home} read-only: it cannot ${action}.`,
        { home: this.home },
      )
    }
  }

  /**
   * A model the registry can name (`provider:model` of a known provider, `demo:scripted` of the
   * demo one), else `invalid-model`; unavailable is fine: that is checked at prompt.
   */
  #validateModel(id: string): ModelSelectionData {
    return this.models.validate(id)
  }

  #wireStore(): void {
    const store = this.#store.store
    this.#unwire.push(
      // Another Host's sessions (shared store): lists and trees update everywhere.
      this.#store.onRemoteChange(({ sessionId, kind }) => {
        if (kind === 'deleted') {
          this.#forkRequests.forget(sessionId)
          this.#emitter.emit('session-deleted', sessionId)
        } else this.#announce(sessionId, kind === 'created' ? 'session-created' : 'session-updated')
      }),
      store.on('created', (session, via) => {
        if (via !== 'load') this.#announce(session.id, 'session-created')
      }),
      store.on('appended', (session, event) => {
        this.#emitter.emit('event', session.id, event)
        const listeners = this.#sessionListeners.get(session.id)
        if (listeners) for (const listener of [...listeners]) this.#safely(() => listener.onEvent(event))
        if (summaryEventTypes.has(event.type)) this.#announce(session.id, 'session-updated')
        // A subagent shares its parent's directory by design (docs/architecture.md §14.1): no warning.
        if (event.type === 'turn/start' && session.header.origin !== 'subagent') {
          const cwd = session.header.cwd
          const running = sessionsRunningIn(store, cwd)
          if (running.length >= 2) this.#emitter.emit('shared-activity', { cwd, sessionIds: running })
        }
      }),
    )
  }

  #onDelta(sessionId: string, delta: AgentDelta): void {
    this.#emitter.emit('delta', sessionId, delta)
    const listeners = this.#sessionListeners.get(sessionId)
    if (listeners) for (const listener of [...listeners]) this.#safely(() => listener.onDelta?.(delta))
  }

  #safely(work: () => void): void {
    try {
      work()
    } catch (error) {
      this.#report(error)
    }
  }

  #announce(sessionId: string, name: 'session-created' | 'session-updated'): void {
    if (!this.#emitter.has(name)) return
    const previous = this.#announcing.get(sessionId) ?? Promise.resolve()
    const next = previous
      .then(async () => {
        const entry = await this.#store.get(sessionId)
        const live = this.#store.store.get(sessionId)
        if (!entry && !live) return // deleted meanwhile
        this.#emitter.emit(name, this.#summaryOf(entry, live))
      })
      .catch(this.#report)
      .finally(() => {
        if (this.#announcing.get(sessionId) === next) this.#announcing.delete(sessionId)
      })
    this.#announcing.set(sessionId, next)
  }
}

/** TANGENT_SANDBOX: unset or empty is `auto`; a value that is not a mode fails safe to `required`. */
function sandboxModeOf(value: string | undefined, report: (error: unknown) => void): SandboxMode {
  if (value === undefined || value.trim() === '') return 'auto'
  const mode = parseSandboxMode(value)
  if (mode !== undefined) return mode
  report(
    `warning: TANGENT_SANDBOX=${value} is not off, auto or required; bash runs only sandboxed (required)`,
  )
  return 'required'
}

/** `home` as a real path; `home` itself while it does not exist (a reader on an empty data dir). */
function realHomeOf(home: string): string {
  try {
    return realpathSync(home)
  } catch {
    return home
  }
}

/** TANGENT_BASH_PASS_ENV: names of secret-looking variables bash commands still get (§12.2). */
function passEnvOf(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((name) => name !== '')
}

/**
 * What in the data directory no tool may write (§12.2): everything but `worktrees/`, where a
 * worktree fork's session works. The names the data directory holds, and any other entry in it now.
 */
function dataFilesOf(home: string): string[] {
  const names = new Set(['sessions', 'snapshots', 'catalog.json', 'catalog.journal', 'catalog.clean'])
  for (const name of ['workspaces.json', 'host.json', 'lock']) names.add(name)
  try {
    for (const name of readdirSync(home)) names.add(name)
  } catch {
    // Not there yet: the names above still cover what it will hold.
  }
  names.delete('worktrees')
  return [...names].sort().map((name) => path.join(home, name))
}

/**
 * The start folder as a real path. One that no longer exists (removed under the shell, as a
 * worktree fork's folder may be) or is a file keeps the name as given: nothing but a session
 * started there needs it, and that is refused (`assertStartFolder`), while reads, forks, renames
 * and the rest work as from anywhere.
 */
function startFolderOf(options: RuntimeOptions): string {
  // The CLI names its folder (the shell's PWD or /proc when process.cwd() fails: bin.ts); another
  // caller without one whose folder was removed gets the error below.
  let named = options.startFolder
  if (named === undefined) {
    try {
      named = process.cwd()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      named = ''
    }
  }
  try {
    return realpathSync(named)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
    if (path.isAbsolute(named)) return path.normalize(named)
  }
  throw startFolderGone(named)
}

/** Refuses to start work in the start folder when it is gone or is not a folder. */
function assertStartFolder(folder: string): void {
  let isFolder = false
  try {
    isFolder = statSync(folder).isDirectory()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
  }
  if (!isFolder) throw startFolderGone(folder)
}

function startFolderGone(named: string): TangentError {
  return new TangentError(
    'not-a-directory',
    `The folder this runs in, ${named === '' ? 'the current folder' : named}, no longer exists or is not a folder (was it removed?): run it from an existing folder.`,
    { cwd: named },
  )
}
