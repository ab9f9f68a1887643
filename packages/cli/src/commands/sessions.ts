// `tangent sessions`: the lineage tree, forks under their parents; `--json` the summaries.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines, printNote } from '../output.js'
import { renderSessionTree } from '../render/session-tree.js'
import { styleFor } from '../render/style.js'

export function registerSessionsCommand(program: Command, context: CliContext): void {
  program
    .command('sessions')
    .alias('ls')
    .description('List sessions as a tree: forks under their parent with the seq they forked at')
    .option('--all', 'include archived sessions')
    .option('--json', 'print the SessionSummary[] of docs/protocol.md')
    .action(async (flags: { all?: boolean; json?: boolean }) => {
      const sessions = await withBackend(context, { readOnly: true }, (backend) =>
        backend.listSessions({ includeArchived: flags.all === true }),
      )
      if (flags.json) return printJson(context, sessions)
      if (sessions.length === 0) {
        printNote(context, 'No sessions yet. Try `tangent demo`, or `tangent run "hello"`.')
        return
      }
      printLines(context, renderSessionTree(sessions, styleFor(context.stdout, context.env)))
    })
}
