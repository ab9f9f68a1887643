// @tangent/host benchmarks (issue 6): the Host's `session.fork` RPC against a copy-based fork
// (copy the history into a new session, as opencode, Claude Code, Codex and pi do),
// `session.list` of 10,000 sessions from a cold start of the Host and JsonlStore.list, against
// a raw readdir + read of every log's header line, and the fan-out of a turn of 1,000 tool calls
// to 100 WebSocket subscribers (another process) against the same turn with none, with the
// latency of `GET /healthz` meanwhile; and (issue 33) `/healthz` beside a plain Node server during a
// 1,000-tool turn with 20 subscribers and during a first snapshot of a 100,000-file repository.
// TANGENT_BENCH_HOST=fork,list,fanout,responsive picks parts.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { type RunningHost, rpcSocketUrl, startHost } from '@tangent/host'
import { createRpcClient, type RpcClient, type SocketLike } from '@tangent/protocol'
import { JsonlStore } from '@tangent/store-jsonl'
import { WebSocket } from 'ws'
import { generateMonorepo } from './git-project.js'
import { type BenchRow, type BenchSuite, median, percentile } from './table.js'

const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..')

/**
 * A truly cold Host: a new Node process starts it on `home` and times startHost and its first
 * session.list (to the last byte of the answer). Module loading is not counted.
 */
function coldProcessList(home: string, cwd: string): { startMs: number; listMs: number; count: number } {
  const script = `
    const { startHost } = await import('@tangent/host')
    let t = performance.now()
    const host = await startHost({ home: ${JSON.stringify(home)}, port: 0, env: {}, handleSignals: false, defaultCwd: ${JSON.stringify(cwd)}, log: () => {} })
    const startMs = performance.now() - t
    t = performance.now()
    const response = await host.request('/rpc', { method: 'POST', headers: { authorization: 'Bearer ' + host.token, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list', params: { includeArchived: true } }) })
    const text = await response.text()
    const listMs = performance.now() - t
    await host.close()
    process.stdout.write(JSON.stringify({ startMs, listMs, count: JSON.parse(text).result.length }))
  `
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
  return JSON.parse(output) as { startMs: number; listMs: number; count: number }
}

const text = (n: number, bytes: number) => `message ${n} `.padEnd(bytes, 'lorem ipsum dolor sit amet ')

/** A realistic turn of 10 events (as in store.bench.ts): short texts, one ~10 KB tool output. */
function turnLines(firstSeq: number, n: number): string[] {
  const callId = `call-${n}`
  const events: [string, unknown][] = [
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: text(n, 300) }] }],
    ['step/start', {}],
    [
      'assistant/message',
      { content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read', input: { path: `f${n}.ts` } }] },
    ],
    ['tool/result', { callId, toolName: 'read', output: text(n, 10_000), isError: false }],
    ['step/end', { finishReason: 'tool-calls' }],
    ['step/start', {}],
    ['assistant/message', { content: [{ type: 'text', text: text(n, 400) }] }],
    ['step/end', { finishReason: 'stop' }],
    ['turn/end', { reason: 'completed' }],
  ]
  return events.map(([type, data], i) =>
    JSON.stringify({ seq: firstSeq + i, time: 1_700_000_000_000 + firstSeq + i, type, data }),
  )
}

function header(id: string, cwd: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'session',
    version: 1,
    id,
    createdAt: 1_700_000_000_000,
    cwd,
    inheritedEventCount: 0,
    seed: 'inline',
    origin: 'user',
    ...extra,
  })
}

