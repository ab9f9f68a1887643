// `tangent compare A B [C…]`: the N-way board of branches (docs/protocol.md `session.board`) —
// per branch its status, turns, time, files changed with +/− counts, check, tokens and cost.
// `tangent diff A B` stays the two-way view with the turns and the patch.
import type { UsageSplit } from '@tangent/protocol'
import type { Command } from 'commander'
import type { Backend, BoardResult } from '../backend.js'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { boardTable } from '../render/board-table.js'
import { styleFor } from '../render/style.js'

/** The board, and each branch's usage (own vs inherited, with cost) from `session.get`. */
export interface BoardWithUsage {
  board: BoardResult
  usage: Map<string, UsageSplit>
}

export function registerCompareCommand(program: Command, context: CliContext): void {
  program
    .command('compare')
    .description('Compare branches side by side: status, turns, time, files changed, check, tokens and cost')
    .argument(
      '<ids...>',
      'two to eight session ids (or unique prefixes), e.g. the branches of `tangent explore`',
    )
    .option('--json', 'print the session.board result, each branch with its usage')
    .action(async (given: string[], flags: { json?: boolean }) => {
      if (given.length < 2 || given.length > 8)
        throw new UsageError(`compare takes two to eight sessions, got ${given.length}`)
      const read = await withBackend(context, { readOnly: true }, async (backend) =>
        readBoard(backend, await Promise.all(given.map((id) => backend.resolveSession(id)))),
      )
      if (flags.json) return printJson(context, boardJson(read))
      printLines(context, boardTable(read.board, read.usage, styleFor(context.stdout, context.env)))
    })
}

export async function readBoard(backend: Backend, sessionIds: string[]): Promise<BoardWithUsage> {
  const board = await backend.board(sessionIds)
  const usage = new Map<string, UsageSplit>()
  for (const branch of board.branches) {
    // From the end of the log: only the summary and the usage are needed, not the events.
    const { usage: split } = await backend.getSession(branch.session.id, branch.session.eventCount)
    if (split) usage.set(branch.session.id, split)
  }
  return { board, usage }
}

/** The board as `--json` prints it: session.board's result, each branch with `usage` (own/inherited/total). */
export function boardJson({ board, usage }: BoardWithUsage): unknown {
  return {
    ...board,
    branches: board.branches.map((branch) => {
      const split = usage.get(branch.session.id)
      return split
        ? { ...branch, usage: { own: split.own, inherited: split.inherited, total: split.total } }
        : branch
    }),
  }
}
