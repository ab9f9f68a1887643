// Bad input to the Host (issue 6): thousands of seeded generated messages — invalid JSON, wrong
// JSON-RPC shapes, wrong param types, unknown methods, huge strings and arrays, ids with `../`,
// NUL and unicode — over HTTP (in-process and a real socket) and a real WebSocket. Each gets
// the JSON-RPC error docs/protocol.md names, nothing is reported as an internal error, nothing is
// created, and the Host still answers `host.info`.
import fs from 'node:fs'
import path from 'node:path'
import { type RunningHost, startHost } from '@tangent/host'
import { maxMessageBytes, maxPromptChars } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { proveSeed, proveSize, seededRandom, tempDir } from '../soak/lib.mjs'

interface Expected {
  /** The numeric JSON-RPC code, or null when no answer may come (a notification). */
  code: number | null
  dataCode?: string
  /** The id the answer must carry (null for unparsable or id-less requests). */
  id?: string | number | null
  extra?: Record<string, unknown>
}
interface Case {
  what: string
  body: string
  expected: Expected
}
interface Answer {
  jsonrpc?: unknown
  id?: unknown
  result?: unknown
  error?: { code?: unknown; message?: unknown; data?: { code?: unknown } & Record<string, unknown> }
}

const seed = proveSeed('fuzz', 31337)
const random = seededRandom(seed)
let root: string
let host: RunningHost
const hostLog: string[] = []
let known = '' // a session with one completed turn
let empty = '' // a session without turns
let work = ''

beforeAll(async () => {
  root = tempDir('tangent-fuzz-')
  work = path.join(root, 'work')
  fs.mkdirSync(work)
  host = await startHost({
    home: path.join(root, 'home'),
    port: 0,
    env: {},
    handleSignals: false,
    defaultCwd: work,
    log: (line) => hostLog.push(line),
  })
  known = (await call('session.create', { cwd: work })).id as string
  await call('session.prompt', { sessionId: known, text: 'hello' })
  empty = (await call('session.create', { cwd: work })).id as string
}, 60_000)

afterAll(async () => {
  await host?.close()
  fs.rmSync(root, { recursive: true, force: true })
})

async function call(method: string, params: unknown): Promise<Record<string, unknown>> {
  const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
  return answer.result as Record<string, unknown>
}

async function post(body: string): Promise<Answer> {
  const response = await host.request('/rpc', {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body,
  })
  return response.status === 204 ? {} : ((await response.json()) as Answer)
}

// ── generators ──────────────────────────────────────────────────────────────────

const badIds: unknown[] = [
  123,
  null,
  true,
  [],
  {},
  '',
  '../x',
  '../../etc/passwd',
  'a\u0000b',
  'a/b',
  '.hidden',
  '会话',
  '😀',
  ' x',
  'x'.repeat(129),
  '-leading',
  'a b',
  'a\nb',
  'C:\\x',
]
const badSeqs: unknown[] = [-1, 1.5, '3', null, [], {}, true]
const badBooleans: unknown[] = ['true', 1, 0, null, [], {}]
const badTitles: unknown[] = [5, null, [], {}, 'x'.repeat(201)]
const badModels: unknown[] = [5, null, '', 'x'.repeat(201), []]

function unicodeJunk(length: number): string {
  let text = ''
  for (let i = 0; i < length; i++) text += String.fromCodePoint(random.int(0, 0x2ffff) & ~0x800)
  return text
}

