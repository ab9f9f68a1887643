import type { NotificationName } from '@tangent/protocol'
import { describe, expect, it } from 'vitest'
import { type Connection, ConnectionHub } from './connections.js'

function recorder(): Connection & { got: string[] } {
  const got: string[] = []
  return {
    got,
    notify(method: NotificationName, params: unknown) {
      got.push(`${method} ${JSON.stringify(params)}`)
    },
  }
}

describe('ConnectionHub', () => {
  it('broadcasts to all, session notifications to subscribers only', () => {
    const hub = new ConnectionHub()
    const a = recorder()
    const b = recorder()
    hub.add(a)
    hub.add(b)
    hub.subscribe(a, 's1')
    hub.broadcast('session.deleted', { sessionId: 'x' })
    hub.notifySubscribers('s1', 'session.delta', { sessionId: 's1', kind: 'text', text: 'hi' })
    expect(a.got).toHaveLength(2)
    expect(b.got).toEqual(['session.deleted {"sessionId":"x"}'])
    expect(hub.isSubscribed(a, 's1')).toBe(true)
  })

  it('forgets subscriptions of a removed connection and of a dropped session', () => {
    const hub = new ConnectionHub()
    const a = recorder()
    hub.add(a)
    hub.subscribe(a, 's1')
    hub.subscribe(a, 's2')
    hub.dropSession('s1')
    expect(hub.hasSubscribers('s1')).toBe(false)
    hub.remove(a)
    expect(hub.hasSubscribers('s2')).toBe(false)
    expect(hub.size).toBe(0)
  })
})
