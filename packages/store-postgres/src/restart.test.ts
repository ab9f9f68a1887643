// PostgreSQL going away under a writing Host (docs/architecture.md §4): a restart while appends
// are pending loses nothing acknowledged and duplicates nothing, the LISTEN connection comes
// back; an outage longer than the retry window fails the writes (store-write-failed, only what
// is durable is served) until the server is back, then the writer catches up by itself.
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PostgresStore, type PostgresStoreOptions } from './postgres-store.js'
import {
  appendTextTurn,
  postgresTestsRun,
  sql,
  startTestPostgres,
  type TestPostgres,
  waitFor,
} from './test-support.js'

let server: TestPostgres
let databases = 0
const stores: PostgresStore[] = []

async function openStore(url: string, options: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url, leaseMs: 60_000, ...options })
  stores.push(store)
  return store
}

async function storedLines(url: string, id: string): Promise<unknown[]> {
  const rows = await sql<{ line: string }>(
    url,
    'SELECT line FROM events WHERE session_id = $1 ORDER BY seq',
    [id],
  )
  return rows.map((row) => JSON.parse(row.line))
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!postgresTestsRun('restart.test.ts'))('PostgresStore: the server goes away', () => {
  beforeAll(async () => {
    server = await startTestPostgres()
  })
  afterAll(async () => {
    await server?.stop()
  })
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close().catch(() => undefined)
  })

  it('a restart while appends are pending: flush resolves, nothing is lost or doubled, B keeps following', async () => {
    const url = await server.createDatabase(`restart_${++databases}`)
    const a = await openStore(url)
    const b = await openStore(url)
    await a.claim('r')
    const onA = a.store.create('r', { meta: { cwd: '/' } })
    appendTextTurn(onA, 'before')
    await a.flush()
    const onB = await b.load('r')

    let restarted = false
    const restarting = server.restart().then(() => {
      restarted = true
    })
    // Appends keep coming until the server is back: the batches of the down time meet dead connections.
    for (let i = 0; i < 25 || !restarted; i++) {
      appendTextTurn(onA, `during ${i}`)
      await pause(20)
    }
    const flushed = a.flush()
    await restarting
    await flushed
    expect(a.servableEventCount(onA)).toBe(onA.events.length)
    expect(a.warnings().map((warning) => warning.kind)).toContain('write-retried')
    expect(await storedLines(url, 'r')).toEqual(plain(onA.events))

    // The listener reconnected: B catches up on what it missed, and hears what comes next.
    await waitFor('B to catch up after the restart', () => onB.events.length === onA.events.length)
    expect(b.warnings().map((warning) => warning.kind)).toContain('listen-lost')
    appendTextTurn(onA, 'after')
    await a.flush()
    await waitFor('B to hear a new append', () => onB.events.length === onA.events.length)
    expect(plain(onB.events)).toEqual(plain(onA.events))
    const c = await openStore(url)
    expect(plain((await c.load('r')).events)).toEqual(plain(onA.events))
  })

  it('an outage longer than the retry window fails writes until the server is back, then they catch up', async () => {
    const url = await server.createDatabase(`restart_${++databases}`)
    const a = await openStore(url, { retryWindowMs: 200 })
    await a.claim('o')
    const session = a.store.create('o', { meta: { cwd: '/' } })
    appendTextTurn(session, 'durable')
    await a.flush()
    await server.halt()
    try {
      appendTextTurn(session, 'while the server is down')
      const failed = await a.flush('o').then(
        () => null,
        (error: unknown) => error as { code?: string },
      )
      expect(failed?.code).toBe('store-write-failed')
      expect(a.servableEventCount(session)).toBe(6)
      expect(session.events).toHaveLength(12)
    } finally {
      await server.start()
    }
    await a.flush('o')
    expect(a.servableEventCount(session)).toBe(12)
    expect(await storedLines(url, 'o')).toEqual(plain(session.events))
  })

  it("a retried batch finds rows a lost commit wrote: ours are kept once, another writer's stop it", async () => {
    const url = await server.createDatabase(`restart_${++databases}`)
    const a = await openStore(url)
    await a.claim('lost')
    const session = a.store.create('lost', { meta: { cwd: '/' } })
    appendTextTurn(session, 'durable')
    await a.flush()
    // Hold the lease row: the writer's next batch waits at its fencing check while rows appear
    // under it, as if an earlier attempt of that batch had committed and lost the answer.
    const other = new pg.Client({ connectionString: url })
    await other.connect()
    try {
      await other.query('BEGIN')
      await other.query("SELECT 1 FROM leases WHERE session_id = 'lost' FOR UPDATE")
      appendTextTurn(session, 'retried')
      const flushed = a.flush('lost')
      for (const event of session.events.slice(6, 9))
        await other.query('INSERT INTO events (session_id, seq, line) VALUES ($1, $2, $3)', [
          'lost',
          event.seq,
          JSON.stringify(event),
        ])
      await other.query('COMMIT')
      await flushed
      expect(await storedLines(url, 'lost')).toEqual(plain(session.events))

      // A row at the next seq that is not ours: nothing is overwritten or doubled, the write fails.
      await other.query('BEGIN')
      await other.query("SELECT 1 FROM leases WHERE session_id = 'lost' FOR UPDATE")
      appendTextTurn(session, 'collides')
      const failing = a.flush('lost').then(
        () => null,
        (error: unknown) => error as { code?: string; message: string },
      )
      const foreign = { seq: 12, time: 1, type: 'turn/start', data: { by: 'someone else' } }
      await other.query('INSERT INTO events (session_id, seq, line) VALUES ($1, $2, $3)', [
        'lost',
        12,
        JSON.stringify(foreign),
      ])
      await other.query('COMMIT')
      const failed = await failing
      expect(failed?.code).toBe('store-write-failed')
      expect(failed?.message).toContain('seq 12')
      expect(a.servableEventCount(session)).toBe(12)
      expect(await storedLines(url, 'lost')).toEqual([
        ...(plain(session.events.slice(0, 12)) as unknown[]),
        foreign,
      ])
    } finally {
      await other.end()
    }
  })
})
