// `tangent serve`: run the Host (JSON-RPC + web UI) on this data dir until Ctrl-C.

import { TangentError } from '@tangent/core'
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { parsePort } from '../options.js'
import { printJson, printNote } from '../output.js'
import { safeLine, styleFor } from '../render/style.js'

interface ServeFlags {
  port: number
  host: string
  store?: string
  json?: boolean
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1'])

export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('Run the Host: web UI and JSON-RPC on 127.0.0.1 (other commands then go through it)')
    .option('--port <port>', 'port (0: the first free one)', parsePort, 4317)
    .option('--host <host>', 'address to bind; anything but loopback exposes your sessions', '127.0.0.1')
    .option(
      '--store <url>',
      'keep sessions in PostgreSQL (postgres://…), shared with other Hosts (default TANGENT_STORE)',
    )
    .option('--json', 'print one line {"url","port","token"}')
    .action((flags: ServeFlags) => serve(context, flags))
}

async function serve(context: CliContext, flags: ServeFlags): Promise<void> {
  const style = styleFor(context.stderr, context.env)
  if (!loopbackHosts.has(flags.host)) {
    printNote(
      context,
      style.yellow(
        `warning: binding ${safeLine(flags.host)}, not loopback: anyone who can reach it and has the token can drive the agent.`,
      ),
    )
  }
  // Loaded here, not at start-up: only `serve` runs a Host in this process.
  const { readHostDiscovery, startHost } = await import('@tangent/host')
  const running = await readHostDiscovery(context.home)
  if (running !== null) {
    throw new TangentError(
      'host-running',
      `A Tangent Host (pid ${running.pid}) already serves ${context.home} at ${openUrl(running.url, running.token)}: open that, or stop it first.`,
      { pid: running.pid, url: running.url },
    )
  }
  const host = await startHost({
    home: context.home,
    port: flags.port,
    host: flags.host,
    env: flags.store !== undefined ? { ...context.env, TANGENT_STORE: flags.store } : context.env,
    defaultCwd: context.cwd,
    // The folder `tangent serve` was started in is a workspace from the first screen.
    openStartFolder: true,
    // This command owns the process: it closes the Host (removing host.json) on a signal.
    handleSignals: false,
    ...(context.env.TANGENT_TOKEN ? { token: context.env.TANGENT_TOKEN } : {}),
    ...(context.env.TANGENT_MODEL ? { defaultModel: context.env.TANGENT_MODEL } : {}),
  })
  if (flags.json) printJson(context, { url: host.url, port: host.port, token: host.token })
  else context.stdout.write(`Tangent listening on ${openUrl(host.url, host.token)}\n`)
  // While nobody has asked anything yet: the modules a first turn compiles (the agent, the AI SDK)
  // load now, not in the middle of the first turn, where they held the event loop (issue 33).
  // A failure to load is the first turn's to report.
  setTimeout(() => void host.runtime.warm().catch(() => undefined), 0)
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  await host.close()
}

/** `http://127.0.0.1:PORT/?token=TOKEN`: the address to open in a browser. */
function openUrl(base: string, token: string): string {
  const url = new URL(base)
  url.pathname = '/'
  url.search = ''
  url.searchParams.set('token', token)
  return url.toString()
}
