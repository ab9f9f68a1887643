import { TangentError } from '@tangent/core'
import type { SessionApi } from '@tangent/runtime'
import { describe, expect, it } from 'vitest'
import { failoverApi, type OpenedApi } from './failover-api.js'

type Activity = Parameters<Parameters<SessionApi['onSharedActivity']>[0]>[0]

/** A Host connection that answers session.list with its name until it is closed. */
function fakeHost(name: string, pid: number) {
  let up = true
  let closes = 0
  const activity = new Set<(event: Activity) => void>()
  const inFlight: (() => void)[] = []
  const api: SessionApi = {
    kind: 'host',
    async call(method) {
      if (!up) throw new TangentError('connection-closed', 'closed', { sent: false })
      if (method === 'session.prompt') {
        // Held until the Host goes away while it is on its way.
        return new Promise((_resolve, reject) =>
          inFlight.push(() => reject(new TangentError('connection-closed', 'closed (1006)', {}))),
        )
      }
      return [{ id: name }] as never
    },
    async subscribe() {
      if (!up) throw new TangentError('connection-closed', 'closed', { sent: false })
      return async () => undefined
    },
    onSharedActivity(listener) {
      activity.add(listener)
      return () => activity.delete(listener)
    },
    async close() {
      closes++
    },
  }
  const opened: OpenedApi = { api, close: () => api.close(), hostPid: pid }
  return {
    opened,
    goAway() {
      up = false
      for (const reject of inFlight.splice(0)) reject()
    },
    emit: (event: Activity) => {
      for (const listener of activity) listener(event)
    },
    get closes() {
      return closes
    },
  }
}

const list = (api: SessionApi) =>
  api.call('session.list', {}) as Promise<unknown> as Promise<{ id: string }[]>

describe('failoverApi', () => {
  it('makes a call the closed Host never got again on the next one, opened once', async () => {
    const first = fakeHost('first', 1)
    const second = fakeHost('second', 2)
    let reopened = 0
    const api = failoverApi(first.opened, async () => {
      reopened++
      return second.opened
    })
    expect(await list(api)).toEqual([{ id: 'first' }])
    expect(api.hostPid).toBe(1)
    first.goAway()
    const answers = await Promise.all([list(api), list(api), list(api)])
    expect(answers).toEqual([[{ id: 'second' }], [{ id: 'second' }], [{ id: 'second' }]])
    expect(reopened).toBe(1)
    expect(first.closes).toBe(1)
    expect(api.hostPid).toBe(2)
  })

  it('does not repeat a call that was on its way: it says it may or may not have happened; the next call goes on', async () => {
    const first = fakeHost('first', 41)
    const second = fakeHost('second', 42)
    const api = failoverApi(first.opened, async () => second.opened)
    const prompt = api.call('session.prompt', { sessionId: 's', text: 'hi' } as never)
    first.goAway()
    const error = await prompt.then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(TangentError.hasCode(error, 'connection-closed')).toBe(true)
    expect((error as Error).message).toMatch(
      /the Host \(process 41\) closed while session\.prompt was on its way: it may or may not have happened/,
    )
    expect(await list(api)).toEqual([{ id: 'second' }])
  })

  it('makes a read that was on its way again on the next Host', async () => {
    const first = fakeHost('first', 1)
    const second = fakeHost('second', 2)
    first.opened.api.call = () =>
      new Promise((_resolve, reject) => {
        first.goAway()
        reject(new TangentError('connection-closed', 'closed (1006)', {}))
      })
    const api = failoverApi(first.opened, async () => second.opened)
    expect(await list(api)).toEqual([{ id: 'second' }])
  })

  it('leaves the runtime in this process alone: its errors are the errors', async () => {
    let reopened = 0
    const local: SessionApi = {
      kind: 'local',
      call: async () => {
        throw new TangentError('connection-closed', 'not a Host', { sent: false })
      },
      subscribe: async () => async () => undefined,
      onSharedActivity: () => () => undefined,
      close: async () => undefined,
    }
    const api = failoverApi({ api: local, close: () => local.close() }, async () => {
      reopened++
      return fakeHost('x', 1).opened
    })
    await expect(list(api)).rejects.toThrow('not a Host')
    expect(reopened).toBe(0)
  })

  it('passes errors other than a closed connection through', async () => {
    const first = fakeHost('first', 1)
    first.opened.api.call = async () => {
      throw new TangentError('session-not-found', 'no such session', {})
    }
    const api = failoverApi(first.opened, async () => {
      throw new Error('must not reopen')
    })
    await expect(list(api)).rejects.toThrow('no such session')
  })

  it('moves shared-activity listeners to the new Host; close closes the one in use', async () => {
    const first = fakeHost('first', 1)
    const second = fakeHost('second', 2)
    const api = failoverApi(first.opened, async () => second.opened)
    const seen: string[] = []
    api.onSharedActivity((event) => seen.push(event.cwd))
    first.emit({ cwd: '/a' } as Activity)
    first.goAway()
    await list(api)
    first.emit({ cwd: '/stale' } as Activity)
    second.emit({ cwd: '/b' } as Activity)
    expect(seen).toEqual(['/a', '/b'])
    await api.close()
    expect(second.closes).toBe(1)
  })

  it('a failed reopen is the error, and the next call tries again', async () => {
    const first = fakeHost('first', 1)
    const second = fakeHost('second', 2)
    let attempts = 0
    const api = failoverApi(first.opened, async () => {
      attempts++
      if (attempts === 1) throw new TangentError('store-locked', 'locked by process 9', {})
      return second.opened
    })
    first.goAway()
    await expect(list(api)).rejects.toThrow('locked by process 9')
    expect(await list(api)).toEqual([{ id: 'second' }])
    expect(attempts).toBe(2)
  })
})
