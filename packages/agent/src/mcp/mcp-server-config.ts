// The `mcp` key of a config file (docs/architecture.md §14.3): servers by name, each a command
// run over stdio or a URL spoken to over Streamable HTTP, and how long Tangent waits for them.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

const Milliseconds = lazySchema((z) => z.number().int().positive())

/** A server Tangent starts: `command` with `args`, over stdio. */
export const McpStdioServer = lazySchema((z) =>
  z
    .object({
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      /** Added to a minimal environment (PATH, HOME, USER, SHELL, TERM, LOGNAME): keys are not inherited. */
      env: z.record(z.string(), z.string()).optional(),
      /** Relative to the session's directory (user servers) or the project folder (project servers). */
      cwd: z.string().optional(),
      startTimeoutMs: Milliseconds.optional(),
      callTimeoutMs: Milliseconds.optional(),
      disabled: z.boolean().optional(),
    })
    .strict(),
)
export type McpStdioServer = z.infer<typeof McpStdioServer>

/** A server that is already running, reached over Streamable HTTP. */
export const McpHttpServer = lazySchema((z) =>
  z
    .object({
      url: z.url({ protocol: /^https?$/ }),
      headers: z.record(z.string(), z.string()).optional(),
      startTimeoutMs: Milliseconds.optional(),
      callTimeoutMs: Milliseconds.optional(),
      disabled: z.boolean().optional(),
    })
    .strict(),
)
export type McpHttpServer = z.infer<typeof McpHttpServer>

export const McpServerConfig = lazySchema((z) => z.union([McpStdioServer, McpHttpServer]))
export type McpServerConfig = z.infer<typeof McpServerConfig>

/** Server names become part of tool names (`mcp__<server>__<tool>`), so they keep to the providers' characters. */
export const McpServerName = lazySchema((z) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'an MCP server name is 1–32 letters, digits, _ or -')
    .refine((name) => !name.includes('__'), 'an MCP server name has no "__"'),
)

export const McpConfig = lazySchema((z) =>
  z
    .object({
      servers: z.record(McpServerName, McpServerConfig).optional(),
      /**
       * User config only: start the servers of project configs (they run commands a repository
       * chose). `true` for every project, or a list of project folders.
       */
      trustProjectServers: z.union([z.boolean(), z.array(z.string())]).optional(),
      startTimeoutMs: Milliseconds.optional(),
      callTimeoutMs: Milliseconds.optional(),
    })
    .strict(),
)
export type McpConfig = z.infer<typeof McpConfig>

export const defaultMcpStartTimeoutMs = 20_000
export const defaultMcpCallTimeoutMs = 60_000

export function mcpTransportOf(server: McpServerConfig): 'stdio' | 'http' {
  return 'command' in server ? 'stdio' : 'http'
}
