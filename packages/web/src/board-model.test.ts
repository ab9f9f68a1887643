import { describe, expect, it } from 'vitest'
import {
  boardSettled,
  branchPhase,
  changedPaths,
  inlineChanges,
  lineDiff,
  settledText,
  tokensText,
} from './board-model.js'
import type { BoardBranch, BoardResult, SessionSummary } from './wire.js'

function branch(overrides: Partial<BoardBranch> = {}, session: Partial<SessionSummary> = {}): BoardBranch {
  return {
    session: {
      id: 's',
      title: 'T · A',
      cwd: '/w',
      workspaceId: null,
      parentSession: 'p',
      forkedAt: 3,
      origin: 'fork',
      createdAt: 0,
      updatedAt: 0,
      eventCount: 4,
      inheritedEventCount: 4,
      status: 'idle',
      archived: false,
      model: null,
      files: { mode: 'worktree', path: '/wt', baseTree: null },
      ...session,
    },
    turns: 1,
    completedTurns: 1,
    durationMs: 10,
    files: [],
    check: null,
    tokens: { input: 0, output: 0, cached: 0 },
    ...overrides,
  }
}

const passed = { seq: 9, command: 'true', exitCode: 0, ok: true, output: '', durationMs: 3 }

describe('board model', () => {
  it('says what a branch is doing, waiting for its check after a turn when there is one', () => {
    expect(branchPhase(branch({}, { status: 'running' }), 'true')).toBe('running')
    expect(branchPhase(branch(), 'true')).toBe('checking')
    expect(branchPhase(branch(), null)).toBe('idle')
    expect(branchPhase(branch({ check: passed }), 'true')).toBe('idle')
    expect(branchPhase(branch({ turns: 0, completedTurns: 0 }), null)).toBe('not-started')
    expect(branchPhase(branch({}, { archived: true }), 'true')).toBe('archived')
    // Its one turn was stopped (or failed, or the Host stopped): ended, but not done.
    expect(branchPhase(branch({ turns: 1, completedTurns: 0 }), null)).toBe('stopped')
    expect(branchPhase(branch({ turns: 1, completedTurns: 0 }), 'true')).toBe('stopped')
    const board = (branches: BoardBranch[]): BoardResult => ({ ancestor: 'p', baseTree: null, branches })
    expect(boardSettled(board([branch({ turns: 1, completedTurns: 0 }), branch()]), null)).toBe(true)
    expect(settledText(board([branch({ turns: 1, completedTurns: 0 }), branch()]), null)).toBe(
      'All branches ended · 1 stopped before completing a turn',
    )
    expect(settledText(board([branch(), branch()]), null)).toBe('All branches done')
  })

  it('is settled once every branch is done or archived', () => {
    const result = (branches: BoardBranch[]): BoardResult => ({ ancestor: 'p', baseTree: null, branches })
    expect(boardSettled(result([branch({ check: passed }), branch({}, { archived: true })]), 'true')).toBe(
      true,
    )
    expect(boardSettled(result([branch({ check: passed }), branch()]), 'true')).toBe(false)
  })

  it('lists every changed path once, sorted, with how many branches changed it', () => {
    const file = (path: string) => ({ path, status: 'added' as const, added: 1, removed: 0 })
    const result: BoardResult = {
      ancestor: 'p',
      baseTree: null,
      branches: [branch({ files: [file('b.txt'), file('a.txt')] }), branch({ files: [file('b.txt')] })],
    }
    expect(changedPaths(result)).toEqual([
      { path: 'a.txt', branches: 1 },
      { path: 'b.txt', branches: 2 },
    ])
  })

  it('diffs lines against the fork point', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'del', text: 'b' },
      { kind: 'add', text: 'B' },
      { kind: 'same', text: 'c' },
      { kind: 'add', text: 'd' },
    ])
    expect(lineDiff(null, 'new\n')).toEqual([{ kind: 'add', text: 'new' }])
    expect(lineDiff('gone\n', null)).toEqual([{ kind: 'del', text: 'gone' }])
    const big = 'x\n'.repeat(3000)
    expect(lineDiff(big, `${big}y\n`)).toBeNull()
  })

  it('writes tokens compactly', () => {
    expect(tokensText({ input: 1234, output: 56, cached: 0 })).toBe('in 1.2k · out 56')
    expect(tokensText({ input: 20_000, output: 0, cached: 800 })).toBe('in 20k · out 0 · cached 800')
  })
})

describe('inlineChanges', () => {
  it('marks the characters a changed line differs in, pairing removed and added lines in order', () => {
    const lines = lineDiff('keep\nword word end\nold\n', 'keep\nword word fin\nnew line\nextra\n')!
    const marks = inlineChanges(lines)
    const marked = lines.map((line, index) =>
      marks[index] ? line.text.slice(marks[index]!.start, marks[index]!.end) : null,
    )
    expect(lines.map((line) => line.kind)).toEqual(['same', 'del', 'del', 'add', 'add', 'add'])
    expect(marked).toEqual([null, 'end', 'old', 'fin', 'new line', null])
  })

  it('marks nothing in identical or unpaired lines', () => {
    expect(inlineChanges(lineDiff(null, 'a\nb\n')!)).toEqual([null, null])
    expect(inlineChanges(lineDiff('abc\n', 'abXc\n')!)).toEqual([null, { start: 2, end: 3 }])
  })
})
