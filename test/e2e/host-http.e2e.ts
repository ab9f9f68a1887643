// The Host's HTTP surface in-process (Hono app.request): auth, limits, JSON-RPC framing,
// every method and the error codes of docs/protocol.md.
import fs from 'node:fs'
import path from 'node:path'
import { HostInfoResult, maxMessageBytes, maxPromptMessageBytes, SessionSummary } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeTempDirs, rpcFailure, startTestHost, type TestHost, tempDir } from './host-harness.js'

let t: TestHost
beforeAll(async () => {
  t = await startTestHost()
})
afterAll(async () => {
  await t.close()
  removeTempDirs()
})

describe('HTTP auth and framing', () => {
  it('answers /healthz without a token', async () => {
    const response = await t.host.request('/healthz')
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('ok')
  })

  it('refuses /rpc without a token or with a wrong one (401)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'host.info' })
    const none = await t.host.request('/rpc', { method: 'POST', body })
    expect(none.status).toBe(401)
    const wrong = await t.post(body, { authorization: 'Bearer not-the-token' })
    expect(wrong.status).toBe(401)
    expect(((await wrong.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      'unauthorized',
    )
  })

  it('refuses a body over the limit with 413 and keeps serving', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'host.info',
      params: { pad: 'x'.repeat(maxMessageBytes) },
    })
    const response = await t.post(big)
    expect(response.status).toBe(413)
    const answer = (await response.json()) as { error: { code: number; data: { code: string } } }
    expect(answer.error.data.code).toBe('payload-too-large')
    expect((await t.call('host.info')).dataDir).toBe(t.home)
  })

  it('answers malformed JSON with -32700 and keeps serving', async () => {
    const answer = (await (await t.post('{"jsonrpc": "2.0", "id": 1, "method": ')).json()) as {
      id: null
      error: { code: number; data: { code: string } }
    }
    expect(answer.id).toBeNull()
    expect(answer.error.code).toBe(-32700)
    expect(answer.error.data.code).toBe('parse-error')
    expect((await t.call('host.info')).version).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('answers an invalid request with -32600 and an unknown method with -32601', async () => {
    const invalid = (await (await t.post(JSON.stringify({ id: 7, method: 'host.info' }))).json()) as {
      id: number
      error: { code: number }
    }
    expect(invalid).toMatchObject({ id: 7, error: { code: -32600 } })
    const unknown = await rpcFailure(t.call('host.reboot' as 'host.info'))
    expect(unknown.code).toBe(-32601)
    expect(unknown.data.code).toBe('method-not-found')
  })

  it('answers a batch in order, skipping notifications; an empty batch is -32600', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'host.info' },
      { jsonrpc: '2.0', method: 'workspace.list' },
      { jsonrpc: '2.0', id: 'b', method: 'nope' },
      { jsonrpc: '2.0', id: 'c', method: 'session.get', params: { sessionId: '../etc/passwd' } },
    ]
    const answers = (await (await t.post(JSON.stringify(batch))).json()) as {
      id: string
      result?: unknown
      error?: { code: number }
    }[]
    expect(answers.map((answer) => answer.id)).toEqual(['a', 'b', 'c'])
    expect(HostInfoResult.safeParse(answers[0]?.result).success).toBe(true)
    expect(answers[1]?.error?.code).toBe(-32601)
    expect(answers[2]?.error?.code).toBe(-32602)
    const empty = (await (await t.post('[]')).json()) as { error: { code: number } }
    expect(empty.error.code).toBe(-32600)
  })

  it('answers other verbs on /rpc with 405', async () => {
    const response = await t.host.request('/rpc')
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
  })

  it('answers a lone notification with 204 and no body', async () => {
    const response = await t.post(JSON.stringify({ jsonrpc: '2.0', method: 'host.info' }))
    expect(response.status).toBe(204)
  })

  it('refuses session.subscribe over HTTP (no notifications there)', async () => {
    const session = await t.call('session.create', {})
    const error = await rpcFailure(t.call('session.subscribe', { sessionId: session.id }))
    expect(error.code).toBe(-32600)
  })

  it('refuses session.attachMcpServers over HTTP (no connection to hold them)', async () => {
    const session = await t.call('session.create', {})
    const servers = [{ name: 'editor', command: process.execPath }]
    const error = await rpcFailure(t.call('session.attachMcpServers', { sessionId: session.id, servers }))
    expect(error.code).toBe(-32600)
    expect(error.message).toMatch(/WebSocket/)
  })
})