/** For each method: params that are valid, and for each field the values that must be refused. */
function methodSpecs(): Record<string, { valid: Record<string, unknown>; bad: Record<string, unknown[]> }> {
  const id = known
  const text = ['', 'x'.repeat(maxPromptChars + 1), 5, null, []]
  return {
    'workspace.open': { valid: { path: work }, bad: { path: [5, '', 'a\u0000b', 'x'.repeat(4097), null] } },
    'session.list': { valid: {}, bad: { workspaceId: badIds, includeArchived: badBooleans } },
    'session.create': {
      valid: { cwd: work },
      bad: {
        workspaceId: badIds,
        cwd: [5, '', 'a\u0000b', 'x'.repeat(4097)],
        title: badTitles,
        model: badModels,
      },
    },
    'session.get': { valid: { sessionId: id }, bad: { sessionId: badIds, fromSeq: badSeqs } },
    'session.subscribe': { valid: { sessionId: id }, bad: { sessionId: badIds, fromSeq: badSeqs } },
    'session.unsubscribe': { valid: { sessionId: id }, bad: { sessionId: badIds } },
    'session.prompt': { valid: { sessionId: id, text: 'hi' }, bad: { sessionId: badIds, text } },
    'session.attachMcpServers': {
      valid: { sessionId: id, servers: [] },
      bad: {
        sessionId: badIds,
        servers: [
          5,
          null,
          {},
          [{}],
          [{ name: 'a__b', command: 'x' }],
          [{ name: '../x', command: 'x' }],
          [{ name: 'a', command: '' }],
          [{ name: 'a', command: 'x', url: 'http://127.0.0.1:1/' }],
          [{ name: 'a', url: 'file:///etc/passwd' }],
          [{ name: 'a', command: 'x', env: { 'A=B': '1' } }],
          [{ name: 'a', command: 'x', env: { A: 'x'.repeat(300_000) } }],
          [{ name: 'a', url: 'http://127.0.0.1:1/', headers: { A: 'b\r\nC: d' } }],
          [
            { name: 'a', command: 'x' },
            { name: 'a', command: 'y' },
          ],
        ],
      },
    },
    'session.abort': { valid: { sessionId: id }, bad: { sessionId: badIds } },
    'session.fork': {
      valid: { sessionId: id },
      bad: {
        sessionId: badIds,
        atSeq: badSeqs,
        before: badBooleans,
        files: ['copy', '', 5, null],
        title: badTitles,
        requestId: ['', 'x'.repeat(201), 5, null],
      },
    },
    'session.rename': { valid: { sessionId: id, title: 't' }, bad: { sessionId: badIds, title: badTitles } },
    'session.archive': {
      valid: { sessionId: id, archived: false },
      bad: { sessionId: badIds, archived: badBooleans },
    },
    'session.delete': { valid: { sessionId: id }, bad: { sessionId: badIds, worktree: ['yes', 5, null] } },
    'session.setModel': {
      valid: { sessionId: id, model: 'demo:scripted' },
      bad: { sessionId: badIds, model: badModels, reasoningEffort: ['', 5, 'x'.repeat(51)] },
    },
    'session.setMode': {
      valid: { sessionId: id, mode: 'edit' },
      bad: { sessionId: badIds, mode: ['', 'yolo', 'PLAN', 'plan ', '__proto__', 5, null, [], {}] },
    },
    'session.compare': { valid: { a: id, b: id }, bad: { a: badIds, b: badIds } },
    'snapshot.list': { valid: { sessionId: id }, bad: { sessionId: badIds } },
    'snapshot.restore': {
      valid: { sessionId: id, seq: 0 },
      bad: { sessionId: badIds, seq: badSeqs, force: badBooleans },
    },
  }
}

let nextId = 1
const freshId = () =>
  random.chance(0.5) ? nextId++ : `id-${nextId++}-${random.pick(['', 'é', '../', '\u0000'])}`

function request(method: unknown, params: unknown, id: unknown = freshId()) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params })
}

function parseErrorCase(): Case {
  const valid = request('host.info', {})
  const candidates = [
    () => valid.slice(0, random.int(0, valid.length - 1)),
    () => `${valid}}`,
    () => `{'jsonrpc':'2.0'}`,
    () => unicodeJunk(random.int(1, 40)),
    () => '{"jsonrpc":"2.0","id":1,"method":"host.info",}',
    () => 'NaN',
    () => 'undefined',
    () => '',
    () => `[${valid},]`,
    () => `{"a":${'['.repeat(random.int(1, 50))}`,
  ]
  for (;;) {
    const body = random.pick(candidates)()
    try {
      JSON.parse(body)
    } catch {
      return { what: 'invalid JSON', body, expected: { code: -32700, dataCode: 'parse-error', id: null } }
    }
  }
}

function invalidRequestCase(): Case {
  const id = freshId()
  const shapes: [string, unknown, string | number | null][] = [
    ['a number', random.int(-5, 5), null],
    ['a string', 'host.info', null],
    ['null', null, null],
    ['true', true, null],
    ['an empty object', {}, null],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id, method: 'host.info' }, id],
    ['no jsonrpc', { id, method: 'host.info' }, id],
    ['jsonrpc as number', { jsonrpc: 2, id, method: 'host.info' }, id],
    ['method a number', { jsonrpc: '2.0', id, method: 5 }, id],
    ['method null', { jsonrpc: '2.0', id, method: null }, id],
    ['method an array', { jsonrpc: '2.0', id, method: ['host.info'] }, id],
    ['method too long', { jsonrpc: '2.0', id, method: 'm'.repeat(random.int(201, 50_000)) }, id],
    ['id an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'host.info' }, null],
    ['id a boolean', { jsonrpc: '2.0', id: true, method: 'host.info' }, null],
    ['id an array', { jsonrpc: '2.0', id: [1], method: 'host.info' }, null],
    ['id too long', { jsonrpc: '2.0', id: 'i'.repeat(201), method: 'host.info' }, 'i'.repeat(201)],
    ['an empty batch', [], null],
    [
      'a batch of 101',
      Array.from({ length: 101 }, () => ({ jsonrpc: '2.0', id: 1, method: 'host.info' })),
      null,
    ],
  ]
  const [what, value, answerId] = random.pick(shapes)
  return {
    what: `invalid request: ${what}`,
    body: JSON.stringify(value),
    expected: { code: -32600, dataCode: 'invalid-request', id: answerId },
  }
}

