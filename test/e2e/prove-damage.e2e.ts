// Torn and damaged files (issue 6, docs/architecture.md §4): a data dir made by real turns through a real
// Host is damaged at seeded random offsets — logs truncated, garbage in a middle line, the
// catalog truncated, replaced or deleted — and JsonlStore.open / the Host recover what §4
// promises: torn tails cut and kept in `.torn`, a damaged line named (`corrupt-log`), open
// turns closed as interrupted, the catalog rebuilt from the logs.
import fs from 'node:fs'
import path from 'node:path'
import { startHost } from '@tangent/host'
import type { RpcError } from '@tangent/protocol'
import { JsonlStore } from '@tangent/store-jsonl'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { proveSeed, seededRandom, tempDir } from '../soak/lib.mjs'

interface WireEvent {
  seq: number
  type: string
  data: unknown
}

const seed = proveSeed('damage', 4242)
const random = seededRandom(seed)
let root: string
let pristine: string
/** a: three turns (tools), b: fork of a after its first turn plus one own turn, c: standalone, archived. */
const ids = { a: '', b: '', c: '' }
const original = new Map<string, WireEvent[]>()
let pristineList: Awaited<ReturnType<JsonlStore['list']>>

async function rpc(host: Awaited<ReturnType<typeof startHost>>, method: string, params: unknown) {
  const response = await host.request('/rpc', {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const answer = (await response.json()) as { result?: unknown; error?: RpcError }
  if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error)
  return answer.result as Record<string, unknown> & { id: string }
}

beforeAll(async () => {
  root = tempDir('tangent-damage-')
  pristine = path.join(root, 'pristine')
  const work = path.join(root, 'work')
  fs.mkdirSync(work)
  const host = await startHost({ home: pristine, port: 0, env: {}, handleSignals: false, defaultCwd: work })
  try {
    ids.a = (await rpc(host, 'session.create', { cwd: work })).id
    for (const text of ['write notes.txt: one', 'run: echo two; sleep 0.01', 'three, plain text'])
      await rpc(host, 'session.prompt', { sessionId: ids.a, text })
    const fork = (await rpc(host, 'session.fork', { sessionId: ids.a, atSeq: 3 })) as unknown as {
      session: { id: string }
    }
    ids.b = fork.session.id
    await rpc(host, 'session.prompt', { sessionId: ids.b, text: 'run: echo in the fork' })
    ids.c = (await rpc(host, 'session.create', { cwd: work, title: 'standalone' })).id
    await rpc(host, 'session.prompt', { sessionId: ids.c, text: 'write c.txt: see' })
    await rpc(host, 'session.prompt', { sessionId: ids.c, text: 'run: ls' })
    await rpc(host, 'session.archive', { sessionId: ids.c, archived: true })
    for (const id of Object.values(ids)) {
      const got = (await rpc(host, 'session.get', { sessionId: id })) as unknown as { events: WireEvent[] }
      original.set(id, got.events)
    }
  } finally {
    await host.close()
  }
  const db = await JsonlStore.open({ dir: pristine })
  pristineList = await db.list()
  await db.close()
}, 120_000)

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

let copies = 0
function copyOfPristine(): string {
  const dir = path.join(root, `copy-${copies++}`)
  fs.cpSync(pristine, dir, { recursive: true })
  return dir
}
const logOf = (dir: string, id: string) => path.join(dir, 'sessions', `${id}.jsonl`)
const json = (value: unknown) => JSON.stringify(value)

function listView(entries: Awaited<ReturnType<JsonlStore['list']>>) {
  return entries.map((e) => ({
    id: e.id,
    title: e.title,
    cwd: e.cwd,
    parentSession: e.parentSession,
    forkedAt: e.forkedAt,
    origin: e.origin,
    archived: e.archived,
    eventCount: e.eventCount,
    inheritedEventCount: e.inheritedEventCount,
    model: e.model,
  }))
}

/** Closing events of crash repair (core's closingEventsForOpenTurn): the grammar's missing parts, then turn/end interrupted. */
function expectInterruptedClosing(events: readonly WireEvent[]) {
  expect(events.length).toBeGreaterThan(0)
  for (const event of events.slice(0, -1))
    expect(['user/message', 'assistant/message', 'tool/result', 'step/end']).toContain(event.type)
  expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
}

async function caught(promise: Promise<unknown>): Promise<{ code?: string; data?: Record<string, unknown> }> {
  try {
    await promise
  } catch (error) {
    return error as { code?: string; data?: Record<string, unknown> }
  }
  throw new Error('expected a failure, the call succeeded')
}

describe('prove: torn and damaged files', { timeout: 120_000 }, () => {
  it('a log truncated at random offsets: torn bytes kept in .torn, the good prefix loads, an open turn is closed', async () => {
    for (let round = 0; round < 16; round++) {
      const id = round % 2 === 0 ? ids.b : ids.c
      const dir = copyOfPristine()
      const file = logOf(dir, id)
      const bytes = fs.readFileSync(file)
      const headerEnd = bytes.indexOf(10) + 1
      const cut = random.int(headerEnd, bytes.length - 1)
      const truncated = bytes.subarray(0, cut)
      fs.truncateSync(file, cut)
      const goodBytes = truncated.lastIndexOf(10) + 1
      const db = await JsonlStore.open({ dir })
      try {
        const session = await db.load(id)
        const events = session.events as unknown as WireEvent[]
        const inherited = session.inheritedEventCount
        const keptLines = truncated.subarray(0, goodBytes).toString('utf8').split('\n').length - 2
        const kept = inherited + keptLines
        const before = original.get(id)!
        expect(json(events.slice(0, kept)), `round ${round}: cut at ${cut}`).toBe(json(before.slice(0, kept)))
        const tail = events.slice(kept)
        const prefixOpen =
          before.slice(0, kept).findLast((e) => e.type.startsWith('turn/'))?.type === 'turn/start'
        if (prefixOpen) expectInterruptedClosing(tail)
        else expect(tail).toEqual([])
        // The torn bytes are kept, never dropped.
        const torn = path.join(dir, 'sessions', `${id}.jsonl.torn`)
        if (goodBytes < cut) {
          expect(fs.readFileSync(torn).subarray(0, cut - goodBytes)).toEqual(truncated.subarray(goodBytes))
        } else {
          expect(fs.existsSync(torn)).toBe(false)
        }
        // The repaired file starts with the good lines, and the repair is durable.
        expect(fs.readFileSync(file).subarray(0, goodBytes)).toEqual(truncated.subarray(0, goodBytes))
        await db.close()
        const again = await JsonlStore.open({ dir, readOnly: true })
        expect(json((await again.load(id)).events)).toBe(json(events))
        await again.close()
      } finally {
        await db.close()
      }
    }
  })

  it('a log cut inside its header: not listed as loadable, the bytes kept in .torn', async () => {
    const dir = copyOfPristine()
    const file = logOf(dir, ids.c)
    const header = fs.readFileSync(file).subarray(0, fs.readFileSync(file).indexOf(10))
    const cut = random.int(1, header.length - 1)
    fs.truncateSync(file, cut)
    const db = await JsonlStore.open({ dir })
    try {
      expect(await caught(db.load(ids.c))).toMatchObject({ code: 'session-not-found' })
      expect(fs.readFileSync(path.join(dir, 'sessions', `${ids.c}.jsonl.torn`)).subarray(0, cut)).toEqual(
        header.subarray(0, cut),
      )
      expect((await db.load(ids.a)).events.length).toBe(original.get(ids.a)!.length)
    } finally {
      await db.close()
    }
  })

  it('garbage in a middle line: corrupt-log names the file and the line; nothing is rewritten', async () => {
    const garbage = [
      '{"seq": garbage',
      '\u0000\u0001binary',
      'null',
      '{"seq":999,"time":1,"type":"x","data":{}}',
      '[]',
    ]
    for (let round = 0; round < 6; round++) {
      const dir = copyOfPristine()
      const file = logOf(dir, ids.a)
      const lines = fs.readFileSync(file, 'utf8').split('\n')
      // lines[0] is the header (line 1); the last element is '' after the final newline.
      const index = random.int(1, lines.length - 3)
      lines[index] = random.pick(garbage)
      fs.writeFileSync(file, lines.join('\n'))
      const damaged = fs.readFileSync(file)
      const db = await JsonlStore.open({ dir })
      try {
        const error = await caught(db.load(ids.a))
        expect(error).toMatchObject({ code: 'corrupt-log', data: { file, line: index + 1 } })
        expect(fs.readFileSync(file)).toEqual(damaged)
        expect((await db.load(ids.c)).events.length).toBe(original.get(ids.c)!.length)
      } finally {
        await db.close()
      }
    }
  })

  it('garbage in the last line is a torn tail: cut, kept, and the session loads', async () => {
    const dir = copyOfPristine()
    const file = logOf(dir, ids.c)
    fs.appendFileSync(file, '{"seq":')
    fs.appendFileSync(file, '\n')
    const db = await JsonlStore.open({ dir })
    try {
      const events = (await db.load(ids.c)).events
      expect(json(events)).toBe(json(original.get(ids.c)))
      expect(fs.readFileSync(path.join(dir, 'sessions', `${ids.c}.jsonl.torn`), 'utf8')).toContain('{"seq":')
    } finally {
      await db.close()
    }
  })

  it('a parent log cut below a fork point: the fork refuses to load with corrupt-log, the parent loads', async () => {
    const dir = copyOfPristine()
    const file = logOf(dir, ids.a)
    const bytes = fs.readFileSync(file)
    fs.truncateSync(file, bytes.indexOf(10) + 1 + 10) // inside the first event line
    const db = await JsonlStore.open({ dir })
    try {
      const error = await caught(db.load(ids.b))
      expect(error.code).toBe('corrupt-log')
      expect(String(error.data?.file)).toContain(ids.a)
      const parent = await db.load(ids.a)
      expect(parent.events.length).toBe(0)
    } finally {
      await db.close()
    }
  })

  it('the catalog truncated at random offsets, replaced by garbage, emptied or deleted: rebuilt from the logs', async () => {
    const damage: { what: string; apply: (file: string) => void }[] = []
    const size = fs.statSync(path.join(pristine, 'catalog.json')).size
    for (let i = 0; i < 5; i++) {
      const cut = random.int(0, size - 1)
      damage.push({ what: `truncated at ${cut}`, apply: (file) => fs.truncateSync(file, cut) })
    }
    damage.push(
      { what: 'deleted', apply: (file) => fs.rmSync(file) },
      { what: 'wrong shape', apply: (file) => fs.writeFileSync(file, '{"version":1,"sessions":[{"id":5}]}') },
      { what: 'not JSON', apply: (file) => fs.writeFileSync(file, '\u0000garbage{') },
      {
        what: 'an entry missing',
        apply: (file) => {
          const catalog = JSON.parse(fs.readFileSync(file, 'utf8')) as { sessions: { id: string }[] }
          catalog.sessions = catalog.sessions.filter((s) => s.id !== ids.b)
          fs.writeFileSync(file, JSON.stringify(catalog))
        },
      },
    )
    for (const { what, apply } of damage) {
      const dir = copyOfPristine()
      const file = path.join(dir, 'catalog.json')
      apply(file)
      const db = await JsonlStore.open({ dir })
      try {
        expect(listView(await db.list()), `catalog ${what}`).toEqual(listView(pristineList))
      } finally {
        await db.close()
      }
      // The rebuilt catalog was written back and reads without another rebuild.
      expect(() => JSON.parse(fs.readFileSync(file, 'utf8'))).not.toThrow()
      const reader = await JsonlStore.open({ dir, readOnly: true })
      expect(listView(await reader.list())).toEqual(listView(pristineList))
      await reader.close()
    }
  })

  it('the catalog journal truncated at random offsets or given a garbage line: the listing is what the logs hold', async () => {
    const journal = path.join(pristine, 'catalog.journal')
    const text = fs.readFileSync(journal, 'utf8')
    const lines = text.split('\n').filter(Boolean)
    expect(lines.length).toBeGreaterThan(2) // the Host's changes after the first snapshot
    const damage: { what: string; apply: (file: string) => void }[] = []
    for (let i = 0; i < 5; i++) {
      const cut = random.int(1, text.length - 1)
      damage.push({ what: `truncated at ${cut}`, apply: (file) => fs.truncateSync(file, cut) })
    }
    const bad = random.int(1, lines.length - 1)
    damage.push(
      {
        what: `garbage in line ${bad + 1}`,
        apply: (file) =>
          fs.writeFileSync(file, `${lines.map((line, i) => (i === bad ? '{"set":' : line)).join('\n')}\n`),
      },
      { what: 'emptied', apply: (file) => fs.writeFileSync(file, '') },
    )
    for (const { what, apply } of damage) {
      const dir = copyOfPristine()
      apply(path.join(dir, 'catalog.journal'))
      // A journal cut short is a writer that stopped: it never wrote catalog.clean.
      if (what.startsWith('truncated')) fs.rmSync(path.join(dir, 'catalog.clean'), { force: true })
      for (const readOnly of [true, false, true]) {
        const db = await JsonlStore.open({ dir, readOnly })
        try {
          expect(listView(await db.list()), `journal ${what}, ${readOnly ? 'reader' : 'writer'}`).toEqual(
            listView(pristineList),
          )
        } finally {
          await db.close()
        }
      }
    }
  })

  it('through the Host: a damaged data dir (torn fork, corrupt log, no catalog) still serves every session it can', async () => {
    const dir = copyOfPristine()
    const fileB = logOf(dir, ids.b)
    fs.truncateSync(fileB, fs.statSync(fileB).size - 7)
    const fileC = logOf(dir, ids.c)
    const lines = fs.readFileSync(fileC, 'utf8').split('\n')
    lines[2] = 'garbage'
    fs.writeFileSync(fileC, lines.join('\n'))
    fs.rmSync(path.join(dir, 'catalog.json'))
    const host = await startHost({ home: dir, port: 0, env: {}, handleSignals: false, log: () => {} })
    try {
      const listed = (await rpc(host, 'session.list', { includeArchived: true })) as unknown as {
        id: string
      }[]
      expect(listed.map((s) => s.id).sort()).toEqual(Object.values(ids).sort())
      const a = (await rpc(host, 'session.get', { sessionId: ids.a })) as unknown as { events: WireEvent[] }
      expect(json(a.events)).toBe(json(original.get(ids.a)))
      const b = (await rpc(host, 'session.get', { sessionId: ids.b })) as unknown as { events: WireEvent[] }
      const bBefore = original.get(ids.b)!
      expect(json(b.events.slice(0, bBefore.length - 1))).toBe(json(bBefore.slice(0, -1)))
      expectInterruptedClosing(b.events.slice(bBefore.length - 1))
      const error = await caught(rpc(host, 'session.get', { sessionId: ids.c }))
      expect(error).toMatchObject({ code: -32000, data: { code: 'corrupt-log', line: 3 } })
      // The repaired fork can be prompted and forked again.
      await rpc(host, 'session.prompt', { sessionId: ids.b, text: 'after repair' })
      await rpc(host, 'session.fork', { sessionId: ids.b })
      expect(await rpc(host, 'host.info', {})).toHaveProperty('version')
    } finally {
      await host.close()
    }
  })
})
