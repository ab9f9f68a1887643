import { RpcError, rpcErrorCodes } from '@tangent/protocol'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { HostStore, pickActiveWorkspace } from './host-store.js'
import { OpenSessionMemory } from './open-session-memory.js'
import type { RpcClient, SessionSummary, Workspace } from './wire.js'

type Handler = (params: Record<string, unknown>) => unknown

/** A client whose calls are answered by `handlers` (a missing one: method-not-found). */
function fakeClient(handlers: Record<string, Handler>): RpcClient & { calls: [string, unknown][] } {
  const calls: [string, unknown][] = []
  return {
    calls,
    closed: false,
    async call(method: string, params?: unknown) {
      calls.push([method, params])
      const handler = handlers[method]
      if (!handler) {
        throw new RpcError(rpcErrorCodes.methodNotFound, `Unknown method ${method}`, {
          code: 'method-not-found',
        })
      }
      return handler((params ?? {}) as Record<string, unknown>)
    },
    onNotification: () => () => {},
    onClose: () => () => {},
    close() {},
  } as unknown as RpcClient & { calls: [string, unknown][] }
}

const ws = (id: string, path: string): Workspace => ({ id, path, name: path.split('/').at(-1)!, openedAt: 1 })

const info = (startFolder?: string) => ({
  version: '0.1.0',
  protocolVersion: 1,
  dataDir: '/data',
  defaultModel: 'demo:scripted',
  models: [],
  ...(startFolder ? { startFolder, homeDir: '/home/ann' } : {}),
})

function session(id: string, workspaceId: string | null): SessionSummary {
  return {
    id,
    title: '',
    workspaceId,
    parentSession: null,
    forkedAt: null,
    inheritedEventCount: 0,
    createdAt: 1,
    updatedAt: 1,
    archived: false,
    status: 'idle',
    eventCount: 0,
    model: null,
    mode: 'edit',
    files: { mode: 'shared', path: '/p' },
  } as unknown as SessionSummary
}

function conflict(paths: string[]): RpcError {
  return new RpcError(rpcErrorCodes.application, 'Files changed since', { code: 'files-conflict', paths })
}

async function started(handlers: Record<string, Handler>) {
  const client = fakeClient({
    'host.info': () => info(),
    'workspace.list': () => [],
    'session.list': () => [],
    ...handlers,
  })
  const store = new HostStore(() => client)
  await store.start()
  return { store, client }
}

beforeEach(() => {
  // The store keeps the open session in the page URL; tests have no page.
  vi.stubGlobal('window', {
    location: { hash: '', pathname: '/', search: '' },
    history: { replaceState() {} },
  })
})
afterEach(() => {
  vi.unstubAllGlobals()
})

describe('pickActiveWorkspace', () => {
  const list = [ws('w2', '/recent'), ws('w1', '/start')]
  it('keeps the selected workspace', () => {
    expect(pickActiveWorkspace('w1', list, '/recent')).toBe('w1')
  })
  it('selects the start folder on a first run, else the most recent', () => {
    expect(pickActiveWorkspace(null, list, '/start')).toBe('w1')
    expect(pickActiveWorkspace(null, list, '/elsewhere')).toBe('w2')
    expect(pickActiveWorkspace(null, list, undefined)).toBe('w2')
    expect(pickActiveWorkspace('gone', list, undefined)).toBe('w2')
    expect(pickActiveWorkspace(null, [], '/start')).toBeNull()
  })
})

