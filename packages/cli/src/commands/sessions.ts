// `tangent sessions`: the lineage tree, forks under their parents; `--json` the summaries.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines, printNote } from '../output.js'
import type { DirectAction } from '../program.js'
import { renderSessionTree } from '../render/session-tree.js'
import { styleFor } from '../render/style.js'

export function registerSessionsCommand(program: Command, context: CliContext): void {
  program
    .command('sessions')
    .alias('ls')
    .description('List sessions as a tree: forks under their parent with the seq they forked at')
    .option('--all', 'include archived sessions')
    .option('--json', 'print the SessionSummary[] of docs/protocol.md')
    .action((flags: { all?: boolean; json?: boolean }) => listSessions(context, flags))
}

/** `tangent sessions [--all] [--json]` without commander (program.ts, `DirectRoute`). */
export const sessionsDirect: DirectAction = (context, _positionals, flags) => listSessions(context, flags)

async function listSessions(context: CliContext, flags: { all?: boolean; json?: boolean }): Promise<void> {
  const sessions = await withBackend(context, { readOnly: true }, (backend) =>
    backend.listSessions({ includeArchived: flags.all === true }),
  )
  if (flags.json) return printJson(context, sessions)
  if (sessions.length === 0) {
    printNote(context, 'No sessions yet. Try `tangent demo`, or `tangent run "hello"`.')
    return
  }
  printLines(context, renderSessionTree(sessions, styleFor(context.stdout, context.env)))
}
