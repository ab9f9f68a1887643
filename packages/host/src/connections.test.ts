import { describe, expect, it } from 'vitest'
import { type Connection, ConnectionHub } from './connections.js'

function recorder(): Connection & { got: string[]; sent: Buffer[] } {
  const got: string[] = []
  const sent: Buffer[] = []
  return {
    got,
    sent,
    bufferedAmount: 0,
    send(message: Buffer) {
      sent.push(message)
      const { method, params } = JSON.parse(message.toString('utf8'))
      got.push(`${method} ${JSON.stringify(params)}`)
    },
  }
}

describe('ConnectionHub', () => {
  it('broadcasts to every connection and records subscriptions per connection', async () => {
    const hub = new ConnectionHub()
    const a = recorder()
    const b = recorder()
    hub.add(a)
    hub.add(b)
    await hub.subscribe(a, 's1', async () => () => {})
    hub.broadcast('session.deleted', { sessionId: 'x' })
    expect(a.got).toEqual(['session.deleted {"sessionId":"x"}'])
    expect(b.got).toEqual(['session.deleted {"sessionId":"x"}'])
    // Serialised once for every connection.
    expect(b.sent[0]).toBe(a.sent[0])
    expect(hub.isSubscribed(a, 's1')).toBe(true)
    expect(hub.isSubscribed(b, 's1')).toBe(false)
  })

  it('subscribes a pair once, and ends subscriptions of a removed connection and of a dropped session', async () => {
    const hub = new ConnectionHub()
    const a = recorder()
    hub.add(a)
    const ended: string[] = []
    let opened = 0
    const open = (id: string) => async () => {
      opened++
      return () => ended.push(id)
    }
    await hub.subscribe(a, 's1', open('s1'))
    await hub.subscribe(a, 's1', open('s1'))
    await hub.subscribe(a, 's2', open('s2'))
    expect(opened).toBe(2)
    hub.dropSession('s1')
    expect(ended).toEqual(['s1'])
    expect(hub.hasSubscribers('s1')).toBe(false)
    hub.remove(a)
    expect(ended).toEqual(['s1', 's2'])
    expect(hub.hasSubscribers('s2')).toBe(false)
    expect(hub.size).toBe(0)
  })

  it('ends a subscription that finished opening after its connection closed', async () => {
    const hub = new ConnectionHub()
    const a = recorder()
    hub.add(a)
    let release: () => void = () => {}
    const ended: string[] = []
    const pending = hub.subscribe(a, 's1', async () => {
      await new Promise<void>((resolve) => {
        release = resolve
      })
      return () => ended.push('s1')
    })
    hub.remove(a)
    release()
    await pending
    expect(ended).toEqual(['s1'])
  })
})