/** Writes a session log of `count` events (whole turns) directly, fsynced like a durable log. */
function writeLog(home: string, id: string, cwd: string, count: number): number {
  const dir = path.join(home, 'sessions')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${id}.jsonl`)
  const fd = fs.openSync(file, 'w')
  fs.writeSync(fd, `${header(id, cwd)}\n`)
  let batch: string[] = []
  for (let seq = 0; seq < count; seq += 10) {
    batch.push(...turnLines(seq, seq / 10))
    if (batch.length >= 1000) {
      fs.writeSync(fd, `${batch.join('\n')}\n`)
      batch = []
    }
  }
  if (batch.length > 0) fs.writeSync(fd, `${batch.join('\n')}\n`)
  fs.fsyncSync(fd)
  fs.closeSync(fd)
  return fs.statSync(file).size
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint()
  const value = await fn()
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value }
}

async function connect(host: RunningHost): Promise<RpcClient> {
  const socket = new WebSocket(rpcSocketUrl(host.url, host.token))
  const client = createRpcClient(socket as unknown as SocketLike)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  return client
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

async function forkRows(root: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  const cwd = path.join(root, 'work')
  fs.mkdirSync(cwd, { recursive: true })
  for (const count of [1_000, 10_000, 100_000]) {
    const home = path.join(root, `fork-${count}`)
    const fileBytes = writeLog(home, 'source', cwd, count)
    const host = await startHost({
      home,
      port: 0,
      env: {},
      handleSignals: false,
      defaultCwd: cwd,
      log: () => {},
    })
    const client = await connect(host)
    const forkTimes: number[] = []
    let childBytes = 0
    try {
      await client.call('session.fork', { sessionId: 'source' }) // loads the source once
      for (let i = 0; i < 15; i++) {
        const { ms, value } = await timed(() => client.call('session.fork', { sessionId: 'source' }))
        forkTimes.push(ms)
        childBytes = fs.statSync(path.join(home, 'sessions', `${value.session.id}.jsonl`)).size
      }
    } finally {
      client.close()
      await host.close()
    }
    // The baseline: a new session seeded with a copy of the history, flushed (same store, same disk).
    const copyHome = path.join(root, `copy-${count}`)
    writeLog(copyHome, 'source', cwd, count)
    const db = await JsonlStore.open({ dir: copyHome })
    const copyTimes: number[] = []
    try {
      const source = await db.load('source')
      for (let i = 0; i < (count >= 100_000 ? 3 : 7); i++) {
        const { ms, value } = await timed(async () => {
          const child = db.store.create(undefined, { seed: source.events, meta: { cwd } })
          await db.flush(child.id)
          return child
        })
        copyTimes.push(ms)
        db.store.dispose(value.id)
      }
    } finally {
      await db.close()
    }
    const forkMs = median(forkTimes)
    const copyMs = median(copyTimes)
    rows.push({
      name: `session.fork RPC @ ${count / 1000}k events (${mb(fileBytes)})`,
      medianMs: forkMs,
      baseline: { name: 'copy history into a new session + flush', medianMs: copyMs },
      extra: { 'bytes written': `${childBytes} B (copy: ${mb(fileBytes)})` },
      ...(count === 100_000
        ? { target: { text: '≥ 50× faster than a copy-based fork', met: copyMs / forkMs >= 50 } }
        : {}),
    })
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(copyHome, { recursive: true, force: true })
  }
  return rows
}

/** 10,000 sessions: every 5th a header-only fork of the one before, the rest one turn each. */
function writeManySessions(home: string, cwd: string, count: number): void {
  const dir = path.join(home, 'sessions')
  fs.mkdirSync(dir, { recursive: true })
  for (let i = 0; i < count; i++) {
    const id = `s${String(i).padStart(6, '0')}`
    const lines =
      i % 5 === 4
        ? [
            header(id, cwd, {
              parentSession: `s${String(i - 1).padStart(6, '0')}`,
              forkedAt: 10,
              inheritedEventCount: 11,
              seed: 'ref',
              origin: 'fork',
            }),
          ]
        : [
            header(id, cwd, { createdAt: 1_700_000_000_000 + i }),
            JSON.stringify({ seq: 0, time: 1, type: 'session/title', data: { title: `Session ${i}` } }),
            ...turnLines(1, i),
          ]
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`)
  }
}

/** The floor of listing without a catalog: readdir, then read and parse each log's first line. */
async function rawHeaders(home: string): Promise<number> {
  const dir = path.join(home, 'sessions')
  const names = (await fs.promises.readdir(dir)).filter((name) => name.endsWith('.jsonl'))
  const buffer = Buffer.alloc(4096)
  let parsed = 0
  for (const name of names) {
    const handle = await fs.promises.open(path.join(dir, name), 'r')
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    await handle.close()
    const line = buffer.subarray(0, bytesRead).toString('utf8').split('\n', 1)[0]!
    if ((JSON.parse(line) as { type?: string }).type === 'session') parsed++
  }
  return parsed
}

