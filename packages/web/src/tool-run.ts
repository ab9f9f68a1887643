// Consecutive tool calls of a turn shown as one row (docs/architecture.md §8): "150 files
// written · 3 commands · 1 error", opened on demand. Pure, so it is tested without a browser.
import type { ToolItem, TurnItem } from './transcript-model.js'

/** Fewer consecutive calls than this stay rows of their own. */
export const minToolRun = 3

export interface ToolRunModel {
  readonly kind: 'tool-run'
  /** The first call's id: stays the same while the run grows. */
  readonly key: string
  readonly tools: readonly ToolItem[]
}

export type TurnRow = Exclude<TurnItem, ToolItem> | ToolItem | ToolRunModel

/** A turn's items with every run of at least `minToolRun` consecutive calls folded into one. */
export function groupTurnItems(items: readonly TurnItem[]): TurnRow[] {
  const rows: TurnRow[] = []
  let run: ToolItem[] = []
  const flush = () => {
    if (run.length >= minToolRun) rows.push({ kind: 'tool-run', key: run[0]!.callId, tools: run })
    else rows.push(...run)
    run = []
  }
  for (const item of items) {
    if (item.kind === 'tool') run.push(item)
    else {
      flush()
      rows.push(item)
    }
  }
  flush()
  return rows
}

/** What a call counts as in a run's line. */
const nouns: Readonly<Record<string, readonly [string, string]>> = {
  write: ['file written', 'files written'],
  edit: ['file edited', 'files edited'],
  read: ['file read', 'files read'],
  bash: ['command', 'commands'],
  grep: ['search', 'searches'],
  list: ['folder listed', 'folders listed'],
  task: ['subagent', 'subagents'],
}

export function isToolError(item: ToolItem): boolean {
  return item.result?.isError === true
}

/** "150 files written · 3 commands · 1 error · 1 running": kinds in order of first use. */
export function describeToolRun(tools: readonly ToolItem[]): string {
  const counts = new Map<string, number>()
  let errors = 0
  let running = 0
  for (const tool of tools) {
    counts.set(tool.toolName, (counts.get(tool.toolName) ?? 0) + 1)
    if (tool.result === null) running++
    else if (tool.result.isError) errors++
  }
  const parts = [...counts].map(([name, n]) => {
    const noun = nouns[name] ?? [`${name} call`, `${name} calls`]
    return `${n} ${n === 1 ? noun[0] : noun[1]}`
  })
  if (errors > 0) parts.push(`${errors} error${errors === 1 ? '' : 's'}`)
  if (running > 0) parts.push(`${running} running`)
  return parts.join(' · ')
}