describe('HTTP over a real socket', () => {
  it('serves healthz, authenticated /rpc and the 401/413 answers through node-server', async () => {
    expect(await (await fetch(`${t.host.url}/healthz`)).text()).toBe('ok')
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'host.info' })
    const ok = await fetch(`${t.host.url}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.host.token}`, 'content-type': 'application/json' },
      body,
    })
    expect(((await ok.json()) as { result: { dataDir: string } }).result.dataDir).toBe(t.home)
    const denied = await fetch(`${t.host.url}/rpc`, { method: 'POST', body })
    expect(denied.status).toBe(401)
    // A streamed body without Content-Length is counted as it arrives: past the largest message
    // (a prompt with images), it is cut.
    const chunk = new TextEncoder().encode('x'.repeat(256 * 1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < maxPromptMessageBytes / chunk.byteLength + 2) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const tooBig = await fetch(`${t.host.url}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.host.token}` },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    expect(tooBig.status).toBe(413)
    expect((await t.call('host.info')).dataDir).toBe(t.home)
  })
})

describe('web UI', () => {
  it('says how to build the UI when it is missing', async () => {
    const other = await startTestHost({ webRoot: path.join(tempDir(), 'not-built') })
    try {
      const page = await other.host.request('/')
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('npm run build')
    } finally {
      await other.close()
    }
  })

  it('serves a built UI and its assets, confined to webRoot', async () => {
    const webRoot = tempDir('tangent-web-')
    fs.mkdirSync(path.join(webRoot, 'assets'))
    fs.writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>Tangent UI</title>')
    fs.writeFileSync(path.join(webRoot, 'assets', 'app.js'), 'console.log(1)')
    const other = await startTestHost({ webRoot })
    try {
      const index = await other.host.request('/?token=abc')
      expect(await index.text()).toContain('Tangent UI')
      const asset = await other.host.request('/assets/app.js')
      expect(asset.headers.get('content-type')).toContain('javascript')
      expect(await asset.text()).toBe('console.log(1)')
      expect((await other.host.request('/assets/missing.js')).status).toBe(404)
      expect((await other.host.request('/..%2f..%2f..%2fetc%2fpasswd')).status).toBe(404)
      expect(await (await other.host.request('/%2e%2e/%2e%2e/etc/passwd')).text()).not.toContain('root:')
      // Client-side routes get the app.
      expect(await (await other.host.request('/sessions/abc')).text()).toContain('Tangent UI')
    } finally {
      await other.close()
      fs.rmSync(webRoot, { recursive: true, force: true })
    }
  })
})

