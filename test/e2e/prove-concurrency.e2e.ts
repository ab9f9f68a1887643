// Concurrency (issue 6): 100 forks of one session in parallel (distinct, valid, listed, loadable
// after a restart), an idempotent requestId (also concurrently), session-busy while a turn runs,
// and a second Host on the same data dir refused with the holder's pid named.
import fs from 'node:fs'
import path from 'node:path'
import { type RunningHost, startHost } from '@tangent/host'
import { type RpcClient, RpcError } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectRpc, proveSeed, seededRandom, spawnServe, tempDir } from '../soak/lib.mjs'

interface WireEvent {
  seq: number
  type: string
}

const seed = proveSeed('concurrency', 777)
const random = seededRandom(seed)
let root: string
let home: string
let work: string
let host: RunningHost
const clients: RpcClient[] = []

async function begin(demoDelayMs = 0) {
  host = await startHost({ home, port: 0, env: {}, handleSignals: false, defaultCwd: work, demoDelayMs })
  clients.splice(0)
  for (let i = 0; i < 4; i++) clients.push(await connectRpc({ port: host.port, token: host.token }))
}
async function end() {
  for (const client of clients) client.close()
  await host.close()
}

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof RpcError) return error
    throw error
  }
  throw new Error('expected the call to fail')
}

beforeAll(async () => {
  root = tempDir('tangent-concurrency-')
  home = path.join(root, 'home')
  work = path.join(root, 'work')
  fs.mkdirSync(work)
  await begin()
}, 60_000)

afterAll(async () => {
  await end()
  fs.rmSync(root, { recursive: true, force: true })
})

