import type { SessionEvent, SessionSummary } from '@tangent/protocol'
import { describe, expect, it } from 'vitest'
import type { Backend } from './backend.js'
import { watchBranches } from './branch-watch.js'

/** Logs a test appends to while the watch polls them (only getSession is read). */
function logs(ids: string[]) {
  const events = new Map(ids.map((id) => [id, [] as SessionEvent[]]))
  const summary = (id: string): SessionSummary =>
    ({ id, inheritedEventCount: 0, exploration: { id: 'ex', label: id } }) as unknown as SessionSummary
  const backend = {
    getSession: async (id: string, fromSeq = 0) => ({
      session: summary(id),
      events: events.get(id)!.slice(fromSeq),
    }),
  } as unknown as Backend
  const append = (id: string, type: string, data: unknown = {}) => {
    const log = events.get(id)!
    log.push({ seq: log.length, time: 0, type, data })
    return log.length - 1
  }
  return { backend, append, sessions: ids.map(summary) }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('watchBranches', () => {
  it('ends a branch with a check only once its check/ran after that turn is in the log', async () => {
    const { backend, append, sessions } = logs(['A', 'B'])
    const ended: string[] = []
    const watch = watchBranches(backend, sessions, {
      withCheck: true,
      pollMs: 5,
      onEnd: (end) => {
        ended.push(`${end.session.id}:${end.outcome}`)
      },
    })
    append('A', 'turn/start')
    append('B', 'turn/start')
    const aEnd = append('A', 'turn/end', { reason: 'completed' })
    append('B', 'turn/end', { reason: 'error', error: 'boom' })
    await tick()
    expect(ended).toEqual([])
    append('A', 'check/ran', { afterSeq: aEnd - 1 })
    await tick()
    expect(ended).toEqual([])
    append('A', 'check/ran', { afterSeq: aEnd })
    append('B', 'check/ran', { afterSeq: 1 })
    const ends = await watch
    expect(ends.map((end) => [end.outcome, end.error])).toEqual([
      ['completed', undefined],
      ['error', 'boom'],
    ])
  })

  it('gives up on branches that never started once nothing ran for the stall time', async () => {
    const { backend, append, sessions } = logs(['A', 'B'])
    const waiting: string[] = []
    const watch = watchBranches(backend, sessions, {
      withCheck: false,
      pollMs: 5,
      stalledMs: 100,
      onEnd: () => {},
      onWaiting: (session, tool) => waiting.push(`${session.id}:${tool}`),
    })
    append('A', 'turn/start')
    append('A', 'permission/requested', { callId: 'c1', toolName: 'bash' })
    await tick()
    expect(waiting).toEqual(['A:bash'])
    append('A', 'permission/answered', { callId: 'c1', decision: 'once' })
    append('A', 'turn/end', { reason: 'completed' })
    expect((await watch).map((end) => end.outcome)).toEqual(['completed', 'not-started'])
  })
})