async function listRows(root: string): Promise<BenchRow[]> {
  const count = 10_000
  const home = path.join(root, 'many')
  const cwd = path.join(root, 'work')
  fs.mkdirSync(cwd, { recursive: true })
  writeManySessions(home, cwd, count)
  await (await JsonlStore.open({ dir: home })).close() // builds the catalog once, as a running Host would
  const coldStart: number[] = []
  const coldList: number[] = []
  for (let i = 0; i < 3; i++) {
    const cold = coldProcessList(home, cwd)
    if (cold.count !== count) throw new Error(`cold session.list returned ${cold.count}`)
    coldStart.push(cold.startMs)
    coldList.push(cold.listMs)
  }
  const rawTimes: number[] = []
  const hostListTimes: number[] = []
  const hostStartTimes: number[] = []
  const storeTimes: number[] = []
  for (let i = 0; i < 7; i++) {
    const raw = await timed(() => rawHeaders(home))
    if (raw.value !== count) throw new Error(`raw listing found ${raw.value} headers`)
    rawTimes.push(raw.ms)
    // A cold Host: a new instance on the data dir; the first session.list after it started.
    const started = await timed(() =>
      startHost({ home, port: 0, env: {}, handleSignals: false, defaultCwd: cwd, log: () => {} }),
    )
    hostStartTimes.push(started.ms)
    const host = started.value
    try {
      const listed = await timed(async () => {
        const response = await host.request('/rpc', {
          method: 'POST',
          headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'session.list',
            params: { includeArchived: true },
          }),
        })
        // The Host's work ends with the last byte; the client's JSON.parse is not counted.
        return response.text()
      })
      const result = (JSON.parse(listed.value) as { result: unknown[] }).result
      if (result.length !== count) throw new Error(`session.list returned ${result.length}`)
      hostListTimes.push(listed.ms)
    } finally {
      await host.close()
    }
    const store = await timed(async () => {
      const db = await JsonlStore.open({ dir: home })
      const entries = await db.list()
      await db.close()
      return entries
    })
    if (store.value.length !== count) throw new Error(`JsonlStore.list returned ${store.value.length}`)
    storeTimes.push(store.ms)
  }
  // Without a catalog: the first open rebuilds it by scanning every log.
  fs.rmSync(path.join(home, 'catalog.json'))
  const rebuild = await timed(async () => {
    const db = await JsonlStore.open({ dir: home })
    const entries = await db.list()
    await db.close()
    return entries
  })
  const rawMs = median(rawTimes)
  const listMs = median(hostListTimes)
  fs.rmSync(home, { recursive: true, force: true })
  const coldListMs = median(coldList)
  return [
    {
      name: `session.list, ${count / 1000}k sessions, first call in a new Node process`,
      medianMs: coldListMs,
      baseline: { name: 'readdir + read + parse each header', medianMs: rawMs },
      extra: { 'Host start': `${median(coldStart).toFixed(0)} ms` },
      target: { text: 'session.list ≤ 100 ms from a cold start', met: coldListMs <= 100 },
    },
    {
      name: `session.list, ${count / 1000}k sessions, first call on a new Host in a warm process`,
      medianMs: listMs,
      baseline: { name: 'readdir + read + parse each header', medianMs: rawMs },
      extra: { 'Host start': `${median(hostStartTimes).toFixed(0)} ms` },
      target: { text: 'session.list ≤ 100 ms', met: listMs <= 100 },
    },
    {
      name: `JsonlStore.open + list, ${count / 1000}k sessions (catalog)`,
      medianMs: median(storeTimes),
      baseline: { name: 'readdir + read + parse each header', medianMs: rawMs },
    },
    {
      name: `JsonlStore.open + list, ${count / 1000}k sessions, catalog missing (rebuild, once)`,
      medianMs: rebuild.ms,
      baseline: { name: 'readdir + read + parse each header', medianMs: rawMs },
    },
  ]
}

/**
 * Subscribers in another process (their parsing is not the Host's work): `count` WebSockets,
 * each subscribed to the session; they print `ready`, and on stdin's end one JSON line with
 * what each received.
 */
