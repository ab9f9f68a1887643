// `tangent doctor`: what this machine offers Tangent — Node, the data directory and who can read
// it, which models can run, and whether the bash tool runs in an OS sandbox (and why not).
import fs from 'node:fs/promises'
import { ConfigFiles, type McpServerListing, McpServers } from '@tangent/runtime'
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { safeLine, styleFor } from '../render/style.js'
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
    .option('--json', 'print {node, dataDir, via, models, sandbox, mcp}')
    .action(async (flags: { json?: boolean }) => {
      const dataDir = await inspectDataDirectory(context.home)
      const mcp = await listMcpServers(context)
      const { via, info } = await withBackend(context, { readOnly: true }, async (backend) => ({
        via: backend.kind,
        info: await backend.info(),
      }))
      if (flags.json) {
        return printJson(context, {
          node: process.version,
          dataDir,
          via,
          models: info.models,
          sandbox: info.sandbox ?? null,
          mcp,
        })
      }
      const style = styleFor(context.stdout, context.env)
      const available = info.models.filter((model) => model.available).length
      printLines(context, [
        `Node      ${process.version}`,
        `Data dir  ${safeLine(dataDir.path)}  ${style.dim(describeDataDirectory(dataDir))}`,
        `Sessions  ${via === 'host' ? 'through the running Host' : 'opened in this process (no Host running)'}`,
        `Models    ${available} of ${info.models.length} available (default ${safeLine(info.defaultModel)})`,
        ...modelLines(info.models, style).map((line) => `  ${line}`),
        sandboxLine(info, style),
        `MCP       ${mcp.servers.length === 0 ? style.dim('no servers configured (docs/architecture.md §14.3)') : `${mcp.servers.length} configured for ${safeLine(context.cwd)}`}`,
        ...mcp.servers.map(
          (server) =>
            `  ${safeLine(server.name)}  ${safeLine(server.transport)}  ${server.enabled ? 'enabled' : `not started: ${safeLine(String(server.note))}`}  ${style.dim(safeLine(server.source))}`,
        ),
        ...mcp.problems.map((line) => `  ${safeLine(line)}`),
      ])
    })
}

/** The MCP servers configured for the current directory, read from the config files: none is started. */
async function listMcpServers(
  context: CliContext,
): Promise<{ servers: McpServerListing[]; problems: string[] }> {
  const problems: string[] = []
  const servers = new McpServers({
    config: new ConfigFiles({ env: context.env }),
    report: (line) => problems.push(line),
  })
  return { servers: await servers.list(context.cwd), problems }
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