function unknownMethodCase(): Case {
  const method = random.pick([
    '',
    'session.Fork',
    'host.info ',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'session.prompt\u0000',
    'セッション.list',
    '../../etc/passwd',
    'rpc.discover',
    unicodeJunk(random.int(1, 200)).slice(0, 200),
  ])
  const id = freshId()
  return {
    what: `unknown method ${JSON.stringify(method).slice(0, 40)}`,
    body: request(method, random.pick([{}, [], null, 5, { sessionId: known }]), id),
    expected: { code: -32601, dataCode: 'method-not-found', id },
  }
}

function invalidParamsCase(specs: ReturnType<typeof methodSpecs>): Case {
  const method = random.pick(Object.keys(specs))
  const spec = specs[method]!
  const id = freshId()
  if (random.chance(0.1)) {
    // params of the wrong kind altogether (an object is required)
    const params = random.pick<unknown>([[], 5, 'params', true, Array.from({ length: 100_000 }, (_, i) => i)])
    return {
      what: `${method} with params ${typeof params}`,
      body: request(method, params, id),
      expected: { code: -32602, dataCode: 'invalid-params', id },
    }
  }
  const field = random.pick(Object.keys(spec.bad))
  let value = random.pick(spec.bad[field]!)
  if (random.chance(0.05)) value = Array.from({ length: random.int(1, 50_000) }, () => random.int(0, 9))
  if (random.chance(0.03)) value = JSON.parse(`${'['.repeat(2000)}${']'.repeat(2000)}`)
  return {
    what: `${method} with ${field}=${JSON.stringify(value)?.slice(0, 40)}`,
    body: request(method, { ...spec.valid, [field]: value }, id),
    expected: { code: -32602, dataCode: 'invalid-params', id },
  }
}

function applicationErrorCase(): Case {
  const id = freshId()
  // A valid-looking id that names no session.
  const ghost = `ghost${random.int(0, 1e9)}_${random.pick(['', 'A', '-x'])}`
  const cases: [string, Record<string, unknown>, string, Record<string, unknown>?][] = [
    ['session.get', { sessionId: ghost }, 'session-not-found', { sessionId: ghost }],
    ['session.prompt', { sessionId: ghost, text: 'hi' }, 'session-not-found', { sessionId: ghost }],
    ['session.fork', { sessionId: ghost }, 'session-not-found', { sessionId: ghost }],
    ['session.fork', { sessionId: ghost, requestId: `r${id}` }, 'session-not-found', { sessionId: ghost }],
    ['session.rename', { sessionId: ghost, title: 'x' }, 'session-not-found', { sessionId: ghost }],
    ['session.archive', { sessionId: ghost, archived: true }, 'session-not-found', { sessionId: ghost }],
    ['session.delete', { sessionId: ghost }, 'session-not-found', { sessionId: ghost }],
    ['session.abort', { sessionId: ghost }, 'session-not-found', { sessionId: ghost }],
    ['session.setModel', { sessionId: ghost, model: 'demo:scripted' }, 'session-not-found'],
    ['session.setMode', { sessionId: ghost, mode: 'plan' }, 'session-not-found'],
    ['session.compare', { a: ghost, b: known }, 'session-not-found'],
    ['snapshot.list', { sessionId: ghost }, 'session-not-found'],
    ['snapshot.restore', { sessionId: ghost, seq: 0 }, 'session-not-found'],
    ['session.create', { workspaceId: ghost }, 'workspace-not-found', { workspaceId: ghost }],
    ['session.list', { workspaceId: ghost }, 'workspace-not-found', { workspaceId: ghost }],
    ['session.fork', { sessionId: empty }, 'fork-unavailable', { sessionId: empty }],
  ]
  const [method, params, dataCode, extra] = random.pick(cases)
  return {
    what: `${method} → ${dataCode}`,
    body: request(method, params, id),
    expected: { code: -32000, dataCode, id, ...(extra ? { extra } : {}) },
  }
}

