// `tangent archive ID` / `tangent unarchive ID`: hide a session from the tree, or bring it back;
// `tangent rename ID TITLE`: give it a title.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { assertTitleFits } from '../input-limits.js'
import { withSession } from '../open-backend.js'
import { printJson } from '../output.js'
import { titleOf } from '../render/style.js'

export function registerArchiveCommands(program: Command, context: CliContext): void {
  program
    .command('rename')
    .description('Give a session a title')
    .argument('<id>', 'session id or a unique prefix of one')
    .argument('<title...>', 'the new title (several words are joined with spaces)')
    .option('--json', 'print the SessionSummary')
    .action(async (id: string, words: string[], flags: { json?: boolean }) => {
      const title = words.join(' ')
      assertTitleFits(
        title,
        'rename needs a title with a visible character, e.g. tangent rename ID "parser fix"',
      )
      const { result: session } = await withSession(context, {}, id, (backend, sessionId) =>
        backend.rename(sessionId, title),
      )
      if (flags.json) return printJson(context, session)
      context.stdout.write(`Renamed ${session.id}: ${titleOf(session)}\n`)
    })

  for (const archived of [true, false]) {
    const name = archived ? 'archive' : 'unarchive'
    program
      .command(name)
      .description(archived ? 'Archive a session (hidden unless `sessions --all`)' : 'Unarchive a session')
      .argument('<id>', 'session id or a unique prefix of one')
      .option('--json', 'print the SessionSummary')
      .action(async (id: string, flags: { json?: boolean }) => {
        const { result: session } = await withSession(context, {}, id, (backend, sessionId) =>
          backend.setArchived(sessionId, archived),
        )
        if (flags.json) return printJson(context, session)
        context.stdout.write(`${archived ? 'Archived' : 'Unarchived'} ${session.id}\n`)
      })
  }
}
