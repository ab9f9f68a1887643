// Which sessions a tree export takes (export-tree.ts): the ancestors and every fork of the root's
// lineage, parents first; not a subagent's session, an archived fork, a loop, nor another tree.
import { type Session, SessionStore, type StoredSession } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { treeSessionsOf } from './export-tree.js'

function listing(sessions: Session[], overrides: Record<string, Partial<StoredSession>> = {}) {
  return sessions.map(
    (session) =>
      ({
        id: session.id,
        parentSession: session.header.parentSession ?? null,
        origin: session.header.origin,
        archived: false,
        ...overrides[session.id],
      }) as StoredSession,
  )
}

describe('treeSessionsOf', () => {
  const store = new SessionStore()
  const root = store.create('root')
  const a = store.fork(root, -1, 'a')
  const b = store.fork(root, -1, 'b')
  const aChild = store.fork(a, -1, 'a-child')
  const sub = store.fork(root, -1, 'sub', { meta: { origin: 'subagent' } })
  const archived = store.fork(b, -1, 'archived')
  const underArchived = store.fork(archived, -1, 'under-archived')
  const other = store.create('other-tree')
  const all = [root, a, b, aChild, sub, archived, underArchived, other]
  const loaded: string[] = []
  const source = (overrides: Record<string, Partial<StoredSession>> = {}) => ({
    list: async () => listing(all, { archived: { archived: true }, ...overrides }),
    load: async (id: string) => {
      loaded.push(id)
      return all.find((session) => session.id === id)!
    },
  })

  it('takes the ancestors first, then the forks breadth first; leaves out subagents, archived forks and other trees', async () => {
    const ids = (await treeSessionsOf(aChild, source())).map((session) => session.id)
    expect(ids).toEqual(['root', 'a', 'b'])
    const fromRoot = (await treeSessionsOf(root, source())).map((session) => session.id)
    expect(fromRoot).toEqual(['a', 'b', 'a-child'])
    expect(loaded).not.toContain('other-tree')
  })

  it('takes an archived session the exported one descends through, and a subagent exported itself', async () => {
    const ids = (await treeSessionsOf(underArchived, source())).map((session) => session.id)
    expect(ids).toEqual(['root', 'b', 'archived', 'a', 'a-child'])
    expect((await treeSessionsOf(sub, source())).map((session) => session.id)).toEqual([
      'root',
      'a',
      'b',
      'a-child',
    ])
  })

  it('stops at a parent no longer listed, and at a loop', async () => {
    const list = async () => listing(all).filter((entry) => entry.id !== 'root')
    const ids = (await treeSessionsOf(aChild, { list, load: source().load })).map((session) => session.id)
    expect(ids).toEqual(['a'])
    const looped = source({ root: { parentSession: 'a-child' } })
    const fromLoop = (await treeSessionsOf(aChild, looped)).map((session) => session.id)
    expect(new Set(fromLoop).size).toBe(fromLoop.length)
    expect(fromLoop).not.toContain('a-child')
  })
})
