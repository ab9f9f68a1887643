// `tangent mode ID [MODE]`: show a session's mode (and the others), or set it (docs/architecture.md
// §12.1). Allowed while a turn runs: the change counts from the turn's next tool call.
import { sessionModes } from '@tangent/protocol'
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { modeLabel, modeListLines, parseModeArgument } from '../session-mode-text.js'

export function registerModeCommand(program: Command, context: CliContext): void {
  program
    .command('mode')
    .description('Show or set how much the agent may do unasked: ask, edit (default) or plan (read-only)')
    .argument('<id>', 'session id or a unique prefix of one')
    .argument('[mode]', 'ask, edit or plan; without it, the mode is shown')
    .option('--json', 'print {sessionId, mode, modes: [{id, name, description}]}')
    .action(async (id: string, wanted: string | undefined, flags: { json?: boolean }) => {
      // Checked before the session is opened: a typo changes nothing and says what the modes are.
      const mode = wanted === undefined ? undefined : parseModeArgument(wanted, 'tangent mode')
      const { sessionId, result: session } = await withSession(
        context,
        mode === undefined ? { readOnly: true } : {},
        id,
        async (backend, resolved) =>
          mode === undefined
            ? (await backend.getSession(resolved, Number.MAX_SAFE_INTEGER)).session
            : backend.setMode(resolved, mode),
      )
      if (flags.json) return printJson(context, { sessionId, mode: session.mode, modes: sessionModes })
      if (mode !== undefined) return printLines(context, [`Mode of ${sessionId}: ${modeLabel(session.mode)}`])
      printLines(context, [
        `Mode of ${sessionId}: ${modeLabel(session.mode)}`,
        ...modeListLines(session.mode),
      ])
    })
}
