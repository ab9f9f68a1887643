import { describe, expect, it } from 'vitest'
import type { SessionSummary } from '../backend.js'
import { treeRows } from './tree-rows.js'

function summary(id: string, overrides: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    title: `title ${id}`,
    cwd: '/work/app',
    workspaceId: null,
    parentSession: null,
    forkedAt: null,
    origin: 'user',
    createdAt: 0,
    updatedAt: 0,
    eventCount: 10,
    inheritedEventCount: 0,
    status: 'idle',
    archived: false,
    model: null,
    mode: 'edit',
    files: { mode: 'shared', path: '/work/app', baseTree: null },
    ...overrides,
  }
}

const shape = (rows: ReturnType<typeof treeRows>) =>
  rows.map((row) => `${'  '.repeat(row.depth)}${row.label}`)

describe('treeRows', () => {
  it("lists the folder's sessions, forks under their parent with the seq, archived and other folders left out", () => {
    const rows = treeRows(
      [
        summary('C', { parentSession: 'A', forkedAt: 9, createdAt: 3, origin: 'fork' }),
        summary('A', { createdAt: 1 }),
        summary('B', {
          parentSession: 'A',
          forkedAt: 4,
          createdAt: 2,
          origin: 'fork',
          cwd: '/elsewhere/worktree',
        }),
        summary('D', { parentSession: 'B', forkedAt: 4, createdAt: 4, origin: 'fork' }),
        summary('E', { createdAt: 5, archived: true }),
        summary('F', { createdAt: 6, cwd: '/other/folder' }),
      ],
      '/work/app',
    )
    // B works in a worktree of its own: still under its parent, as are its forks.
    expect(shape(rows)).toEqual(['title A', '  @4 title B', '    @4 title D', '  @9 title C'])
    expect(rows.map((row) => row.sessionId)).toEqual(['A', 'B', 'D', 'C'])
  })

  it("groups one exploration's branches under a row of their own, A first, before plain forks", () => {
    const exploration = (label: string) => ({ id: 'x1', label })
    const rows = treeRows(
      [
        summary('P', { createdAt: 1 }),
        summary('F', { parentSession: 'P', forkedAt: 8, createdAt: 2, origin: 'fork' }),
        summary('b', {
          parentSession: 'P',
          forkedAt: 8,
          createdAt: 3,
          exploration: exploration('B'),
          status: 'running',
        }),
        summary('a', { parentSession: 'P', forkedAt: 8, createdAt: 4, exploration: exploration('A') }),
      ],
      '/work/app',
    )
    expect(shape(rows)).toEqual([
      'title P',
      '  exploration A B @8',
      '    A @8 title a',
      '    B @8 title b',
      '  @8 title F',
    ])
    expect(rows[1]).toMatchObject({
      kind: 'exploration',
      sessionId: 'P',
      running: true,
      exploration: { id: 'x1', branches: ['a', 'b'] },
    })
  })

  it('stops indenting deep lineages and walks a chain of 5,000 forks without recursion', () => {
    const chain = [summary('s0', { createdAt: 0 })]
    for (let i = 1; i < 5000; i++)
      chain.push(summary(`s${i}`, { parentSession: `s${i - 1}`, forkedAt: 3, createdAt: i, origin: 'fork' }))
    const rows = treeRows(chain, '/work/app')
    expect(rows).toHaveLength(5000)
    expect(Math.max(...rows.map((row) => row.depth))).toBe(12)
  })

  it('keeps a title that holds terminal controls on one escaped line', () => {
    const [row] = treeRows([summary('A', { title: 'evil\u001b[2J\ntitle' })], '/work/app')
    expect(row!.label).toBe('evil\\x1b[2J\\ntitle')
  })
})
