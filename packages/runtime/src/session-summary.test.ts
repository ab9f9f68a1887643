import { SessionStore } from '@tangent/core'
import { SessionSummary } from '@tangent/protocol'
import type { CatalogEntry } from '@tangent/store-jsonl'
import { describe, expect, it } from 'vitest'
import { headerMetaOf } from './header-meta.js'
import { toSessionSummary } from './session-summary.js'

const entry: CatalogEntry = {
  id: 'child',
  title: null,
  cwd: '/work/tree',
  parentSession: 'parent',
  forkedAt: 4,
  origin: 'fork',
  archived: true,
  eventCount: 5,
  inheritedEventCount: 5,
  createdAt: 10,
  updatedAt: 20,
  header: {
    id: 'child',
    cwd: '/work/tree',
    workspaceId: 'w1',
    files: { mode: 'worktree', path: '/work/tree' },
    baseTree: 'abc',
  },
  model: { provider: 'demo', model: 'scripted' },
}

describe('toSessionSummary', () => {
  it('reads the catalog entry and the Host meta in the header', () => {
    const summary = SessionSummary.parse(toSessionSummary(entry, undefined))
    expect(summary).toMatchObject({
      id: 'child',
      title: '',
      workspaceId: 'w1',
      parentSession: 'parent',
      forkedAt: 4,
      status: 'idle',
      archived: true,
      files: { mode: 'worktree', path: '/work/tree', baseTree: 'abc' },
    })
  })

  it('prefers the live session for counts, title, model and status', () => {
    const store = new SessionStore({ now: () => 100 })
    const session = store.create('live', { meta: { cwd: '/w' } })
    session.append('session/title', { title: 'Live title' })
    session.append('model/selection', { provider: 'openai', model: 'gpt-4.1' })
    session.append('turn/start', {})
    const summary = toSessionSummary(undefined, session)
    expect(summary).toMatchObject({
      id: 'live',
      title: 'Live title',
      status: 'running',
      eventCount: 3,
      workspaceId: null,
      model: { provider: 'openai', model: 'gpt-4.1' },
      files: { mode: 'shared', path: '/w', baseTree: null },
      updatedAt: 100,
    })
  })

  it('reads Host meta of the wrong shape as absent, and an unknown origin as user', () => {
    const odd: CatalogEntry = {
      ...entry,
      header: {
        workspaceId: 7,
        files: { mode: 'elsewhere', path: '/x' },
        baseTree: 3,
        origin: 'alien',
        forkRequestId: ['r'],
      },
    }
    expect(headerMetaOf(odd.header)).toEqual({})
    expect(headerMetaOf({ files: { mode: 'worktree', path: '/t', extra: 1 }, baseTree: null })).toEqual({
      files: { mode: 'worktree', path: '/t' },
      baseTree: null,
    })
    const summary = SessionSummary.parse(toSessionSummary(odd, undefined))
    expect(summary).toMatchObject({
      workspaceId: null,
      origin: 'user',
      files: { mode: 'shared', path: '/work/tree', baseTree: null },
    })
  })
})
