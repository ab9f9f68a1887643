// The `tangent` command line: builds the commander program from one file per command
// and turns every outcome into an exit code (0 ok, 1 failure, 2 bad usage).
// Each command's module is loaded only when needed (docs/architecture.md §9): `tangent show ID`
// imports show's module and what it uses, nothing of `run`, `chat`, `serve`, …
import type { Command } from 'commander'
import { describeFailure, ExitCode, formatFailure } from './cli-error.js'
import type { CliContext } from './context.js'
import { safeLine } from './render/style.js'

export const cliVersion = '0.1.0'

/** The flags commander's `.version()` answers to. */
const versionFlags: readonly string[] = ['--version', '-V']

/** Registers one module's command(s) on the program. */
export type RegisterCommands = (program: Command, context: CliContext) => void

export interface CommandModule {
  /** The names and aliases the module registers, so a command line can be routed before loading it. */
  readonly names: readonly string[]
  readonly load: () => Promise<RegisterCommands>
  /** The command lines its action runs without commander (see `directRouteFor`). */
  readonly direct?: DirectRoute
}

/**
 * The plainest command lines of a read-only command, run without building the commander program
 * (docs/architecture.md §9, start-up): the command's name, exactly its required arguments (none
 * starting with `-`) and any of its boolean flags, in any order. Its action is the one the
 * command registers with commander, handed the same arguments and flags; anything else (help,
 * `--`, a value, an unknown or misspelt option, a missing or extra argument) goes to commander.
 * A test checks each route against what its module registers.
 */
export interface DirectRoute {
  /** How many arguments the command requires (it has no optional ones). */
  readonly positionals: number
  /** Its long boolean options (`--json`), each passed as `{json: true}` when given. */
  readonly flags: readonly string[]
  readonly load: () => Promise<DirectAction>
}

export type DirectAction = (
  context: CliContext,
  positionals: string[],
  flags: Record<string, true>,
) => Promise<void>

/** Every command, in the order `tangent --help` lists them. */
export const commandModules: readonly CommandModule[] = [
  { names: ['run'], load: async () => (await import('./commands/run.js')).registerRunCommand },
  { names: ['chat'], load: async () => (await import('./commands/chat.js')).registerChatCommand },
  { names: ['tui'], load: async () => (await import('./commands/tui.js')).registerTuiCommand },
  {
    names: ['sessions', 'ls'],
    load: async () => (await import('./commands/sessions.js')).registerSessionsCommand,
    direct: {
      positionals: 0,
      flags: ['--all', '--json'],
      load: async () => (await import('./commands/sessions.js')).sessionsDirect,
    },
  },
  {
    names: ['show'],
    load: async () => (await import('./commands/show.js')).registerShowCommand,
    direct: {
      positionals: 1,
      flags: ['--json'],
      load: async () => (await import('./commands/show.js')).showDirect,
    },
  },
  { names: ['fork'], load: async () => (await import('./commands/fork.js')).registerForkCommand },
  {
    names: ['rename', 'archive', 'unarchive'],
    load: async () => (await import('./commands/archive.js')).registerArchiveCommands,
  },
  { names: ['mode'], load: async () => (await import('./commands/mode.js')).registerModeCommand },
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
  { names: ['export'], load: async () => (await import('./commands/export.js')).registerExportCommand },
  { names: ['import'], load: async () => (await import('./commands/import.js')).registerImportCommand },
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

/** The direct route a command line takes, with its arguments and flags; null: commander parses it. */
export function directRouteFor(
  argv: readonly string[],
): { route: DirectRoute; positionals: string[]; flags: Record<string, true> } | null {
  const first = argv[0]
  const route =
    first === undefined ? undefined : commandModules.find((entry) => entry.names.includes(first))?.direct
  if (route === undefined) return null
  const positionals: string[] = []
  const flags: Record<string, true> = {}
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!
    if (!word.startsWith('-')) positionals.push(word)
    else if (route.flags.includes(word)) flags[optionKey(word)] = true
    else return null
  }
  return positionals.length === route.positionals ? { route, positionals, flags } : null
}

/** The key commander gives a long option's value: `--dry-run` → `dryRun`. */
export function optionKey(flag: string): string {
  return flag.slice(2).replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase())
}

/**
 * The program for a command line: with `argv`, only the command it names is registered (all of
 * them when it names none); without, every command.
 */
