// `tangent delete ID`: delete a session; its forks keep their history (written inline).
import path from 'node:path'
import { type Command, Option } from 'commander'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { safeLine } from '../render/style.js'

interface DeleteFlags {
  json?: boolean
  worktree: 'remove' | 'keep' | 'force'
  to?: string
}

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
    .option(
      '--to <dir>',
      'with --worktree keep: a new folder to move the kept worktree to (default: a plain copy goes beside its project as <project>-tangent-<id>, a git worktree stays)',
    )
    .option('--json', 'print {deleted, materialized, worktree?: {path, removed, reason?, keptAt?}}')
    .action(async (given: string, flags: DeleteFlags) => {
      if (flags.to !== undefined && flags.worktree !== 'keep')
        throw new UsageError('--to needs --worktree keep: it says where the kept worktree goes')
      // Relative to where the command runs (a Host would read it against its own start folder).
      const keepTo = flags.to !== undefined ? path.resolve(context.cwd, flags.to) : undefined
      const { sessionId: id, result } = await withSession(context, {}, given, (backend, sessionId) =>
        backend.delete(sessionId, flags.worktree, keepTo),
      )
      if (flags.json) return printJson(context, result)
      const lines = [`Deleted ${id}`]
      if (result.materialized.length > 0) {
        lines.push(`Forks given their inherited history: ${result.materialized.join(', ')}`)
      }
      const worktree = result.worktree
      if (worktree !== undefined) {
        lines.push(
          worktree.removed
            ? `Removed its worktree ${safeLine(worktree.path)}`
            : worktree.keptAt !== undefined && worktree.keptAt !== worktree.path
              ? `Moved its worktree to ${safeLine(worktree.keptAt)} (kept as asked; it is yours now, Tangent no longer manages it)`
              : `Kept its worktree ${safeLine(worktree.path)}${worktree.reason ? `: ${safeLine(worktree.reason)}` : ''}`,
        )
      }
      printLines(context, lines)
    })
}
