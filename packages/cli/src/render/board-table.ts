// The compare board as a terminal table (docs/architecture.md §9): a column per branch, a row
// per fact — title, status, turns, time, files with +/− counts (and a row per file), the check,
// tokens and cost — so N branches read side by side. Used by `tangent compare` and `explore`.
import { formatCost, formatTokens, type UsageSplit } from '@tangent/protocol'
import type { BoardResult } from '../backend.js'
import { clip, type Style, safeLine, titleOf } from './style.js'

type BoardBranch = BoardResult['branches'][number]

/** The widest a branch column gets (longer cells are cut with …). */
const columnWidth = 26

export function boardTable(
  board: BoardResult,
  usage: ReadonlyMap<string, UsageSplit>,
  style: Style,
): string[] {
  const branches = board.branches
  const rows: { name: string; cells: string[]; paint?: (cell: string, index: number) => string }[] = [
    { name: 'title', cells: branches.map((branch) => titleOf(branch.session)) },
    { name: 'session', cells: branches.map((branch) => branch.session.id) },
    {
      name: 'model',
      cells: branches.map(({ session }) =>
        session.model ? `${session.model.provider}:${session.model.model}` : '—',
      ),
    },
    { name: 'status', cells: branches.map(statusText) },
    { name: 'turns', cells: branches.map((branch) => `${branch.completedTurns}/${branch.turns} completed`) },
    {
      name: 'time',
      cells: branches.map((branch) => (branch.durationMs === null ? '—' : formatDuration(branch.durationMs))),
    },
    { name: 'files', cells: branches.map((branch) => filesText(branch.files)) },
  ]
  const paths = [...new Set(branches.flatMap((branch) => branch.files.map((file) => file.path)))].sort()
  for (const path of paths) {
    rows.push({
      name: `  ${safeLine(path)}`,
      cells: branches.map((branch) => {
        const file = branch.files.find((candidate) => candidate.path === path)
        if (!file) return '·'
        return file.binary ? `${file.status} (binary)` : `${file.status} +${file.added} −${file.removed}`
      }),
    })
  }
  rows.push(
    {
      name: 'check',
      cells: branches.map((branch) => checkText(branch.check)),
      paint: (cell, index) => {
        const check = branches[index]!.check
        return check === null ? cell : check.ok ? style.green(cell) : style.red(cell)
      },
    },
    {
      name: 'tokens',
      cells: branches.map(
        (branch) => `in ${formatTokens(branch.tokens.input)} · out ${formatTokens(branch.tokens.output)}`,
      ),
    },
    {
      name: 'cost',
      cells: branches.map((branch) => {
        const split = usage.get(branch.session.id)
        return split ? formatCost(split.own.cost) : '—'
      }),
    },
  )
  // Every cell escaped before the columns are measured, so an escape widens its column as shown.
  for (const row of rows) row.cells = row.cells.map(safeLine)
  const headers = branches.map((branch) =>
    safeLine(branch.session.exploration?.label ?? branch.session.id.slice(0, 8)),
  )
  const nameWidth = Math.max(...rows.map((row) => row.name.length))
  const widths = branches.map((_, index) =>
    Math.min(columnWidth, Math.max(headers[index]!.length, ...rows.map((row) => row.cells[index]!.length))),
  )
  const line = (name: string, cells: string[], paint?: (cell: string, index: number) => string) =>
    [
      name.padEnd(nameWidth),
      ...cells.map((cell, index) => {
        const padded = clip(cell, widths[index]!).padEnd(widths[index]!)
        return paint ? paint(padded, index) : padded
      }),
    ]
      .join('  ')
      .trimEnd()
  const lines = [
    style.dim(
      board.ancestor === null
        ? 'No common ancestor: these sessions are unrelated.'
        : `Branches of ${board.ancestor}; files compared with their fork point.`,
    ),
    style.bold(line('', headers)),
  ]
  for (const row of rows) lines.push(line(row.name, row.cells, row.paint))
  return lines
}

function statusText(branch: BoardBranch): string {
  if (branch.session.archived) return `${branch.session.status}, archived`
  return branch.session.status
}

function filesText(files: BoardBranch['files']): string {
  if (files.length === 0) return 'no changes'
  const added = files.reduce((sum, file) => sum + file.added, 0)
  const removed = files.reduce((sum, file) => sum + file.removed, 0)
  return `${files.length} ${files.length === 1 ? 'file' : 'files'} +${added} −${removed}`
}

/** "ok (1.2s)", "failed: exit 1 (0.3s)", "timed out (600s)", "—" when none ran. */
export function checkText(check: BoardBranch['check']): string {
  if (check === null) return '—'
  const took = formatDuration(check.durationMs)
  if (check.timedOut) return `timed out (${took})`
  if (check.ok) return `ok (${took})`
  return `failed: exit ${check.exitCode ?? '?'} (${took})`
}

/** 850ms, 2.3s, 4m05s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`
}
