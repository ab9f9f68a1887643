// An MCP server a client attaches to a session (`session.attachMcpServers`, docs/protocol.md;
// docs/architecture.md §14.3): an editor's servers, given with each session it opens. Every part is
// bounded, and a name keeps to the characters tool names allow (`mcp__<server>__<tool>`).
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { maxMcpArgChars, maxMcpArgs, maxMcpEnvChars, maxMcpEnvEntries, maxPathChars } from './limits.js'

/** The same rule as a config file's server names (`McpServerName` in @tangent/agent). */
export const AttachedMcpServerName = lazySchema((z) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'an MCP server name is 1–32 letters, digits, _ or -')
    .refine((name) => !name.includes('__'), 'an MCP server name has no "__"'),
)

const noNul = (value: string) => !value.includes('\0')

// Names are checked by refinements on the whole record, not by key schemas: a key schema's failure
// ends the union's match early and leaves only "Invalid input", where this names the problem.
/** An environment variable's name: what `execve` can pass (no `=`, no NUL). */
const envName = /^[^=\0]{1,256}$/
/** An HTTP header: a token name, a value with no line break or NUL. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/
const headerValue = /^[^\r\n\0]*$/
const namesMatch = (pattern: RegExp) => (record: Record<string, string>) =>
  Object.keys(record).every((name) => pattern.test(name))

/** Names and values of a record, in characters all told, at most `maxMcpEnvChars`. */
function withinSize(record: Record<string, string>): boolean {
  let size = 0
  for (const [name, value] of Object.entries(record)) size += name.length + value.length
  return size <= maxMcpEnvChars
}
const sizeMessage = `at most ${maxMcpEnvChars} characters of names and values`

const entriesMessage = `at most ${maxMcpEnvEntries} entries`
const withinEntries = (record: Record<string, string>) => Object.keys(record).length <= maxMcpEnvEntries

/** A command Tangent starts and speaks to over stdio, in the session's directory. */
export const AttachedMcpStdioServer = lazySchema((z) =>
  z
    .object({
      name: AttachedMcpServerName,
      /** A path, or a name looked up on PATH (the server's `env.PATH` when it gives one). */
      command: z.string().min(1).max(maxPathChars).refine(noNul, 'a command has no NUL byte'),
      args: z
        .array(z.string().max(maxMcpArgChars).refine(noNul, 'an argument has no NUL byte'))
        .max(maxMcpArgs)
        .refine(
          (args) => args.reduce((size, arg) => size + arg.length, 0) <= maxMcpEnvChars,
          `at most ${maxMcpEnvChars} characters of arguments`,
        )
        .optional(),
      /** Added to the minimal environment config servers get (PATH, HOME, USER, SHELL, TERM, LOGNAME). */
      env: z
        .record(z.string(), z.string().max(maxMcpEnvChars).refine(noNul, 'a value has no NUL byte'))
        .refine(withinEntries, entriesMessage)
        .refine(namesMatch(envName), 'an environment variable name is 1–256 characters, no "=" and no NUL')
        .refine(withinSize, sizeMessage)
        .optional(),
    })
    .strict(),
)
export type AttachedMcpStdioServer = z.infer<typeof AttachedMcpStdioServer>

/** A server already running, reached over Streamable HTTP. */
export const AttachedMcpHttpServer = lazySchema((z) =>
  z
    .object({
      name: AttachedMcpServerName,
      url: z
        .url({ protocol: /^https?$/, error: 'an MCP server URL is http:// or https://' })
        .max(maxPathChars),
      headers: z
        .record(z.string(), z.string().max(maxMcpEnvChars))
        .refine(withinEntries, entriesMessage)
        .refine(namesMatch(headerName), 'a header name is an HTTP token')
        .refine(
          (headers) => Object.values(headers).every((value) => headerValue.test(value)),
          'a header value has no line break and no NUL',
        )
        .refine(withinSize, sizeMessage)
        .optional(),
    })
    .strict(),
)
export type AttachedMcpHttpServer = z.infer<typeof AttachedMcpHttpServer>

export const AttachedMcpServer = lazySchema((z) =>
  z.union([AttachedMcpStdioServer, AttachedMcpHttpServer], {
    error: 'an MCP server is {name, command, args?, env?} (stdio) or {name, url, headers?} (HTTP)',
  }),
)
export type AttachedMcpServer = z.infer<typeof AttachedMcpServer>
