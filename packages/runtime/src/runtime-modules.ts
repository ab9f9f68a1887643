// How the runtime's capability modules are wired (docs/architecture.md §1): each is handed what it
// depends on, explicitly; one that needs a module made after it gets a function that reaches it
// once everything is made. The `Runtime` facade hands each public operation to one of them.

import type { ModelRegistry } from '@tangent/agent/light'
import type { SessionPersistence } from '@tangent/core'
import { AgentPool } from './agent-pool.js'
import { AgentModule, agentFactory, standardAgent } from './agents.js'
import { Announcements } from './announcements.js'
import type { AttachedMcpServers } from './attached-mcp-servers.js'
import { Board } from './board.js'
import type { SessionBundles } from './bundle.js'
import type { ConfigFiles } from './config.js'
import { SessionDeletion } from './delete-session.js'
import { Explorations } from './explore.js'
import { FileSources } from './file-sources.js'
import { Forks } from './forks.js'
import type { TreeImports } from './imports/import-tree.js'
import { Keeping } from './keep.js'
import type { McpServers } from './mcp-servers.js'
import type { RuntimeEmitter } from './runtime-events.js'
import { dataFilesOf, type RuntimeOptions, sandboxModeOf } from './runtime-options.js'
import { runtimeVersion } from './runtime-support.js'
import { SessionBusy } from './session-busy.js'
import { SessionFiles } from './session-files.js'
import { hookEnvironment, SessionHooks } from './session-hooks.js'
import { SessionWorktrees } from './session-worktrees.js'
import { Sessions } from './sessions.js'
import { Subagents, subagentLimitsOf } from './subagents.js'
import { Turns } from './turns.js'
import { WorkspaceFolders } from './workspace-folders.js'
import type { WorkspaceRegistry } from './workspaces.js'
import { WriteAccess } from './write-access.js'

/** What the facade made before the modules: its options, identity, store and shared services. */
export interface RuntimeContext {
  options: RuntimeOptions
  env: Record<string, string | undefined>
  home: string
  /** The data directory with symlinks resolved, as session directories are. */
  realHome: string
  homeDir: string
  startFolder: string
  readOnly: boolean
  machine: string
  defaultModel: string
  store: SessionPersistence
  workspaces: WorkspaceRegistry
  emitter: RuntimeEmitter
  models: ModelRegistry
  config: ConfigFiles
  mcp: McpServers
  attachedMcp: AttachedMcpServers
  report: (error: unknown) => void
  /** Whether the runtime began to close (no bash sandbox is made then). */
  closing: () => boolean
}

export interface RuntimeModules {
  hooks: SessionHooks
  access: WriteAccess
  folders: WorkspaceFolders
  sessions: Sessions
  announcements: Announcements
  forks: Forks
  files: SessionFiles
  worktrees: SessionWorktrees
  agentModule: AgentModule
  fileSources: FileSources
  agents: AgentPool
  turns: Turns
  explorations: Explorations
  board: Board
  keeping: Keeping
  deletion: SessionDeletion
  /**
   * Made on first use, their modules loaded then: only import, export and migrate run them, and
   * every command loads what the runtime imports statically (docs/benchmarks.md, issue 33, stop 21).
   */
  bundles: () => Promise<SessionBundles>
  imports: () => Promise<TreeImports>
}

/** `make` once, on the first call; every call gets its promise. */
function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined
  return () => {
    made ??= make()
    return made
  }
}

