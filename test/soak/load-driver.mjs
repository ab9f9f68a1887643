// The load test of `npm run soak` (issue 6): N concurrent WebSocket clients against one built
// `tangent serve`, each prompting its own session (some turns run tools) and forking it, for a
// given duration. Reports turns per second, p50/p99 RPC latency per method, the Host's RSS over
// time, and whether every event reached its subscriber and survived a restart.
import fs from 'node:fs'
import path from 'node:path'
import { connectRpc, seededRandom, sleep, spawnServe, tempDir } from './lib.mjs'

/** @param {number} pid */
function rssBytes(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = /VmRSS:\s+(\d+) kB/.exec(status)
    return match ? Number(match[1]) * 1024 : null
  } catch {
    return null
  }
}

/** @param {number[]} values @param {number} p */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/**
 * @param {{ seed: number, clients: number, durationMs: number, demoDelayMs?: number, log?: (line: string) => void }} options
 */
export async function runLoadTest(options) {
  const random = seededRandom(options.seed)
  const log = options.log ?? (() => {})
  const root = tempDir('tangent-load-')
  const home = path.join(root, 'home')
  const work = path.join(root, 'work')
  fs.mkdirSync(home)
  fs.mkdirSync(work)
  const env = { TANGENT_DEMO_DELAY_MS: String(options.demoDelayMs ?? 1) }
  let host = await spawnServe({ home, cwd: work, env })
  /** @type {Record<string, number[]>} */
  const latencies = { 'session.prompt': [], 'session.fork': [], 'session.create': [], 'session.get': [] }
  /** @type {{ atMs: number, rssMb: number }[]} */
  const memory = []
  /** @type {string[]} */
  const problems = []
  let turns = 0
  let forks = 0
  const started = Date.now()
  const deadline = started + options.durationMs
  const sampler = setInterval(() => {
    const rss = rssBytes(host.pid)
    if (rss !== null) memory.push({ atMs: Date.now() - started, rssMb: Math.round(rss / 1024 / 1024) })
  }, 2000)

  /** @template T @param {string} method @param {() => Promise<T>} fn @returns {Promise<T>} */
  async function measured(method, fn) {
    const start = process.hrtime.bigint()
    const value = await fn()
    const list = latencies[method] ?? []
    latencies[method] = list
    list.push(Number(process.hrtime.bigint() - start) / 1e6)
    return value
  }

  /** @type {{ id: string, received: unknown[] }[]} */
  const owned = []
  /** @param {number} index */
  async function client(index) {
    const rpc = await connectRpc(host.info)
    const session = await measured('session.create', () => rpc.call('session.create', { cwd: work }))
    /** @type {unknown[]} */
    const received = []
    owned.push({ id: session.id, received })
    rpc.onNotification('session.event', (params) => {
      if (params.sessionId !== session.id) return
      if (params.event.seq !== received.length)
        problems.push(`${session.id}: event ${params.event.seq} arrived when ${received.length} was next`)
      received[params.event.seq] = params.event
    })
    await rpc.call('session.subscribe', { sessionId: session.id, fromSeq: 0 })
    let n = 0
    while (Date.now() < deadline) {
      const text = random.pick([
        `hello ${index}-${n}`,
        `question ${index}-${n}: what next?`,
        `run: echo load-${index}-${n}`,
        `write load-${index % 10}.txt: ${n}`,
      ])
      n++
      const result = await measured('session.prompt', () =>
        rpc.call('session.prompt', { sessionId: session.id, text }),
      )
      if (result.reason !== 'completed') problems.push(`${session.id}: turn ended ${result.reason}`)
      turns++
      if (random.chance(0.2)) {
        await measured('session.fork', () => rpc.call('session.fork', { sessionId: session.id }))
        forks++
      }
      if (random.chance(0.1))
        await measured('session.get', () => rpc.call('session.get', { sessionId: session.id }))
    }
    // Let the last notifications arrive before the comparison.
    await sleep(200)
    rpc.close()
  }

  const progress = setInterval(() => {
    const last = memory.at(-1)
    log(
      `${Math.round((Date.now() - started) / 1000)} s: ${turns} turns, ${forks} forks, RSS ${last?.rssMb ?? '?'} MB`,
    )
  }, 10_000)
  try {
    await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)))
  } finally {
    clearInterval(sampler)
    clearInterval(progress)
  }
  const elapsedMs = Date.now() - started

  // No event lost: what each subscriber received is the log, before and after a restart.
  let checkedEvents = 0
  const compare = async (/** @type {string} */ when) => {
    const rpc = await connectRpc(host.info)
    for (const { id, received } of owned) {
      const { events } = await rpc.call('session.get', { sessionId: id })
      if (JSON.stringify(events) !== JSON.stringify(received))
        problems.push(
          `${id} (${when}): ${received.length} events received, ${events.length} in the log, or they differ`,
        )
      checkedEvents += events.length
    }
    rpc.close()
  }
  await compare('live')
  await host.kill('SIGTERM')
  host = await spawnServe({ home, cwd: work, env })
  await compare('after restart')
  await host.kill('SIGTERM')
  fs.rmSync(root, { recursive: true, force: true })

  /** @type {Record<string, { count: number, p50: number, p99: number }>} */
  const rpc = {}
  for (const [method, values] of Object.entries(latencies))
    rpc[method] = {
      count: values.length,
      p50: Math.round(percentile(values, 50) * 10) / 10,
      p99: Math.round(percentile(values, 99) * 10) / 10,
    }
  return {
    clients: options.clients,
    seconds: Math.round(elapsedMs / 1000),
    turns,
    forks,
    turnsPerSecond: Math.round((turns / (elapsedMs / 1000)) * 10) / 10,
    rpc,
    memory,
    checkedEvents,
    problems,
  }
}
