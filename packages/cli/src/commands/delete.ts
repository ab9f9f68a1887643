// `tangent delete ID`: delete a session; its forks keep their history (written inline).
import { type Command, Option } from 'commander'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { safeLine } from '../render/style.js'

export function registerDeleteCommand(program: Command, context: CliContext): void {
  program
    .command('delete')
    .alias('rm')
    .description('Delete a session; forks of it keep their history')
    .argument('<id>', 'session id or a unique prefix of one')
    .addOption(
      new Option(
        '--worktree <what>',
        'its worktree: remove (only when clean; with changes the delete is refused), keep, or force (remove with changes)',
      )
        .choices(['remove', 'keep', 'force'])
        .default('remove'),
    )
    .option('--json', 'print {deleted, materialized, worktree?}')
    .action(async (given: string, flags: { json?: boolean; worktree: 'remove' | 'keep' | 'force' }) => {
      const { sessionId: id, result } = await withSession(context, {}, given, (backend, sessionId) =>
        backend.delete(sessionId, flags.worktree),
      )
      if (flags.json) return printJson(context, result)
      const lines = [`Deleted ${id}`]
      if (result.materialized.length > 0) {
        lines.push(`Forks given their inherited history: ${result.materialized.join(', ')}`)
      }
      if (result.worktree !== undefined) {
        lines.push(
          result.worktree.removed
            ? `Removed its worktree ${safeLine(result.worktree.path)}`
            : `Kept its worktree ${safeLine(result.worktree.path)}${result.worktree.reason ? `: ${safeLine(result.worktree.reason)}` : ''}`,
        )
      }
      printLines(context, lines)
    })
}
