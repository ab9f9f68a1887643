// The Host over a real WebSocket on 127.0.0.1: upgrade auth and Origin, size limits,
// every method, notifications, and gap-free event delivery to late subscribers.
import { maxMessageBytes, maxWebSocketMessageBytes, type SessionEvent } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { removeTempDirs, rpcFailure, startTestHost, type TestHost, tempDir, waitFor } from './host-harness.js'

let t: TestHost
beforeAll(async () => {
  // Slow demo streaming, so turns are observably running.
  t = await startTestHost({ demoDelayMs: 8 })
})
afterAll(async () => {
  await t.close()
  removeTempDirs()
})

const longPrompt = `Tell me a story about ${'forks and branches '.repeat(8)}`

function socketUrl(token: string | null, pathname = '/rpc'): string {
  const url = new URL(pathname, t.host.url)
  url.protocol = 'ws:'
  if (token !== null) url.searchParams.set('token', token)
  return url.toString()
}

/** The HTTP status of an upgrade attempt (101 when it opened). */
function upgradeStatus(url: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, origin !== undefined ? { origin } : {})
    socket.on('unexpected-response', (request, response) => {
      resolve(response.statusCode ?? 0)
      request.destroy()
    })
    socket.on('open', () => {
      socket.close()
      resolve(101)
    })
    socket.on('error', reject)
  })
}

/** A raw socket: send text, read the next parsed message. */
async function rawSocket(): Promise<{ send(text: string): void; next(): Promise<unknown>; close(): void }> {
  const socket = new WebSocket(socketUrl(t.host.token))
  const inbox: unknown[] = []
  const waiting: ((value: unknown) => void)[] = []
  socket.on('message', (data) => {
    const message = JSON.parse(String(data))
    const waiter = waiting.shift()
    if (waiter) waiter(message)
    else inbox.push(message)
  })
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  return {
    send: (text) => socket.send(text),
    next: () =>
      inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((resolve) => waiting.push(resolve)),
    close: () => socket.close(),
  }
}

describe('WebSocket auth', () => {
  it('refuses a missing or wrong token with 401 and an unknown path with 404', async () => {
    expect(await upgradeStatus(socketUrl(null))).toBe(401)
    expect(await upgradeStatus(socketUrl('wrong'))).toBe(401)
    expect(await upgradeStatus(socketUrl(t.host.token, '/other'))).toBe(404)
  })

  it('refuses a foreign Origin and accepts the Host’s own', async () => {
    expect(await upgradeStatus(socketUrl(t.host.token), 'http://evil.example')).toBe(403)
    expect(await upgradeStatus(socketUrl(t.host.token), `http://localhost:${t.host.port + 1}`)).toBe(403)
    expect(await upgradeStatus(socketUrl(t.host.token), t.host.url)).toBe(101)
    expect(await upgradeStatus(socketUrl(t.host.token), `http://localhost:${t.host.port}`)).toBe(101)
    expect(await upgradeStatus(socketUrl(t.host.token))).toBe(101)
  })
})

describe('WebSocket framing', () => {
  it('answers malformed JSON with -32700 and keeps the connection serving', async () => {
    const socket = await rawSocket()
    socket.send('{not json')
    expect(await socket.next()).toMatchObject({
      id: null,
      error: { code: -32700, data: { code: 'parse-error' } },
    })
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'host.info' }))
    expect(await socket.next()).toMatchObject({ id: 2, result: { dataDir: t.home } })
    socket.close()
  })

  it('refuses a message over the limit with a JSON-RPC error and keeps serving', async () => {
    const socket = await rawSocket()
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'host.info',
        params: { pad: 'x'.repeat(maxMessageBytes) },
      }),
    )
    expect(await socket.next()).toMatchObject({ id: null, error: { data: { code: 'payload-too-large' } } })
    socket.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 3, method: 'workspace.list' },
        { jsonrpc: '2.0', id: 4, method: 'x' },
      ]),
    )
    expect(await socket.next()).toMatchObject([
      { id: 3, result: [] },
      { id: 4, error: { code: -32601 } },
    ])
    socket.close()
  })

  it('closes a socket whose frame is far over the limit (1009); other connections keep working', async () => {
    const bystander = await t.connect()
    const socket = new WebSocket(socketUrl(t.host.token))
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
    socket.send('x'.repeat(maxWebSocketMessageBytes + 1))
    expect(await closed).toBe(1009)
    expect((await bystander.call('host.info')).dataDir).toBe(t.home)
  })
})

