// `tangent show ID`: the transcript with seqs, to pick a fork point, and its usage;
// `--json` {session, events, usage}.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import type { DirectAction } from '../program.js'
import { styleFor } from '../render/style.js'
import { renderTranscript } from '../render/transcript.js'

export function registerShowCommand(program: Command, context: CliContext): void {
  program
    .command('show')
    .description("Show a session's transcript with the seq of each event (fork points are turn ends)")
    .argument('<id>', 'session id or a unique prefix of one')
    .option('--json', 'print {session, events, usage}')
    .action((id: string, flags: { json?: boolean }) => showSession(context, id, flags))
}

/** `tangent show ID [--json]` without commander (program.ts, `DirectRoute`). */
export const showDirect: DirectAction = (context, [id], flags) => showSession(context, id ?? '', flags)

async function showSession(context: CliContext, id: string, flags: { json?: boolean }): Promise<void> {
  const { result } = await withSession(context, { readOnly: true }, id, (backend, sessionId) =>
    backend.getSession(sessionId),
  )
  const { session, events, usage } = result
  if (flags.json) return printJson(context, { session, events, usage })
  const style = styleFor(context.stdout, context.env)
  // On a terminal the assistant's Markdown is rendered; piped, it stays as the model wrote it.
  printLines(
    context,
    renderTranscript(session, events, style, usage, { markdown: context.stdout.isTTY === true }),
  )
  if (events.some((event) => event.type === 'turn/end')) {
    printLines(context, [
      style.dim(`Branch after a turn: tangent fork ${session.id} --at SEQ (any seq inside that turn)`),
    ])
  }
}
