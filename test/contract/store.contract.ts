// The store contract (docs/architecture.md §4) against every engine: JSONL files in a temp dir
// and PostgreSQL in a throwaway server. One behaviour suite; what differs (how a fork is stored,
// what a killed writer leaves behind) is behind the Engine interface below.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Session, SessionPersistence } from '@tangent/core'
import { JsonlStore } from '@tangent/store-jsonl'
import { PostgresStore } from '@tangent/store-postgres'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  postgresAvailable,
  startTestPostgres,
  type TestPostgres,
} from '../../packages/store-postgres/src/test-support.js'
import { removeTempDirs, tempDir } from '../temp-dirs.js'

/** One storage (a data directory, a database) that several stores open in turn. */
interface Storage {
  open(options?: {
    readOnly?: boolean
    now?: () => number
    maxLineBytes?: number
  }): Promise<SessionPersistence>
  /** How many events the engine keeps for the session itself (not read through its parent). */
  ownStoredEvents(id: string): Promise<number>
  /** A program for a child process: opens this storage as `store` (top-level await). */
  childOpen(): string
  /** After the child writer was killed: wait until another process may take its sessions over. */
  afterKill(): Promise<void>
  /** Damages the stored session behind the store's back (no store open): its log or rows go. */
  lose(id: string): Promise<void>
  /** Damages the stored session behind the store's back: its event `seq` no longer parses. */
  corrupt(id: string, seq: number): Promise<void>
  /** Damages session `id` (no store open): it becomes a fork of `parent` at seq 0. */
  reparent(id: string, parent: string): Promise<void>
}

interface Engine {
  name: string
  setup(): Promise<void>
  teardown(): Promise<void>
  newStorage(): Promise<Storage>
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const jsonlEntry = path.join(root, 'packages/store-jsonl/dist/index.js')
const postgresEntry = path.join(root, 'packages/store-postgres/dist/index.js')
const leaseMs = 600
const jsonl: Engine = {
  name: 'jsonl',
  async setup() {},
  async teardown() {},
  async newStorage() {
    const dir = tempDir('tangent-store-contract-')
    return {
      open: (options = {}) => JsonlStore.open({ dir, ...options }),
      async ownStoredEvents(id) {
        const lines = fs.readFileSync(path.join(dir, 'sessions', `${id}.jsonl`), 'utf8').split('\n')
        return lines.filter((line) => line.length > 0).length - 1 // the header line
      },
      childOpen: () =>
        `import { JsonlStore } from ${JSON.stringify(jsonlEntry)}\nconst store = await JsonlStore.open({ dir: ${JSON.stringify(dir)} })\n`,
      async afterKill() {}, // the writer lock of a dead process is taken over at open
      async lose(id) {
        fs.renameSync(path.join(dir, 'sessions', `${id}.jsonl`), path.join(dir, `${id}.lost`))
      },
      async corrupt(id, seq) {
        const file = path.join(dir, 'sessions', `${id}.jsonl`)
        const lines = fs.readFileSync(file, 'utf8').split('\n')
        lines[seq + 1] = '{not json' // after the header line
        fs.writeFileSync(file, lines.join('\n'))
      },
      async reparent(id, parent) {
        const file = path.join(dir, 'sessions', `${id}.jsonl`)
        const lines = fs.readFileSync(file, 'utf8').split('\n')
        const header = JSON.parse(lines[0]!) as Record<string, unknown>
        lines[0] = JSON.stringify({
          ...header,
          parentSession: parent,
          forkedAt: 0,
          seed: 'ref',
          inheritedEventCount: 1,
        })
        lines.splice(1, 1) // event 0 now comes from the parent
        fs.writeFileSync(file, lines.join('\n'))
        fs.rmSync(path.join(dir, 'catalog.json'), { force: true })
      },
    }
  },
}

let server: TestPostgres | null = null
let databases = 0
const postgres: Engine = {
  name: 'postgres',
  async setup() {
    server = await startTestPostgres()
  },
  async teardown() {
    await server?.stop()
  },
  async newStorage() {
    const url = await server!.createDatabase(`contract_${++databases}`, { migrated: true })
    const query = async <T extends pg.QueryResultRow>(sql: string, values: unknown[] = []) => {
      const client = new pg.Client({ connectionString: url })
      // A server stopping at the end of the file must not become an uncaught error here.
      client.on('error', () => {})
      await client.connect()
      try {
        return (await client.query<T>(sql, values)).rows
      } finally {
        await client.end()
      }
    }
    return {
      open: (options = {}) => PostgresStore.open({ url, leaseMs, ...options }),
      async ownStoredEvents(id) {
        const rows = await query<{ n: number }>(
          'SELECT count(*)::integer AS n FROM events WHERE session_id = $1',
          [id],
        )
        return rows[0]!.n
      },
      childOpen: () =>
        `import { PostgresStore } from ${JSON.stringify(postgresEntry)}\nconst store = await PostgresStore.open({ url: ${JSON.stringify(url)}, leaseMs: ${leaseMs} })\n`,
      async afterKill() {
        // The dead Host's lease runs out after leaseMs: poll the table, not the clock.
        for (;;) {
          const live = await query<{ n: number }>(
            'SELECT count(*)::integer AS n FROM leases WHERE expires_at >= now()',
          )
          if (live[0]!.n === 0) return
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      },
      async lose(id) {
        await query('DELETE FROM events WHERE session_id = $1', [id])
        await query('DELETE FROM sessions WHERE id = $1', [id])
      },
      async corrupt(id, seq) {
        await query("UPDATE events SET line = '{not json' WHERE session_id = $1 AND seq = $2", [id, seq])
      },
      async reparent(id, parent) {
        await query(
          'UPDATE sessions SET parent_session = $2, forked_at = 0, inherited_event_count = 1, own_from = 1 WHERE id = $1',
          [id, parent],
        )
        await query('DELETE FROM events WHERE session_id = $1 AND seq = 0', [id])
      },
    }
  },
}

const postgresMissing = !postgresAvailable()
if (postgresMissing && !process.env.CI)
  console.warn(
    'store contract: PostgreSQL server binaries (initdb, pg_ctl) not found — the postgres engine is SKIPPED. Install Debian package postgresql (CI fails instead of skipping).',
  )
const engines = postgresMissing && !process.env.CI ? [jsonl] : [jsonl, postgres]

/** One complete turn with a tool call. */
function appendTurn(session: Session, text: string): void {
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text }] })
  session.append('step/start', {})
  const callId = `call-${session.events.length}`
  session.append('assistant/message', {
    content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read', input: { path: 'a.txt' } }],
  })
  session.append('tool/result', { callId, toolName: 'read', output: `contents ${text}`, isError: false })
  session.append('step/end', { finishReason: 'tool-calls' })
  session.append('turn/end', { reason: 'completed' })
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown

