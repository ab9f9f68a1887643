// `tangent sessions`: the lineage tree, forks under their parents; `--json` the summaries.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { lastStatuses } from '../last-status.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines, printNote } from '../output.js'
import type { DirectAction } from '../program.js'
import { renderSessionTree } from '../render/session-tree.js'
import { styleFor } from '../render/style.js'

export function registerSessionsCommand(program: Command, context: CliContext): void {
  program
    .command('sessions')
    .alias('ls')
    .description(
      'List sessions as a tree (forks under their parent with the seq they forked at): model, folder, age and how the last turn went',
    )
    .option('--all', 'include archived sessions')
    .option('--json', 'print the SessionSummary[] of docs/protocol.md, each with lastStatus')
    .action((flags: { all?: boolean; json?: boolean }) => listSessions(context, flags))
}

/** `tangent sessions [--all] [--json]` without commander (program.ts, `DirectRoute`). */
export const sessionsDirect: DirectAction = (context, _positionals, flags) => listSessions(context, flags)

async function listSessions(context: CliContext, flags: { all?: boolean; json?: boolean }): Promise<void> {
  const { sessions, statuses } = await withBackend(context, { readOnly: true }, async (backend) => {
    const sessions = await backend.listSessions({ includeArchived: flags.all === true })
    return { sessions, statuses: await lastStatuses(backend, sessions) }
  })
  if (flags.json) {
    // The SessionSummary fields as they are, and how the last turn went (`lastStatus`, absent
    // for the oldest sessions of a very large list, see last-status.ts).
    return printJson(
      context,
      sessions.map((session) => {
        const lastStatus = statuses.get(session.id)
        return lastStatus === undefined ? session : { ...session, lastStatus }
      }),
    )
  }
  if (sessions.length === 0) {
    printNote(context, 'No sessions yet. Try `tangent demo`, or `tangent run "hello"`.')
    return
  }
  printLines(
    context,
    renderSessionTree(sessions, styleFor(context.stdout, context.env), {
      lastStatus: statuses,
      now: Date.now(),
      homeDir: context.env.HOME,
    }),
  )
}