const subscriberScript = `
  import { WebSocket } from 'ws'
  const [url, sessionId, count] = [process.env.BENCH_URL, process.env.BENCH_SESSION, Number(process.env.BENCH_COUNT)]
  const stats = []
  await Promise.all(Array.from({ length: count }, () => new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    const state = { nextSeq: Infinity, events: 0, deltas: 0, deltaChars: 0 }
    stats.push(state)
    let id = 0
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'session.subscribe', params: { sessionId } })))
    socket.on('message', (data) => {
      const message = JSON.parse(String(data))
      if (message.id === 1) return message.error ? reject(new Error(message.error.message)) : resolve()
      if (message.method === 'session.event') {
        if (state.nextSeq === Infinity) state.nextSeq = message.params.event.seq
        if (message.params.event.seq === state.nextSeq) { state.nextSeq++; state.events++ }
      } else if (message.method === 'session.delta') {
        state.deltas++
        state.deltaChars += message.params.text.length
      }
    })
    socket.on('error', reject)
  })))
  process.stdout.write('ready\\n')
  process.stdin.resume()
  process.stdin.on('end', () => {
    process.stdout.write(JSON.stringify(stats) + '\\n')
    process.exit(0)
  })
`

/**
 * Polls `GET /healthz` every 20 ms from another process; on stdin's end prints the latencies. It
 * says `ready` after one probe that is not counted: a process's first `fetch` loads undici (70–110
 * ms on this machine), which the counted first probe used to carry — the one slow probe of every
 * run in stops 20–21, taken for the Host's (stop 22).
 */
const proberScript = `
  const url = process.env.BENCH_URL
  const times = []
  let stop = false
  process.stdin.resume()
  process.stdin.on('end', () => { stop = true })
  await fetch(url).then((response) => response.text())
  process.stdout.write('ready\\n')
  while (!stop) {
    const start = performance.now()
    // A keep-alive connection the server closed meanwhile fails once: that probe is retried.
    await fetch(url).then((response) => response.text()).catch(() => fetch(url).then((response) => response.text()))
    times.push(performance.now() - start)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  process.stdout.write(JSON.stringify(times) + '\\n')
`

interface Helper {
  child: ChildProcess
  /** The next line of its stdout. */
  line(): Promise<string>
}

function helper(script: string, env: Record<string, string>): Helper {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let buffered = ''
  const waiting: ((line: string) => void)[] = []
  const lines: string[] = []
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at)
      buffered = buffered.slice(at + 1)
      const waiter = waiting.shift()
      if (waiter) waiter(line)
      else lines.push(line)
    }
  })
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`bench helper exited (${code})`))),
  )
  exited.catch(() => {})
  return {
    child,
    line: () =>
      lines.length > 0
        ? Promise.resolve(lines.shift()!)
        : Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), exited]),
  }
}

