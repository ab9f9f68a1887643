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
})