function notificationCase(): Case {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    method: random.pick(['nope', 'session.get', 'host.info', '__proto__']),
    params: random.pick([{}, { sessionId: '../x' }, 5]),
  })
  return { what: 'a notification (no id): no answer', body, expected: { code: null } }
}

function generate(count: number): Case[] {
  const specs = methodSpecs()
  const cases: Case[] = []
  for (let i = 0; i < count; i++) {
    const roll = random.next()
    if (roll < 0.15) cases.push(parseErrorCase())
    else if (roll < 0.3) cases.push(invalidRequestCase())
    else if (roll < 0.42) cases.push(unknownMethodCase())
    else if (roll < 0.8) cases.push(invalidParamsCase(specs))
    else if (roll < 0.95) cases.push(applicationErrorCase())
    else cases.push(notificationCase())
  }
  return cases
}

/** Checks one answer against what its case expects; returns a description of what is wrong, or null. */
function mismatch(item: Case, answer: Answer): string | null {
  const { expected } = item
  if (expected.code === null)
    return answer.jsonrpc === undefined ? null : `answered ${JSON.stringify(answer)}`
  const error = answer.error
  if (answer.jsonrpc !== '2.0' || !error)
    return `not an error response: ${JSON.stringify(answer).slice(0, 200)}`
  if (error.code !== expected.code) return `code ${String(error.code)}, expected ${expected.code}`
  if (error.data?.code !== expected.dataCode)
    return `data.code ${String(error.data?.code)}, expected ${expected.dataCode}`
  if (expected.id !== undefined && answer.id !== expected.id)
    return `id ${JSON.stringify(answer.id)}, expected ${JSON.stringify(expected.id)}`
  if (typeof error.message !== 'string' || error.message.length === 0 || error.message.length > 2000)
    return `message of length ${String((error.message as string | undefined)?.length)}`
  for (const [key, value] of Object.entries(expected.extra ?? {}))
    if (error.data?.[key] !== value)
      return `data.${key} ${JSON.stringify(error.data?.[key])}, expected ${JSON.stringify(value)}`
  if (expected.dataCode === 'invalid-params' && !Array.isArray(error.data?.issues))
    return 'invalid-params without issues'
  return null
}

function sessionCount(): Promise<number> {
  return call('session.list', { includeArchived: true }).then((list) => (list as unknown as unknown[]).length)
}