describe('prove: concurrency', { timeout: 120_000 }, () => {
  it('100 forks of one session in parallel: distinct, valid, listed, loadable after a restart', async () => {
    const client = clients[0]!
    const source = await client.call('session.create', { cwd: work })
    for (const text of ['one', 'run: echo two', 'three'])
      await client.call('session.prompt', { sessionId: source.id, text })
    const { events } = (await client.call('session.get', { sessionId: source.id })) as { events: WireEvent[] }
    const turnEnds = events.filter((e) => e.type === 'turn/end').map((e) => e.seq)
    const anchors = Array.from({ length: 100 }, () => random.int(0, events.length - 1))
    const results = await Promise.all(
      anchors.map((atSeq, i) =>
        clients[i % clients.length]!.call('session.fork', { sessionId: source.id, atSeq }),
      ),
    )
    const ids = results.map((r) => r.session.id)
    expect(new Set(ids).size).toBe(100)
    results.forEach((result, i) => {
      // The first turn/end at or after the anchor (no standalone events follow turns here).
      expect(result.boundary).toBe(turnEnds.find((seq) => seq >= anchors[i]!))
      expect(result.session.parentSession).toBe(source.id)
    })
    const check = async (c: RpcClient) => {
      const listed = new Set((await c.call('session.list', {})).map((s) => s.id))
      for (const [i, id] of ids.entries()) {
        expect(listed.has(id), `fork ${id} listed`).toBe(true)
        const child = (await c.call('session.get', { sessionId: id })) as { events: WireEvent[] }
        const boundary = results[i]!.boundary
        expect(JSON.stringify(child.events.slice(0, boundary + 1))).toBe(
          JSON.stringify(events.slice(0, boundary + 1)),
        )
        // Then only what the fork itself appended: its distinguishing title.
        expect(child.events.slice(boundary + 1).map((event) => event.type)).toEqual(['session/title'])
      }
    }
    await check(client)
    await end()
    await begin()
    await check(clients[1]!)
  }, 120_000)

  it('the same requestId twice, concurrently and again later, returns one child', async () => {
    const [a, b] = [clients[0]!, clients[1]!]
    const source = await a.call('session.create', { cwd: work })
    await a.call('session.prompt', { sessionId: source.id, text: 'hello' })
    const before = (await a.call('session.list', {})).length
    const requestId = `req-${seed}`
    const [first, second] = await Promise.all([
      a.call('session.fork', { sessionId: source.id, requestId }),
      b.call('session.fork', { sessionId: source.id, requestId }),
    ])
    expect(second.session.id).toBe(first.session.id)
    const third = await b.call('session.fork', { sessionId: source.id, requestId })
    expect(third.session.id).toBe(first.session.id)
    expect((await a.call('session.list', {})).length).toBe(before + 1)
    const other = await a.call('session.fork', { sessionId: source.id, requestId: `${requestId}-other` })
    expect(other.session.id).not.toBe(first.session.id)
  })

  it('prompting a busy session gives session-busy; a fork meanwhile does not disturb the running turn', async () => {
    await end()
    await begin(15) // slow streaming: the turn runs long enough to be busy
    const [a, b] = [clients[0]!, clients[1]!]
    const session = await a.call('session.create', { cwd: work })
    await a.call('session.prompt', { sessionId: session.id, text: 'first' })
    const running = a.call('session.prompt', {
      sessionId: session.id,
      text: 'a long answer please, quoted back slowly by the demo model',
    })
    // Wait until the turn is visibly running.
    for (let i = 0; i < 500; i++) {
      const got = await b.call('session.get', { sessionId: session.id })
      if (got.session.status === 'running') break
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const busy = await Promise.all([
      failure(b.call('session.prompt', { sessionId: session.id, text: 'again' })),
      failure(clients[2]!.call('session.prompt', { sessionId: session.id, text: 'and again' })),
      failure(b.call('session.setModel', { sessionId: session.id, model: 'demo:scripted' })),
    ])
    for (const error of busy) {
      expect(error.code).toBe(-32000)
      expect(error.data).toMatchObject({ code: 'session-busy', sessionId: session.id })
    }
    const fork = await b.call('session.fork', { sessionId: session.id })
    const result = await running
    expect(result.reason).toBe('completed')
    expect(fork.boundary).toBeLessThan(result.turnStartSeq)
    await end()
    await begin()
  }, 60_000)

  it('three `tangent serve` started at once on a fresh data dir: exactly one serves, the others name it', async () => {
    const raceHome = path.join(root, 'race-home')
    const attempts = await Promise.allSettled([0, 1, 2].map(() => spawnServe({ home: raceHome, cwd: work })))
    const winners = attempts.filter((a) => a.status === 'fulfilled')
    try {
      expect(winners).toHaveLength(1)
      const winner = (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof spawnServe>>>).value
      for (const attempt of attempts) {
        if (attempt.status === 'fulfilled') continue
        const message = String((attempt.reason as Error).message)
        expect(message).toMatch(/error\[(host-running|store-locked)\]/)
        expect(message).toContain(String(winner.pid))
      }
      const client = await connectRpc(winner.info)
      expect(await client.call('host.info')).toHaveProperty('dataDir')
      client.close()
    } finally {
      for (const attempt of winners)
        await (attempt as PromiseFulfilledResult<Awaited<ReturnType<typeof spawnServe>>>).value.kill(
          'SIGTERM',
        )
    }
  }, 60_000)

  it('two Hosts on one data dir: the second refuses and names the holder pid', async () => {
    const shared = path.join(root, 'shared-home')
    const first = await spawnServe({ home: shared, cwd: work })
    try {
      const error = await spawnServe({ home: shared, cwd: work }).then(
        () => null,
        (e: unknown) => e as Error,
      )
      // The CLI finds the running Host through host.json and names it.
      expect(error?.message).toMatch(/error\[host-running\]/)
      expect(error?.message).toContain(`pid ${first.pid}`)
      // Without the discovery file, the writer lock itself refuses, naming the holder.
      fs.rmSync(path.join(shared, 'host.json'))
      const locked = await spawnServe({ home: shared, cwd: work }).then(
        () => null,
        (e: unknown) => e as Error,
      )
      expect(locked?.message).toMatch(/error\[store-locked\]/)
      expect(locked?.message).toContain(String(first.pid))
      const inProcess = await startHost({ home: shared, port: 0, env: {}, handleSignals: false }).catch(
        (e: unknown) => e as { code?: string; data?: { pid?: number } },
      )
      expect(inProcess).toMatchObject({ code: 'store-locked', data: { pid: first.pid } })
      // The holder keeps serving.
      const client = await connectRpc(first.info)
      expect(await client.call('host.info')).toHaveProperty('version')
      client.close()
    } finally {
      await first.kill('SIGTERM')
    }
  }, 60_000)
})
