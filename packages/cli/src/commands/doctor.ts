// `tangent doctor`: what this machine offers Tangent — Node, the data directory and who can read
// it, which models can run, and whether the bash tool runs in an OS sandbox (and why not).
import fs from 'node:fs/promises'
import { TangentError } from '@tangent/core'
import {
  ConfigFiles,
  type HookListing,
  listHooks,
  type McpServerListing,
  McpServers,
  workspacesProblem,
} from '@tangent/runtime'
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { safeLine, styleFor } from '../render/style.js'
import {
  type DoctorProblem,
  defaultModelProblem,
  mcpServerProblems,
  nodeVersionProblem,
} from './doctor-problems.js'
import { modelLines, sandboxLine } from './models.js'

interface DataDirectoryReport {
  path: string
  exists: boolean
  /** Octal permission bits, e.g. `700`. */
  mode?: string
  /** True when only its owner can enter it. */
  private?: boolean
}

export function registerDoctorCommand(program: Command, context: CliContext): void {
  program
    .command('doctor')
    .description('Check this machine: Node, the data directory, models, and whether bash is sandboxed')
    .option('--json', 'print {node, dataDir, via, models, sandbox, mcp, hooks, problems}')
    .action(async (flags: { json?: boolean }) => {
      const dataDir = await inspectDataDirectory(context.home)
      const mcp = await listMcpServers(context)
      const hooks = await listConfiguredHooks(context)
      const workspaces = dataDir.exists ? await workspacesProblem(context.home) : null
      // The runtime's warnings (a data dir others can read, odd files) are problems doctor lists.
      const reported: string[] = []
      const { via, info } = await withBackend(
        context,
        { readOnly: true, report: (line) => reported.push(line) },
        async (backend) => ({ via: backend.kind, info: await backend.info() }),
      )
      const nodeProblem = nodeVersionProblem(context.oldNode)
      const problems: DoctorProblem[] = [
        ...[nodeProblem, defaultModelProblem(info)].filter((problem) => problem !== null),
        // Every command that writes refuses until it is fixed (§7): an error, said once.
        ...(workspaces
          ? [
              {
                level: 'error' as const,
                text: `${workspaces.message} Until then every command that writes refuses; read-only ones list sessions without workspaces.`,
              },
            ]
          : []),
        ...reported
          .filter((line) => !workspaces || !line.includes(workspaces.message))
          .map((line) => ({ level: 'warning' as const, text: line.replace(/^warning: /, '') })),
        ...mcpServerProblems(mcp.servers),
        // Every tool call is denied while a config file is invalid (§12.1): an error.
        ...(hooks.problem ? [{ level: 'error' as const, text: hooks.problem }] : []),
      ]
      const errors = problems.filter((problem) => problem.level === 'error').length
      if (flags.json) {
        printJson(context, {
          node: process.version,
          dataDir,
          via,
          models: info.models,
          sandbox: info.sandbox ?? null,
          mcp,
          hooks: hooks.hooks,
          problems,
        })
        return failIfErrors(errors)
      }
      const style = styleFor(context.stdout, context.env)
      const available = info.models.filter((model) => model.available).length
      printLines(context, [
        `Node      ${process.version}${nodeProblem ? `  ${style.dim('(older than Tangent supports: see Problems)')}` : ''}`,
        `Data dir  ${safeLine(dataDir.path)}  ${style.dim(describeDataDirectory(dataDir))}`,
        `Sessions  ${via === 'host' ? 'through the running Host' : 'opened in this process (no Host running)'}`,
        `Models    ${available} of ${info.models.length} available (default ${safeLine(info.defaultModel)})`,
        ...modelLines(info.models, style).map((line) => `  ${line}`),
        sandboxLine(info, style),
        `MCP       ${mcp.servers.length === 0 ? style.dim('no servers configured (docs/architecture.md §14.3)') : `${mcp.servers.length} configured for ${safeLine(context.cwd)}`}`,
        ...mcp.servers.map(
          (server) =>
            `  ${safeLine(server.name)}  ${safeLine(server.transport)}  ${server.enabled ? (server.problem ? 'enabled, will not start (see Problems)' : 'enabled') : `not started: ${safeLine(String(server.note))}`}  ${style.dim(safeLine(server.source))}`,
        ),
        ...mcp.problems.map((line) => `  ${safeLine(line)}`),
        `Hooks     ${hooks.hooks.length === 0 ? style.dim(hooks.problem ? 'not read (see Problems)' : 'none configured (docs/architecture.md §12.7)') : `${hooks.hooks.length} configured for ${safeLine(context.cwd)}`}`,
        ...hooks.hooks.map(
          (hook) =>
            `  ${hook.event}${hook.match !== undefined ? ` [${safeLine(hook.match)}]` : ''}  ${safeLine(hook.command)}  ${hook.enabled ? 'runs' : 'does not run: the project is not trusted (trustProjectHooks)'}  ${style.dim(safeLine(hook.source))}`,
        ),
        `Problems  ${problems.length === 0 ? 'none' : `${errors} error${errors === 1 ? '' : 's'}, ${problems.length - errors} warning${problems.length - errors === 1 ? '' : 's'}`}`,
        ...problems.map((problem) =>
          problem.level === 'error'
            ? `  ${style.red('✗')} ${safeLine(problem.text)}`
            : `  ${style.dim('!')} ${safeLine(problem.text)}`,
        ),
      ])
      failIfErrors(errors)
    })
}

/** Doctor's exit rule (§9): 1 when something stops Tangent from working here, after the full report. */
function failIfErrors(errors: number): void {
  if (errors === 0) return
  throw new TangentError(
    'doctor-problems',
    `found ${errors === 1 ? 'a problem that stops' : `${errors} problems that stop`} Tangent from working here (listed above, with what to do).`,
    { problems: errors },
  )
}

/** The MCP servers configured for the current directory, read from the config files: none is started. */
async function listMcpServers(
  context: CliContext,
): Promise<{ servers: McpServerListing[]; problems: string[] }> {
  const problems: string[] = []
  const servers = new McpServers({
    config: new ConfigFiles({ env: context.env }),
    report: (line) => problems.push(line),
    env: context.env,
  })
  return { servers: await servers.list(context.cwd), problems }
}

/** The hooks configured for the current directory, read from the config files: none is run. */
async function listConfiguredHooks(context: CliContext): Promise<{ hooks: HookListing[]; problem?: string }> {
  try {
    return { hooks: await listHooks(new ConfigFiles({ env: context.env }), context.cwd) }
  } catch (error) {
    return { hooks: [], problem: error instanceof Error ? error.message : String(error) }
  }
}

async function inspectDataDirectory(path: string): Promise<DataDirectoryReport> {
  const stat = await fs.stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null
    throw error
  })
  if (stat === null) return { path, exists: false }
  const bits = stat.mode & 0o777
  return { path, exists: true, mode: bits.toString(8).padStart(3, '0'), private: (bits & 0o077) === 0 }
}

function describeDataDirectory(report: DataDirectoryReport): string {
  if (!report.exists) return '(not created yet: the first session makes it, mode 700)'
  if (report.private) return `(mode ${report.mode}, private)`
  return `(mode ${report.mode}: other users can read it; run chmod 700 ${safeLine(report.path)})`
}