/** A clock that moves one millisecond per call (stable listing order). */
function clock(start = 1_700_000_000_000): () => number {
  let now = start
  return () => now++
}

async function errorOf(promise: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof promise === 'function' ? promise() : promise)
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

describe.each(engines)('store contract: $name', (engine) => {
  const open: SessionPersistence[] = []
  const children: ChildProcess[] = []
  beforeAll(() => engine.setup())
  afterAll(async () => {
    await engine.teardown()
    removeTempDirs()
  })
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
    for (const store of open.splice(0)) await store.close().catch(() => undefined)
  })
  const track = async (store: Promise<SessionPersistence>) => {
    const opened = await store
    open.push(opened)
    return opened
  }
  /** Closes a store the test is done with (so the next open sees everything). */
  const done = async (store: SessionPersistence) => {
    await store.close()
    open.splice(open.indexOf(store), 1)
  }

  it('creates, appends with flush, and loads back the same session after close and reopen', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open({ now: clock() }))
    expect(db.engine).toBe(engine.name)
    await db.claim('s1')
    const session = db.store.create('s1', { meta: { cwd: '/work', title: 'first', workspaceId: 'w1' } })
    appendTurn(session, 'hello')
    session.append('session/title', { title: 'renamed' })
    await db.flush('s1')
    expect(db.servableEventCount(session)).toBe(8)
    const before = plain(session.events)
    await db.release('s1')
    await done(db)

    const again = await track(storage.open())
    const loaded = await again.load('s1')
    expect(plain(loaded.events)).toEqual(before)
    expect(loaded.header).toMatchObject({ cwd: '/work', title: 'first', workspaceId: 'w1', origin: 'user' })
    expect(loaded.isTurnOpen).toBe(false)
    expect(await again.get('s1')).toMatchObject({
      id: 's1',
      title: 'renamed',
      cwd: '/work',
      parentSession: null,
      forkedAt: null,
      origin: 'user',
      archived: false,
      eventCount: 8,
      inheritedEventCount: 0,
      header: { workspaceId: 'w1' },
    })
    // A loaded session takes appends again (under a claim).
    await again.claim('s1')
    appendTurn(loaded, 'again')
    await again.flush()
    await again.release('s1')
    await done(again)
    const third = await track(storage.open())
    expect((await third.load('s1')).events).toHaveLength(15)
  })

  it('refuses an event too large for the log before it enters the session; the next append is stored', async () => {
    const storage = await engine.newStorage()
    // A small limit stands in for 64 MiB (docs/architecture.md §4).
    const db = await track(storage.open({ maxLineBytes: 4096 }))
    await db.claim('big')
    const session = db.store.create('big', { meta: { cwd: '/work' } })
    appendTurn(session, 'before')
    session.append('turn/start', {})
    const error = await errorOf(() =>
      session.append('user/message', { content: [{ type: 'text', text: 'é'.repeat(3000) }] }),
    )
    expect(codeOf(error)).toBe('invalid-event')
    expect((error as { data: unknown }).data).toMatchObject({
      type: 'user/message',
      sessionId: 'big',
      limit: 4096,
    })
    expect((error as Error).message).toMatch(
      /not appended and the session is unchanged\. Send a shorter message/,
    )
    expect(session.events).toHaveLength(8)
    // The session stays writable: the turn goes on and is stored whole.
    session.append('user/message', { content: [{ type: 'text', text: 'shorter' }] })
    session.append('turn/end', { reason: 'error', error: 'the first message was too large' })
    await db.flush('big')
    expect(db.servableEventCount(session)).toBe(10)
    await db.release('big')
    await done(db)
    const again = await track(storage.open())
    const loaded = await again.load('big')
    expect(loaded.events.map((event) => event.type).slice(7)).toEqual([
      'turn/start',
      'user/message',
      'turn/end',
    ])
  })

  it('lists a loop of parents (damaged data) flagged with the loop, says so, and refuses to load it', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open())
    await db.claim('loop-a')
    const a = db.store.create('loop-a', { meta: { cwd: '/work' } })
    appendTurn(a, 'one')
    await db.flush('loop-a')
    await db.claim('loop-b')
    db.store.fork(a, 6, 'loop-b')
    await db.flush()
    await done(db)
    await storage.reparent('loop-a', 'loop-b') // a's parent is now b, a fork of a

    const again = await track(storage.open())
    const listed = await again.list()
    for (const id of ['loop-a', 'loop-b']) {
      expect(listed.find((entry) => entry.id === id)?.parentLoop?.toSorted()).toEqual(['loop-a', 'loop-b'])
    }
    expect(again.warnings()).toContainEqual(expect.objectContaining({ kind: 'parent-loop' }))
    await expect(again.load('loop-a')).rejects.toThrow()
  })

  it('forks by reference: the child loads whole, and the prefix is not copied', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open({ now: clock() }))
    await db.claim('parent')
    const parent = db.store.create('parent', { meta: { cwd: '/p' } })
    parent.append('session/title', { title: 'parent title' })
    parent.append('model/selection', { provider: 'openai', model: 'gpt-test' })
    for (let i = 0; i < 5; i++) appendTurn(parent, `turn ${i}`)
    const boundary = parent.events.length - 1
    appendTurn(parent, 'after the fork')
    const child = db.store.fork(parent, boundary, 'child', { meta: { forkRequestId: 'req-1' } })
    await db.claim('child')
    appendTurn(child, 'child turn')
    await db.flush()
    expect(await db.get('child')).toMatchObject({
      parentSession: 'parent',
      forkedAt: boundary,
      inheritedEventCount: boundary + 1,
      eventCount: boundary + 8,
      origin: 'fork',
      title: 'parent title',
      model: { provider: 'openai', model: 'gpt-test' },
      header: { forkRequestId: 'req-1' },
    })
    const expected = plain(child.events)
    await done(db)

    // Nothing of the prefix is stored for the child: only its own turn.
    expect(await storage.ownStoredEvents('child')).toBe(7)
    const again = await track(storage.open())
    const loaded = await again.load('child')
    expect(plain(loaded.events)).toEqual(expected)
    expect(loaded.inheritedEventCount).toBe(boundary + 1)
    expect(loaded.header.parentSession).toBe('parent')
    const entry = (await again.list()).find((listed) => listed.id === 'child')
    expect(entry?.title).toBe('parent title')
    expect([...again.headers()].find((listed) => listed.id === 'child')?.header.forkRequestId).toBe('req-1')
  })

  it('lists every session oldest first, with its lineage, counts and times', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open({ now: clock(1_000) }))
    for (const id of ['c-3', 'a-1', 'b-2']) {
      await db.claim(id)
      appendTurn(db.store.create(id, { meta: { cwd: `/${id}` } }), id)
    }
    db.store.fork('a-1', undefined, 'a-1-fork')
    await db.flush()
    const expectOrder = async (store: SessionPersistence) => {
      const listed = await store.list()
      expect(listed.map((entry) => entry.id)).toEqual(['c-3', 'a-1', 'b-2', 'a-1-fork'])
      expect((await store.listView()).map((entry) => entry.id)).toEqual(listed.map((entry) => entry.id))
      const [first] = listed
      expect(first).toMatchObject({ eventCount: 7, inheritedEventCount: 0, cwd: '/c-3', title: null })
      expect(first!.updatedAt).toBeGreaterThan(first!.createdAt)
      expect(listed[3]).toMatchObject({ parentSession: 'a-1', forkedAt: 6, eventCount: 7, cwd: '/a-1' })
      expect(listed[3]!.updatedAt).toBe(listed[3]!.createdAt) // no own event yet
      expect(new Set([...store.headers()].map((entry) => entry.id))).toEqual(new Set(listed.map((e) => e.id)))
    }
    await expectOrder(db)
    await done(db)
    await expectOrder(await track(storage.open()))
  })

  it('archives and unarchives; a fork does not inherit the flag', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open())
    await db.claim('arch')
    appendTurn(db.store.create('arch', { meta: { cwd: '/' } }), 'x')
    db.store.fork('arch', undefined, 'arch-child')
    await db.flush()
    expect(await db.setArchived('arch', true)).toMatchObject({ id: 'arch', archived: true })
    await done(db)
    const again = await track(storage.open())
    expect((await again.get('arch'))?.archived).toBe(true)
    expect((await again.get('arch-child'))?.archived).toBe(false)
    expect((await again.setArchived('arch', false)).archived).toBe(false)
    expect((await again.get('arch'))?.archived).toBe(false)
  })

  it('deletes a session and keeps every fork of it whole', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open({ now: clock() }))
    await db.claim('root')
    const rootSession = db.store.create('root', { meta: { cwd: '/' } })
    appendTurn(rootSession, 'one')
    appendTurn(rootSession, 'two')
    const middle = db.store.fork(rootSession, 6, 'middle')
    await db.claim('middle')
    appendTurn(middle, 'middle own')
    const leaf = db.store.fork(middle, undefined, 'leaf')
    await db.claim('leaf')
    appendTurn(leaf, 'leaf own')
    const sibling = db.store.fork(rootSession, undefined, 'sibling')
    await db.flush()
    const expected = {
      middle: plain(middle.events),
      leaf: plain(leaf.events),
      sibling: plain(sibling.events),
    }
    for (const id of ['root', 'middle', 'leaf']) await db.release(id)
    await done(db)

    const again = await track(storage.open())
    const removed = await again.delete('root')
    expect(removed.materialized.sort()).toEqual(['middle', 'sibling'])
    expect((await again.list()).map((entry) => entry.id)).not.toContain('root')
    expect(await again.get('root')).toBeUndefined()
    expect(codeOf(await errorOf(again.load('root')))).toBe('session-not-found')
    expect(plain((await again.load('leaf')).events)).toEqual(expected.leaf)
    // The next delete in the chain: the leaf reads through `middle`, whose prefix is now its own.
    expect((await again.delete('middle')).materialized).toEqual(['leaf'])
    await done(again)

    const third = await track(storage.open())
    expect(plain((await third.load('leaf')).events)).toEqual(expected.leaf)
    expect(plain((await third.load('sibling')).events)).toEqual(expected.sibling)
    expect((await third.get('leaf'))?.parentSession).toBe('middle') // lineage is kept
    expect((await third.list()).map((entry) => entry.id).sort()).toEqual(['leaf', 'sibling'])
  })

  it('deletes a session that cannot be loaded, but not while a fork needs its unreadable history', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open({ now: clock() }))
    for (const id of ['root', 'middle', 'leaf', 'broken']) await db.claim(id)
    const rootSession = db.store.create('root', { meta: { cwd: '/' } })
    appendTurn(rootSession, 'one')
    const middle = db.store.fork(rootSession, undefined, 'middle')
    appendTurn(middle, 'middle own')
    const leaf = db.store.fork(middle, undefined, 'leaf')
    appendTurn(leaf, 'leaf own')
    const broken = db.store.create('broken', { meta: { cwd: '/' } })
    appendTurn(broken, 'one')
    await db.flush()
    for (const id of ['root', 'middle', 'leaf', 'broken']) await db.release(id)
    await done(db)
    await storage.lose('root')
    await storage.corrupt('broken', 2)

    const again = await track(storage.open())
    // JSONL names the missing parent log; PostgreSQL the gap in the chain's rows.
    expect(codeOf(await errorOf(again.load('middle')))).toMatch(/^(parent-log-missing|corrupt-log)$/)
    expect(codeOf(await errorOf(again.load('broken')))).toBe('corrupt-log')
    // `leaf` reads its first events through `middle`, which cannot read them: refused, naming it.
    const refused = (await errorOf(again.delete('middle'))) as { code: string; data: Record<string, unknown> }
    expect(refused.code).toBe('parent-log-missing')
    expect(refused.data.sessionId).toBe('leaf')
    expect(refused.data.parentSession).toBe('middle')
    expect(codeOf(await errorOf(again.load('leaf')))).toMatch(/^(parent-log-missing|corrupt-log)$/) // as it was
    expect(await again.delete('leaf')).toEqual({ materialized: [] })
    expect(await again.delete('middle')).toEqual({ materialized: [] })
    expect(await again.delete('broken')).toEqual({ materialized: [] })
    for (const id of ['middle', 'leaf', 'broken']) {
      expect(codeOf(await errorOf(again.load(id)))).toBe('session-not-found')
      expect(await again.get(id)).toBeUndefined()
    }
    expect(await again.list()).toEqual([])
    await done(again)
    expect(await (await track(storage.open())).list()).toEqual([])
  })

  it('crash repair: a writer killed mid-turn leaves a turn the next open closes as interrupted', async () => {
    const storage = await engine.newStorage()
    const dir = tempDir('tangent-store-child-')
    const script = path.join(dir, 'writer.mjs')
    fs.writeFileSync(
      script,
      `${storage.childOpen()}
await store.claim('crash')
const session = store.store.create('crash', { meta: { cwd: '/' } })
session.append('turn/start', {})
session.append('user/message', { content: [{ type: 'text', text: 'done' }] })
session.append('turn/end', { reason: 'completed' })
session.append('turn/start', {})
session.append('user/message', { content: [{ type: 'text', text: 'interrupted' }] })
session.append('step/start', {})
await store.flush('crash')
process.stdout.write('flushed\\n')
setInterval(() => {}, 1000)
`,
    )
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] })
    children.push(child)
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('flushed')) resolve()
      })
      child.on('exit', (code) => reject(new Error(`the writer exited with ${code} before flushing`)))
    })
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')
    await storage.afterKill()

    const db = await track(storage.open())
    const session = await db.load('crash')
    expect(session.isTurnOpen).toBe(false)
    const types = session.events.map((event) => event.type)
    expect(types.slice(0, 6)).toEqual([
      'turn/start',
      'user/message',
      'turn/end',
      'turn/start',
      'user/message',
      'step/start',
    ])
    expect(session.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    const repaired = plain(session.events)
    await done(db)
    // The repair was written, not only patched in memory.
    const again = await track(storage.open())
    expect(plain((await again.load('crash')).events)).toEqual(repaired)
  })

  it('refuses bad and unknown ids with their codes', async () => {
    const storage = await engine.newStorage()
    const db = await track(storage.open())
    expect(codeOf(await errorOf(db.load('../escape')))).toBe('invalid-session-id')
    expect(codeOf(await errorOf(db.get('has space')))).toBe('invalid-session-id')
    expect(codeOf(await errorOf(db.claim('')))).toBe('invalid-session-id')
    expect(codeOf(await errorOf(db.load('missing')))).toBe('session-not-found')
    expect(codeOf(await errorOf(db.setArchived('missing', true)))).toBe('session-not-found')
    expect(codeOf(await errorOf(db.delete('missing')))).toBe('session-not-found')
    expect(await db.get('missing')).toBeUndefined()
    await db.claim('dup')
    db.store.create('dup', { meta: { cwd: '/' } })
    await db.flush()
    db.store.dispose('dup')
    expect(codeOf(await errorOf(() => db.store.create('dup', { meta: { cwd: '/' } })))).toBe('session-exists')
  })

  it('a read-only store reads what a writer flushed, and refuses writes and claims', async () => {
    const storage = await engine.newStorage()
    const writer = await track(storage.open())
    await writer.claim('ro')
    appendTurn(writer.store.create('ro', { meta: { cwd: '/' } }), 'x')
    await writer.flush()
    await writer.release('ro')
    await done(writer)
    const reader = await track(storage.open({ readOnly: true }))
    expect(reader.readOnly).toBe(true)
    expect((await reader.load('ro')).events).toHaveLength(7)
    expect(codeOf(await errorOf(reader.claim('ro')))).toBe('store-read-only')
    expect(codeOf(await errorOf(reader.setArchived('ro', true)))).toBe('store-read-only')
    expect(codeOf(await errorOf(() => reader.store.create('new', {})))).toBe('store-read-only')
  })
})

/** The error's code (TangentError), or its message when it has none. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : String((error as Error).message)
}
