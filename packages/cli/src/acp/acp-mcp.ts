// The editor's MCP servers (ACP `mcpServers` of session/new, load, resume and fork) as Tangent
// attaches them to a session (docs/protocol.md `session.attachMcpServers`, docs/architecture.md
// §14.3): stdio and Streamable HTTP servers; SSE and ACP-channel servers are refused, as the
// capabilities below say. An editor names servers as its user likes ("Brave Search"): names become
// Tangent's (`[A-Za-z0-9_-]`, 1–32, no `__`), because they are part of the tools' names.
import * as acp from '@agentclientprotocol/sdk/unstable'
import { AttachedMcpServer } from '@tangent/protocol'
import type { AttachedMcpServer as AttachedMcpServerType } from '../backend.js'

/** `agentCapabilities.mcpCapabilities` in `initialize`: what attachedMcpServersOf takes. */
export const acpMcpCapabilities: acp.McpCapabilities = { http: true, sse: false }

/**
 * The servers to give `Backend.attachMcpServers`. Throws `invalidParams` (-32602) for a server
 * Tangent cannot take — an SSE or ACP transport, a URL that is not http(s), a part too large —
 * naming it; nothing is attached then.
 */
export function attachedMcpServersOf(
  servers: readonly acp.McpServer[] | null | undefined,
): AttachedMcpServerType[] {
  const taken = new Set<string>()
  return (servers ?? []).map((server, index) => {
    const name = uniqueName(tangentServerName(server.name), taken)
    const where = `mcpServers[${index}] ("${String(server.name).slice(0, 100)}")`
    let attached: unknown
    if ('type' in server && server.type === 'http') {
      attached = { name, url: server.url, headers: lastWins(server.headers) }
    } else if ('type' in server && (server.type === 'sse' || server.type === 'acp')) {
      throw acp.RequestError.invalidParams(
        { mcpServers: index, type: server.type },
        `${where}: Tangent speaks to MCP servers over stdio and Streamable HTTP ("type": "http"), not ${server.type}.`,
      )
    } else if ('command' in server) {
      attached = {
        name,
        command: server.command,
        args: server.args ?? [],
        env: lastWins(server.env),
      }
    } else {
      throw acp.RequestError.invalidParams(
        { mcpServers: index },
        `${where}: not an MCP server Tangent knows.`,
      )
    }
    const parsed = AttachedMcpServer.safeParse(attached)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const at = issue && issue.path.length > 0 ? ` ${issue.path.map(String).join('.')}:` : ''
      throw acp.RequestError.invalidParams(
        { mcpServers: index, issues: parsed.error.issues.map(({ path, message }) => ({ path, message })) },
        `${where}:${at} ${issue?.message ?? 'not valid'}.`,
      )
    }
    return parsed.data
  })
}

/** An editor's name as a Tangent server name: other characters become `-`, `__` one `_`, at most 32. */
export function tangentServerName(name: unknown): string {
  const cleaned = String(name)
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/_$/, '')
  return cleaned === '' ? 'server' : cleaned
}

/** Two editor names that clean to one get `-2`, `-3`… (the first keeps it). */
function uniqueName(name: string, taken: Set<string>): string {
  let unique = name
  for (let n = 2; taken.has(unique); n++) {
    const suffix = `-${n}`
    unique = `${name.slice(0, 32 - suffix.length).replace(/_$/, '')}${suffix}`
  }
  taken.add(unique)
  return unique
}

/** ACP's `[{name, value}]` as a record; a name given twice keeps its last value. */
function lastWins(
  entries: readonly { name: string; value: string }[] | null | undefined,
): Record<string, string> {
  const byName = new Map<string, string>()
  for (const { name, value } of entries ?? []) byName.set(name, value)
  return Object.fromEntries(byName)
}
