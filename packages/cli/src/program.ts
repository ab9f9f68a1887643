// The `tangent` command line: builds the commander program from one file per command
// and turns every outcome into an exit code (0 ok, 1 failure, 2 bad usage).
import { Command, CommanderError } from 'commander'
import { describeFailure, formatFailure } from './cli-error.js'
import { registerAcpCommand } from './commands/acp.js'
import { registerArchiveCommands } from './commands/archive.js'
import { registerChatCommand } from './commands/chat.js'
import { registerCompactCommand } from './commands/compact.js'
import { registerCompareCommand } from './commands/compare.js'
import { registerDeleteCommand } from './commands/delete.js'
import { registerDemoCommand } from './commands/demo.js'
import { registerDiffCommand } from './commands/diff.js'
import { registerDoctorCommand } from './commands/doctor.js'
import { registerExploreCommand } from './commands/explore.js'
import { registerForkCommand } from './commands/fork.js'
import { registerKeepCommand } from './commands/keep.js'
import { registerMigrateCommand } from './commands/migrate.js'
import { registerModelsCommand } from './commands/models.js'
import { registerRestoreCommand } from './commands/restore.js'
import { registerRunCommand } from './commands/run.js'
import { registerServeCommand } from './commands/serve.js'
import { registerSessionsCommand } from './commands/sessions.js'
import { registerShowCommand } from './commands/show.js'
import { registerSnapshotsCommand } from './commands/snapshots.js'
import type { CliContext } from './context.js'

export const cliVersion = '0.1.0'

export function createProgram(context: CliContext): Command {
  const program = new Command('tangent')
    .description('An agent whose conversations fork at any completed turn, like git branches.')
    .version(cliVersion)
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
      // Usage errors are printed by runCli in the one `error[code]` format.
      outputError: () => {},
    })
  program.addHelpText(
    'after',
    `
Try it offline:
  tangent demo                      two turns and a fork with the demo model
  tangent run "write notes.txt: hi" one turn in the current directory
  tangent sessions                  the tree of sessions and forks
  tangent show ID                   a transcript with seqs; fork with: tangent fork ID --at SEQ
  tangent chat --continue           pick up the latest session of this folder
  tangent explore ID -p "try X" -p "try Y" --check "npm test"
                                    branches run in parallel; then compare and keep one
IDs: the whole id or any unique prefix of it (at least 4 characters, any case).
  tangent serve                     the web UI (other commands then go through it)
  tangent acp                       an ACP agent on stdio for editors (Zed, JetBrains, acpx)
  tangent migrate --to URL|DIR      copy sessions between a data dir and PostgreSQL

Environment: TANGENT_HOME (data, now ${context.home}), TANGENT_STORE (postgres:// URL: sessions
in PostgreSQL, shared by several Hosts; unset: JSONL under TANGENT_HOME), TANGENT_MODEL (default model of
new sessions, e.g. openai:gpt-4.1), OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY,
TANGENT_OPENAI_COMPATIBLE_BASE_URL, TANGENT_TOKEN (serve), TANGENT_SANDBOX (off|auto|required:
the bash tool's OS sandbox, default auto), NO_COLOR.
Exit codes: 0 ok, 1 failure (error[code] on stderr), 2 bad usage.
`,
  )
  registerRunCommand(program, context)
  registerChatCommand(program, context)
  registerSessionsCommand(program, context)
  registerShowCommand(program, context)
  registerForkCommand(program, context)
  registerArchiveCommands(program, context)
  registerCompactCommand(program, context)
  registerDeleteCommand(program, context)
  registerModelsCommand(program, context)
  registerDoctorCommand(program, context)
  registerDiffCommand(program, context)
  registerExploreCommand(program, context)
  registerCompareCommand(program, context)
  registerKeepCommand(program, context)
  registerSnapshotsCommand(program, context)
  registerRestoreCommand(program, context)
  registerServeCommand(program, context)
  registerDemoCommand(program, context)
  registerAcpCommand(program, context)
  registerMigrateCommand(program, context)
  return program
}

/** Runs one command line (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const program = createProgram(context)
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) return usageExit(error, context)
    const failure = describeFailure(error)
    context.stderr.write(`${formatFailure(failure)}\n`)
    return failure.exitCode
  }
}

function usageExit(error: CommanderError, context: CliContext): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0
  // `tangent` alone printed the help to stderr: that is still bad usage.
  if (error.code === 'commander.help') return 2
  // Commander puts its "(Did you mean …?)" suggestion on a second line: keep one line.
  const message = error.message
    .replace(/^error:\s*/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim()
  context.stderr.write(`error[usage]: ${message} (see \`tangent --help\`)\n`)
  return 2
}
