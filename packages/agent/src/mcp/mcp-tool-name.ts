// MCP tools are offered to the model as `mcp__<server>__<tool>`, so the log records both names;
// the tool part is cut to the characters and length every provider accepts (64, [A-Za-z0-9_-]).
const maxToolNameLength = 64

export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`
  return name.slice(0, maxToolNameLength)
}

/** The server a tool name belongs to (`mcp__<server>__…`), or null for other tools. */
export function mcpServerOfToolName(toolName: string): string | null {
  const match = /^mcp__([A-Za-z0-9_-]+?)__/.exec(toolName)
  return match ? match[1]! : null
}
