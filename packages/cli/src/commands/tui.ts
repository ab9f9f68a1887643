// `tangent tui [ID]` (and `tangent` alone at a terminal): the full-screen terminal UI over the
// same Backend as every command (docs/architecture.md §9). Ink and React are loaded here only, on
// use. Without a terminal, or with --plain (screen readers), it is `tangent chat`: line by line.
import type { Command } from 'commander'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { latestSessionIn } from '../continue-session.js'
import { withBackend } from '../open-backend.js'
import { styleFor } from '../render/style.js'
import { existingDirectory } from './run.js'

interface TuiFlags {
  continue?: boolean
  plain?: boolean
}

export function registerTuiCommand(program: Command, context: CliContext): void {
  program
    .command('tui')
    .description(
      'The full-screen terminal UI: the session tree, the transcript and a composer (also `tangent` alone)',
    )
    .argument('[id]', 'session to open: its id or a unique prefix of one')
    .option('-c, --continue', 'open the latest session of the current directory')
    .option('--plain', 'line by line, as `tangent chat` prints (for screen readers; also TANGENT_TUI=plain)')
    .action(async (id: string | undefined, flags: TuiFlags) => {
      if (id !== undefined && flags.continue)
        throw new UsageError('tui takes a session ID or --continue, not both')
      const terminal = context.stdin.isTTY === true && context.stdout.isTTY === true
      if (flags.plain || context.env.TANGENT_TUI === 'plain' || !terminal) {
        const { runChat } = await import('./chat.js')
        await runChat(context, { id, continue: flags.continue })
        return
      }
      const folder = existingDirectory(context, undefined)
      // Ink, React and the layout engine load while the data dir opens (they need nothing of it).
      const loading = import('../tui/run-tui.js')
      // Its failure is not dropped: `await loading` below throws it. This only keeps a failure
      // to open the data dir first from leaving the import's rejection unhandled.
      loading.catch(() => {})
      await withBackend(context, { reopen: true }, async (backend) => {
        let sessionId: string | null = null
        if (flags.continue) sessionId = await latestSessionIn(backend, folder)
        else if (id !== undefined) sessionId = await backend.resolveSession(id)
        const { runTui } = await loading
        const real = process.getBuiltinModule('node:fs').realpathSync(folder)
        await runTui(context, backend, {
          folder: real,
          sessionId,
          style: styleFor(context.stdout, context.env),
        })
      })
    })
}