describe('HostStore', () => {
  it('selects the start folder workspace once connected', async () => {
    const { store } = await started({
      'host.info': () => info('/start'),
      'workspace.list': () => [ws('w2', '/recent'), ws('w1', '/start')],
    })
    expect(store.getState().connection).toBe('open')
    expect(store.getState().activeWorkspaceId).toBe('w1')
    expect(store.getState().info?.startFolder).toBe('/start')
  })

  it('reports a Host error with its stable code, and none for a lost connection', async () => {
    const { store } = await started({})
    store.report(new RpcError(rpcErrorCodes.application, 'Busy', { code: 'session-busy' }))
    store.report(new RpcError(rpcErrorCodes.application, 'Closed', { code: 'connection-closed' }))
    store.report(new Error('plain'))
    store.report(new RpcError(rpcErrorCodes.application, 'Newer', { code: 'from-a-newer-host' }))
    expect(store.getState().notices.map((n) => [n.code, n.message])).toEqual([
      ['session-busy', 'Busy'],
      ['internal', 'plain'],
      // A code this page does not know is shown as the Host sent it.
      ['from-a-newer-host', 'Newer'],
    ])
  })

  it('puts a message the Host refused before its turn back in the box; one failed later stays sent', async () => {
    let answer: () => unknown = () => {
      throw new RpcError(rpcErrorCodes.application, 'Busy', { code: 'session-busy' })
    }
    const { store } = await started({
      'session.create': () => ({ ...session('s1', null), title: 'Named' }),
      'session.get': () => ({ session: { ...session('s1', null), title: 'Named' }, events: [], nextSeq: 0 }),
      'session.subscribe': () => ({ subscriptionId: 'sub1' }),
      'session.unsubscribe': () => ({}),
      'session.prompt': () => answer(),
    })
    await store.send('first try')
    expect(store.getState().openSessionId).toBe('s1')
    expect(store.getState().draft).toMatchObject({ sessionId: 's1', text: 'first try', returned: true })
    expect(store.getState().notices.at(-1)?.code).toBe('session-busy')
    store.clearDraft()
    // A turn that failed after it started (the connection lost mid-turn): the message is in the log.
    answer = () => {
      throw new RpcError(rpcErrorCodes.application, 'Lost', { code: 'connection-closed' })
    }
    await store.send('second')
    expect(store.getState().draft).toBeNull()
    answer = () => ({ turnStartSeq: 0, turnEndSeq: 5, reason: 'completed' })
    await store.send('third')
    expect(store.getState().draft).toBeNull()
  })

  it('a double click forks once: the same fork request while one is on its way joins it; a later one forks again', async () => {
    let forks = 0
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const { store } = await started({
      'session.fork': async () => {
        forks++
        await held
        return { session: { ...session(`child${forks}`, null), parentSession: 'p' }, boundary: 4 }
      },
      'session.get': (p) => ({ session: session(String(p.sessionId), null), events: [], nextSeq: 0 }),
      'session.subscribe': () => ({ subscriptionId: 'sub1' }),
      'session.unsubscribe': () => ({}),
    })
    const first = store.fork({ sessionId: 'p', at: 4 })
    const second = store.fork({ sessionId: 'p', at: 4 })
    release()
    const [a, b] = await Promise.all([first, second])
    expect(forks).toBe(1)
    expect(a?.id).toBe('child1')
    expect(b?.id).toBe('child1')
    await store.fork({ sessionId: 'p', at: 4 })
    expect(forks).toBe(2)
  })

  it('opens a folder (~ as typed), puts it first and selects it', async () => {
    const { store, client } = await started({
      'workspace.list': () => [ws('w1', '/start')],
      'workspace.open': (p) => (p.path === '~/code' ? ws('w3', '/home/ann/code') : ws('w1', '/start')),
    })
    const opened = await store.openWorkspace('~/code')
    expect(opened?.id).toBe('w3')
    expect(client.calls.at(-1)).toEqual(['workspace.open', { path: '~/code' }])
    expect(store.getState().workspaces.map((w) => w.id)).toEqual(['w3', 'w1'])
    expect(store.getState().activeWorkspaceId).toBe('w3')
    await store.openWorkspace('/start')
    expect(store.getState().workspaces.map((w) => w.id)).toEqual(['w1', 'w3'])
  })

  it('reopens the session open last in a workspace: at start and on coming back; a deleted one is ignored', async () => {
    const storage = new Map<string, string>()
    const memory = new OpenSessionMemory({
      getItem: (key) => storage.get(key) ?? null,
      setItem: (key, value) => void storage.set(key, value),
    })
    memory.remember('/data', 'w1', 's1')
    memory.remember('/data', 'w2', 'gone')
    const sessions = [session('s1', 'w1'), session('s2', 'w2')]
    const client = fakeClient({
      'host.info': () => info('/start'),
      'workspace.list': () => [ws('w1', '/start'), ws('w2', '/other')],
      'workspace.open': (p) => (p.path === '/other' ? ws('w2', '/other') : ws('w1', '/start')),
      'session.list': () => sessions,
      'session.get': (p) => ({ session: sessions.find((s) => s.id === p.sessionId), events: [] }),
      'session.subscribe': () => ({}),
      'session.unsubscribe': () => ({}),
    })
    const store = new HostStore(() => client, null, memory)
    await store.start()
    expect(store.getState().openSessionId).toBe('s1')
    // w2's remembered session no longer exists: the open one stays.
    await store.openWorkspace('/other')
    expect(store.getState().openSessionId).toBe('s1')
    await store.openSession('s2')
    expect(memory.recall('/data', 'w2')).toBe('s2')
    await store.openWorkspace('/start')
    expect(store.getState().openSessionId).toBe('s1')
    await store.openWorkspace('/other')
    expect(store.getState().openSessionId).toBe('s2')
    // Another Host's data directory has its own memory.
    expect(memory.recall('/elsewhere', 'w2')).toBeNull()
  })

  it('tells onOpened when the workspace is open, before the session remembered there has loaded', async () => {
    const storage = new Map<string, string>()
    const memory = new OpenSessionMemory({
      getItem: (key) => storage.get(key) ?? null,
      setItem: (key, value) => void storage.set(key, value),
    })
    memory.remember('/data', 'w1', 's1')
    memory.remember('/data', 'w2', 's2')
    const sessions = [session('s1', 'w1'), session('s2', 'w2')]
    let release: () => void = () => {}
    const loading = new Promise<void>((resolve) => {
      release = resolve
    })
    const client = fakeClient({
      'host.info': () => info('/start'),
      'workspace.list': () => [ws('w1', '/start'), ws('w2', '/other')],
      'workspace.open': () => ws('w2', '/other'),
      'session.list': () => sessions,
      'session.get': async (p) => {
        if (p.sessionId === 's2') await loading
        return { session: sessions.find((s) => s.id === p.sessionId), events: [] }
      },
      'session.subscribe': () => ({}),
      'session.unsubscribe': () => ({}),
    })
    const store = new HostStore(() => client, null, memory)
    await store.start()
    const told: string[] = []
    let settled = false
    const opening = store.openWorkspace('/other', undefined, (workspace) => told.push(workspace.id))
    void opening.then(() => {
      settled = true
    })
    await vi.waitFor(() => expect(told).toEqual(['w2']))
    expect(settled).toBe(false)
    release()
    expect(await opening).toMatchObject({ id: 'w2' })
    expect(store.getState().openSessionId).toBe('s2')
  })

  it('hands a failed open to the caller when asked, instead of a banner', async () => {
    const missing = new RpcError(rpcErrorCodes.application, 'No folder at /x', { code: 'folder-not-found' })
    const { store } = await started({
      'workspace.open': () => {
        throw missing
      },
    })
    const seen: unknown[] = []
    expect(await store.openWorkspace('/x', (error) => seen.push(error))).toBeNull()
    expect(seen).toEqual([missing])
    expect(store.getState().notices).toEqual([])
    await store.openWorkspace('/x')
    expect(store.getState().notices.map((n) => n.code)).toEqual(['folder-not-found'])
  })

  it('browses with only the params given', async () => {
    const listing = { path: '/start', parent: '/', folders: [], truncated: false }
    const { store, client } = await started({ 'workspace.browse': () => listing })
    expect(await store.browse(undefined, false)).toEqual(listing)
    expect(client.calls.at(-1)).toEqual(['workspace.browse', {}])
    await store.browse(' ~/x ', true)
    expect(client.calls.at(-1)).toEqual(['workspace.browse', { path: '~/x', hidden: true }])
  })

  it('shows the paths of a refused restore, and restores with force', async () => {
    let force = false
    const { store } = await started({
      'snapshot.restore': (p) => {
        if (!p.force) throw conflict(['notes.txt'])
        force = true
        return { restored: ['notes.txt'], undoTree: 'abc', seq: 9 }
      },
    })
    await store.restore('s1', 3)
    expect(store.getState().restoreConflict).toEqual({
      kind: 'restore',
      sessionId: 's1',
      seq: 3,
      paths: ['notes.txt'],
    })
    await store.restore('s1', 3, true)
    expect(force).toBe(true)
    expect(store.getState().restoreConflict).toBeNull()
    expect(store.getState().notices.at(-1)?.message).toMatch(/^Restored 1 file: notes\.txt\. Undo it/)
  })

  it('undoes a restore by the seq of its event; a conflict offers Undo anyway', async () => {
    const { store, client } = await started({
      'snapshot.undoRestore': (p) => {
        if (!p.force) throw conflict(['notes.txt', 'b.txt'])
        return { restored: ['notes.txt'], undoTree: 'def', seq: 11 }
      },
    })
    expect(await store.undoRestore('s1', 9)).toBe(false)
    expect(client.calls.at(-1)).toEqual(['snapshot.undoRestore', { sessionId: 's1', seq: 9 }])
    expect(store.getState().restoreConflict).toEqual({
      kind: 'undo',
      sessionId: 's1',
      seq: 9,
      paths: ['notes.txt', 'b.txt'],
    })
    expect(await store.undoRestore('s1', 9, true)).toBe(true)
    expect(client.calls.at(-1)).toEqual(['snapshot.undoRestore', { sessionId: 's1', seq: 9, force: true }])
    expect(store.getState().restoreConflict).toBeNull()
    expect(store.getState().notices.at(-1)?.code).toBe('restore-undone')
  })

  it('reports other undo errors as banners', async () => {
    const { store } = await started({
      'snapshot.undoRestore': () => {
        throw new RpcError(rpcErrorCodes.application, 'Busy', { code: 'session-busy' })
      },
    })
    expect(await store.undoRestore('s1', 9)).toBe(false)
    expect(store.getState().restoreConflict).toBeNull()
    expect(store.getState().notices.map((n) => n.code)).toEqual(['session-busy'])
  })

  it('opens the child a fork published but could not attach, then reports the error', async () => {
    const child = session('child', 'w1')
    const { store } = await started({
      'session.fork': () => {
        throw new RpcError(rpcErrorCodes.application, 'Could not attach', {
          code: 'workspace-attach-failed',
          sessionId: 'child',
        })
      },
      'session.get': () => ({ session: child, events: [] }),
      'session.subscribe': () => ({}),
      'workspace.list': () => [ws('w1', '/start')],
    })
    expect((await store.fork({ sessionId: 'parent' }))?.id).toBe('child')
    expect(store.getState().openSessionId).toBe('child')
    expect(store.getState().notices.map((n) => n.code)).toEqual(['workspace-attach-failed'])
  })

  it('answers a permission request; one answered already is dropped quietly, other failures shown', async () => {
    let pending = true
    const { store, client } = await started({
      'session.answerPermission': () => {
        if (pending) {
          pending = false
          return { answered: true }
        }
        throw new RpcError(rpcErrorCodes.application, 'Not waiting', {
          code: 'permission-not-pending',
          sessionId: 's1',
          callId: 'c1',
        })
      },
    })
    expect(await store.answerPermission('s1', 'c1', 'deny', 'not now')).toBe(true)
    expect(client.calls.at(-1)).toEqual([
      'session.answerPermission',
      { sessionId: 's1', callId: 'c1', decision: 'deny', reason: 'not now' },
    ])
    expect(await store.answerPermission('s1', 'c1', 'once', '')).toBe(true)
    expect(client.calls.at(-1)).toEqual([
      'session.answerPermission',
      { sessionId: 's1', callId: 'c1', decision: 'once' },
    ])
    expect(store.getState().notices).toEqual([])

    const { store: other } = await started({})
    expect(await other.answerPermission('s1', 'c1', 'always')).toBe(false)
    expect(other.getState().notices.map((n) => n.code)).toEqual(['method-not-found'])
  })
})