/** A JSON-RPC call over HTTP to `host`, answered in-process (no socket). */
function hostRpc(host: RunningHost): (method: string, params: unknown) => Promise<Record<string, unknown>> {
  return async (method, params) => {
    const response = await host.request('/rpc', {
      method: 'POST',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const answer = (await response.json()) as { result?: unknown; error?: { message: string } }
    if (answer.error) throw new Error(answer.error.message)
    return answer.result as Record<string, unknown>
  }
}

interface FanoutRun {
  turnMs: number
  healthz: number[]
  /** The longest the Host's event loop was blocked during the turn (monitorEventLoopDelay). */
  loopMaxMs: number
  events: number
  /** Per subscriber: events received in seq order, deltas and their characters. */
  received: { events: number; deltas: number; deltaChars: number }[]
}

/** One turn of `tools` tool calls (the demo model reads a file per call) with `subscribers` watching. */
async function fanoutTurn(root: string, tools: number, subscribers: number, run: number): Promise<FanoutRun> {
  const home = path.join(root, `fanout-${subscribers}-${run}`)
  const cwd = path.join(root, `fanout-work-${subscribers}-${run}`)
  fs.mkdirSync(cwd, { recursive: true })
  fs.writeFileSync(path.join(cwd, 'f.txt'), 'a line of the file\n')
  const host = await startHost({
    home,
    port: 0,
    env: {},
    handleSignals: false,
    defaultCwd: cwd,
    log: () => {},
  })
  const rpc = hostRpc(host)
  let watchers: Helper | null = null
  let prober: Helper | null = null
  try {
    const session = (await rpc('session.create', { cwd })) as { id: string }
    if (subscribers > 0) {
      watchers = helper(subscriberScript, {
        BENCH_URL: rpcSocketUrl(host.url, host.token),
        BENCH_SESSION: session.id,
        BENCH_COUNT: String(subscribers),
      })
      if ((await watchers.line()) !== 'ready') throw new Error('subscribers did not start')
    }
    prober = helper(proberScript, { BENCH_URL: `${host.url}/healthz` })
    if ((await prober.line()) !== 'ready') throw new Error('the prober did not start')
    const text = Array.from({ length: tools }, () => 'read f.txt').join('\n')
    // The Host's own event loop (it runs in this process): how long it was ever kept from
    // answering, apart from what the OS scheduler adds on a machine the turn's git keeps busy.
    const loop = monitorEventLoopDelay({ resolution: 5 })
    loop.enable()
    const turn = await timed(() => rpc('session.prompt', { sessionId: session.id, text }))
    loop.disable()
    const events = (turn.value.turnEndSeq as number) - (turn.value.turnStartSeq as number) + 1
    prober.child.stdin!.end()
    const healthz = JSON.parse(await prober.line()) as number[]
    let received: FanoutRun['received'] = []
    if (watchers) {
      // Deltas are sent at most ~25 ms late, events after them: let the last ones arrive.
      await new Promise((resolve) => setTimeout(resolve, 200))
      watchers.child.stdin!.end()
      received = JSON.parse(await watchers.line()) as FanoutRun['received']
    }
    return { turnMs: turn.ms, healthz, events, received, loopMaxMs: loop.max / 1e6 }
  } finally {
    watchers?.child.kill()
    prober?.child.kill()
    await host.close()
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(cwd, { recursive: true, force: true })
  }
}

async function fanoutRows(root: string): Promise<BenchRow[]> {
  const tools = 1_000
  const subscribers = 100
  const runs = 3
  const alone: number[] = []
  const watched: number[] = []
  const healthz: number[] = []
  const healthzAlone: number[] = []
  const loopMax: number[] = []
  let received: FanoutRun['received'] = []
  let events = 0
  await fanoutTurn(root, 50, 10, -1) // warm-up: module loading, JIT
  for (let run = 0; run < runs; run++) {
    const unwatched = await fanoutTurn(root, tools, 0, run)
    alone.push(unwatched.turnMs)
    healthzAlone.push(...unwatched.healthz)
    const result = await fanoutTurn(root, tools, subscribers, run)
    watched.push(result.turnMs)
    healthz.push(...result.healthz)
    loopMax.push(result.loopMaxMs)
    received = result.received
    events = result.events
  }
  // Every subscriber must have received every event of the turn, in order (deltas may be merged).
  const complete = received.filter((r) => r.events >= events).length
  const deltas = median(received.map((r) => r.deltas))
  const turnMs = median(watched)
  const aloneMs = median(alone)
  const worstHealthz = Math.max(...healthz)
  return [
    {
      name: `turn of ${tools} tool calls, ${subscribers} WebSocket subscribers`,
      medianMs: turnMs,
      baseline: { name: 'the same turn, no subscribers', medianMs: aloneMs },
      extra: {
        'subscribers with every event': `${complete}/${received.length} (${events} events each)`,
        'session.delta per subscriber': `${deltas} (${median(received.map((r) => r.deltaChars))} chars)`,
      },
      target: {
        text: '≤ 1.5× the turn without subscribers',
        met: turnMs / aloneMs <= 1.5 && complete === subscribers,
      },
    },
    {
      name: `GET /healthz during that turn (every 20 ms, ${healthz.length} probes)`,
      medianMs: worstHealthz,
      baseline: { name: 'the same, no subscribers (max)', medianMs: Math.max(...healthzAlone) },
      extra: {
        'p50 / p99': `${median(healthz).toFixed(1)} / ${percentile(healthz, 99).toFixed(1)} ms (median column: max)`,
        'Host event loop, longest block': `${Math.max(...loopMax).toFixed(0)} ms`,
      },
      target: { text: 'max < 100 ms', met: worstHealthz < 100 },
    },
  ]
}

/**
 * Issue 33: a plain Node HTTP server (another process, nothing else to do) and the Host's
 * `/healthz`, probed together every 20 ms from a third process: both answers of a probe share
 * the moment and the machine, so what the Host adds is the difference.
 */
const plainServerScript = `
  const http = await import('node:http')
  const server = http.createServer((request, response) => response.end('ok'))
  server.listen(0, '127.0.0.1', () => process.stdout.write('http://127.0.0.1:' + server.address().port + '/\\n'))
  process.stdin.resume()
  process.stdin.on('end', () => process.exit(0))
`
/** Both probed at once every 20 ms; `ready` after one uncounted probe of each (see proberScript). */
const pairProberScript = `
  const urls = [process.env.BENCH_URL, process.env.BENCH_PLAIN_URL]
  const times = [[], []]
  let stop = false
  process.stdin.resume()
  process.stdin.on('end', () => { stop = true })
  const probe = async (url) => {
    const start = performance.now()
    await fetch(url).then((r) => r.text()).catch(() => fetch(url).then((r) => r.text()))
    return performance.now() - start
  }
  // Not counted (see proberScript): the first fetch loads undici, in the first probe's time.
  await Promise.all(urls.map(probe))
  process.stdout.write('ready\\n')
  while (!stop) {
    const [host, plain] = await Promise.all(urls.map(probe))
    times[0].push(host)
    times[1].push(plain)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  process.stdout.write(JSON.stringify(times) + '\\n')
`

interface ResponsiveRun {
  host: number[]
  plain: number[]
  loopMaxMs: number
  /** The most main-thread CPU time between two ticks of a 2 ms timer (see cpuBlocks). */
  cpuBlockMs: number
  turnMs: number
}

/**
 * The longest the Host's event loop was held by its own work, in CPU time: a 2 ms timer reads the
 * main thread's CPU time (process.threadCpuUsage) at each tick. A gap the OS scheduler made (the
 * machine busy with others) holds little of it, a block of the event loop all of it, so this
 * reads the same on a loaded machine, where the wall-clock gaps are the scheduler's (stop 21).
 */
function cpuBlocks(): { stop(): number } {
  const cpu = () => {
    const usage = process.threadCpuUsage()
    return (usage.user + usage.system) / 1000
  }
  let last = cpu()
  let longest = 0
  const timer = setInterval(() => {
    const now = cpu()
    longest = Math.max(longest, now - last)
    last = now
  }, 2)
  // A turn that throws leaves it running: it must not keep the bench alive.
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      return Math.max(longest, cpu() - last)
    },
  }
}

