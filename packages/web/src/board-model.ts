// What the exploration board shows, computed from `session.board` and `session.fileAcross`
// answers (docs/architecture.md §8): each branch's state in words, the files any branch
// changed, and a line diff of one file against the fork point. Pure, so it is tested without a browser.
import type { BoardBranch, BoardResult } from './wire.js'

/** A branch's state in words (never colour alone): what it is doing, or how it ended. */
export type BranchPhase = 'running' | 'checking' | 'idle' | 'stopped' | 'not-started' | 'archived'

/**
 * `check`: the exploration's check command, when known. A branch that ended a turn but has
 * no check recorded since is still checking (it stays busy until `check/ran`).
 */
export function branchPhase(branch: BoardBranch, check: string | null): BranchPhase {
  if (branch.session.status === 'running') return 'running'
  if (branch.session.archived) return 'archived'
  if (branch.turns === 0) return 'not-started'
  if (check !== null && branch.completedTurns > 0 && branch.check === null) return 'checking'
  // Its turns all ended without completing (stopped, failed, or the Host stopped): not done.
  if (branch.completedTurns === 0) return 'stopped'
  return 'idle'
}

/** Whether a branch has ended (done or not): nothing about it changes by itself any more. */
export function phaseEnded(phase: BranchPhase): boolean {
  return phase === 'idle' || phase === 'stopped' || phase === 'archived'
}

export const phaseText: Readonly<Record<BranchPhase, string>> = {
  running: 'Running',
  checking: 'Running its check',
  idle: 'Done',
  stopped: 'Stopped: no turn completed',
  'not-started': 'Waiting to start',
  archived: 'Archived',
}

/** Whether the board may still change by itself (some branch runs or waits for its check). */
export function boardSettled(result: BoardResult, check: string | null): boolean {
  return result.branches.every((branch) => phaseEnded(branchPhase(branch, check)))
}

/** The board's line once it is settled: done, unless some branch ended without completing. */
export function settledText(result: BoardResult, check: string | null): string {
  const stopped = result.branches.filter((branch) => branchPhase(branch, check) === 'stopped').length
  if (stopped === 0) return 'All branches done'
  return `All branches ended · ${stopped} stopped before completing a turn`
}

/** Every path some branch changed, sorted, with how many branches changed it. */
export function changedPaths(result: BoardResult): { path: string; branches: number }[] {
  const counts = new Map<string, number>()
  for (const branch of result.branches) {
    for (const file of branch.files) counts.set(file.path, (counts.get(file.path) ?? 0) + 1)
  }
  return [...counts]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, branches]) => ({ path, branches }))
}

/** "in 1.2k · out 340 · cached 800". */
export function tokensText(tokens: BoardBranch['tokens']): string {
  const parts = [`in ${compact(tokens.input)}`, `out ${compact(tokens.output)}`]
  if (tokens.cached > 0) parts.push(`cached ${compact(tokens.cached)}`)
  return parts.join(' · ')
}

function compact(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

export interface DiffLine {
  readonly kind: 'same' | 'add' | 'del'
  readonly text: string
}

/** Above this many line pairs the diff is not computed (the column says so and shows the file). */
export const maxDiffCells = 4_000_000

/**
 * The lines of `after` against `before` (null: the file does not exist there), by longest
 * common subsequence. Null when the files are too large to diff here.
 */
export function lineDiff(before: string | null, after: string | null): DiffLine[] | null {
  const a = splitLines(before)
  const b = splitLines(after)
  if (a.length * b.length > maxDiffCells) return null
  // lengths[i][j]: the LCS of a[i…] and b[j…], in one flat array.
  const width = b.length + 1
  const lengths = new Uint32Array((a.length + 1) * width)
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!)
    }
  }
  const lines: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! })
      i++
      j++
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      lines.push({ kind: 'del', text: a[i++]! })
    } else {
      lines.push({ kind: 'add', text: b[j++]! })
    }
  }
  while (i < a.length) lines.push({ kind: 'del', text: a[i++]! })
  while (j < b.length) lines.push({ kind: 'add', text: b[j++]! })
  return lines
}

/**
 * Where a changed line differs from its counterpart: a run of removed lines followed by a run
 * of added ones pairs them in order (the first removed with the first added, …), and each pair's
 * changed characters are what lies between their common start and common end. Null for a line
 * that is the same, or has no counterpart (wholly added or removed), or is identical to it.
 */
export function inlineChanges(lines: readonly DiffLine[]): ({ start: number; end: number } | null)[] {
  const marks: ({ start: number; end: number } | null)[] = lines.map(() => null)
  let i = 0
  while (i < lines.length) {
    if (lines[i]!.kind !== 'del') {
      i++
      continue
    }
    const delStart = i
    while (i < lines.length && lines[i]!.kind === 'del') i++
    const addStart = i
    while (i < lines.length && lines[i]!.kind === 'add') i++
    const pairs = Math.min(addStart - delStart, i - addStart)
    for (let k = 0; k < pairs; k++) {
      const before = lines[delStart + k]!.text
      const after = lines[addStart + k]!.text
      const [del, add] = changedSpans(before, after)
      marks[delStart + k] = del
      marks[addStart + k] = add
    }
  }
  return marks
}

/** The changed part of each of two lines (their common start and end left out); null: nothing there. */
function changedSpans(
  before: string,
  after: string,
): [{ start: number; end: number } | null, { start: number; end: number } | null] {
  const limit = Math.min(before.length, after.length)
  let head = 0
  while (head < limit && before[head] === after[head]) head++
  let tail = 0
  while (tail < limit - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++
  const span = (text: string) => (head < text.length - tail ? { start: head, end: text.length - tail } : null)
  return [span(before), span(after)]
}

function splitLines(text: string | null): string[] {
  if (text === null || text === '') return []
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}