describe('HostStore: a long log', () => {
  /** A log of `count` events: turns of 5 (start, message, assistant, step end, end). */
  function longLog(count: number) {
    const types = ['turn/start', 'user/message', 'assistant/message', 'step/end', 'turn/end']
    return Array.from({ length: count }, (_, seq) => ({ seq, time: seq, type: types[seq % 5]!, data: {} }))
  }
  /** session.get as the Host answers it: [fromSeq, beforeSeq), then the last `last`. */
  function getPage(log: ReturnType<typeof longLog>, p: Record<string, unknown>) {
    const end = Math.min(typeof p.beforeSeq === 'number' ? p.beforeSeq : log.length, log.length)
    const last = typeof p.last === 'number' ? end - p.last : 0
    const from = Math.max(typeof p.fromSeq === 'number' ? p.fromSeq : 0, last)
    return log.slice(from, Math.max(from, end))
  }

  it('opens tail first from a turn start, prepends older pages, and loads back to a jump', async () => {
    const log = longLog(5_003)
    const summary = { ...session('long', null), eventCount: log.length }
    const { store, client } = await started({
      'session.list': () => [summary],
      'session.get': (p) => ({ session: summary, events: getPage(log, p) }),
      'session.subscribe': () => ({}),
    })
    await store.openSession('long')
    const opened = store.getState().transcript!
    // The last page, cut to its first turn start; the subscription continues after its end.
    expect(opened.firstSeq % 5).toBe(0)
    expect(opened.firstSeq).toBeGreaterThan(log.length - 500 - 5)
    expect(opened.events.at(-1)?.seq).toBe(log.length - 1)
    expect(client.calls.find(([method]) => method === 'session.subscribe')?.[1]).toEqual({
      sessionId: 'long',
      fromSeq: log.length,
    })

    expect(await store.loadOlder()).toBe(true)
    const older = store.getState().transcript!
    expect(older.firstSeq).toBeLessThan(opened.firstSeq)
    expect(older.events.every((event, index) => event.seq === older.firstSeq + index)).toBe(true)

    await store.jumpTo('long', 120)
    const jumped = store.getState()
    expect(jumped.transcript!.firstSeq).toBeLessThanOrEqual(120)
    expect(jumped.jump).toMatchObject({ sessionId: 'long', seq: 120 })
    expect(
      jumped.transcript!.events.every((event, index) => event.seq === jumped.transcript!.firstSeq + index),
    ).toBe(true)
  })

  it('tells listeners about live events once per frame, with the state current at once', async () => {
    const frames: (() => void)[] = []
    const client = fakeClient({
      'host.info': () => info(),
      'workspace.list': () => [],
      'session.list': () => [session('s', null)],
      'session.get': () => ({ session: session('s', null), events: [] }),
      'session.subscribe': () => ({}),
    })
    const notify: Record<string, (params: never) => void> = {}
    client.onNotification = ((method: string, handler: (params: never) => void) => {
      notify[method] = handler
      return () => {}
    }) as RpcClient['onNotification']
    const store = new HostStore(
      () => client,
      null,
      new OpenSessionMemory(null),
      (flush) => frames.push(flush),
    )
    await store.start()
    await store.openSession('s')
    let told = 0
    store.subscribe(() => told++)
    for (const text of ['a', 'b', 'c'])
      notify['session.delta']!({ sessionId: 's', kind: 'text', text } as never)
    expect(store.getState().transcript!.streaming.text).toBe('abc')
    expect(told).toBe(0)
    expect(frames).toHaveLength(1)
    frames.shift()!()
    expect(told).toBe(1)
  })
})
