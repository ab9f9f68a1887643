// `tangent explore ID -p … [-p …]`: N branches from one turn, run in parallel (each in its own
// worktree by default), an optional check after each; the command waits until every branch
// ended and its check was recorded, printing one line per branch as it ends, then the board.
import { TangentError } from '@tangent/core'
import { type Command, Option } from 'commander'
import type { Backend, ExploreResult, FileMode } from '../backend.js'
import { type BranchEnd, watchBranches } from '../branch-watch.js'
import type { CliContext } from '../context.js'
import { type ExploreBranchFlags, exploreBranches } from '../explore-branches.js'
import { assertModelAvailable } from '../model-available.js'
import { withSession } from '../open-backend.js'
import { parseBranchCount, parseSeq } from '../options.js'
import { printJson, printLines, printNote } from '../output.js'
import { boardTable, checkText, formatDuration } from '../render/board-table.js'
import { clip, type Style, safeLine, styleFor } from '../render/style.js'
import { type BoardWithUsage, readBoard } from './compare.js'

interface ExploreFlags extends ExploreBranchFlags {
  at?: number
  files?: FileMode
  check?: string
  concurrency?: number
  json?: boolean
}

export function registerExploreCommand(program: Command, context: CliContext): void {
  program
    .command('explore')
    .description(
      'Fork N branches after one turn and run them in parallel: one per -p, one prompt per --models entry, or one prompt -n times',
    )
    .argument('<id>', 'session id or a unique prefix of one')
    .option(
      '-p, --prompt <text>',
      "a branch's first message (repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--models <list>', 'one branch per model, comma-separated provider:model ids (with one -p)')
    .option('-n, --count <n>', 'N branches of the same prompt (with one -p)', parseBranchCount)
    .option('--at <seq>', 'branch after the turn that holds SEQ (default: the last completed turn)', parseSeq)
    .addOption(
      new Option(
        '--files <mode>',
        'worktree: each branch its own copy at the fork point (default); shared: the same directory',
      ).choices(['worktree', 'shared']),
    )
    .option('--check <command>', 'run in each branch\'s directory after its turn, e.g. "npm test"')
    .option('--concurrency <n>', 'branches whose turns run at once (default 3)', parseBranchCount)
    .option('--json', 'print {exploration, sessions} once every branch ended')
    .action((given: string, flags: ExploreFlags) => exploreCommand(context, given, flags))
}

async function exploreCommand(context: CliContext, given: string, flags: ExploreFlags): Promise<void> {
  const branches = exploreBranches(flags)
  const out = styleFor(context.stdout, context.env)
  const { result } = await withSession(context, {}, given, async (backend, sessionId) => {
    // A branch whose model cannot run would never start its turn: refuse before forking.
    const models = new Set(branches.map((branch) => branch.model).filter((model) => model !== undefined))
    // Only a branch without a model of its own runs the session's (`--models M,M` names two).
    if (branches.some((branch) => branch.model === undefined))
      models.add(await sessionModel(backend, sessionId))
    for (const model of models) if (model !== '') await assertModelAvailable(backend, model)
    const explored = await backend.explore({
      sessionId,
      branches,
      ...(flags.at !== undefined ? { atSeq: flags.at } : {}),
      ...(flags.files ? { files: flags.files } : {}),
      ...(flags.check !== undefined ? { check: flags.check } : {}),
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    })
    if (!flags.json) printLines(context, startLines(sessionId, explored, branches, out))
    const ends = await untilEnded(context, backend, explored, flags, out)
    return {
      explored,
      ends,
      read: await readBoard(
        backend,
        explored.sessions.map((session) => session.id),
      ),
    }
  })
  const { explored, ends, read } = result
  if (flags.json) {
    printJson(context, {
      exploration: explored.exploration,
      sessions: read.board.branches.map((branch) => branch.session),
      ...(explored.leftOut !== undefined ? { leftOut: explored.leftOut } : {}),
    })
  } else printSummary(context, read, out)
  const failed = ends.filter((end) => end.outcome !== 'completed' && end.outcome !== 'max-steps')
  if (failed.length > 0) {
    throw new TangentError(
      'turn-error',
      `${failed.map((end) => `branch ${labelOf(end)} ${outcomeText(end)}`).join('; ')} (see \`tangent show ID\`)`,
      { sessionIds: failed.map((end) => end.session.id) },
    )
  }
}

/** Waits for every branch; the first Ctrl-C aborts their turns (each ends `aborted`), a second quits. */
async function untilEnded(
  context: CliContext,
  backend: Backend,
  explored: ExploreResult,
  flags: ExploreFlags,
  out: Style,
): Promise<BranchEnd[]> {
  const onSignal = () => {
    process.off('SIGINT', onSignal)
    if (!flags.json) context.stderr.write('\naborting the branches (Ctrl-C again to quit)\n')
    for (const session of explored.sessions) void backend.abort(session.id)
  }
  process.on('SIGINT', onSignal)
  try {
    return await watchBranches(backend, explored.sessions, {
      withCheck: flags.check !== undefined,
      onWaiting: (session, tool) =>
        printNote(
          context,
          `branch ${safeLine(session.exploration?.label ?? session.id)} waits for approval of ${safeLine(tool)}: answer it in the web UI (tangent serve) or tangent chat ${session.id}`,
        ),
      onEnd: async (end) => {
        if (flags.json) return
        // Its files since the fork point, from the board of this one branch.
        const board = await backend.board([end.session.id])
        printLines(context, [endLine(end, board.branches[0]!, out)])
      },
    })
  } finally {
    process.off('SIGINT', onSignal)
  }
}

async function sessionModel(backend: Backend, sessionId: string): Promise<string> {
  const { session } = await backend.getSession(sessionId, 2 ** 31)
  return session.model ? `${session.model.provider}:${session.model.model}` : ''
}

function startLines(
  sessionId: string,
  explored: ExploreResult,
  branches: ReturnType<typeof exploreBranches>,
  style: Style,
): string[] {
  const where =
    explored.sessions[0]?.files.mode === 'shared' ? 'in the same directory' : 'each in its own worktree'
  return [
    style.dim(
      `exploring ${sessionId} after seq ${explored.boundary}: ${explored.sessions.length} ${explored.sessions.length === 1 ? 'branch' : 'branches'}, ${where}`,
    ),
    ...explored.sessions.map((session, index) => {
      const branch = branches[index]!
      const model = branch.model ? ` [${safeLine(branch.model)}]` : ''
      return style.dim(
        `  ${safeLine(session.exploration?.label ?? String(index + 1))}  ${session.id}${model}  ${clip(branch.prompt, 60)}`,
      )
    }),
    ...((explored.leftOut ?? []).length > 0
      ? [
          style.yellow(
            `left out of their worktrees (too big to snapshot, or not a regular file): ${safeLine(explored.leftOut!.join(', '))}`,
          ),
        ]
      : []),
  ]
}

function endLine(end: BranchEnd, branch: BoardWithUsage['board']['branches'][number], style: Style): string {
  const files = branch.files.length
  const parts = [
    end.outcome === 'completed' ? style.green('done') : style.red(outcomeText(end)),
    files === 0 ? 'no files changed' : `${files} ${files === 1 ? 'file' : 'files'} changed`,
  ]
  if (branch.check) parts.push(`check ${checkText(branch.check)}`)
  if (branch.durationMs !== null) parts.push(formatDuration(branch.durationMs))
  return `${style.bold(safeLine(labelOf(end)))}  ${parts.join(' · ')}`
}

function printSummary(context: CliContext, read: BoardWithUsage, style: Style): void {
  const keep = read.board.branches.find((branch) => branch.check?.ok) ?? read.board.branches[0]
  printLines(context, [
    '',
    ...boardTable(read.board, read.usage, style),
    '',
    style.dim(`keep one with: tangent keep ${keep?.session.id ?? 'ID'}  (see also: tangent diff A B)`),
  ])
}

function labelOf(end: BranchEnd): string {
  return end.session.exploration?.label ?? end.session.id
}

function outcomeText(end: BranchEnd): string {
  switch (end.outcome) {
    case 'not-started':
      return 'did not start (see the errors above)'
    case 'error':
      return `ended in an error${end.error ? `: ${clip(end.error, 80)}` : ''}`
    default:
      return end.outcome
  }
}
