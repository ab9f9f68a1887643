// The MCP servers of a runtime (docs/architecture.md §14.3): read from the config files that apply
// in a session's directory, started lazily on the first turn that asks for tools, one connection
// per server and directory, shared by the sessions there, closed with the runtime. A project's
// servers run only when the user config trusts project servers: a repository must not start
// processes on its own. Failures reach the user as one line each and the model as error results.
// A client's own servers (attached-mcp-servers.ts) start and fail here the same way, for one session.
import path from 'node:path'
import type { AgentToolSet, McpConnection, ToolSource } from '@tangent/agent'
import {
  defaultMcpStartTimeoutMs,
  type McpServerConfig,
  mcpServerOfToolName,
  mcpTransportOf,
} from '@tangent/agent/light'
import { type ConfigFiles, type LoadedConfig, projectFolder, trustsProjectFolder } from './config.js'
import { stdioCommandProblem } from './mcp-command-check.js'

/** A configured server as `tangent doctor` lists it: nothing is started to list it. */
export interface McpServerListing {
  name: string
  transport: 'stdio' | 'http'
  /** The config file that names it. */
  source: string
  /** `client`: attached to one session by a client (an editor), for as long as it stays connected. */
  scope: 'user' | 'project' | 'client'
  /** False for a project server the user config does not trust, or a `disabled` one. */
  enabled: boolean
  /** Why it is not enabled. */
  note?: string
  /** Why an enabled server would not start, found without starting it (a stdio command not on PATH). */
  problem?: string
}

export interface ResolvedServer extends McpServerListing {
  server: McpServerConfig
  workingDirectory: string
  startTimeoutMs?: number
  callTimeoutMs?: number
  /** A client's attachment this server belongs to (its connections end with it: release()). */
  attachment?: number
}

interface Entry {
  attachment?: number
  /** An attachment's server as it was started (release() asks whether it stays). */
  resolved?: ResolvedServer
  /** Ended by release(): a start it cut short is not a failure to report. */
  released?: boolean
  /** The tools once started; rejects with the reason it did not start. */
  tools: Promise<AgentToolSet>
  connection: McpConnection
  failedAt?: number
}

/** A server that failed to start is tried again on a turn at least this long after. */
const retryAfterMs = 30_000

export class McpServers implements ToolSource {
  readonly #config: ConfigFiles
  readonly #report: (line: string) => void
  readonly #entries = new Map<string, Entry>()
  /** Every connection made and not yet closed, replaced ones too: close() ends them all. */
  readonly #connections = new Set<McpConnection>()
  /** Attachments released: none of their servers starts again. */
  readonly #released = new Set<number>()
  /** Per session directory (or session, for a session's own source): servers whose tools are missing this turn, and why. */
  readonly #missing = new Map<string, Map<string, string>>()
  /** Lines already reported that would otherwise repeat every turn (untrusted servers, bad config). */
  readonly #reported = new Set<string>()
  #closed = false

  readonly #env: Record<string, string | undefined>

  /** `env`: Tangent's environment, whose PATH a stdio server is started with unless its own `env` sets one. */
  constructor(options: {
    config: ConfigFiles
    report: (line: string) => void
    env: Record<string, string | undefined>
  }) {
    this.#config = options.config
    this.#report = options.report
    this.#env = options.env
  }

