// The runtime: the one implementation of every session operation (docs/architecture.md §1,
// §7), over the store, file state, models and live agents. It alone holds the store and owns
// durability — every operation that appends flushes before it answers — and it emits the
// events front-ends turn into notifications. The Host's methods and the CLI are adapters.
//
// This class is the facade: it opens the store, composes the capability modules (runtime-modules.ts:
// each owns its state and rules, its dependencies passed in) and hands each operation to one.

import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
// The agent (with the AI SDK, tools, MCP client and OS sandbox) and file state load on first use,
// so a command that only reads never imports them (docs/architecture.md §9, start-up): agents.ts
// and session-files.ts import them when first asked; here they are types only.
import { type BashSandboxStatus, defaultModelId, ModelRegistry } from '@tangent/agent/light'
import { type PromptImage, type SessionPersistence, TangentError } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type {
  ExportFormat,
  HostInfoResult,
  SessionAttachMcpServersParams,
  SessionAttachMcpServersResult,
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
  SessionExportResult,
  SessionFileAcrossParams,
  SessionFileAcrossResult,
  SessionForkParams,
  SessionForkResult,
  SessionGetResult,
  SessionImportFromParams,
  SessionImportFromResult,
  SessionImportParams,
  SessionImportResult,
  SessionKeepParams,
  SessionKeepResult,
  SessionListParams,
  SessionPromptResult,
  SessionSetModelParams,
  SessionSetModeParams,
  SessionSummary,
  SnapshotEntry,
  SnapshotRestoreParams,
  SnapshotRestoreResult,
  SnapshotUndoRestoreParams,
  Workspace,
  WorkspaceBrowseParams,
  WorkspaceBrowseResult,
} from '@tangent/protocol'
import type { SessionListener } from './announcements.js'
import { AttachedMcpServers, type McpAttachmentOwner } from './attached-mcp-servers.js'
import type { ExportedLines, SessionExportRequest } from './bundle.js'
import { ConfigFiles } from './config.js'
import type { FileReader } from './file-sources.js'
import type { SessionHeaderMeta } from './header-meta.js'
import type { ImportFileParams } from './imports/import-file.js'
import type { ImportTreeOptions, ImportTreeResult } from './imports/import-tree.js'
import type { ImportedTree } from './imports/imported-tree.js'
import { McpServers } from './mcp-servers.js'
import { RuntimeEmitter, type RuntimeEventMap, type RuntimeEventName } from './runtime-events.js'
import { composeRuntime, type RuntimeModules } from './runtime-modules.js'
import { type RuntimeOptions, realHomeOf } from './runtime-options.js'
import { describeRecovery, runtimeVersion } from './runtime-support.js'
import type { SessionPage } from './sessions.js'
import { assertStartFolder, startFolderOf } from './start-folder.js'
import { openStoreEngine } from './store-engine.js'
import type { PermissionAnswer } from './turns.js'
import { WorkspaceRegistry } from './workspaces.js'