describe('methods over HTTP', () => {
  it('host.info lists the demo model as available', async () => {
    const info = HostInfoResult.parse(await t.call('host.info'))
    expect(info.defaultModel).toBe('demo:scripted')
    expect(info.models.find((model) => model.id === 'demo:scripted')?.available).toBe(true)
    expect(info.models.find((model) => model.id.startsWith('openai:'))?.available).toBe(false)
  })

  it('workspace.open realpaths an existing directory and refuses anything else', async () => {
    const link = path.join(tempDir(), 'link')
    fs.symlinkSync(t.work, link)
    const first = await t.call('workspace.open', { path: t.work })
    const again = await t.call('workspace.open', { path: link })
    expect(again).toEqual({ ...first, openedAt: again.openedAt })
    expect(again.openedAt).toBeGreaterThanOrEqual(first.openedAt ?? Number.POSITIVE_INFINITY)
    expect(first).toEqual({
      id: first.id,
      path: t.work,
      name: path.basename(t.work),
      openedAt: first.openedAt,
    })
    expect(await t.call('workspace.list')).toContainEqual(again)
    const missing = await rpcFailure(t.call('workspace.open', { path: path.join(t.work, 'nope') }))
    expect(missing.code).toBe(-32602)
    expect(missing.data.code).toBe('folder-not-found')
    fs.writeFileSync(path.join(t.work, 'file.txt'), 'x')
    const file = await rpcFailure(t.call('workspace.open', { path: path.join(t.work, 'file.txt') }))
    expect(file.data.code).toBe('folder-not-found')
    const relative = await rpcFailure(t.call('workspace.open', { path: 'relative/dir' }))
    expect(relative.data.code).toBe('folder-not-found')
  })

  it('session.create puts the session in its workspace; unknown workspace is workspace-not-found', async () => {
    const workspace = await t.call('workspace.open', { path: t.work })
    const session = SessionSummary.parse(
      await t.call('session.create', { workspaceId: workspace.id, title: 'Plan', model: 'demo:scripted' }),
    )
    expect(session).toMatchObject({
      title: 'Plan',
      cwd: t.work,
      workspaceId: workspace.id,
      parentSession: null,
      forkedAt: null,
      origin: 'user',
      status: 'idle',
      archived: false,
      model: { provider: 'demo', model: 'scripted' },
      files: { mode: 'shared', path: t.work, baseTree: null },
    })
    const unknown = await rpcFailure(t.call('session.create', { workspaceId: 'no-such-workspace' }))
    expect(unknown.code).toBe(-32000)
    expect(unknown.data).toMatchObject({ code: 'workspace-not-found', workspaceId: 'no-such-workspace' })
    const badModel = await rpcFailure(t.call('session.create', { model: 'no-colon' }))
    expect([badModel.code, badModel.data.code]).toEqual([-32602, 'invalid-model'])
    const unknownProvider = await rpcFailure(t.call('session.create', { model: 'acme:rocket' }))
    expect([unknownProvider.code, unknownProvider.data.code]).toEqual([-32602, 'invalid-model'])
    const setBad = await rpcFailure(
      t.call('session.setModel', { sessionId: session.id, model: 'acme:rocket' }),
    )
    expect(setBad.data.code).toBe('invalid-model')
    const listed = await t.call('session.list', { workspaceId: workspace.id })
    expect(listed.map((summary) => summary.id)).toContain(session.id)
  })

  it('session.get, session.prompt and session.list agree on the log', async () => {
    const session = await t.call('session.create', {})
    const turn = await t.call('session.prompt', { sessionId: session.id, text: 'hello there' })
    expect(turn.reason).toBe('completed')
    const got = await t.call('session.get', { sessionId: session.id })
    expect(got.events.map((event) => event.seq)).toEqual(got.events.map((_, index) => index))
    expect(got.events[turn.turnStartSeq]?.type).toBe('turn/start')
    expect(got.events[turn.turnEndSeq]?.type).toBe('turn/end')
    expect(got.session.eventCount).toBe(got.events.length)
    const tail = await t.call('session.get', { sessionId: session.id, fromSeq: turn.turnEndSeq })
    expect(tail.events.map((event) => event.type)).toEqual(['turn/end'])
    const listed = (await t.call('session.list')).find((summary) => summary.id === session.id)
    expect(listed?.eventCount).toBe(got.events.length)
  })

  it('unknown ids are session-not-found, malformed ones invalid-params', async () => {
    for (const method of [
      'session.get',
      'session.abort',
      'session.prompt',
      'session.fork',
      'session.delete',
    ] as const) {
      const params = { sessionId: 'doesnotexist', text: 'x' }
      const error = await rpcFailure(t.call(method, params))
      expect(error.data, method).toMatchObject({ code: 'session-not-found', sessionId: 'doesnotexist' })
    }
    for (const sessionId of ['../x', 'a\u0000b', '']) {
      const error = await rpcFailure(t.call('session.get', { sessionId }))
      expect(error.code).toBe(-32602)
      expect(error.data.code).toBe('invalid-params')
      expect(Array.isArray(error.data.issues)).toBe(true)
    }
  })

  it('model-unavailable when the provider has no key', async () => {
    const session = await t.call('session.create', { model: 'openai:gpt-4.1' })
    const error = await rpcFailure(t.call('session.prompt', { sessionId: session.id, text: 'hi' }))
    expect(error.code).toBe(-32000)
    expect(error.data).toMatchObject({ code: 'model-unavailable', model: 'openai:gpt-4.1' })
    // Nothing was appended: the session is still idle and has only its creation events.
    const got = await t.call('session.get', { sessionId: session.id })
    expect(got.session.status).toBe('idle')
    expect(got.events.map((event) => event.type)).toEqual(['model/selection'])
  })

  it('rename, setModel, archive and delete', async () => {
    const session = await t.call('session.create', {})
    await t.call('session.prompt', { sessionId: session.id, text: 'one' })
    const renamed = await t.call('session.rename', { sessionId: session.id, title: 'Renamed' })
    expect(renamed.title).toBe('Renamed')
    const model = await t.call('session.setModel', {
      sessionId: session.id,
      model: 'demo:scripted',
      reasoningEffort: 'high',
    })
    expect(model.model).toEqual({ provider: 'demo', model: 'scripted', reasoningEffort: 'high' })
    const archived = await t.call('session.archive', { sessionId: session.id, archived: true })
    expect(archived.archived).toBe(true)
    expect((await t.call('session.list')).some((summary) => summary.id === session.id)).toBe(false)
    expect(
      (await t.call('session.list', { includeArchived: true })).some((summary) => summary.id === session.id),
    ).toBe(true)
    await t.call('session.archive', { sessionId: session.id, archived: false })
    const child = await t.call('session.fork', { sessionId: session.id })
    const deleted = await t.call('session.delete', { sessionId: session.id })
    expect(deleted).toEqual({ deleted: true, materialized: [child.session.id] })
    expect((await rpcFailure(t.call('session.get', { sessionId: session.id }))).data.code).toBe(
      'session-not-found',
    )
    // The child keeps its whole history.
    const childLog = await t.call('session.get', { sessionId: child.session.id })
    expect(childLog.events.length).toBe(child.session.eventCount)
  })

  it('fork errors: fork-unavailable without a completed turn, invalid-boundary for a bad anchor', async () => {
    const empty = await t.call('session.create', {})
    const unavailable = await rpcFailure(t.call('session.fork', { sessionId: empty.id }))
    expect(unavailable.data).toMatchObject({ code: 'fork-unavailable', sessionId: empty.id })
    const before = await rpcFailure(t.call('session.fork', { sessionId: empty.id, before: true }))
    expect(before.data).toMatchObject({ code: 'invalid-boundary' })
  })

  it('session.compare finds the nearest common ancestor through nested forks', async () => {
    const root = await t.call('session.create', {})
    const first = await t.call('session.prompt', { sessionId: root.id, text: 'one' })
    await t.call('session.prompt', { sessionId: root.id, text: 'two' })
    const child = await t.call('session.fork', { sessionId: root.id, atSeq: first.turnStartSeq })
    await t.call('session.prompt', { sessionId: child.session.id, text: 'child turn' })
    const grandchild = await t.call('session.fork', { sessionId: child.session.id })
    const up = await t.call('session.compare', { a: grandchild.session.id, b: root.id })
    expect([up.ancestor, up.forkSeq]).toEqual([root.id, child.boundary])
    expect(up.a.events[0]?.seq).toBe(child.boundary + 1)
    const sibling = await t.call('session.compare', { a: grandchild.session.id, b: child.session.id })
    expect([sibling.ancestor, sibling.forkSeq]).toEqual([child.session.id, grandchild.boundary])
    // The grandchild's own events: only the title that tells it apart.
    expect(sibling.a.events.map((event) => event.type)).toEqual(['session/title'])
    const stranger = await t.call('session.create', {})
    const unrelated = await t.call('session.compare', { a: root.id, b: stranger.id })
    expect([unrelated.ancestor, unrelated.forkSeq]).toEqual([null, null])
    expect(unrelated.b.events.map((event) => event.type)).toEqual(['model/selection'])
  })

  it('session.compare, snapshot.list and snapshot.restore (with files-conflict)', async () => {
    const work = fs.realpathSync(tempDir('tangent-work-'))
    const session = await t.call('session.create', { cwd: work })
    await t.call('session.prompt', { sessionId: session.id, text: 'write notes.txt: first' })
    const second = await t.call('session.prompt', { sessionId: session.id, text: 'write notes.txt: second' })
    const timeline = await t.call('snapshot.list', { sessionId: session.id })
    // The first turn's baseline (nothing changed yet), then one snapshot per tool step.
    expect(timeline.map((entry) => entry.changed)).toEqual([[], ['notes.txt'], ['notes.txt']])
    const firstStep = timeline[1]?.seq ?? 0
    const child = await t.call('session.fork', { sessionId: session.id, atSeq: firstStep })
    const compared = await t.call('session.compare', { a: session.id, b: child.session.id })
    expect(compared.ancestor).toBe(session.id)
    expect(compared.forkSeq).toBe(child.boundary)
    expect(compared.b.events.map((event) => event.type)).toEqual(['session/title'])
    expect(compared.a.events.at(-1)?.seq).toBe(second.turnEndSeq)
    expect(compared.files.map((diff) => [diff.path, diff.status])).toEqual([['notes.txt', 'modified']])
    // Someone else edits the file: restoring to the first turn refuses, then force wins.
    fs.writeFileSync(path.join(work, 'notes.txt'), 'edited by hand\n')
    const conflict = await rpcFailure(t.call('snapshot.restore', { sessionId: session.id, seq: firstStep }))
    expect(conflict.data).toMatchObject({ code: 'files-conflict', paths: ['notes.txt'] })
    const restored = await t.call('snapshot.restore', {
      sessionId: session.id,
      seq: firstStep,
      force: true,
    })
    expect(restored.restored).toEqual(['notes.txt'])
    expect(restored.undoTree).toMatch(/^[0-9a-f]{40}$/)
    expect(fs.readFileSync(path.join(work, 'notes.txt'), 'utf8')).toBe('first\n')
    // The restore is an event of its own, with what it restored to and its undo tree.
    const log = await t.call('session.get', { sessionId: session.id, fromSeq: restored.seq ?? 0 })
    expect(log.events).toMatchObject([
      {
        seq: restored.seq,
        type: 'files/restored',
        data: { toSeq: firstStep, restored: ['notes.txt'], undoTree: restored.undoTree },
      },
    ])
    fs.rmSync(work, { recursive: true, force: true })
  })
})
