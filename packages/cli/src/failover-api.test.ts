import { TangentError } from '@tangent/core'
import type { FileReader, SessionApi, SessionListener } from '@tangent/runtime'
import { describe, expect, it } from 'vitest'
import { failoverApi, type OpenedApi } from './failover-api.js'

type Activity = Parameters<Parameters<SessionApi['onSharedActivity']>[0]>[0]

/** A Host connection that answers session.list with its name until it is closed. */
function fakeHost(name: string, pid: number) {
  let up = true
  let closes = 0
  const activity = new Set<(event: Activity) => void>()
  const inFlight: (() => void)[] = []
  const calls: { method: string; params: unknown }[] = []
  /** The listeners subscribed on this connection. */
  const listeners: SessionListener[] = []
  /** The file sources attached on this connection, by session. */
  const fileSources = new Map<string, FileReader>()
  /** Sessions this Host does not know (deleted). */
  const deleted = new Set<string>()
  const api: SessionApi = {
    kind: 'host',
    async call(method, params) {
      if (!up) throw new TangentError('connection-closed', 'closed', { sent: false })
      calls.push({ method, params })
      if (method === 'session.attachMcpServers') return { attached: [], shadowed: [] } as never
      if (method === 'session.prompt') {
        // Held until the Host goes away while it is on its way.
        return new Promise((_resolve, reject) =>
          inFlight.push(() => reject(new TangentError('connection-closed', 'closed (1006)', {}))),
        )
      }
      return [{ id: name }] as never
    },
    async subscribe(sessionId, options, listener) {
      if (!up) throw new TangentError('connection-closed', 'closed', { sent: false })
      calls.push({ method: 'subscribe', params: { sessionId, ...options } })
      listeners.push(listener)
      return async () => undefined
    },
    async attachFileSource(sessionId, read) {
      if (!up) throw new TangentError('connection-closed', 'closed', { sent: false })
      if (deleted.has(sessionId)) throw new TangentError('session-not-found', 'no such session', {})
      fileSources.set(sessionId, read)
      return async () => {
        fileSources.delete(sessionId)
      }
    },
    onSharedActivity(listener) {
      activity.add(listener)
      return () => activity.delete(listener)
    },
    onSessionsChanged: () => () => undefined,
    async close() {
      closes++
    },
  }
  const opened: OpenedApi = { api, close: () => api.close(), hostPid: pid }
  return {
    opened,
    calls,
    fileSources,
    deleted,
    listeners,
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
  it('attaches the MCP servers it attached on the closed Host again on the next one (not those it detached)', async () => {
    const first = fakeHost('first', 1)
    const second = fakeHost('second', 2)
    const api = failoverApi(first.opened, async () => second.opened)
    const kept = { sessionId: 's1', servers: [{ name: 'editor', command: 'mcp-editor' }] }
    await api.call('session.attachMcpServers', kept)
    await api.call('session.attachMcpServers', { sessionId: 's2', servers: [{ name: 'x', command: 'x' }] })
    await api.call('session.attachMcpServers', { sessionId: 's2', servers: [] })
    first.goAway()
    expect(await list(api)).toEqual([{ id: 'second' }])
    expect(second.calls).toEqual([
      { method: 'session.attachMcpServers', params: kept },
      { method: 'session.list', params: {} },
    ])
  })

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

  it('attaches the file sources again on the next Host, and detaches them there', async () => {
    const first = fakeHost('first', 1)
    const second = fakeHost('second', 2)
    const api = failoverApi(first.opened, async () => second.opened)
    const read: FileReader = async () => 'buffer'
    const detach = await api.attachFileSource('s1', read)
    expect(first.fileSources.get('s1')).toBe(read)
    first.goAway()
    expect(await list(api)).toEqual([{ id: 'second' }])
    expect(second.fileSources.get('s1')).toBe(read)
    await detach()
    expect(second.fileSources.has('s1')).toBe(false)
    // Detached once: a second call changes nothing.
    await detach()
  })

  it('drops a file source whose session went while the Host was replaced', async () => {
    const first = fakeHost('first', 1)
    const second = fakeHost('second', 2)
    const api = failoverApi(first.opened, async () => second.opened)
    await api.attachFileSource('gone', async () => null)
    await api.attachFileSource('s1', async () => null)
    second.deleted.add('gone')
    first.goAway()
    expect(await list(api)).toEqual([{ id: 'second' }])
    expect([...second.fileSources.keys()]).toEqual(['s1'])
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
      attachFileSource: async () => async () => undefined,
      onSharedActivity: () => () => undefined,
      onSessionsChanged: () => () => undefined,
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

  it('subscribes again on the next Host from the seq after the last event seen', async () => {
    const first = fakeHost('one', 1)
    const second = fakeHost('two', 2)
    const api = failoverApi(first.opened, async () => second.opened)
    const seen: number[] = []
    await api.subscribe('s1', { fromSeq: 3 }, { onEvent: (event) => seen.push(event.seq) })
    for (const seq of [3, 4, 5]) first.listeners[0]!.onEvent({ seq, time: 0, type: 'step/start', data: {} })
    first.goAway()
    // The next call finds the Host gone and reconnects: the subscription goes with it.
    await list(api)
    expect(second.calls).toContainEqual({ method: 'subscribe', params: { sessionId: 's1', fromSeq: 6 } })
    second.listeners[0]!.onEvent({ seq: 6, time: 0, type: 'step/end', data: {} })
    expect(seen).toEqual([3, 4, 5, 6])
  })
})
