import { describe, expect, it } from 'vitest'
import { ancestorsOf, buildLineage, explorationGroupKey, flattenWorkspace } from './lineage.js'
import type { SessionSummary } from './wire.js'

function session(id: string, overrides: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    title: id,
    cwd: '/w',
    workspaceId: 'w1',
    parentSession: null,
    forkedAt: null,
    origin: overrides.parentSession ? 'fork' : 'user',
    createdAt: 0,
    updatedAt: 0,
    eventCount: 0,
    inheritedEventCount: 0,
    status: 'idle',
    archived: false,
    model: null,
    mode: 'edit',
    files: { mode: 'shared', path: '/w', baseTree: null },
    ...overrides,
  }
}

const known = new Set(['w1'])

describe('lineage tree', () => {
  const sessions = [
    session('a', { createdAt: 1 }),
    session('b', { createdAt: 2 }),
    session('a1', { parentSession: 'a', forkedAt: 3, createdAt: 3 }),
    session('a2', { parentSession: 'a', forkedAt: 7, createdAt: 4 }),
    session('a1x', { parentSession: 'a1', forkedAt: 9, createdAt: 5 }),
    session('old', { createdAt: 6, archived: true }),
    session('oldkid', { parentSession: 'old', forkedAt: 3, createdAt: 7 }),
  ]

  it('nests forks under their parent and shows only expanded children', () => {
    const index = buildLineage(sessions, false, known)
    const collapsed = flattenWorkspace(index, 'w1', new Set())
    expect(collapsed.map((row) => row.session.id)).toEqual(['oldkid', 'b', 'a'])
    expect(collapsed.find((row) => row.session.id === 'a')?.childCount).toBe(2)

    const open = flattenWorkspace(index, 'w1', new Set(['a', 'a1']))
    expect(open.map((row) => [row.session.id, row.depth])).toEqual([
      ['oldkid', 0],
      ['b', 0],
      ['a', 0],
      ['a1', 1],
      ['a1x', 2],
      ['a2', 1],
    ])
  })

  it('counts every visible session of a workspace, forks included, not only the roots', () => {
    expect(buildLineage(sessions, false, known).totals.get('w1')).toBe(6)
    expect(buildLineage(sessions, true, known).totals.get('w1')).toBe(7)
    expect(buildLineage(sessions, false, known).roots.get('w1')).toHaveLength(3)
  })

  it('hides archived sessions unless asked, keeping their forks visible as roots', () => {
    const hidden = flattenWorkspace(buildLineage(sessions, false, known), 'w1', new Set(['old']))
    expect(hidden.some((row) => row.session.id === 'old')).toBe(false)
    expect(hidden.find((row) => row.session.id === 'oldkid')?.detachedFrom).toBe('old')

    const shown = flattenWorkspace(buildLineage(sessions, true, known), 'w1', new Set(['old']))
    expect(shown.map((row) => row.session.id).slice(0, 2)).toEqual(['old', 'oldkid'])
    expect(shown[1]?.depth).toBe(1)
  })

  it('groups sessions of unknown workspaces under "" with their forks still nested', () => {
    const lost = [
      session('p', { workspaceId: 'gone' }),
      session('c', { workspaceId: null, parentSession: 'p' }),
    ]
    const rows = flattenWorkspace(buildLineage(lost, false, known), '', new Set(['p']))
    expect(rows.map((row) => [row.session.id, row.depth])).toEqual([
      ['p', 0],
      ['c', 1],
    ])
  })

  it('lists ancestors nearest first and stops on cycles', () => {
    const map = new Map(sessions.map((s) => [s.id, s]))
    expect(ancestorsOf(map, 'a1x')).toEqual(['a1', 'a'])
    const loop = new Map([
      ['x', session('x', { parentSession: 'y' })],
      ['y', session('y', { parentSession: 'x' })],
    ])
    expect(ancestorsOf(loop, 'x')).toEqual(['y'])
  })

  it('flattens 5,000 sessions with only the expanded rows', () => {
    const many: SessionSummary[] = []
    for (let i = 0; i < 1000; i++) {
      many.push(session(`r${i}`, { createdAt: i }))
      for (let j = 0; j < 4; j++)
        many.push(session(`r${i}c${j}`, { parentSession: `r${i}`, createdAt: i + j }))
    }
    const rows = flattenWorkspace(buildLineage(many, false, known), 'w1', new Set(['r5']))
    expect(rows).toHaveLength(1004)
  })

  it('gathers the branches of one exploration into a group row under their parent, in label order', () => {
    const branch = (id: string, label: string, createdAt: number, archived = false) =>
      session(id, { parentSession: 'p', forkedAt: 5, createdAt, archived, exploration: { id: 'x1', label } })
    const all = [
      session('p', { createdAt: 1 }),
      session('plain', { parentSession: 'p', forkedAt: 3, createdAt: 2 }),
      branch('pc', 'C', 5),
      branch('pa', 'A', 3, true),
      branch('pb', 'B', 4),
      session('later', { parentSession: 'p', forkedAt: 9, createdAt: 6 }),
    ]
    const index = buildLineage(all, false, known)
    const collapsed = flattenWorkspace(index, 'w1', new Set(['p']))
    expect(
      collapsed.map((row) => (row.kind === 'session' ? row.session.id : `group:${row.exploration}`)),
    ).toEqual(['p', 'plain', 'group:x1', 'later'])
    const group = collapsed[2]!
    expect(
      group.kind === 'exploration' && { size: group.size, depth: group.depth, expanded: group.expanded },
    ).toEqual({
      size: 3,
      depth: 1,
      expanded: false,
    })
    const open = flattenWorkspace(index, 'w1', new Set(['p', explorationGroupKey('x1')]))
    expect(open.map((row) => (row.kind === 'session' ? `${row.session.id}@${row.depth}` : 'group'))).toEqual([
      'p@0',
      'plain@1',
      'group',
      'pb@2',
      'pc@2',
      'later@1',
    ])
  })
})

describe('a loop of parents (damaged logs)', () => {
  // a ⇄ b loop; c is a fork of a; d is a plain session.
  const sessions = [
    session('a', { parentSession: 'b', forkedAt: 1, createdAt: 1 }),
    session('b', { parentSession: 'a', forkedAt: 1, createdAt: 2 }),
    session('c', { parentSession: 'a', forkedAt: 2, createdAt: 3 }),
    session('d', { createdAt: 4 }),
  ]

  it('lists the loop at the top, tagged with the loop, instead of losing it', () => {
    const index = buildLineage(sessions, false, known)
    const rows = flattenWorkspace(index, 'w1', new Set(['a']))
    const shown = rows.map((row) =>
      row.kind === 'session' ? [row.session.id, row.depth, row.parentLoop] : null,
    )
    expect(shown).toEqual([
      ['d', 0, null],
      ['b', 0, ['a', 'b']],
      ['a', 0, ['a', 'b']],
      ['c', 1, null],
    ])
  })

  it("takes the Host's parentLoop as it is", () => {
    const told = [session('x', { parentLoop: ['x', 'y'] })]
    const rows = flattenWorkspace(buildLineage(told, false, known), 'w1', new Set())
    expect(rows[0]).toMatchObject({ kind: 'session', parentLoop: ['x', 'y'] })
  })
})
