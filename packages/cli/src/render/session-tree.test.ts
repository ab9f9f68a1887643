import { describe, expect, it } from 'vitest'
import type { SessionSummary } from '../backend.js'
import { renderSessionTree } from './session-tree.js'
import { styleFor } from './style.js'

const plain = styleFor({ write: () => true, isTTY: false }, {})

function summary(id: string, overrides: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    title: `title ${id}`,
    cwd: '/tmp/x',
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
    files: { mode: 'shared', path: '/tmp/x', baseTree: null },
    ...overrides,
  }
}

describe('renderSessionTree', () => {
  it('nests forks under their parent with the fork seq, siblings by creation time', () => {
    const lines = renderSessionTree(
      [
        summary('C', { parentSession: 'A', forkedAt: 9, createdAt: 3, origin: 'fork' }),
        summary('A', { createdAt: 1 }),
        summary('B', { parentSession: 'A', forkedAt: 4, createdAt: 2, origin: 'fork' }),
        summary('D', { parentSession: 'B', forkedAt: 4, createdAt: 4, origin: 'fork' }),
      ],
      plain,
    )
    expect(lines).toHaveLength(4)
    expect(lines[0]).toMatch(/^A {2}title A/)
    expect(lines[1]).toMatch(/^├─ B {2}title B {2}fork @ seq 4/)
    expect(lines[2]).toMatch(/^│ {2}└─ D .*fork @ seq 4/)
    expect(lines[3]).toMatch(/^└─ C .*fork @ seq 9/)
  })

  it('shows a fork whose parent is not listed as a root naming its parent, and marks the current one', () => {
    const lines = renderSessionTree(
      [summary('B', { parentSession: 'GONE', forkedAt: 2, title: '' })],
      plain,
      { current: 'B' },
    )
    expect(lines).toEqual([expect.stringMatching(/^\* B {2}\(untitled\) {2}fork of GONE @ seq 2/)])
  })

  it('flags a session in a mode other than the default', () => {
    const lines = renderSessionTree(
      [
        summary('A', { mode: 'plan' }),
        summary('B', { createdAt: 1 }),
        summary('C', { mode: 'ask', createdAt: 2 }),
      ],
      plain,
    )
    expect(lines[0]).toMatch(/ {2}plan mode$/)
    expect(lines[1]).not.toContain('mode')
    expect(lines[2]).toMatch(/ {2}ask mode$/)
  })

  it('renders a lineage thousands of forks deep, going back to the margin past 20 levels', () => {
    const id = (n: number) => `c${String(n).padStart(5, '0')}`
    const chain = Array.from({ length: 5000 }, (_, n) =>
      summary(id(n), n === 0 ? {} : { parentSession: id(n - 1), forkedAt: 3, createdAt: n, origin: 'fork' }),
    )
    const side = summary('side', { parentSession: id(4), forkedAt: 1, createdAt: 9000, origin: 'fork' })
    const lines = renderSessionTree([...chain, side], plain)
    expect(lines).toHaveLength(5001)
    // c00000 at the margin, c00001..c00020 indented under it, then c00004's second fork.
    expect(lines[20]).toBe(
      `${' '.repeat(12)}│  ${' '.repeat(42)}└─ c00020  title c00020  fork @ seq 3 · 10 events · /tmp/x`,
    )
    expect(lines[21]).toBe(`${' '.repeat(12)}└─ side  title side  fork @ seq 1 · 10 events · /tmp/x`)
    expect(lines[22]).toMatch(/^c00021 {2}title c00021 {2}fork of c00020 @ seq 3/)
    expect(lines[43]).toMatch(/^c00042 .*fork of c00041 @ seq 3/)
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(200)
  })

  it('keeps a session on one line whatever its title, model or worktree path hold', () => {
    const lines = renderSessionTree(
      [
        summary('A', {
          title: 'a\nb \x1b[31mRED\t\u202eX',
          model: { provider: 'p\x1b', model: 'm\n' },
          files: { mode: 'worktree', path: '/tmp/\x9b2J', baseTree: null },
        }),
      ],
      plain,
    )
    expect(lines).toEqual([
      'A  a\\nb \\x1b[31mRED\\t\\u202eX  10 events · p\\x1b:m\\n · worktree /tmp/\\x9b2J',
    ])
  })
})

describe('the rows of tangent sessions', () => {
  it('show the folder (under ~), the age and how the last turn went', () => {
    const now = 1_000_000_000
    const lines = renderSessionTree(
      [
        summary('A', { cwd: '/home/me/project', updatedAt: now - 5 * 60_000 }),
        summary('B', { cwd: '/srv/x', updatedAt: now - 3 * 3_600_000, createdAt: 1 }),
        summary('C', { updatedAt: now - 3 * 86_400_000, createdAt: 2, status: 'running' }),
      ],
      plain,
      {
        now,
        homeDir: '/home/me',
        lastStatus: new Map([
          ['A', 'failed'],
          ['B', 'needs-approval'],
        ]),
      },
    )
    expect(lines).toEqual([
      'A  title A  10 events · ~/project · 5m ago  failed',
      'B  title B  10 events · /srv/x · 3h ago  needs approval',
      'C  title C  10 events · /tmp/x · 3d ago  running',
    ])
  })
})
