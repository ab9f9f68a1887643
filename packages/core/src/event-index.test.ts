import { describe, expect, it } from 'vitest'
import { SessionStore } from './store.js'

function turn(session: ReturnType<SessionStore['create']>, text: string) {
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text }] })
  session.append('turn/end', { reason: 'completed' })
}

describe('event index', () => {
  it('finds the latest title and model at or before a seq, inherited through forks', () => {
    const store = new SessionStore()
    const s = store.create(undefined, { meta: { cwd: '/w', title: 'header title' } })
    expect(s.title).toBe('header title')
    expect(s.model).toBeNull()
    s.append('model/selection', { provider: 'demo', model: 'scripted' })
    turn(s, 'one')
    const titled = s.append('session/title', { title: 'First' })
    turn(s, 'two')
    s.append('model/selection', { provider: 'openai', model: 'gpt-4.1' })
    s.append('session/title', { title: 'Second' })
    expect(s.title).toBe('Second')
    expect(s.model).toEqual({ provider: 'openai', model: 'gpt-4.1' })
    expect(s.latestOfType('session/title', titled.seq)?.data).toEqual({ title: 'First' })
    expect(s.latestOfType('session/title', titled.seq - 1)).toBeUndefined()
    expect(s.seqsOfType('turn/end')).toEqual([3, 7])

    const child = store.fork(s, titled.seq)
    expect(child.title).toBe('First')
    expect(child.model).toEqual({ provider: 'demo', model: 'scripted' })
    expect(child.seqsOfType('turn/end')).toEqual([3])
    child.append('session/title', { title: 'Child' })
    expect(child.title).toBe('Child')
    expect(s.title).toBe('Second')
    expect(s.seqsOfType('session/title')).toHaveLength(2)
  })

  it('matches a plain scan for every seq of a generated log (unindexed types scan)', () => {
    const store = new SessionStore()
    const s = store.create(undefined, { meta: { cwd: '/w' } })
    for (let i = 0; i < 30; i++) {
      if (i % 3 === 0) s.append('session/title', { title: `t${i}` })
      if (i % 4 === 0) s.append('plugin/mark', { i })
      turn(s, `m${i}`)
    }
    for (const type of ['session/title', 'turn/end', 'turn/start', 'plugin/mark', 'user/message']) {
      for (let seq = -1; seq <= s.lastSeq + 1; seq++) {
        let expected: number | undefined
        for (let i = Math.min(seq, s.lastSeq); i >= 0; i--)
          if (s.events[i]!.type === type) {
            expected = i
            break
          }
        expect(s.latestOfType(type, seq)?.seq).toBe(expected)
      }
    }
  })
})