describe('prove: bad input to the Host', () => {
  // 1,000 and 300 messages in `npm test`; 3,000 and 1,000 in `npm run soak -- --only prove`.
  const overHttp = proveSize(1000, 3000)
  const overSocket = proveSize(300, 1000)
  it(`${overHttp} generated messages over in-process HTTP each get the right JSON-RPC error`, async () => {
    const before = await sessionCount()
    const cases = generate(overHttp)
    const wrong: string[] = []
    for (const item of cases) {
      const answer = await post(item.body)
      const problem = mismatch(item, answer)
      if (problem) wrong.push(`${item.what}: ${problem}`)
    }
    expect(wrong.slice(0, 20)).toEqual([])
    expect(await sessionCount()).toBe(before)
    expect(hostLog).toEqual([])
    expect(await call('host.info', {})).toHaveProperty('version')
  }, 120_000)

  it('batches of generated messages: one answer per request, matched by id', async () => {
    const wrong: string[] = []
    for (let round = 0; round < 30; round++) {
      const items = generate(random.int(1, 100)).filter(
        (item) => item.body !== '' && !/^\s*\[/.test(item.body),
      )
      const parsed = items.map((item) => {
        try {
          return { item, value: JSON.parse(item.body) as unknown }
        } catch {
          return null
        }
      })
      // Inside a batch, only parsed values travel; give each a unique id to match answers.
      const entries = parsed.filter((entry) => entry !== null && entry.item.expected.code !== -32600)
      if (entries.length === 0) continue
      const batch = entries.map((entry, index) => {
        const value = entry!.value as Record<string, unknown>
        return entry!.item.expected.code === null ? value : { ...value, id: `b${round}-${index}` }
      })
      const body = JSON.stringify(batch)
      const answers = (await post(body)) as unknown
      if (Buffer.byteLength(body) > maxMessageBytes) {
        const problem = mismatch(
          {
            what: 'an oversized batch',
            body,
            expected: { code: -32600, dataCode: 'payload-too-large', id: null },
          },
          answers as Answer,
        )
        if (problem) wrong.push(`round ${round}: ${problem}`)
        continue
      }
      const expectedCount = entries.filter((entry) => entry!.item.expected.code !== null).length
      if (expectedCount === 0) {
        if ((answers as Answer).jsonrpc !== undefined)
          wrong.push(`round ${round}: answered an all-notification batch`)
        continue
      }
      if (!Array.isArray(answers) || answers.length !== expectedCount) {
        wrong.push(
          `round ${round}: ${expectedCount} answers expected, got ${JSON.stringify(answers).slice(0, 200)}`,
        )
        continue
      }
      const byId = new Map((answers as Answer[]).map((answer) => [answer.id, answer]))
      entries.forEach((entry, index) => {
        if (entry!.item.expected.code === null) return
        const answer = byId.get(`b${round}-${index}`)
        const problem = answer
          ? mismatch(
              { ...entry!.item, expected: { ...entry!.item.expected, id: `b${round}-${index}` } },
              answer,
            )
          : 'no answer'
        if (problem) wrong.push(`batch ${round}: ${entry!.item.what}: ${problem}`)
      })
    }
    expect(wrong.slice(0, 20)).toEqual([])
    expect(hostLog).toEqual([])
  }, 120_000)

  it(`${overSocket} generated messages over a real WebSocket, then host.info on the same socket`, async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${host.port}/rpc?token=${host.token}`)
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    // One at a time: parse errors and id-less invalid requests are answered with id null.
    const cases = generate(overSocket)
    const wrong: string[] = []
    const received: Answer[] = []
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Answer & { method?: string }
      // Broadcast notifications (session.created…) are not answers.
      if (message.method === undefined) received.push(message)
    })
    for (const item of cases) {
      const count = received.length
      socket.send(item.body)
      // A notification has no answer: a host.info after it proves the socket moved on.
      if (item.expected.code === null) socket.send(request('host.info', {}, 'after-notification'))
      for (let wait = 0; received.length === count; wait++) {
        if (wait > 500) throw new Error(`no answer to ${item.what}`)
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
      const answer = received[count]!
      if (item.expected.code === null) {
        if (answer.id !== 'after-notification') wrong.push(`${item.what}: answered ${JSON.stringify(answer)}`)
        continue
      }
      const problem = mismatch(item, answer)
      if (problem) wrong.push(`${item.what}: ${problem}`)
    }
    // A binary frame that is not UTF-8: a parse error, the socket stays usable.
    const before = received.length
    socket.send(Buffer.from([0xff, 0xfe, 0x7b, 0x80, 0x22]))
    for (let wait = 0; received.length === before && wait < 500; wait++)
      await new Promise((resolve) => setTimeout(resolve, 2))
    expect(received[before]).toMatchObject({
      id: null,
      error: { code: -32700, data: { code: 'parse-error' } },
    })
    // Over the size limit: a JSON-RPC error, and the socket stays usable.
    const count = received.length
    socket.send(
      request('session.prompt', { sessionId: known, text: 'x'.repeat(maxMessageBytes + 10) }, 'big'),
    )
    socket.send(request('host.info', {}, 'info'))
    for (let wait = 0; received.length < count + 2 && wait < 2000; wait++)
      await new Promise((resolve) => setTimeout(resolve, 5))
    const tail = received.slice(count)
    expect(tail.find((answer) => answer.error)).toMatchObject({
      id: null,
      error: { code: -32600, data: { code: 'payload-too-large' } },
    })
    expect(tail.find((answer) => answer.id === 'info')?.result).toHaveProperty('version')
    socket.close()
    expect(wrong.slice(0, 20)).toEqual([])
    expect(hostLog).toEqual([])
  }, 120_000)

  it('over a real HTTP socket: generated messages, an oversized body (413), then host.info', async () => {
    const url = `http://127.0.0.1:${host.port}/rpc`
    const headers = { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' }
    const wrong: string[] = []
    for (const item of generate(200)) {
      const response = await fetch(url, { method: 'POST', headers, body: item.body })
      const answer = response.status === 204 ? {} : ((await response.json()) as Answer)
      const problem = mismatch(item, answer)
      if (problem) wrong.push(`${item.what}: ${problem}`)
    }
    expect(wrong.slice(0, 20)).toEqual([])
    const big = await fetch(url, {
      method: 'POST',
      headers,
      body: request('session.prompt', { sessionId: known, text: 'x'.repeat(maxMessageBytes) }),
    })
    expect(big.status).toBe(413)
    expect(await big.json()).toMatchObject({ error: { code: -32600, data: { code: 'payload-too-large' } } })
    const info = await fetch(url, { method: 'POST', headers, body: request('host.info', {}, 7) })
    expect(await info.json()).toMatchObject({ id: 7, result: { dataDir: expect.any(String) } })
    expect(hostLog).toEqual([])
  }, 120_000)
})