export async function createProgram(context: CliContext, argv?: readonly string[]): Promise<Command> {
  const { Command } = await loadCommander()
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
  tangent                           the full-screen terminal UI (also: tangent tui [ID], -c)
  tangent chat --continue           pick up the latest session of this folder
  tangent explore ID -p "try X" -p "try Y" --check "npm test"
                                    branches run in parallel; then compare and keep one
IDs: the whole id or any unique prefix of it (at least 4 characters, any case).
  tangent serve                     the web UI (other commands then go through it)
  tangent acp                       an ACP agent on stdio for editors (Zed, JetBrains, acpx)
  tangent migrate --to URL|DIR      copy sessions between a data dir and PostgreSQL
  tangent export ID > s.jsonl       a session and its ancestors as a bundle (--format md: Markdown)
  tangent import s.jsonl            a bundle into this data dir, ids and lineage kept

Environment: TANGENT_HOME (data, now ${context.home}), TANGENT_STORE (postgres:// URL: sessions
in PostgreSQL, shared by several Hosts; unset: JSONL under TANGENT_HOME), TANGENT_MODEL (default model of
new sessions, e.g. openai:gpt-4.1), OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY,
TANGENT_OPENAI_COMPATIBLE_BASE_URL, TANGENT_TOKEN (serve), TANGENT_SANDBOX (off|auto|required:
the bash tool's OS sandbox, default auto), TANGENT_BASH_PASS_ENV (names of secret-looking variables
bash may see, e.g. NPM_TOKEN; none by default), NO_COLOR.
Exit codes: 0 ok, 1 failure (error[code] on stderr), 2 bad usage, 130 a turn stopped with Ctrl-C.
`,
  )
  const registers = await Promise.all(commandsFor(argv).map((entry) => entry.load()))
  for (const register of registers) register(program, context)
  return program
}

/** Runs one command line (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  // `tangent` alone at a terminal opens the terminal UI; without one it prints the help as before.
  if (argv.length === 0 && context.stdin.isTTY === true && context.stdout.isTTY === true) argv = ['tui']
  try {
    // `tangent --version` alone: printed as commander prints it, without building the program —
    // with no command named, that would load every command's module (docs/architecture.md §9).
    if (argv.length === 1 && versionFlags.includes(argv[0]!)) {
      context.stdout.write(`${cliVersion}\n`)
      return 0
    }
    const direct = directRouteFor(argv)
    if (direct) {
      await (await direct.route.load())(context, direct.positionals, direct.flags)
      return 0
    }
    const program = await createProgram(context, argv)
    await program.parseAsync([...argv], { from: 'user' })
    return 0
  } catch (error) {
    if (commander !== null && error instanceof commander.CommanderError)
      return usageExit(error, argv, context)
    if (error instanceof ExitCode) return error.exitCode
    const failure = describeFailure(error)
    context.stderr.write(`${formatFailure(failure)}\n`)
    return failure.exitCode
  }
}

let commander: typeof import('commander') | null = null

/** Commander, loaded by the first program built (a direct route never loads it). */
async function loadCommander(): Promise<typeof import('commander')> {
  commander ??= await import('commander')
  return commander
}

function usageExit(
  error: import('commander').CommanderError,
  argv: readonly string[],
  context: CliContext,
): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0
  // `tangent help [NAME]` asked for the help (commander exits 0); `tangent` alone, or `tangent help`
  // of an unknown command, printed it to stderr instead of doing anything: that is bad usage
  // (docs/architecture.md §9).
  if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : 2
  // Commander puts its "(Did you mean …?)" suggestion on a second line: keep one line.
  const message = error.message
    .replace(/^error:\s*/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim()
  const hint = error.code === 'commander.unknownOption' ? dashMessageHint(message, argv) : null
  context.stderr.write(`error[usage]: ${safeLine(message)} (${safeLine(hint ?? 'see `tangent --help`')})\n`)
  return 2
}

/** Commands whose words are a message or a title: text that starts with `-` reads as an option. */
const textCommands = new Set(['run', 'rename'])

/**
 * For an unknown option that is likely text (it has a space, or a text command got it and
 * commander has no option to suggest), how to send it: `--` ends the options.
 */
function dashMessageHint(message: string, argv: readonly string[]): string | null {
  const word = /^unknown option '(.*)'$/s.exec(message)?.[1]
  const at = word === undefined ? -1 : argv.indexOf(word)
  if (at < 0 || argv.includes('--')) return null
  if (!/\s/.test(word!) && !textCommands.has(argv[0] ?? '')) return null
  const example = [...argv.slice(0, at), '--', ...argv.slice(at)].map(shellWord).join(' ')
  return `text that starts with "-" goes after --, e.g. tangent ${example}`
}

/** A word as a shell would take it back, cut to keep the error one short line. */
function shellWord(word: string): string {
  const shown = word.length > 40 ? `${word.slice(0, 39)}…` : word
  return /^[\w@%+=:,./-]+$/.test(shown) ? shown : `"${shown.replace(/(["\\$`])/g, '\\$1')}"`
}
