// What only the PostgreSQL engine has (docs/architecture.md §4): several stores (Hosts) on one
// database — one writer per session (leases, fencing), live events and index changes across
// them, a dead Host's claim running out and its turn closed by the next one, open errors.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { RemoteChange, SessionEvent } from '@tangent/core'
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { PostgresStore, type PostgresStoreOptions } from './postgres-store.js'
import {
  appendTextTurn,
  distEntry,
  postgresTestsRun,
  sql,
  startTestPostgres,
  type TestPostgres,
  waitFor,
} from './test-support.js'

let server: TestPostgres
let databases = 0
const stores: PostgresStore[] = []
const children: ChildProcess[] = []

async function newDatabase(): Promise<string> {
  return server.createDatabase(`shared_${++databases}`)
}

async function openStore(url: string, options: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url, leaseMs: 60_000, ...options })
  stores.push(store)
  return store
}

async function failure(
  promise: Promise<unknown> | (() => unknown),
): Promise<Error & { code?: string; data?: Record<string, unknown> }> {
  try {
    await (typeof promise === 'function' ? promise() : promise)
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected a failure')
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown

describe.skipIf(!postgresTestsRun('shared-database.test.ts'))(
  'PostgresStore: several Hosts on one database',
  () => {
    beforeAll(async () => {
      server = await startTestPostgres()
    })
    afterAll(async () => {
      await server?.stop()
    })
    afterEach(async () => {
      for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
      for (const store of stores.splice(0)) await store.close().catch(() => undefined)
    })

    it('two Hosts opening a fresh database at once apply the migrations once', async () => {
      const url = await newDatabase()
      const [a, b] = await Promise.all([openStore(url), openStore(url)])
      expect(a.engine).toBe('postgres')
      expect(b.shared).toBe(true)
      const rows = await sql<{ version: number }>(url, 'SELECT version FROM tangent_migrations')
      expect(rows.map((row) => row.version)).toEqual([1, 2, 3])
    })

    it('one writer per session: a claim on B while A holds it is session-busy naming A', async () => {
      const url = await newDatabase()
      const a = await openStore(url)
      const b = await openStore(url)
      expect(a.holder).not.toBe(b.holder)
      expect(a.holder).toContain(os.hostname())
      // Two Hosts claiming one id at the same moment: exactly one wins.
      const race = await Promise.allSettled([a.claim('raced'), b.claim('raced')])
      expect(race.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
      const lost = race.find((result) => result.status === 'rejected') as PromiseRejectedResult
      expect(lost.reason.code).toBe('session-busy')
      await a.claim('busy')
      appendTextTurn(a.store.create('busy', { meta: { cwd: '/' } }), 'on A')
      await a.flush()
      const refused = await failure(b.claim('busy'))
      expect(refused.code).toBe('session-busy')
      expect(refused.data?.holder).toBe(a.holder)
      expect(refused.message).toContain(a.holder)
      // Nor can B delete it under A.
      expect((await failure(b.delete('busy'))).code).toBe('session-busy')
      // B has the session live but has not claimed it: its appends are refused, nothing changes.
      const onB = await b.load('busy')
      expect((await failure(() => onB.append('turn/start', {}))).code).toBe('session-busy')
      expect(onB.events).toHaveLength(6)
      // Claims nest: A's lease goes only with the last release.
      await a.claim('busy')
      await a.release('busy')
      expect((await failure(b.claim('busy'))).code).toBe('session-busy')
      await a.release('busy')
      await b.claim('busy')
      appendTextTurn(onB, 'on B')
      await b.flush()
      expect((await failure(a.claim('busy'))).code).toBe('session-busy')
    })

    it('events appended on A reach the live session on B in seq order, with no gaps', async () => {
      const url = await newDatabase()
      const a = await openStore(url)
      const b = await openStore(url)
      await a.claim('live')
      const onA = a.store.create('live', { meta: { cwd: '/' } })
      appendTextTurn(onA, 'first')
      await a.flush()
      const onB = await b.load('live')
      const seen: SessionEvent[] = []
      b.store.on('appended', (session, event) => {
        if (session.id === 'live') seen.push(event)
      })
      for (let i = 0; i < 30; i++) {
        appendTextTurn(onA, `turn ${i}`)
        if (i % 4 === 0) await a.flush()
        else await new Promise((resolve) => setImmediate(resolve))
      }
      await a.flush()
      await waitFor('B to catch up', () => onB.events.length === onA.events.length)
      expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 180 }, (_, i) => 6 + i))
      expect(plain(onB.events)).toEqual(plain(onA.events))
      // B's index follows the live session.
      expect((await b.get('live'))?.eventCount).toBe(186)
    })

    it("sessions created, changed and deleted on A appear in B's index and onRemoteChange", async () => {
      const url = await newDatabase()
      const a = await openStore(url)
      const b = await openStore(url)
      const heard: RemoteChange[] = []
      b.onRemoteChange((change) => heard.push(change))
      const heardOnA: RemoteChange[] = []
      a.onRemoteChange((change) => heardOnA.push(change))
      await a.claim('made-on-a')
      const session = a.store.create('made-on-a', { meta: { cwd: '/a' } })
      appendTextTurn(session, 'x')
      await a.flush()
      await waitFor('created on B', () => heard.some((change) => change.kind === 'created'))
      expect(heard[0]).toEqual({ sessionId: 'made-on-a', kind: 'created' })
      await waitFor('B index', async () => (await b.get('made-on-a'))?.eventCount === 6)
      expect((await b.list()).map((entry) => entry.id)).toEqual(['made-on-a'])

      session.append('session/title', { title: 'named on A' })
      await a.flush()
      await waitFor('title on B', async () => (await b.get('made-on-a'))?.title === 'named on A')
      await a.setArchived('made-on-a', true)
      await waitFor('archived on B', async () => (await b.get('made-on-a'))?.archived === true)
      expect(heard.filter((change) => change.kind === 'updated').length).toBeGreaterThan(0)

      await a.release('made-on-a')
      await a.delete('made-on-a')
      await waitFor('deleted on B', () => heard.some((change) => change.kind === 'deleted'))
      expect(await b.get('made-on-a')).toBeUndefined()
      expect(await b.list()).toEqual([])
      expect(heardOnA).toEqual([]) // a Host does not hear its own changes
    })

    it("B forks A's session; A sees the fork and loads it whole; a fork requestId is unique across Hosts", async () => {
      const url = await newDatabase()
      const a = await openStore(url)
      const b = await openStore(url)
      await a.claim('source')
      const source = a.store.create('source', { meta: { cwd: '/' } })
      appendTextTurn(source, 'one')
      appendTextTurn(source, 'two')
      await a.flush()
      const onB = await b.load('source')
      await b.claim('branch')
      const branch = b.store.fork(onB, 5, 'branch', { meta: { forkRequestId: 'req-7' } })
      appendTextTurn(branch, 'on the branch')
      await b.flush()
      await waitFor('the fork on A', async () => (await a.get('branch'))?.eventCount === 12)
      expect(plain((await a.load('branch')).events)).toEqual(plain(branch.events))
      expect(
        (
          await sql<{ n: number }>(
            url,
            "SELECT count(*)::integer AS n FROM events WHERE session_id = 'branch'",
          )
        )[0]!.n,
      ).toBe(6)

      // The same requestId on A: the second fork is refused when it is written.
      const twin = a.store.fork(source, 5, 'branch-twin', { meta: { forkRequestId: 'req-7' } })
      const refused = await failure(a.flush('branch-twin'))
      expect(refused.code).toBe('session-exists')
      expect(refused.message).toContain('branch')
      expect(twin.id).toBe('branch-twin')
      expect((await sql(url, "SELECT id FROM sessions WHERE fork_request_id = 'req-7'")).length).toBe(1)
    })

    it('fencing: a Host whose lease was taken over cannot commit, and serves only what is durable', async () => {
      const url = await newDatabase()
      const a = await openStore(url)
      const b = await openStore(url, { leaseMs: 500 })
      await a.claim('fenced')
      const onA = a.store.create('fenced', { meta: { cwd: '/' } })
      appendTextTurn(onA, 'durable')
      await a.flush()
      // A stalls past its lease (as if paused): the lease runs out, B takes the session over.
      await sql(url, "UPDATE leases SET expires_at = now() - interval '1 second' WHERE session_id = 'fenced'")
      await b.claim('fenced')
      const onB = await b.load('fenced')
      appendTextTurn(onB, 'B owns it now')
      await b.flush()
      // A wakes up and appends: its commit finds another token and fails, writing nothing.
      appendTextTurn(onA, 'stale writer')
      const refused = await failure(a.flush('fenced'))
      expect(refused.code).toBe('session-busy')
      expect(refused.data?.holder).toBe(b.holder)
      expect(a.servableEventCount(onA)).toBe(6)
      const lines = await sql<{ line: string }>(
        url,
        "SELECT line FROM events WHERE session_id = 'fenced' ORDER BY seq",
      )
      expect(lines.map((row) => JSON.parse(row.line))).toEqual(plain(onB.events))
    })

    it('a Host killed mid-turn: its claim runs out after the lease time and the next Host closes the turn as interrupted', async () => {
      const url = await newDatabase()
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-pg-child-'))
      onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
      const script = path.join(dir, 'host.mjs')
      fs.writeFileSync(
        script,
        `import { PostgresStore } from ${JSON.stringify(distEntry)}
const store = await PostgresStore.open({ url: ${JSON.stringify(url)}, leaseMs: 1500 })
await store.claim('mid-turn')
const session = store.store.create('mid-turn', { meta: { cwd: '/' } })
session.append('turn/start', {})
session.append('user/message', { content: [{ type: 'text', text: 'long task' }] })
session.append('step/start', {})
await store.flush()
process.stdout.write(store.holder + '\\n')
setInterval(() => {}, 1000)
`,
      )
      const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] })
      children.push(child)
      const holder = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => resolve(chunk.toString().trim()))
        child.on('exit', (code) => reject(new Error(`the child Host exited with ${code}`)))
      })
      const b = await openStore(url, { leaseMs: 400 })
      // While the child lives (and heartbeats), its turn is running there: left open, claims refused.
      const onB = await b.load('mid-turn')
      expect(onB.isTurnOpen).toBe(true)
      // Longer than its lease time: its heartbeat (every 500 ms) keeps the lease while it lives.
      await new Promise((resolve) => setTimeout(resolve, 2000))
      const busy = await failure(b.claim('mid-turn'))
      expect(busy.code).toBe('session-busy')
      expect(busy.data?.holder).toBe(holder)

      const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
      child.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')
      await waitFor('the dead Host lease to run out', async () => {
        try {
          await b.claim('mid-turn')
          return true
        } catch (error) {
          if ((error as { code?: string }).code === 'session-busy') return false
          throw error
        }
      })
      expect(onB.isTurnOpen).toBe(false)
      expect(onB.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
      await b.release('mid-turn')
      const c = await openStore(url)
      expect(plain((await c.load('mid-turn')).events)).toEqual(plain(onB.events))
    })

    it('open errors are clear TangentErrors without the password', async () => {
      const refused = await failure(
        PostgresStore.open({ url: `postgres://tangent:secret-pw@127.0.0.1:${await closedPort()}/nowhere` }),
      )
      expect(refused.code).toBe('store-unreachable')
      expect(refused.message).not.toContain('secret-pw')
      expect(refused.message).toContain('postgres://tangent:***@127.0.0.1')
      const inQuery = await failure(
        PostgresStore.open({
          url: `postgres://tangent@127.0.0.1:${await closedPort()}/db?password=query-pw`,
        }),
      )
      expect(inQuery.message).not.toContain('query-pw')
      const missingDb = await failure(
        PostgresStore.open({ url: server.url.replace(/\/tangent$/, '/no_such_db') }),
      )
      expect(missingDb.code).toBe('store-unreachable')
      expect(missingDb.message).toContain('no_such_db')
      // A reader does not create the schema.
      const empty = await newDatabase()
      const reader = await failure(PostgresStore.open({ url: empty, readOnly: true }))
      expect(reader.code).toBe('store-unreachable')
      expect(reader.message).toMatch(/no Tangent schema/)
      // A Unix socket, as libpq writes it.
      const socketDb = await newDatabase()
      const viaSocket = await openStore(
        server.socketUrl.replace('/tangent?', `/${socketDb.split('/').pop()}?`),
      )
      await viaSocket.claim('s')
      viaSocket.store.create('s', { meta: { cwd: '/' } })
      await viaSocket.flush()
      expect((await sql(socketDb, 'SELECT id FROM sessions')).length).toBe(1)
    })
  },
)

async function closedPort(): Promise<number> {
  const net = await import('node:net')
  return new Promise((resolve) => {
    const probe = net.createServer()
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 1))
    })
  })
}
