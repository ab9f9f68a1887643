// One MCP server, connected through the SDK's client (docs/architecture.md §14.3): started with a
// time limit, its tools listed as AgentTools, each call limited in time and stopped on abort. A
// server that fails, hangs or dies becomes an error the caller can show: nothing here waits forever.
import path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { AgentTool, AgentToolSet, ToolOutcome } from '../tools/agent-tool.js'
import {
  defaultMcpCallTimeoutMs,
  defaultMcpStartTimeoutMs,
  type McpServerConfig,
  mcpTransportOf,
} from './mcp-server-config.js'
import type { McpStdioTransport } from './mcp-stdio-transport.js'
import { mcpToolName } from './mcp-tool-name.js'

export interface McpConnectionOptions {
  /** The server's name in the config (the `<server>` of `mcp__<server>__<tool>`). */
  name: string
  server: McpServerConfig
  /** Where a stdio server runs (its `cwd` is relative to this). */
  workingDirectory: string
  /** Called once when a started server stops on its own (it exited, the connection broke). */
  onStopped?: (message: string) => void
  startTimeoutMs?: number
  callTimeoutMs?: number
  /** The client's version in `initialize`. */
  clientVersion?: string
}

/** MCP arguments are an object; the server validates them against the schema it published. */
const McpArguments = z.record(z.string(), z.unknown())

/**
 * The MCP SDK is loaded by the first server that starts, not on import: with its JSON Schema
 * validator it is ~120 modules, and a process that starts no server (`tangent show`) needs none.
 */
async function mcpClientLibrary() {
  const [client, stdio, http, own] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('./mcp-stdio-transport.js'),
  ])
  return {
    Client: client.Client,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    McpStdioTransport: own.McpStdioTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
  }
}
type McpClientLibrary = Awaited<ReturnType<typeof mcpClientLibrary>>
const stderrTailLines = 5

export class McpConnection {
  readonly name: string
  readonly #options: McpConnectionOptions
  /** Made by start(), once the SDK is loaded. */
  #client: Client | null = null
  /** A stdio server's process, which close() ends and waits for. */
  #stdio: McpStdioTransport | null = null
  #stderrTail: string[] = []
  #stopped: string | null = null
  #closing = false
  #closed: Promise<void> | null = null
  #started = false

  constructor(options: McpConnectionOptions) {
    this.name = options.name
    this.#options = options
  }