/** One turn (`text`) in `cwd` on a fresh Host, `subscribers` watching, the pair prober meanwhile. */
async function responsiveTurn(
  root: string,
  cwd: string,
  text: string,
  subscribers: number,
): Promise<ResponsiveRun> {
  const home = fs.mkdtempSync(path.join(root, 'responsive-home-'))
  const host = await startHost({
    home,
    port: 0,
    env: {},
    handleSignals: false,
    defaultCwd: cwd,
    log: () => {},
  })
  const rpc = hostRpc(host)
  const helpers: Helper[] = []
  try {
    // As `tangent serve` does once it listens (a person's first turn comes later).
    await host.runtime.warm()
    const session = (await rpc('session.create', { cwd })) as { id: string }
    if (subscribers > 0) {
      const watchers = helper(subscriberScript, {
        BENCH_URL: rpcSocketUrl(host.url, host.token),
        BENCH_SESSION: session.id,
        BENCH_COUNT: String(subscribers),
      })
      helpers.push(watchers)
      if ((await watchers.line()) !== 'ready') throw new Error('subscribers did not start')
    }
    const plain = helper(plainServerScript, {})
    helpers.push(plain)
    const plainUrl = await plain.line()
    const prober = helper(pairProberScript, { BENCH_URL: `${host.url}/healthz`, BENCH_PLAIN_URL: plainUrl })
    helpers.push(prober)
    if ((await prober.line()) !== 'ready') throw new Error('the prober did not start')
    const loop = monitorEventLoopDelay({ resolution: 5 })
    loop.enable()
    const blocks = cpuBlocks()
    const turn = await timed(() => rpc('session.prompt', { sessionId: session.id, text }))
    const cpuBlockMs = blocks.stop()
    loop.disable()
    if (turn.value.reason !== 'completed') throw new Error(`the turn ended ${String(turn.value.reason)}`)
    prober.child.stdin!.end()
    const [hostTimes, plainTimes] = JSON.parse(await prober.line()) as [number[], number[]]
    return { host: hostTimes, plain: plainTimes, loopMaxMs: loop.max / 1e6, cpuBlockMs, turnMs: turn.ms }
  } finally {
    for (const running of helpers) running.child.kill()
    await host.close()
    fs.rmSync(home, { recursive: true, force: true })
  }
}

