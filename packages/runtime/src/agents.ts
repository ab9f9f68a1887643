// How a session's agent is made (docs/architecture.md §6, §9, §12.2): the agent's module (the agent
// loop, the AI SDK, tools, the MCP client, the OS sandbox) loads before the first agent or sandbox
// probe needs it, with the bash tool's sandbox; the standard agent takes file snapshots, the
// permission decider and what of the data directory no tool may write; each agent gets its
// session's flush, the `task` tool's delegate, the models, the MCP servers' tools and the file
// source a client attached to it (an editor's buffers).
import type { Agent, AgentOptions, BashSandbox, ToolCallHooks } from '@tangent/agent'
import {
  type BashSandboxStatus,
  loadBashGrammar,
  type ModelRegistry,
  type SandboxMode,
  sandboxStatusOf,
  userInstructionsPath,
} from '@tangent/agent/light'
import type { Session, SessionPersistence } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type { AgentFactory } from './agent-pool.js'
import type { AttachedMcpServers } from './attached-mcp-servers.js'
import type { ConfigFiles } from './config.js'
import type { FileSources } from './file-sources.js'
import { latestTree, skippedAt } from './fork-point.js'
import { headerMetaOf } from './header-meta.js'
import { filePathGuard, permissionDecider } from './permission-policy.js'
import { dataFilesOf, passEnvOf, type RuntimeOptions } from './runtime-options.js'
import type { HookRunner } from './session-hooks.js'
import type { Subagents } from './subagents.js'

type CreateAgent = NonNullable<RuntimeOptions['createAgent']>

export class AgentModule {
  readonly #mode: SandboxMode
  readonly #realHome: string
  readonly #closing: () => boolean
  /** The agent's module, loaded by load() before the first agent is made. */
  #module: typeof import('@tangent/agent') | null = null
  /** Null when the mode is `off`, and until the agent's module is loaded. */
  #bashSandbox: BashSandbox | null = null

  /** `realHome`: the data directory's real path, which the sandbox keeps from bash. */
  constructor(options: { mode: SandboxMode; realHome: string; closing: () => boolean }) {
    this.#mode = options.mode
    this.#realHome = options.realHome
    this.#closing = options.closing
  }