export function composeRuntime(context: RuntimeContext): RuntimeModules {
  const { options, env, store, realHome, report, emitter, models } = context
  const registry = context.workspaces
  // Which sessions and directories are busy with an operation that must not overlap a turn.
  const busy = new SessionBusy(store.store)
  const access = new WriteAccess({
    store,
    busy,
    home: context.home,
    readOnly: context.readOnly,
    machine: context.machine,
    runsHere: (sessionId) => agents.get(sessionId)?.running === true,
    report,
  })
  const load = (sessionId: string) => sessions.load(sessionId)
  const summary = (sessionId: string) => sessions.summary(sessionId)
  const fileState = () => files.state()
  const announce = (sessionId: string, name: 'session-created' | 'session-updated') =>
    announcements.announce(sessionId, name)

  // Sessions, their folders and files, and what is announced of them.
  const files = new SessionFiles({
    home: context.home,
    store,
    access,
    busy,
    load,
    report,
    watch: context.options.watchFiles === true && !context.readOnly,
  })
  const folders = new WorkspaceFolders({
    registry,
    store,
    access,
    announce,
    homeDir: context.homeDir,
    startFolder: context.startFolder,
    realHome,
  })
  // Hooks on the session's life (§12.7): the agent's module, with the bash sandbox, loads on the first hook.
  const hooks = new SessionHooks({
    config: context.config,
    report: (line) => report(line),
    environment: hookEnvironment(env, context.homeDir),
    runner: () => agentModule.hookRunner(),
    protectedPaths: dataFilesOf(realHome),
    closing: context.closing,
  })
  const sessions = new Sessions({
    hooks,
    store,
    access,
    busy,
    emitter,
    registry,
    folders,
    models,
    defaultModel: context.defaultModel,
    startFolder: context.startFolder,
    machine: context.machine,
    fileState,
  })
  const forks = new Forks({
    hooks,
    store,
    access,
    registry,
    load,
    summary,
    fileState,
    machine: context.machine,
    // A folder a client names for a worktree: never inside the data directory (§7).
    realFolder: async (named) => {
      const real = await folders.real(named)
      folders.assertOutsideData(real)
      return real
    },
  })
  const announcements = new Announcements({
    store,
    emitter,
    load,
    summaryOf: (entry, live) => sessions.summaryOf(entry, live),
    onRemoteDelete: (sessionId) => forks.forget(sessionId),
    report,
  })
  const worktrees = new SessionWorktrees({ store, load, fileState })

  // Agents and their turns.
  const agentModule = new AgentModule({
    mode: options.sandbox ?? sandboxModeOf(env.TANGENT_SANDBOX, report),
    realHome,
    closing: context.closing,
  })
  const subagents = new Subagents(
    {
      load,
      fork: async ({ sessionId, boundary, files, title, subagentOf }) =>
        (await forks.forkAt({ sessionId, files, title }, { subagentOf }, boundary)).childId,
      prompt: (sessionId, text) => turns.promptSubagent(sessionId, text),
      abort: (sessionId) => void agents.get(sessionId)?.abort(),
    },
    subagentLimitsOf(env, options.subagents),
  )
  const createAgent =
    options.createAgent ??
    standardAgent(agentModule, {
      env,
      defaultModel: context.defaultModel,
      config: context.config,
      realHome,
      fileState,
    })
  const fileSources = new FileSources({ timeoutMs: options.fileSourceTimeoutMs })
  const agents = new AgentPool(
    agentFactory(createAgent, {
      store,
      models,
      attachedMcp: context.attachedMcp,
      subagents,
      agentModule,
      fileSources,
      toolCallHooks: hooks.toolCallHooks,
    }),
    (sessionId, delta) => announcements.onDelta(sessionId, delta),
  )
  const turns = new Turns({
    hooks,
    store,
    access,
    busy,
    agents,
    agentModule,
    load,
    summary,
    checkTimeoutMs: Number(env.TANGENT_CHECK_TIMEOUT_MS) || 10 * 60_000,
  })

  // Explore, board and keep (docs/architecture.md §13), and delete.
  const explorations = new Explorations({
    load,
    fork: (params, meta) => forks.fork(params, meta),
    setModel: (params) => turns.setModel(params),
    validateModel: (id) => {
      sessions.validateModel(id)
    },
    prompt: (params) => turns.prompt(params),
    summary: (sessionId) => sessions.summary(sessionId),
    record: (session, type, data) =>
      access.claimed(session.id, async () => {
        session.append(type, data)
        await store.flush(session.id)
      }),
    report,
  })
  const board = new Board({ store, sessions, fileState })
  const keeping = new Keeping({ store, access, busy, sessions, files, worktrees, announce, hooks })
  const deletion = new SessionDeletion({
    store,
    access,
    busy,
    load,
    agents,
    forks,
    announcements,
    emitter,
    worktrees,
    folders,
    realHome,
    fileState,
  })
  const bundles = onFirstUse(
    async () =>
      new (await import('./bundle.js')).SessionBundles({
        store,
        access,
        busy,
        load,
        version: runtimeVersion,
        machine: context.machine,
      }),
  )
  // Sessions from other agents' files (imports/): made like creates and forks, flushed before they answer.
  const imports = onFirstUse(
    async () =>
      new (await import('./imports/import-tree.js')).TreeImports({
        store,
        access,
        folders,
        registry,
        defaultModel: context.defaultModel,
        startFolder: context.startFolder,
        machine: context.machine,
        load,
      }),
  )
  announcements.wire()
  return {
    hooks,
    imports,
    access,
    folders,
    sessions,
    announcements,
    forks,
    files,
    worktrees,
    agentModule,
    fileSources,
    agents,
    turns,
    explorations,
    board,
    keeping,
    deletion,
    bundles,
  }
}