  /** The servers that apply in `cwd`: the user's, then the project's (which win by name when trusted). */
  async list(cwd: string): Promise<McpServerListing[]> {
    return (await this.#resolve(cwd)).map((server) => {
      const problem = server.enabled ? this.#problemOf(server) : null
      return {
        name: server.name,
        transport: server.transport,
        source: server.source,
        scope: server.scope,
        enabled: server.enabled,
        ...(server.note ? { note: server.note } : {}),
        ...(problem ? { problem } : {}),
      }
    })
  }

  #problemOf(resolved: ResolvedServer): string | null {
    const server = resolved.server
    if (!('command' in server)) return null
    return stdioCommandProblem({
      command: server.command,
      cwd: path.resolve(resolved.workingDirectory, server.cwd ?? '.'),
      searchPath: server.env?.PATH ?? this.#env.PATH,
    })
  }

  tools(cwd: string, signal: AbortSignal): Promise<AgentToolSet> {
    return this.toolsWith({ cwd, signal, attached: [], missingKey: cwd })
  }

  /**
   * The tools of the config servers of `cwd` and of `attached` (a session's client servers, which
   * hide config servers of their names). `missingKey` is what explainMissing is later asked with.
   */
  async toolsWith(options: {
    cwd: string
    signal: AbortSignal
    attached: readonly ResolvedServer[]
    missingKey: string
  }): Promise<AgentToolSet> {
    const { cwd, signal, attached, missingKey } = options
    if (this.#closed) return {}
    const hidden = new Set(attached.map((server) => server.name))
    const configured = [
      ...(await this.#resolve(cwd)).filter((server) => !hidden.has(server.name)),
      ...attached.filter((server) => !this.#released.has(server.attachment ?? -1)),
    ]
    const servers = configured.filter((server) => server.enabled)
    const missing = new Map<string, string>()
    for (const server of configured)
      if (!server.enabled) missing.set(server.name, server.note ?? 'not started')
    this.#missing.set(missingKey, missing)
    // The MCP client comes with the agent's module, loaded when a turn first needs it (§9, start-up).
    const Connection = servers.length > 0 ? (await import('@tangent/agent')).McpConnection : null
    const sets = servers.map(async (server) => {
      try {
        return await this.#start(server, Connection as typeof McpConnection)
      } catch (error) {
        missing.set(server.name, error instanceof Error ? error.message : String(error))
        return {}
      }
    })
    // An abort does not wait for servers still starting: they keep starting for the next turn.
    const aborted = new Promise<AgentToolSet[]>((resolve) => {
      if (signal.aborted) resolve([])
      signal.addEventListener('abort', () => resolve([]), { once: true })
    })
    const ready = await Promise.race([Promise.all(sets), aborted])
    return Object.assign({}, ...ready)
  }

  /** `key`: the cwd given to tools(), or the `missingKey` given to toolsWith(). */
  explainMissing(toolName: string, key: string): string | undefined {
    const server = mcpServerOfToolName(toolName)
    const why = server === null ? undefined : this.#missing.get(key)?.get(server)
    return why === undefined
      ? undefined
      : `MCP server "${server}" is not available: ${why}. The tool did not run.`
  }

  /**
   * Stops every server it started, whatever its state (starting, failed, running, replaced), and
   * resolves once their processes have exited: a server stops with Tangent (§14.3).
   */
  async close(): Promise<void> {
    this.#closed = true
    this.#entries.clear()
    const connections = [...this.#connections]
    this.#connections.clear()
    await Promise.all(connections.map((connection) => connection.close()))
  }

  /** Forgets what toolsWith() noted under `missingKey` (a session that went). */
  forget(missingKey: string): void {
    this.#missing.delete(missingKey)
  }

  /**
   * Ends the connections of a client's attachment's servers — all of them, or those whose key
   * `keep` refuses — and resolves once their processes have exited. Without `keep` the attachment
   * is over: none of its servers starts again.
   */
  async release(attachment: number, keep?: (server: ResolvedServer) => boolean): Promise<void> {
    if (!keep) this.#released.add(attachment)
    const ended: McpConnection[] = []
    for (const [key, entry] of this.#entries) {
      if (entry.attachment !== attachment) continue
      if (keep && entry.resolved && keep(entry.resolved)) continue
      this.#entries.delete(key)
      entry.released = true
      ended.push(entry.connection)
    }
    await Promise.all(
      ended.map(async (connection) => {
        await connection.close()
        this.#connections.delete(connection)
      }),
    )
  }

  #start(server: ResolvedServer, Connection: typeof McpConnection): Promise<AgentToolSet> {
    // Closed while this turn resolved its servers, or its attachment released: nothing may start.
    if (this.#closed || (server.attachment !== undefined && this.#released.has(server.attachment)))
      return Promise.resolve({})
    const key = serverKey(server)
    const existing = this.#entries.get(key)
    // Running, starting, or failed recently: as it is. Stopped on its own, or failed long ago: again.
    const failedLongAgo = existing?.failedAt !== undefined && Date.now() - existing.failedAt >= retryAfterMs
    if (existing && !failedLongAgo && (existing.failedAt !== undefined || !existing.connection.stopped))
      return existing.tools
    const label = `MCP server "${server.name}" (${server.source})`
    const connection = new Connection({
      name: server.name,
      server: server.server,
      workingDirectory: server.workingDirectory,
      ...(server.startTimeoutMs !== undefined ? { startTimeoutMs: server.startTimeoutMs } : {}),
      ...(server.callTimeoutMs !== undefined ? { callTimeoutMs: server.callTimeoutMs } : {}),
      onStopped: (why) => this.#report(`${label} stopped: ${why}; it restarts on the next turn.`),
    })
    if (existing) this.#retire(existing.connection)
    this.#connections.add(connection)
    const entry: Entry = {
      connection,
      tools: connection.start(),
      ...(server.attachment !== undefined ? { attachment: server.attachment, resolved: server } : {}),
    }
    entry.tools.catch((error: unknown) => {
      entry.failedAt = Date.now()
      // Ended by release() while it started (its client went): nobody is to be told.
      if (entry.released) return
      const why = error instanceof Error ? error.message : String(error)
      this.#report(
        `${label} did not start: ${why}. Its tools are unavailable; it is tried again on a later turn.`,
      )
    })
    this.#entries.set(key, entry)
    return entry.tools
  }

  /** A connection replaced by a new one: ended (a failed start may still be ending it), then forgotten. */
  #retire(connection: McpConnection): void {
    void connection.close().then(() => this.#connections.delete(connection))
  }

  async #resolve(cwd: string): Promise<ResolvedServer[]> {
    const [user, project] = await Promise.all([
      this.#read(() => this.#config.user()),
      this.#read(() => this.#config.project(cwd)),
    ])
    const byName = new Map<string, ResolvedServer>()
    for (const server of serversOf(user, 'user', cwd)) byName.set(server.name, server)
    const projectServers = serversOf(project, 'project', project ? projectFolder(project.path) : cwd)
    const trusted =
      project !== null &&
      trustsProjectFolder(user?.config.mcp?.trustProjectServers, projectFolder(project.path))
    const untrusted: string[] = []
    for (const server of projectServers) {
      if (!trusted) {
        untrusted.push(server.name)
        server.enabled = false
        server.note = 'a project server: not started until the user config trusts project servers'
        if (byName.has(server.name)) continue
      }
      byName.set(server.name, server)
    }
    if (untrusted.length > 0 && project) {
      this.#reportOnce(
        `MCP servers ${untrusted.map((name) => `"${name}"`).join(', ')} of ${project.path} are not started: ` +
          `add "mcp": {"trustProjectServers": ["${projectFolder(project.path)}"]} to the user config to allow them.`,
      )
    }
    return [...byName.values()]
  }

  /** A config that cannot be read starts no servers (its tool calls are denied by the policy). */
  async #read(load: () => Promise<LoadedConfig | null>): Promise<LoadedConfig | null> {
    try {
      return await load()
    } catch (error) {
      this.#reportOnce(`MCP servers not started: ${error instanceof Error ? error.message : String(error)}`)
      return null
    }
  }

  #reportOnce(line: string): void {
    if (this.#reported.has(line)) return
    this.#reported.add(line)
    this.#report(line)
  }
}

function serversOf(
  loaded: LoadedConfig | null,
  scope: 'user' | 'project',
  workingDirectory: string,
): ResolvedServer[] {
  const mcp = loaded?.config.mcp
  if (!loaded || !mcp?.servers) return []
  return Object.entries(mcp.servers).map(([name, server]) => ({
    name,
    transport: mcpTransportOf(server),
    source: loaded.path,
    scope,
    enabled: server.disabled !== true,
    ...(server.disabled ? { note: 'disabled in its config' } : {}),
    server,
    workingDirectory,
    startTimeoutMs: server.startTimeoutMs ?? mcp.startTimeoutMs ?? defaultMcpStartTimeoutMs,
    ...((server.callTimeoutMs ?? mcp.callTimeoutMs)
      ? { callTimeoutMs: server.callTimeoutMs ?? mcp.callTimeoutMs }
      : {}),
  }))
}

/** One connection per server, file (or attachment), directory and spec: an edited spec is a new one. */
export function serverKey(server: ResolvedServer): string {
  return JSON.stringify([
    server.source,
    server.attachment,
    server.name,
    server.workingDirectory,
    server.server,
  ])
}

/** The folder holding `.tangent/config.json`. */