  get transport(): 'stdio' | 'http' {
    return mcpTransportOf(this.#options.server)
  }

  /** Why the server is no longer usable, or null while it runs. */
  get stopped(): string | null {
    return this.#stopped
  }

  /**
   * Starts (or connects to) the server and lists its tools, within the start timeout (20 s by
   * default). Throws an Error whose message says what went wrong; the process is then stopped.
   */
  async start(): Promise<AgentToolSet> {
    const timeout = this.#options.startTimeoutMs ?? defaultMcpStartTimeoutMs
    const timer = AbortSignal.timeout(timeout)
    try {
      const library = await mcpClientLibrary()
      if (this.#closing) throw new Error(this.#stopped ?? 'closed by Tangent')
      const client = new library.Client({ name: 'tangent', version: this.#options.clientVersion ?? '0.1.0' })
      this.#client = client
      const transport = this.#transport(library)
      client.onclose = () => this.#onClose()
      await client.connect(transport, { timeout, signal: timer })
      const listed = await client.listTools(undefined, { timeout, signal: timer })
      this.#started = true
      return this.#toolSet(listed.tools)
    } catch (error) {
      // close() during the start: the SDK's "Connection closed" would hide who closed it.
      const closedByTangent = this.#closing
      await this.close()
      const why = timer.aborted
        ? `no answer within ${timeout} ms`
        : closedByTangent
          ? 'closed by Tangent'
          : messageOf(error)
      throw new Error(this.#withStderr(why))
    }
  }

  /** Calls one tool; failures (timeout, a server that died, an MCP error) are error outcomes. */
  async call(tool: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
    const client = this.#client
    if (this.#stopped || !client)
      return { output: this.#unavailable(this.#stopped ?? 'it has not started'), isError: true }
    const timeout = this.#options.callTimeoutMs ?? defaultMcpCallTimeoutMs
    try {
      const result = (await client.callTool({ name: tool, arguments: input }, undefined, {
        signal,
        timeout,
      })) as CallToolResult
      return { output: resultText(result), isError: result.isError === true }
    } catch (error) {
      if (signal.aborted) throw error
      if (this.#stopped) return { output: this.#unavailable(this.#stopped), isError: true }
      const timedOut = /timed out|RequestTimeout/i.test(messageOf(error))
      const why = timedOut ? `no answer within ${timeout} ms` : messageOf(error)
      return { output: `MCP server "${this.name}" failed to run ${tool}: ${why}`, isError: true }
    }
  }

  /** A stdio server's process id once spawned (tests and diagnostics). */
  get pid(): number | undefined {
    return this.#stdio?.pid
  }

  /**
   * Stops the server and resolves once a stdio server's process has exited (§14.3: a server
   * stops with Tangent). Idempotent: every caller, start()'s failure path included, awaits the
   * same end.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close()
    return this.#closed
  }

  async #close(): Promise<void> {
    this.#closing = true
    this.#stopped ??= 'closed by Tangent'
    await this.#client?.close().catch(() => {
      // Closing a transport that never started (or already broke) has nothing left to stop.
    })
    // The client had no transport yet (closed while the SDK loaded), or its close failed early.
    await this.#stdio?.close()
  }

  #transport(library: McpClientLibrary): Transport {
    const server = this.#options.server
    if ('url' in server) {
      return new library.StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: server.headers ?? {} },
      })
    }
    const transport = new library.McpStdioTransport({
      command: server.command,
      args: server.args ?? [],
      env: { ...library.getDefaultEnvironment(), ...server.env },
      cwd: path.resolve(this.#options.workingDirectory, server.cwd ?? '.'),
    })
    this.#stdio = transport
    // The last lines the server wrote to stderr explain most failures; the rest is dropped.
    transport.stderr.on('data', (chunk: Buffer) => {
      const lines = chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
      this.#stderrTail = [...this.#stderrTail, ...lines].slice(-stderrTailLines)
    })
    return transport
  }

  #toolSet(tools: readonly ListedTool[]): AgentToolSet {
    const set: AgentToolSet = {}
    for (const listed of tools) {
      const name = mcpToolName(this.name, listed.name)
      if (set[name]) continue // two tool names that differ only in characters providers refuse
      const agentTool: AgentTool<Record<string, unknown>> = {
        description: listed.description ?? listed.title ?? `${listed.name} (MCP server ${this.name})`,
        inputSchema: McpArguments,
        inputJsonSchema: listed.inputSchema,
        run: (input, context) => this.call(listed.name, input, context.signal),
      }
      set[name] = agentTool as AgentTool
    }
    return set
  }

  #onClose(): void {
    if (this.#stopped) return
    this.#stopped = this.#withStderr('the server stopped')
    // Before it started, start() throws instead: one failure, one line.
    if (this.#started && !this.#closing) this.#options.onStopped?.(this.#stopped)
  }

  #withStderr(why: string): string {
    const tail = this.#stderrTail.at(-1)
    return tail ? `${why} (stderr: ${tail.trim().slice(0, 300)})` : why
  }

  #unavailable(why: string): string {
    return `MCP server "${this.name}" is not available: ${why}. The tool did not run.`
  }
}

type ListedTool = Awaited<ReturnType<Client['listTools']>>['tools'][number]

/** The text the model reads: text parts as they are, other parts named, structured content as JSON. */
function resultText(result: CallToolResult): string {
  const parts: string[] = []
  for (const part of result.content ?? []) {
    if (part.type === 'text') parts.push(part.text)
    else if (part.type === 'image' || part.type === 'audio')
      parts.push(`[${part.type} ${part.mimeType}, ${part.data.length} base64 characters]`)
    else if (part.type === 'resource')
      parts.push('text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`)
    else if (part.type === 'resource_link') parts.push(`[resource link ${part.uri}]`)
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent))
  return parts.join('\n') || '(no output)'
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
