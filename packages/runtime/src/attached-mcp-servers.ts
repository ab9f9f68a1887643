// A client's own MCP servers for one session (docs/architecture.md §14.3, `session.attachMcpServers`):
// an editor gives them with each session it opens, and they join that session's tools for as long
// as the client stays (the Host: its WebSocket; in-process: until its SessionApi closes). They are
// held here in memory only — their env and headers carry secrets, so nothing of them reaches the
// log or a file — and they start, fail and stop like config servers (mcp-servers.ts does both).
import type { ToolSource } from '@tangent/agent'
import { defaultMcpStartTimeoutMs, mcpTransportOf } from '@tangent/agent/light'
import type { AttachedMcpServer, SessionAttachMcpServersResult } from '@tangent/protocol'
import { type McpServers, type ResolvedServer, serverKey } from './mcp-servers.js'

/** Who attached: the Host's connection, an in-process SessionApi. Compared by identity. */
export type McpAttachmentOwner = object

interface Attachment {
  /** Stays the same while this owner re-attaches to this session, so unchanged servers keep running. */
  id: number
  servers: ResolvedServer[]
}

/** How config lines name the servers a client attached (the report's `MCP server "x" (…)`). */
export const attachedSource = 'attached by a client'

export class AttachedMcpServers {
  readonly #mcp: McpServers
  readonly #report: (line: string) => void
  /** Per session: each owner's attachment, in the order attached (a later one wins a name). */
  readonly #sessions = new Map<string, Map<McpAttachmentOwner, Attachment>>()
  /** A subagent session → the session it works for, whose attached servers it uses too. */
  readonly #inherits = new Map<string, string>()
  #nextId = 1

  constructor(options: { mcp: McpServers; report: (line: string) => void }) {
    this.#mcp = options.mcp
    this.#report = options.report
  }

  /**
   * Sets `owner`'s servers for the session, replacing what it attached before: servers whose spec
   * did not change keep running, the others are stopped. `servers: []` detaches. The params are
   * validated (the protocol schema) before they get here.
   */
  async attach(options: {
    sessionId: string
    cwd: string
    servers: readonly AttachedMcpServer[]
    owner: McpAttachmentOwner
  }): Promise<SessionAttachMcpServersResult> {
    const { sessionId, cwd, servers, owner } = options
    const attachments = this.#sessions.get(sessionId) ?? new Map<McpAttachmentOwner, Attachment>()
    const previous = attachments.get(owner)
    attachments.delete(owner)
    if (servers.length === 0) {
      if (attachments.size === 0) this.#sessions.delete(sessionId)
      if (previous) await this.#mcp.release(previous.id)
      return { attached: [], shadowed: [] }
    }
    const id = previous?.id ?? this.#nextId++
    const resolved = servers.map((server) => resolvedOf(server, cwd, id))
    attachments.set(owner, { id, servers: resolved })
    this.#sessions.set(sessionId, attachments)
    if (previous) {
      const keys = new Set(resolved.map(serverKey))
      await this.#mcp.release(id, (server) => keys.has(serverKey(server)))
    }
    const names = new Set(servers.map((server) => server.name))
    const shadowed = (await this.#mcp.list(cwd))
      .filter((listed) => names.has(listed.name))
      .map((listed) => ({ name: listed.name, source: listed.source }))
    // Said once per name while this owner keeps it attached (an editor re-attaches on every load).
    const before = new Set(previous?.servers.map((server) => server.name))
    for (const { name, source } of shadowed.filter((shadow) => !before.has(shadow.name)))
      this.#report(
        `MCP server "${name}" of ${source} is not used in session ${sessionId}: a client attached a server of that name.`,
      )
    return { attached: [...names], shadowed }
  }

  /** Ends every attachment of `owner` (its connection closed), once their processes have exited. */
  async detach(owner: McpAttachmentOwner): Promise<void> {
    const released: Promise<void>[] = []
    for (const [sessionId, attachments] of this.#sessions) {
      const attachment = attachments.get(owner)
      if (!attachment) continue
      attachments.delete(owner)
      if (attachments.size === 0) this.#sessions.delete(sessionId)
      released.push(this.#mcp.release(attachment.id))
    }
    await Promise.all(released)
  }

  /** A deleted session: its attachments end. */
  async dropSession(sessionId: string): Promise<void> {
    const attachments = this.#sessions.get(sessionId)
    this.#sessions.delete(sessionId)
    this.#inherits.delete(sessionId)
    this.#mcp.forget(missingKeyOf(sessionId))
    await Promise.all(
      [...(attachments?.values() ?? [])].map((attachment) => this.#mcp.release(attachment.id)),
    )
  }

  /**
   * The servers attached to a session, by name — a subagent's are those of the session it works
   * for (through every level), then its own; a later attachment wins a name.
   */
  serversOf(sessionId: string): ResolvedServer[] {
    const byName = new Map<string, ResolvedServer>()
    // Oldest first, so a subagent's own attachment wins a name over its parent's.
    const lineage = [sessionId]
    for (let parent = this.#inherits.get(sessionId); parent !== undefined && !lineage.includes(parent); ) {
      lineage.unshift(parent)
      parent = this.#inherits.get(parent)
    }
    for (const id of lineage)
      for (const attachment of this.#sessions.get(id)?.values() ?? [])
        for (const server of attachment.servers) byName.set(server.name, server)
    return [...byName.values()]
  }

  /**
   * The tools of one session's agent: the config servers of its directory and its attached
   * servers. A subagent (`subagentOf`, its parent given) has its parent's too, the same processes.
   */
  toolSource(sessionId: string, subagentOf?: string): ToolSource {
    if (subagentOf !== undefined) this.#inherits.set(sessionId, subagentOf)
    const missingKey = missingKeyOf(sessionId)
    return {
      tools: (cwd, signal) =>
        this.#mcp.toolsWith({ cwd, signal, attached: this.serversOf(sessionId), missingKey }),
      explainMissing: (toolName) => this.#mcp.explainMissing(toolName, missingKey),
    }
  }
}

/** Never a directory (those are absolute paths): the two kinds of key cannot meet. */
function missingKeyOf(sessionId: string): string {
  return `session:${sessionId}`
}

function resolvedOf(attached: AttachedMcpServer, cwd: string, attachment: number): ResolvedServer {
  const { name, ...server } = attached
  return {
    name,
    transport: mcpTransportOf(server),
    source: attachedSource,
    scope: 'client',
    enabled: true,
    server,
    // A stdio server runs in the session's directory (a client names no folder of its own).
    workingDirectory: cwd,
    startTimeoutMs: defaultMcpStartTimeoutMs,
    attachment,
  }
}