function responsiveRow(name: string, runs: ResponsiveRun[]): BenchRow {
  const host = runs.flatMap((run) => run.host)
  const plain = runs.flatMap((run) => run.plain)
  const hostMax = Math.max(...host)
  const hostP99 = percentile(host, 99)
  return {
    name: `GET /healthz during ${name} (every 20 ms, ${host.length} probes; median column: max)`,
    medianMs: hostMax,
    baseline: {
      name: 'a plain Node HTTP server probed at the same moments (max)',
      medianMs: Math.max(...plain),
    },
    extra: {
      'p50 / p99 Host': `${median(host).toFixed(1)} / ${hostP99.toFixed(1)} ms`,
      'p50 / p99 plain': `${median(plain).toFixed(1)} / ${percentile(plain, 99).toFixed(1)} ms`,
      'Host event loop, longest block': `${Math.max(...runs.map((run) => run.loopMaxMs)).toFixed(0)} ms`,
      'longest block, Host CPU (per run)': `${runs.map((run) => run.cpuBlockMs.toFixed(0)).join(', ')} ms`,
      turn: `${median(runs.map((run) => run.turnMs)).toFixed(0)} ms`,
    },
    target: { text: 'max < 100 ms and p99 < 50 ms', met: hostMax < 100 && hostP99 < 50 },
  }
}

/** Issue 33: the Host during a 1,000-tool turn with 20 subscribers, and during a first snapshot of 100,000 files. */
async function responsiveRows(root: string): Promise<BenchRow[]> {
  const runs = 3
  const work = path.join(root, 'responsive-work')
  fs.mkdirSync(work, { recursive: true })
  fs.writeFileSync(path.join(work, 'f.txt'), 'a line of the file\n')
  const tools = Array.from({ length: 1_000 }, () => 'read f.txt').join('\n')
  await responsiveTurn(root, work, 'read f.txt', 2) // warm-up
  const fanout: ResponsiveRun[] = []
  for (let run = 0; run < runs; run++) fanout.push(await responsiveTurn(root, work, tools, 20))
  const files = Number(process.env.TANGENT_BENCH_MONOREPO_FILES ?? 100_000)
  const repo = await generateMonorepo(path.join(root, 'responsive-monorepo'), files)
  const first: ResponsiveRun[] = []
  // A fresh data directory each time: the turn's first snapshot of the repository.
  for (let run = 0; run < runs; run++)
    first.push(await responsiveTurn(root, repo, `write notes-${run}.txt: hi`, 0))
  return [
    responsiveRow('a turn of 1,000 tool calls, 20 WebSocket subscribers', fanout),
    responsiveRow(
      `a first turn (its first snapshot) in a committed repository of ${files.toLocaleString('en-US')} files`,
      first,
    ),
  ]
}

export const suite: BenchSuite = {
  title: '@tangent/host: session.fork RPC vs copy, session.list at 10k sessions, fan-out to subscribers',
  async run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-host-bench-'))
    const parts = (process.env.TANGENT_BENCH_HOST ?? 'fork,list,fanout,responsive').split(',')
    try {
      return [
        ...(parts.includes('fork') ? await forkRows(root) : []),
        ...(parts.includes('list') ? await listRows(root) : []),
        ...(parts.includes('fanout') ? await fanoutRows(root) : []),
        ...(parts.includes('responsive') ? await responsiveRows(root) : []),
      ]
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