export type { SessionListener } from './announcements.js'
export type { RuntimeOptions } from './runtime-options.js'

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
  /** The user and project config files (permissions; docs/architecture.md §12.1). */
  readonly config: ConfigFiles
  /** The configured MCP servers, started on the first turn that needs their tools. */
  readonly mcp: McpServers
  /** MCP servers clients attached to sessions (in memory only, docs/architecture.md §14.3). */
  readonly #attachedMcp: AttachedMcpServers
  readonly #store: SessionPersistence
  readonly #emitter: RuntimeEmitter
  readonly #modules: RuntimeModules
  readonly #env: Record<string, string | undefined>
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
    const { options, store, report } = init
    const env = options.env ?? process.env
    this.#env = env
    this.home = init.home
    this.version = init.version
    this.startFolder = init.startFolder
    this.homeDir = options.homeDir ?? os.homedir()
    this.readOnly = options.readOnly === true
    this.machine = env.TANGENT_MACHINE?.trim() || os.hostname()
    this.defaultModel = options.defaultModel ?? (env.TANGENT_MODEL || defaultModelId)
    this.#store = store
    this.#emitter = new RuntimeEmitter(report)
    this.models = new ModelRegistry({
      env,
      ...(options.demoDelayMs !== undefined ? { demoDelayMs: options.demoDelayMs } : {}),
    })
    this.config = new ConfigFiles({ env, homeDir: this.homeDir })
    this.mcp = new McpServers({ config: this.config, report, env })
    this.#attachedMcp = new AttachedMcpServers({ mcp: this.mcp, report })
    this.#modules = composeRuntime({
      options,
      env,
      home: this.home,
      realHome: init.realHome,
      homeDir: this.homeDir,
      startFolder: this.startFolder,
      readOnly: this.readOnly,
      machine: this.machine,
      defaultModel: this.defaultModel,
      store,
      workspaces: init.workspaces,
      emitter: this.#emitter,
      models: this.models,
      config: this.config,
      mcp: this.mcp,
      attachedMcp: this.#attachedMcp,
      report,
      closing: () => this.#closing !== null,
    })
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
    return this.#modules.files.state()
  }

  // --- host and workspaces (agents.ts, workspace-folders.ts) ----------------------------

  /** Loads the modules a first turn needs, ahead of it (agents.ts, AgentModule.warm). */
  warm(): Promise<void> {
    return this.#modules.agentModule.warm()
  }

  /**
   * How the bash tool runs here (docs/architecture.md §12.2). The first call probes the machine
   * (one sandboxed `true`); the answer is kept.
   */
  sandboxStatus(): Promise<BashSandboxStatus> {
    return this.#modules.agentModule.sandboxStatus()
  }

  /** True when every bash command of this runtime runs in the OS sandbox (for approval policies). */
  bashRunsSandboxed(): Promise<boolean> {
    return this.#modules.agentModule.bashRunsSandboxed()
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
        images: this.models.takesImages(model.id),
      })),
      startFolder: this.startFolder,
      homeDir: this.homeDir,
      sandbox: await this.sandboxStatus(),
      machine: this.machine,
      shared: this.#store.shared,
    }
  }

  listWorkspaces(): Workspace[] {
    return this.#modules.folders.list()
  }

  /** Opens (or reopens) the workspace of a folder: absolute, `~`, `~/…` or relative to the start folder. */
  openWorkspace(params: { path: string }): Promise<Workspace> {
    return this.#modules.folders.open(params)
  }

  browseFolders(params: WorkspaceBrowseParams): Promise<WorkspaceBrowseResult> {
    return this.#modules.folders.browse(params)
  }

  // --- sessions and lineage (sessions.ts, announcements.ts) -----------------------------

  listSessions(params: SessionListParams = {}): Promise<SessionSummary[]> {
    return this.#modules.sessions.list(params)
  }

  getSession(params: SessionPage): Promise<SessionGetResult> {
    return this.#modules.sessions.get(params)
  }

  /** The full id of a session named by its id or a unique prefix (session-id-prefix.ts); archived ones too. */
  resolveSession(params: { id: string }): Promise<{ sessionId: string }> {
    return this.#modules.sessions.resolve(params)
  }

  summary(sessionId: string): Promise<SessionSummary> {
    return this.#modules.sessions.summary(sessionId)
  }

  /**
   * Sends `listener` the session's events from `fromSeq` (when given), then every later
   * one, with no gap and no duplicate, and its live deltas; returns the unsubscribe.
   */
  subscribe(
    sessionId: string,
    options: { fromSeq?: number | undefined },
    listener: SessionListener,
  ): Promise<() => void> {
    return this.#modules.announcements.subscribe(sessionId, options, listener)
  }

  /**
   * Attaches a client's file source to the session (docs/architecture.md §6.1): its `read` tool
   * takes the text of a file from `read` when it answers one. Returns the detach (idempotent).
   * `session-not-found` for an unknown session.
   */
  async attachFileSource(sessionId: string, read: FileReader): Promise<() => void> {
    await this.#modules.sessions.summary(sessionId)
    return this.#modules.fileSources.attach(sessionId, read)
  }

  compare(params: SessionCompareParams): Promise<SessionCompareResult> {
    return this.#modules.sessions.compare(params)
  }

  createSession(params: SessionCreateParams = {}): Promise<SessionSummary> {
    return this.#modules.sessions.create(params)
  }

  rename(params: { sessionId: string; title: string }): Promise<SessionSummary> {
    return this.#modules.sessions.rename(params)
  }

  /** Sets the session's mode (§12.1); allowed while a turn runs, counted from its next tool call. */
  setMode(params: SessionSetModeParams): Promise<SessionSummary> {
    return this.#modules.sessions.setMode(params)
  }

  setArchived(params: { sessionId: string; archived: boolean }): Promise<SessionSummary> {
    return this.#modules.sessions.setArchived(params)
  }

  // --- turns (turns.ts) -----------------------------------------------------------------

  /** Runs one turn; resolves when it ends (aborted and error included). */
  prompt(params: {
    sessionId: string
    text: string
    images?: readonly PromptImage[] | undefined
  }): Promise<SessionPromptResult> {
    return this.#modules.turns.prompt(params)
  }

  /** Answers a tool call waiting for approval; `permission-not-pending` when none of that id waits. */
  answerPermission(params: PermissionAnswer): Promise<{ answered: true }> {
    return this.#modules.turns.answerPermission(params)
  }

  abort(params: { sessionId: string }): Promise<{ aborted: boolean }> {
    return this.#modules.turns.abort(params)
  }

  setModel(params: SessionSetModelParams): Promise<SessionSummary> {
    return this.#modules.turns.setModel(params)
  }

  /**
   * Summarises the history between turns into a `context/compacted` event (docs/architecture.md
   * §12.4). The session is busy meanwhile; abort() stops it and nothing is recorded.
   */
  compact(params: SessionCompactParams): Promise<SessionCompactResult> {
    return this.#modules.turns.compact(params)
  }

  // --- forks and delete (forks.ts, delete-session.ts) -----------------------------------

  /**
   * Forks at an anchor (docs/architecture.md §7): the child takes the source's latest model,
   * a distinguishing title, its workspace, and its own directory with `files: 'worktree'`.
   * The same `requestId` returns the same child.
   */
  fork(
    params: SessionForkParams,
    meta: Pick<SessionHeaderMeta, 'exploration'> = {},
  ): Promise<SessionForkResult> {
    return this.#modules.forks.fork(params, meta)
  }

  /**
   * Makes sessions of a conversation tree another agent's file held (docs/architecture.md,
   * "Moving in and out"): the first path one session, each other branch a fork, subtrees subagent
   * forks. Idempotent by the source's ids; `invalid-import`, `folder-not-found` (a recorded folder
   * missing here: pass `cwd`), and nothing is left of an import that fails.
   */
  async importTree(tree: ImportedTree, options: ImportTreeOptions = {}): Promise<ImportTreeResult> {
    return (await this.#modules.imports()).importTree(tree, options)
  }

  async delete(params: SessionDeleteParams): Promise<SessionDeleteResult> {
    const result = await this.#modules.deletion.delete(params)
    await this.#attachedMcp.dropSession(params.sessionId)
    return result
  }

  // --- moving sessions in and out (bundle.ts) -------------------------------------------

  /** A page of the session as a Tangent bundle or Markdown (docs/architecture.md, "Moving in and out"). */
  async exportSession(params: SessionExportRequest): Promise<SessionExportResult> {
    return (await this.#modules.bundles()).exportPage(params)
  }

  /** Every line of the export at once (the CLI's, without pages). */
  async exportLines(
    sessionId: string,
    format: ExportFormat,
    options: { tree?: boolean } = {},
  ): Promise<ExportedLines> {
    return (await this.#modules.bundles()).exportLines(sessionId, format, undefined, options)
  }

  /** Imports a Tangent bundle, ids and lineage kept; all or nothing (`import-conflict`, `invalid-bundle`). */
  async importBundle(params: { content: string }): Promise<SessionImportResult> {
    return (await this.#modules.bundles()).importBundle(params)
  }

  /**
   * A bundle or another tool's session file, detected from its first line (imports/import-file.ts):
   * its text, or a file on this machine (`path`), read a chunk at a time.
   */
  async importFile(
    params: SessionImportParams | (ImportFileParams & { uploadId?: undefined }),
  ): Promise<SessionImportResult> {
    const { content, path: file, uploadId, ...rest } = params
    // Loaded here, not with the runtime: only imports run it (runtime-modules.ts, `bundles`).
    const { importFile } = await import('./imports/import-file.js')
    const deps = {
      importBundle: (bundle: { content: string }) => this.importBundle(bundle),
      importTree: (tree: ImportedTree, options: ImportTreeOptions) => this.importTree(tree, options),
      summary: async (sessionId: string) =>
        (await this.getSession({ sessionId, fromSeq: Number.MAX_SAFE_INTEGER })).session,
    }
    if (file !== undefined) return importFile(deps, { ...rest, path: file })
    // An upload belongs to a Host's connection, which turns it into content before this.
    if (content === undefined)
      throw new TangentError(
        'upload-not-found',
        `No upload ${JSON.stringify(uploadId ?? '')} here: an upload is made on a Host's WebSocket connection (session.importBegin) and used on it.`,
        { uploadId: uploadId ?? '' },
      )
    return importFile(deps, { ...rest, content })
  }

  /**
   * A tool's sessions of a folder (or all), from where it keeps them under this runtime's home
   * (`~` is homeDir; the tools' own variables are taken from its environment): imports/import-from.ts.
   */
  async importFrom(params: SessionImportFromParams): Promise<SessionImportFromResult> {
    const { importFrom } = await import('./imports/import-from.js')
    return importFrom(
      { env: { ...this.#env, HOME: this.homeDir }, importFile: (file) => this.importFile(file) },
      params,
    )
  }

  // --- a client's MCP servers (attached-mcp-servers.ts) ----------------------------------

  /**
   * `owner`'s MCP servers join the session's tools (`session.attachMcpServers`), replacing what it
   * attached to that session before; `servers: []` detaches. They stay until detachMcpServers(owner).
   */
  async attachMcpServers(
    params: SessionAttachMcpServersParams,
    owner: McpAttachmentOwner,
  ): Promise<SessionAttachMcpServersResult> {
    const session = await this.summary(params.sessionId)
    return this.#attachedMcp.attach({
      sessionId: session.id,
      cwd: session.cwd,
      servers: params.servers,
      owner,
    })
  }

  /** Ends every attachment of `owner` (its connection closed); resolves once their processes exited. */
  detachMcpServers(owner: McpAttachmentOwner): Promise<void> {
    return this.#attachedMcp.detach(owner)
  }

  // --- files (session-files.ts) ---------------------------------------------------------

  listSnapshots(params: { sessionId: string }): Promise<SnapshotEntry[]> {
    return this.#modules.files.listSnapshots(params)
  }

  /**
   * Rewinds the files this session changed after `seq`; refuses with `files-conflict` when
   * another writer changed them since (unless force). Recorded as a `files/restored` event
   * with its undo tree, the same from every client.
   */
  restore(params: SnapshotRestoreParams): Promise<SnapshotRestoreResult> {
    return this.#modules.files.restore(params)
  }

  /**
   * Undoes a restore: writes back what its paths held before it, refusing with
   * `files-conflict` when one changed since the restore (unless force).
   */
  undoRestore(params: SnapshotUndoRestoreParams): Promise<SnapshotRestoreResult> {
    return this.#modules.files.undoRestore(params)
  }

  // --- explore, board, keep (docs/architecture.md §13; explore.ts, board.ts, keep.ts) ---

  /** N branches from one fork point, run in parallel; answers once they are made and started. */
  explore(params: SessionExploreParams): Promise<SessionExploreResult> {
    this.#modules.access.assertWritable('explore')
    return this.#modules.explorations.explore(params)
  }

  board(params: SessionBoardParams): Promise<SessionBoardResult> {
    return this.#modules.board.board(params)
  }

  fileAcross(params: SessionFileAcrossParams): Promise<SessionFileAcrossResult> {
    return this.#modules.board.fileAcross(params)
  }

  /** Keeps a branch into the session it was forked from (keep.ts). */
  keep(params: SessionKeepParams): Promise<SessionKeepResult> {
    return this.#modules.keeping.keep(params)
  }

  // --- life cycle ----------------------------------------------------------------------

  /** Sessions with a running turn. */
  runningSessions(): string[] {
    return this.#modules.turns.running()
  }

  /** Resolves when every turn started through this runtime has ended. */
  async settled(): Promise<void> {
    await this.#modules.explorations.settled()
    await this.#modules.agents.settled()
  }

  /** Removes worktrees no session owns (a crash in the middle of a worktree fork). */
  reconcileWorktrees(startedAt: number, log: (message: string) => void): Promise<void> {
    return this.#modules.worktrees.reconcile(startedAt, log)
  }

  /**
   * Stops running turns (they end `interrupted`, a wait for approval too: nothing runs
   * unapproved), waits for them, flushes and closes the store. Idempotent.
   */
  close(options: { abort?: boolean } = {}): Promise<void> {
    this.#closing ??= (async () => {
      if (options.abort !== false) this.#modules.agents.abortAll({ interrupted: true })
      await this.#modules.agents.settled()
      await this.#modules.announcements.settled()
      this.#modules.announcements.unwire()
      // Hooks still running (a sessionStart, a fork's) end with Tangent, before their sandbox goes.
      await this.#modules.hooks.close()
      await this.mcp.close()
      await this.#modules.agentModule.dispose()
      await this.#modules.files.close()
      await this.#store.close()
    })()
    return this.#closing
  }
}
