import { RpcError } from '@tangent/protocol'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { NoticesStore, noticeLifetimeMs, visibleNotices } from './notices-store.js'
import { StoreState } from './store-state.js'

describe('NoticesStore', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  const setUp = (openSessionId: string | null) => {
    const state = new StoreState(openSessionId, (flush) => flush())
    return { state, notices: new NoticesStore(state) }
  }

  it('gives a notice the open session, or the one named, or none (the page)', () => {
    const { state, notices } = setUp('a')
    notices.notify('info', 'x', 'in a')
    notices.notify('info', 'y', 'about b', { sessionId: 'b' })
    notices.notify('info', 'z', 'page', { sessionId: null })
    expect(state.get().notices.map((notice) => notice.sessionId)).toEqual(['a', 'b', null])
    expect(visibleNotices(state.get().notices, 'a').map((notice) => notice.message)).toEqual(['in a', 'page'])
    expect(visibleNotices(state.get().notices, 'b').map((notice) => notice.message)).toEqual([
      'about b',
      'page',
    ])
  })

  it('lets a notice without an action go by itself, an error a little later; one with an action stays', () => {
    const { state, notices } = setUp('a')
    notices.notify('info', 'done', 'Done.')
    notices.report(new RpcError(-32000, 'The folder is gone.', { code: 'folder-not-found' }))
    notices.notify('info', 'restored', 'Restored 1 file.', {
      action: { kind: 'undo-restore', label: 'Undo', sessionId: 'a', seq: 4 },
    })
    vi.advanceTimersByTime(noticeLifetimeMs.info)
    expect(state.get().notices.map((notice) => notice.code)).toEqual(['folder-not-found', 'restored'])
    vi.advanceTimersByTime(noticeLifetimeMs.error - noticeLifetimeMs.info)
    expect(state.get().notices.map((notice) => notice.code)).toEqual(['restored'])
    vi.advanceTimersByTime(60_000)
    expect(state.get().notices.map((notice) => notice.code)).toEqual(['restored'])
  })

  it('keeps a notice while it is held (pointer or focus on it), and starts its time again after', () => {
    const { state, notices } = setUp('a')
    notices.notify('info', 'done', 'Done.')
    const id = state.get().notices[0]!.id
    notices.hold(id)
    vi.advanceTimersByTime(noticeLifetimeMs.info * 3)
    expect(state.get().notices).toHaveLength(1)
    notices.release(id)
    vi.advanceTimersByTime(noticeLifetimeMs.info)
    expect(state.get().notices).toHaveLength(0)
  })
})
