// The `tangent` command line: builds the commander program from one file per command
// and turns every outcome into an exit code (0 ok, 1 failure, 2 bad usage).
// Each command's module is loaded only when needed (docs/architecture.md §9): `tangent show ID`
// imports show's module and what it uses, nothing of `run`, `chat`, `serve`, …
import { Command, CommanderError } from 'commander'
import { describeFailure, formatFailure } from './cli-error.js'
import type { CliContext } from './context.js'

export const cliVersion = '0.1.0'

/** Registers one module's command(s) on the program. */
export type RegisterCommands = (program: Command, context: CliContext) => void

export interface CommandModule {
  /** The names and aliases the module registers, so a command line can be routed before loading it. */
  readonly names: readonly string[]
  readonly load: () => Promise<RegisterCommands>
}

/** Every command, in the order `tangent --help` lists them. */
export const commandModules: readonly CommandModule[] = [
  { names: ['run'], load: async () => (await import('./commands/run.js')).registerRunCommand },
  { names: ['chat'], load: async () => (await import('./commands/chat.js')).registerChatCommand },
  {
    names: ['sessions', 'ls'],
    load: async () => (await import('./commands/sessions.js')).registerSessionsCommand,
  },
  { names: ['show'], load: async () => (await import('./commands/show.js')).registerShowCommand },
  { names: ['fork'], load: async () => (await import('./commands/fork.js')).registerForkCommand },
  {
    names: ['rename', 'archive', 'unarchive'],
    load: async () => (await import('./commands/archive.js')).registerArchiveCommands,
  },
  { names: ['compact'], load: async () => (await import('./commands/compact.js')).registerCompactCommand },
  { names: ['delete', 'rm'], load: async () => (await import('./commands/delete.js')).registerDeleteCommand },
  { names: ['models'], load: async () => (await import('./commands/models.js')).registerModelsCommand },
  { names: ['doctor'], load: async () => (await import('./commands/doctor.js')).registerDoctorCommand },
  { names: ['diff'], load: async () => (await import('./commands/diff.js')).registerDiffCommand },
  { names: ['explore'], load: async () => (await import('./commands/explore.js')).registerExploreCommand },
  { names: ['compare'], load: async () => (await import('./commands/compare.js')).registerCompareCommand },
  { names: ['keep'], load: async () => (await import('./commands/keep.js')).registerKeepCommand },
  {
    names: ['snapshots'],
    load: async () => (await import('./commands/snapshots.js')).registerSnapshotsCommand,
  },
  { names: ['restore'], load: async () => (await import('./commands/restore.js')).registerRestoreCommand },
  { names: ['serve'], load: async () => (await import('./commands/serve.js')).registerServeCommand },
  { names: ['demo'], load: async () => (await import('./commands/demo.js')).registerDemoCommand },
  { names: ['acp'], load: async () => (await import('./commands/acp.js')).registerAcpCommand },
  { names: ['migrate'], load: async () => (await import('./commands/migrate.js')).registerMigrateCommand },
]

/**
 * The command modules a command line needs. The program has no option that takes a value, so
 * when the first word names a command, commander dispatches to it and nothing else is consulted:
 * that module alone. Anything else (no command, `help X`, a leading option, an unknown word that
 * gets a "did you mean") needs them all, to list or to suggest.
 */
export function commandsFor(argv: readonly string[] | undefined): readonly CommandModule[] {
  const first = argv?.[0]
  const named = first === undefined ? undefined : commandModules.find((entry) => entry.names.includes(first))
  return named === undefined ? commandModules : [named]
}

/**
 * The program for a command line: with `argv`, only the command it names is registered (all of
 * them when it names none); without, every command.
 */
export async function createProgram(context: CliContext, argv?: readonly string[]): Promise<Command> {
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
  const registers = await Promise.all(commandsFor(argv).map((entry) => entry.load()))
  for (const register of registers) register(program, context)
  return program
}

/** Runs one command line (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  try {
    const program = await createProgram(context, argv)
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
