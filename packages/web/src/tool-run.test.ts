import { describe, expect, it } from 'vitest'
import { describeToolRun, groupTurnItems } from './tool-run.js'
import type { ToolItem, TurnItem } from './transcript-model.js'

function tool(n: number, toolName: string, outcome: 'ok' | 'error' | 'running' = 'ok'): ToolItem {
  return {
    kind: 'tool',
    seq: n,
    callId: `c${n}`,
    toolName,
    input: { path: `f/${n}.txt` },
    result: outcome === 'running' ? null : { seq: n + 1, output: 'x', isError: outcome === 'error' },
    permission: null,
  }
}

describe('tool runs', () => {
  it('folds three or more consecutive calls into one run; text breaks a run; shorter runs stay', () => {
    const text: TurnItem = { kind: 'text', seq: 9, text: 'done' }
    const items: TurnItem[] = [
      tool(1, 'write'),
      tool(2, 'write'),
      tool(3, 'bash'),
      text,
      tool(4, 'read'),
      tool(5, 'read'),
    ]
    const rows = groupTurnItems(items)
    expect(rows.map((row) => row.kind)).toEqual(['tool-run', 'text', 'tool', 'tool'])
    const run = rows[0]!
    expect(run.kind === 'tool-run' && run.tools.map((t) => t.callId)).toEqual(['c1', 'c2', 'c3'])
    expect(run.kind === 'tool-run' && run.key).toBe('c1')
  })

  it('says what a run did, errors and running calls included', () => {
    const tools = [
      ...Array.from({ length: 150 }, (_, i) => tool(i, 'write')),
      tool(200, 'bash'),
      tool(201, 'bash', 'error'),
      tool(202, 'bash'),
      tool(203, 'mcp__x__echo', 'running'),
    ]
    expect(describeToolRun(tools)).toBe(
      '150 files written · 3 commands · 1 mcp__x__echo call · 1 error · 1 running',
    )
    expect(describeToolRun([tool(1, 'read')])).toBe('1 file read')
  })
})
