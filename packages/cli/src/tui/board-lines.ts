// The exploration board in `tangent tui`: a row per branch (status, turns, files +/−, check and
// tokens), so three or four branches fit an 80-column terminal, read from `session.board` again
// as the branches' events arrive. `k` with the branch's letter keeps it.
import { formatTokens } from '@tangent/protocol'
import type { BoardResult } from '../backend.js'
import { checkText } from '../render/board-table.js'
import { clip, type Style, safeLine, titleOf } from '../render/style.js'

export function boardLines(board: BoardResult | null, style: Style): string[] {
  if (board === null) return [style.dim('Reading the board…')]
  const lines = [
    style.bold('Exploration board') + style.dim('  ·  k then a letter keeps that branch · Esc closes'),
  ]
  for (const branch of board.branches) {
    const session = branch.session
    const label = session.exploration?.label ?? '?'
    const status =
      session.status === 'running'
        ? style.yellow('● running')
        : branch.kept
          ? style.magenta('✔ kept')
          : session.archived
            ? style.dim('archived')
            : style.green('○ idle')
    const added = branch.files.reduce((sum, file) => sum + file.added, 0)
    const removed = branch.files.reduce((sum, file) => sum + file.removed, 0)
    const files =
      branch.files.length === 0
        ? style.dim('no changes')
        : `${branch.files.length}f ${style.green(`+${added}`)} ${style.red(`−${removed}`)}`
    const check =
      branch.check === null
        ? style.dim('check —')
        : branch.check.ok
          ? style.green(`check ${checkText(branch.check)}`)
          : style.red(`check ${checkText(branch.check)}`)
    const tokens = style.dim(`${formatTokens(branch.tokens.input + branch.tokens.output)} tok`)
    lines.push(
      `${style.bold(label)} ${status}  ${branch.completedTurns}/${branch.turns} turns  ${files}  ${check}  ${tokens}`,
    )
    lines.push(`  ${style.cyan(session.id)} ${clip(safeLine(titleOf(session)), 50)}`)
  }
  return lines
}