describe('methods over a socket', () => {
  it('walks through every method', async () => {
    const client = await t.connect()
    const info = await client.call('host.info')
    expect(info.dataDir).toBe(t.home)
    const dir = tempDir('tangent-ws-work-')
    const workspace = await client.call('workspace.open', { path: dir })
    expect((await client.call('workspace.list')).map((item) => item.id)).toContain(workspace.id)
    const session = await client.call('session.create', { workspaceId: workspace.id, title: 'Socket' })
    expect(session.cwd).toBe(workspace.path)
    expect((await client.call('session.list', { workspaceId: workspace.id })).map((item) => item.id)).toEqual(
      [session.id],
    )
    expect(await client.call('session.subscribe', { sessionId: session.id })).toEqual({})
    const turn = await client.call('session.prompt', {
      sessionId: session.id,
      text: 'write plan.md: step one',
    })
    expect(turn.reason).toBe('completed')
    expect(await client.call('session.abort', { sessionId: session.id })).toEqual({ aborted: false })
    const got = await client.call('session.get', { sessionId: session.id })
    expect(got.events.at(-1)?.type).toBe('turn/end')
    const timeline = await client.call('snapshot.list', { sessionId: session.id })
    // The first turn's baseline (nothing changed yet), then the tool step's snapshot.
    expect(timeline.map((entry) => entry.changed)).toEqual([[], ['plan.md']])
    const fork = await client.call('session.fork', { sessionId: session.id, title: 'Branch' })
    expect(fork.session).toMatchObject({
      parentSession: session.id,
      workspaceId: workspace.id,
      title: 'Branch',
    })
    const compared = await client.call('session.compare', { a: session.id, b: fork.session.id })
    expect(compared).toMatchObject({ ancestor: session.id, forkSeq: fork.boundary, files: [] })
    expect((await client.call('session.rename', { sessionId: session.id, title: 'Socket 2' })).title).toBe(
      'Socket 2',
    )
    expect(
      (await client.call('session.setModel', { sessionId: session.id, model: 'demo:scripted' })).model?.model,
    ).toBe('scripted')
    expect((await client.call('session.archive', { sessionId: session.id, archived: true })).archived).toBe(
      true,
    )
    const restored = await client.call('snapshot.restore', {
      sessionId: session.id,
      seq: timeline[1]?.seq ?? 0,
    })
    expect(restored.restored).toEqual([])
    expect(await client.call('session.unsubscribe', { sessionId: session.id })).toEqual({})
    expect(await client.call('session.delete', { sessionId: fork.session.id })).toEqual({
      deleted: true,
      materialized: [],
    })
  })

  it('returns the error codes over the socket', async () => {
    const client = await t.connect()
    expect((await rpcFailure(client.call('session.get', { sessionId: 'missing' }))).data.code).toBe(
      'session-not-found',
    )
    const invalid = await rpcFailure(client.call('session.get', { sessionId: '../../x' }))
    expect([invalid.code, invalid.data.code]).toEqual([-32602, 'invalid-params'])
    expect((await rpcFailure(client.call('session.create', { workspaceId: 'nope' }))).data.code).toBe(
      'workspace-not-found',
    )
    const unavailable = await client.call('session.create', { model: 'anthropic:claude-sonnet-4-5' })
    const model = await rpcFailure(client.call('session.prompt', { sessionId: unavailable.id, text: 'hi' }))
    expect(model.data).toMatchObject({ code: 'model-unavailable' })

    const session = await client.call('session.create', {})
    const running = client.call('session.prompt', { sessionId: session.id, text: longPrompt })
    await waitFor(
      async () => (await client.call('session.get', { sessionId: session.id })).session.status === 'running',
    )
    const busy = await rpcFailure(client.call('session.prompt', { sessionId: session.id, text: 'again' }))
    expect([busy.code, busy.data.code, busy.data.sessionId]).toEqual([-32000, 'session-busy', session.id])
    expect(
      (await rpcFailure(client.call('session.rename', { sessionId: session.id, title: 'x' }))).data.code,
    ).toBe('session-busy')
    const events = (await client.call('session.get', { sessionId: session.id })).events
    const inTurn = events.findLast((event) => event.type === 'turn/start')?.seq ?? 0
    const forkable = await rpcFailure(client.call('session.fork', { sessionId: session.id, atSeq: inTurn }))
    expect(forkable.data).toMatchObject({ code: 'fork-unavailable', sessionId: session.id, atSeq: inTurn })
    expect(await client.call('session.abort', { sessionId: session.id })).toEqual({ aborted: true })
    expect((await running).reason).toBe('aborted')
  })
})

