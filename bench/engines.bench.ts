// The two store engines side by side in one run (docs/architecture.md §4): JSONL files and
// PostgreSQL (a throwaway server started here, on this machine's disk). Each PostgreSQL figure is
// given against the JSONL one as its baseline: fork at 1k/10k/100k events (flat in history
// length on both), cold load, durable appends, and listing 10,000 sessions from the index.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { SessionPersistence } from '@tangent/core'
import { rpcSocketUrl, startHost } from '@tangent/host'
import { createRpcClient, type RpcClient, type SocketLike } from '@tangent/protocol'
import { JsonlStore } from '@tangent/store-jsonl'
import { PostgresStore } from '@tangent/store-postgres'
import { startTestPostgres, type TestPostgres } from '@tangent/store-postgres/test-support'
import { WebSocket } from 'ws'
import { turnEvents } from './store.bench.js'
import { type BenchRow, type BenchSuite, median } from './table.js'

const sizes = [1_000, 10_000, 100_000]
const listSize = 10_000
/** A turn of 10 events as the store suite's, with a ~2 KB tool output. */
const turnOf = (n: number) => turnEvents(n, 2_000)

interface Engine {
  name: 'jsonl' | 'postgres'
  open(): Promise<SessionPersistence>
}

async function ms<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint()
  const value = await fn()
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value }
}

/** A session of `count` events written through the engine (claimed, flushed every 100 turns). */
async function writeSession(db: SessionPersistence, id: string, count: number): Promise<void> {
  await db.claim(id)
  const session = db.store.create(id, { meta: { cwd: '/bench' } })
  for (let n = 0; n < count / 10; n++) {
    for (const event of turnOf(n)) session.append(event.type, event.data)
    if (n % 100 === 99) await db.flush(id)
  }
  await db.flush(id)
  await db.release(id)
}

interface Figures {
  fork: number[]
  load: number[]
  append: number
  list: number
  open: number
}

async function measure(engine: Engine): Promise<Figures> {
  const figures: Figures = { fork: [], load: [], append: 0, list: 0, open: 0 }
  let db = await engine.open()
  for (const count of sizes) await writeSession(db, `parent-${count}`, count)
  for (const count of sizes) {
    const parent = await db.load(`parent-${count}`)
    const times: number[] = []
    for (let i = 0; i < 7; i++) {
      const childId = `child-${count}-${i}`
      const { ms: took } = await ms(async () => {
        await db.claim(childId)
        db.store.fork(parent, parent.lastSeq, childId)
        await db.flush(childId)
        await db.release(childId)
      })
      times.push(took)
      db.store.dispose(childId)
    }
    figures.fork.push(median(times))
  }
  await db.close()
  for (const count of sizes) {
    const times: number[] = []
    for (let i = 0; i < 3; i++) {
      const fresh = await engine.open()
      times.push((await ms(() => fresh.load(`child-${count}-0`))).ms)
      await fresh.close()
    }
    figures.load.push(median(times))
  }
  // Durable appends: 1,000 turns, a flush after each (what the agent does at a turn's end).
  db = await engine.open()
  await db.claim('append')
  const session = db.store.create('append', { meta: { cwd: '/bench' } })
  figures.append = (
    await ms(async () => {
      for (let n = 0; n < 1000; n++) {
        for (const event of turnOf(n)) session.append(event.type, event.data)
        await db.flush('append')
      }
    })
  ).ms
  await db.release('append')
  // 10,000 small sessions, then a fresh open lists them.
  for (let start = 0; start < listSize; start += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const id = `s-${String(start + i).padStart(5, '0')}`
        await db.claim(id)
        const small = db.store.create(id, { meta: { cwd: '/bench' } })
        small.append('session/title', { title: `session ${start + i}` })
        await db.flush(id)
        await db.release(id)
        db.store.dispose(id)
      }),
    )
  }
  await db.close()
  const opens: number[] = []
  const lists: number[] = []
  for (let i = 0; i < 3; i++) {
    const opened = await ms(() => engine.open())
    opens.push(opened.ms)
    const listed = await ms(() => opened.value.list())
    if (listed.value.length < listSize) throw new Error(`${engine.name} listed ${listed.value.length}`)
    lists.push(listed.ms)
    await opened.value.close()
  }
  figures.open = median(opens)
  figures.list = median(lists)
  return figures
}

/**
 * A turn of 100 file writes on the first Host, watched by `clients` WebSocket subscribers spread
 * over the Hosts: ms from the prompt until every subscriber has its turn/end, each having seen
 * every event once, in seq order (checked, or the bench fails).
 */