  /**
   * Loads the agent's module (the agent loop, the AI SDK, tools, the MCP client, the OS sandbox)
   * before the first agent or sandbox probe needs it; every later call returns at once.
   */
  async load(): Promise<void> {
    if (this.#module) return
    const agentModule = await import('@tangent/agent')
    if (this.#module) return
    this.#module = agentModule
    // The bash grammar (WASM, ~0.3–1.5 s to load) starts loading with the first agent, beside the
    // model's first call, so the first bash decision does not wait for it. The decider awaits the
    // same load and reports its failure there (it asks, with the reason): nothing is lost here.
    loadBashGrammar().catch(() => undefined)
    if (this.#mode !== 'off' && !this.#closing())
      this.#bashSandbox = new agentModule.BashSandbox({ dataDirectory: this.#realHome })
  }

  /**
   * Loads what a first turn loads (the agent's module, then the AI SDK its first model step
   * imports), converts the built-in tools' input schemas to the JSON Schema a step sends and runs
   * one step against a stand-in model (model-step.ts, warmModelStep), so a Host that warms at
   * start does not do this in the middle of the first turn, where each held its event loop
   * ~50–90 ms (issue 33).
   */
  async warm(): Promise<void> {
    await this.load()
    await this.loaded().loadModelSdk()
    await this.loaded().warmModelStep()
  }

  loaded(): typeof import('@tangent/agent') {
    if (!this.#module) throw new Error('internal: an agent was made before its module was loaded')
    return this.#module
  }

  /**
   * How the bash tool runs here (docs/architecture.md §12.2). The first call probes the machine
   * (one sandboxed `true`); the answer is kept.
   */
  async sandboxStatus(): Promise<BashSandboxStatus> {
    if (this.#mode !== 'off') await this.load()
    return sandboxStatusOf(this.#mode, this.#bashSandbox ? await this.#bashSandbox.probe() : null)
  }

  /** True when every bash command of this runtime runs in the OS sandbox (for approval policies). */
  async bashRunsSandboxed(): Promise<boolean> {
    return (await this.sandboxStatus()).bash === 'sandboxed'
  }

  /** The sandbox a new agent's bash tool runs in; undefined when off or not made. */
  bashSandbox(): AgentOptions['bashSandbox'] | undefined {
    return this.#bashSandbox && this.#mode !== 'off'
      ? { sandbox: this.#bashSandbox, mode: this.#mode }
      : undefined
  }

  /**
   * How hooks run (session-hooks.ts): in the bash tool's sandbox when bash runs sandboxed, refused
   * where bash is (the sandbox required and none here), unconfined otherwise. Loads the agent's module.
   */
  async hookRunner(): Promise<HookRunner> {
    const status = await this.sandboxStatus()
    const run = this.loaded().runHookCommand
    if (status.bash === 'refused')
      return {
        run,
        sandbox: null,
        refused: `hooks must run in an OS sandbox here (TANGENT_SANDBOX=required), and none is available: ${status.reason ?? 'unknown reason'}`,
      }
    const sandbox = status.bash === 'sandboxed' ? this.#bashSandbox : null
    return { run, sandbox, refused: null }
  }

  /** Disposes of the bash sandbox, if one was made (the runtime is closing). */
  dispose(): Promise<void> | undefined {
    return this.#bashSandbox?.dispose()
  }
}

/**
 * The standard agent: the agent module's Agent with file snapshots, the permission decider over
 * the config files, and the data directory protected.
 */
export function standardAgent(
  agentModule: AgentModule,
  options: {
    env: Record<string, string | undefined>
    defaultModel: string
    config: ConfigFiles
    realHome: string
    fileState: () => Promise<FileState>
  },
): CreateAgent {
  const { env, config, realHome, fileState } = options
  const permissions = permissionDecider(config, () => agentModule.bashRunsSandboxed())
  return (session, given) =>
    new (agentModule.loaded().Agent)({
      session,
      ...given,
      defaultModel: options.defaultModel,
      userInstructionsPath: userInstructionsPath(env),
      snapshot: async (live, written) => {
        const files = await fileState()
        if (written === undefined) return files.snapshot(live.header.cwd)
        // The step's tools named every file they wrote: only those are staged (§5).
        const tree = latestTree(live)
        const since = tree === null ? null : { tree, skipped: skippedAt(live, live.lastSeq) }
        return files.snapshotAfterWrites(live.header.cwd, written, since)
      },
      turnStartSnapshot: async (live) =>
        (await fileState()).snapshotTurnStart(live.header.cwd, latestTree(live)),
      permissions,
      // A session's folder may hold the data directory: no tool writes the logs (§12.2).
      protectedPaths: dataFilesOf(realHome),
      checkRealPath: filePathGuard(config, realHome),
      bashPassEnv: passEnvOf(env.TANGENT_BASH_PASS_ENV),
    })
}

/** Makes each session's agent with what the runtime gives every agent. */
export function agentFactory(
  createAgent: CreateAgent,
  runtime: {
    store: SessionPersistence
    models: ModelRegistry
    attachedMcp: AttachedMcpServers
    subagents: Subagents
    agentModule: AgentModule
    fileSources: FileSources
    /** Hooks around every agent's tool calls (docs/architecture.md §12.7). */
    toolCallHooks: ToolCallHooks
  },
): AgentFactory {
  const flushOf = (session: Session) => () => runtime.store.flush(session.id)
  return (session): Agent => {
    const bashSandbox = runtime.agentModule.bashSandbox()
    return createAgent(session, {
      flush: flushOf(session),
      delegate: runtime.subagents.delegateFor(session.id),
      models: runtime.models,
      // Config servers of its directory, and the servers clients attached to this session.
      toolSource: runtime.attachedMcp.toolSource(session.id, subagentParentOf(session)),
      fileSource: runtime.fileSources.sourceFor(session.id),
      hooks: runtime.toolCallHooks,
      ...(bashSandbox ? { bashSandbox } : {}),
    })
  }
}

/** The session a subagent session works for (its parent), or undefined for any other session. */
function subagentParentOf(session: Session): string | undefined {
  return headerMetaOf(session.header).subagentOf ? session.header.parentSession : undefined
}