describe('notifications', () => {
  it('a subscriber that joins mid-turn gets every event exactly once, in order', async () => {
    const driver = await t.connect()
    const early = await t.connect()
    const late = await t.connect()
    const session = await driver.call('session.create', {})
    const fromEarly: SessionEvent[] = []
    const deltas: string[] = []
    early.onNotification('session.event', (params) => {
      if (params.sessionId === session.id) fromEarly.push(params.event)
    })
    early.onNotification('session.delta', (params) => {
      if (params.sessionId === session.id && params.kind === 'text') deltas.push(params.text)
    })
    await early.call('session.subscribe', { sessionId: session.id })

    const turn = driver.call('session.prompt', { sessionId: session.id, text: longPrompt })
    // Join once the turn is visibly under way (a step is streaming).
    const snapshot = await waitFor(async () => {
      const got = await late.call('session.get', { sessionId: session.id })
      return (
        got.session.status === 'running' && got.events.some((event) => event.type === 'step/start') && got
      )
    })
    const fromLate: SessionEvent[] = []
    late.onNotification('session.event', (params) => {
      if (params.sessionId === session.id) fromLate.push(params.event)
    })
    await late.call('session.subscribe', { sessionId: session.id, fromSeq: snapshot.events.length })
    const result = await turn
    expect(result.reason).toBe('completed')
    await waitFor(() => fromLate.at(-1)?.type === 'turn/end', 'the late subscriber to see turn/end')

    const final = (await driver.call('session.get', { sessionId: session.id })).events
    expect([...snapshot.events, ...fromLate]).toEqual(final)
    expect(fromEarly).toEqual(final.slice(1))
    const reply = final.findLast((event) => event.type === 'assistant/message')?.data as {
      content: { text: string }[]
    }
    expect(deltas.join('')).toBe(reply.content[0]?.text)
  })

  it('announces created, updated (running → idle), deleted to every connection', async () => {
    const actor = await t.connect()
    const watcher = await t.connect()
    const seen: { id: string; what: string }[] = []
    watcher.onNotification('session.created', (params) =>
      seen.push({ id: params.session.id, what: `created:${params.session.status}` }),
    )
    watcher.onNotification('session.updated', (params) =>
      seen.push({ id: params.session.id, what: `updated:${params.session.status}` }),
    )
    watcher.onNotification('session.deleted', (params) =>
      seen.push({ id: params.sessionId, what: 'deleted' }),
    )
    const session = await actor.call('session.create', {})
    await actor.call('session.prompt', { sessionId: session.id, text: 'hi' })
    const of = () => seen.filter((item) => item.id === session.id).map((item) => item.what)
    await waitFor(
      () => of().includes('updated:idle') && of().includes('updated:running'),
      'running and idle updates',
    )
    expect(of()[0]).toBe('created:idle')
    expect(of().lastIndexOf('updated:running')).toBeLessThan(of().lastIndexOf('updated:idle'))
    await actor.call('session.delete', { sessionId: session.id })
    await waitFor(() => of().includes('deleted'), 'deleted')
  })

  it('warns every connection when two sessions run in one directory', async () => {
    const client = await t.connect()
    const shared = tempDir('tangent-shared-')
    const a = await client.call('session.create', { cwd: shared })
    const b = await client.call('session.create', { cwd: shared })
    const warnings: { cwd: string; sessionIds: string[] }[] = []
    client.onNotification('files.sharedActivity', (params) => warnings.push(params))
    const first = client.call('session.prompt', { sessionId: a.id, text: longPrompt })
    await waitFor(
      async () => (await client.call('session.get', { sessionId: a.id })).session.status === 'running',
    )
    const second = client.call('session.prompt', { sessionId: b.id, text: 'hello' })
    await Promise.all([first, second])
    expect(warnings).toContainEqual({ cwd: a.cwd, sessionIds: expect.arrayContaining([a.id, b.id]) })
  })
})
