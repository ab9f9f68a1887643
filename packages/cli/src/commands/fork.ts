// `tangent fork ID`: branch a session at a completed turn (the Host's anchor rules).
import path from 'node:path'
import { type Command, Option } from 'commander'
import type { FileMode } from '../backend.js'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { assertTitleFits } from '../input-limits.js'
import { withSession } from '../open-backend.js'
import { parseSeq } from '../options.js'
import { printJson, printNote } from '../output.js'
import { safeLine, styleFor } from '../render/style.js'

interface ForkFlags {
  at?: number
  before?: boolean
  title?: string
  files?: FileMode
  folder?: string
  json?: boolean
}

export function registerForkCommand(program: Command, context: CliContext): void {
  program
    .command('fork')
    .description('Fork a session after the turn that holds --at SEQ (default: its last completed turn)')
    .argument('<id>', 'session id or a unique prefix of one')
    .option('--at <seq>', 'a seq inside the turn to branch after (see `tangent show`)', parseSeq)
    .option('--before', 'branch just before the turn that holds --at (to redo that message)')
    .option('--title <title>', "the child's title")
    .addOption(
      new Option(
        '--files <mode>',
        'shared: same directory (default); worktree: its own copy at the fork point',
      ).choices(['shared', 'worktree']),
    )
    .option(
      '--folder <path>',
      "with --files worktree, for a session from another machine: this machine's folder of the project",
    )
    .option('--json', 'print {session, boundary, worktree?: {path, leftOut}}')
    .action(async (given: string, flags: ForkFlags) => {
      if (flags.before && flags.at === undefined)
        throw new UsageError(
          '--before needs --at SEQ: the seq of the message to fork just before (see `tangent show ID`)',
        )
      if (flags.title !== undefined) assertTitleFits(flags.title, '--title needs a visible character')
      const { sessionId: id, result } = await withSession(context, {}, given, (backend, sessionId) =>
        backend.fork({
          sessionId,
          atSeq: flags.at,
          before: flags.before,
          title: flags.title,
          files: flags.files,
          // Relative to this shell's folder, as every path a command takes (`~` the Host expands).
          folder:
            flags.folder === undefined || flags.folder.startsWith('~')
              ? flags.folder
              : path.resolve(context.cwd, flags.folder),
        }),
      )
      if (flags.json) return printJson(context, result)
      context.stdout.write(`${result.session.id}\n`)
      const style = styleFor(context.stderr, context.env)
      const files =
        result.session.files.mode === 'worktree'
          ? `has its own worktree at ${safeLine(result.session.files.path)}`
          : `shares files with ${id} in ${safeLine(result.session.cwd)}`
      printNote(context, style.dim(`forked ${id} through seq ${result.boundary}; the child ${files}`))
      // Said every time, so nobody expects a file the snapshot could not keep to be there.
      const leftOut = result.worktree?.leftOut ?? []
      if (leftOut.length > 0)
        printNote(
          context,
          style.yellow(
            `left out of its worktree (too big to snapshot, or not a regular file): ${safeLine(leftOut.join(', '))}`,
          ),
        )
    })
}
