// `tangent acp`: an Agent Client Protocol agent on stdin/stdout for editors (Zed, JetBrains,
// Neovim plugins, acpx) — docs/architecture.md §14.2. Sessions go through the same Backend as
// every command: a running Host when one serves the data dir, else the runtime in this process
// (which then serves it to other local commands, so `tangent sessions` works meanwhile).
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { openBackend } from '../open-backend.js'
import { safeText } from '../render/style.js'

export function registerAcpCommand(program: Command, context: CliContext): void {
  program
    .command('acp')
    .description('Serve the Agent Client Protocol on stdin/stdout (for editors: Zed, JetBrains, acpx)')
    .action(async () => {
      // stdout is the protocol channel: anything else printed there would break the client.
      const log = (line: string) => context.stderr.write(`${safeText(line)}\n`)
      console.log = (...args: unknown[]) => log(args.map(String).join(' '))
      console.info = console.log
      // The ACP SDK is loaded here, not when the CLI starts: other commands never need it.
      const { createAcpAgent, serveAcp } = await import('../acp/acp-agent.js')
      // The client owns cancelling (session/cancel) and ending (closing stdin, then SIGTERM): a
      // Ctrl-C in the client's terminal reaches its whole process group, this agent too, and must
      // not kill the agent under a client that is about to cancel the turn through the protocol.
      process.on('SIGINT', () => log('tangent acp: SIGINT ignored (the client cancels turns through ACP)'))
      const backend = await openBackend(context, { reopen: true })
      try {
        const agent = createAcpAgent(backend, { version: program.version() ?? '0', log })
        await serveAcp(agent, { input: context.stdin, output: context.stdout }, { log })
      } finally {
        await backend.close()
      }
    })
}