async function fanout(stores: (string | undefined)[], clients: number): Promise<number> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-fanout-'))
  const hosts = await Promise.all(
    stores.map((store, i) =>
      startHost({
        home: path.join(root, `home-${i}`),
        port: 0,
        handleSignals: false,
        defaultCwd: root,
        env: { ...(store ? { TANGENT_STORE: store } : {}), TANGENT_MACHINE: 'bench' },
        log: () => {},
      }),
    ),
  )
  const sockets: RpcClient[] = []
  try {
    const connect = async (i: number) => {
      const host = hosts[i % hosts.length]!
      const socket = new WebSocket(rpcSocketUrl(host.url, host.token))
      await new Promise((resolve, reject) => {
        socket.once('open', resolve)
        socket.once('error', reject)
      })
      const client = createRpcClient(socket as unknown as SocketLike)
      sockets.push(client)
      return client
    }
    const first = await connect(0)
    const session = (await first.call('session.create', { cwd: root })) as { id: string }
    const start = (await first.call('session.get', { sessionId: session.id })) as { events: unknown[] }
    const done: Promise<void>[] = []
    for (let i = 0; i < clients; i++) {
      const client = i === 0 ? first : await connect(i)
      let next = start.events.length
      done.push(
        new Promise<void>((resolve, reject) => {
          client.onNotification('session.event', (params) => {
            const { event } = params as { event: { seq: number; type: string } }
            if (event.seq !== next) reject(new Error(`client ${i}: seq ${event.seq}, expected ${next}`))
            next++
            if (event.type === 'turn/end') resolve()
          })
        }),
      )
      await client.call('session.subscribe', { sessionId: session.id, fromSeq: start.events.length })
    }
    const prompt = Array.from(
      { length: 100 },
      (_, n) => `write f/${String(n).padStart(3, '0')}.txt: ${n}`,
    ).join('\n')
    const began = process.hrtime.bigint()
    await Promise.all([first.call('session.prompt', { sessionId: session.id, text: prompt }), ...done])
    return Number(process.hrtime.bigint() - began) / 1e6
  } finally {
    for (const socket of sockets) socket.close()
    for (const host of hosts) await host.close()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

export const suite: BenchSuite = {
  title: 'Store engines side by side: PostgreSQL against JSONL (baseline), same run',
  async run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-engines-'))
    let server: TestPostgres | null = null
    try {
      server = await startTestPostgres({ durable: true })
      const url = server.url
      const jsonl = await measure({ name: 'jsonl', open: () => JsonlStore.open({ dir: root }) })
      const postgres = await measure({ name: 'postgres', open: () => PostgresStore.open({ url }) })
      const rows: BenchRow[] = []
      sizes.forEach((count, i) => {
        rows.push({
          name: `postgres: fork + flush @ ${count / 1000}k events`,
          medianMs: postgres.fork[i]!,
          baseline: { name: `jsonl: fork + flush @ ${count / 1000}k`, medianMs: jsonl.fork[i]! },
          ...(i === sizes.length - 1
            ? {
                target: {
                  text: 'flat: 100k within 2× of 1k on each engine',
                  met: postgres.fork[i]! <= 2 * postgres.fork[0]! && jsonl.fork[i]! <= 2 * jsonl.fork[0]!,
                },
              }
            : {}),
        })
      })
      sizes.forEach((count, i) => {
        rows.push({
          name: `postgres: cold load of a fork @ ${count / 1000}k events`,
          medianMs: postgres.load[i]!,
          baseline: { name: `jsonl: cold load @ ${count / 1000}k`, medianMs: jsonl.load[i]! },
        })
      })
      const perSecond = (took: number) => Math.round((10_000 / took) * 1000).toLocaleString('en-US')
      rows.push({
        name: 'postgres: 1,000 turns × 10 events, flush after each',
        medianMs: postgres.append,
        baseline: { name: 'jsonl: the same', medianMs: jsonl.append },
        extra: { 'postgres events/s': perSecond(postgres.append), 'jsonl events/s': perSecond(jsonl.append) },
      })
      rows.push({
        name: `postgres: open + list ${listSize.toLocaleString('en-US')} sessions`,
        medianMs: postgres.open + postgres.list,
        baseline: { name: 'jsonl: the same', medianMs: jsonl.open + jsonl.list },
        extra: {
          'postgres list()': `${postgres.list.toFixed(1)} ms`,
          'jsonl list()': `${jsonl.list.toFixed(1)} ms`,
        },
      })
      // Two Hosts × 50 clients on one database, against one JSONL Host with the same 100 clients.
      const fanoutUrl = await server.createDatabase('fanout')
      const jsonlFanout: number[] = []
      const postgresFanout: number[] = []
      for (let round = 0; round < 3; round++) {
        jsonlFanout.push(await fanout([undefined], 100))
        postgresFanout.push(await fanout([fanoutUrl, fanoutUrl], 100))
      }
      rows.push({
        name: 'postgres: 100-write turn, 2 Hosts × 50 subscribers, prompt → every turn/end',
        medianMs: median(postgresFanout),
        baseline: { name: 'jsonl: 1 Host × 100 subscribers', medianMs: median(jsonlFanout) },
      })
      return rows
    } finally {
      await server?.stop()
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
