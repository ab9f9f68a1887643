import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { CatalogFile, readStoredCatalog } from './catalog-format.js'
import { JsonlStore } from './jsonl-store.js'
import { appendTurn, logFile, logLines, removeTempDataDirs, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
async function openStore(dir: string, readOnly = false): Promise<JsonlStore> {
  const db = await JsonlStore.open({ dir, readOnly })
  open.push(db)
  return db
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close()
  removeTempDataDirs()
})

function eventsOf(session: { events: readonly unknown[] }): unknown {
  return JSON.parse(JSON.stringify(session.events))
}

describe('JsonlStore: logs and reload', () => {
  it('writes a header line then one event per line, and loads it back after a restart', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('s1', { meta: { cwd: '/work', workspaceId: 'w1' } })
    session.append('model/selection', { provider: 'openai', model: 'gpt-4.1' })
    appendTurn(session, 'hello')
    await db.flush('s1')
    const lines = logLines(dir, 's1')
    expect(lines).toHaveLength(1 + session.events.length)
    expect(JSON.parse(lines[0]!)).toMatchObject({
      type: 'session',
      version: 1,
      id: 's1',
      cwd: '/work',
      inheritedEventCount: 0,
      seed: 'inline',
      origin: 'user',
      workspaceId: 'w1',
    })
    expect(JSON.parse(lines[1]!)).toEqual({ ...session.events[0] })
    const before = eventsOf(session)
    await db.close()

    const again = await openStore(dir)
    const loaded = await again.load('s1')
    expect(eventsOf(loaded)).toEqual(before)
    expect(loaded.header).toMatchObject({ id: 's1', cwd: '/work', workspaceId: 'w1', isSeeded: false })
    expect(await again.load('s1')).toBe(loaded)
  })

  it('a small log read whole as text counts bytes, not characters (what its writer and catalog record)', async () => {
    const dir = tempDataDir()
    const first = await openStore(dir)
    appendTurn(first.store.create('s1', { meta: { cwd: '/wörk' } }), 'start')
    await first.close()
    open.splice(0)
    // Characters of two, three and four bytes, and U+FFFD itself (valid UTF-8: the byte-exact reader decides).
    for (const text of ['héllo ✓ 🌿', 'a \uFFFD in the text', 'plain']) {
      const writer = await openStore(dir)
      const loaded = await writer.load('s1')
      appendTurn(loaded, text)
      const expected = eventsOf(loaded)
      await writer.close()
      open.splice(0)
      const reloaded = await openStore(dir)
      expect(eventsOf(await reloaded.load('s1'))).toEqual(expected)
      await reloaded.close() // records the size its load counted
      open.splice(0)
      expect(readStoredCatalog(dir)?.sessions[0]?.logBytes).toBe(fs.statSync(logFile(dir, 's1')).size)
      const reader = await openStore(dir, true)
      expect(eventsOf(await reader.load('s1'))).toEqual(expected)
      expect(reader.warnings()).toEqual([])
    }
    expect(fs.existsSync(`${logFile(dir, 's1')}.torn`)).toBe(false)
  })

  it('rejects unknown and invalid ids with typed errors', async () => {
    const db = await openStore(tempDataDir())
    await expect(db.load('nope')).rejects.toMatchObject({ code: 'session-not-found' })
    await expect(db.load('../etc/passwd')).rejects.toMatchObject({ code: 'invalid-session-id' })
    await expect(db.delete('nope')).rejects.toMatchObject({ code: 'session-not-found' })
    await expect(db.setArchived('nope', true)).rejects.toMatchObject({ code: 'session-not-found' })
  })

  it('refuses to create a session whose log already exists on disk', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    db.store.create('dup', { meta: { cwd: '/' } })
    await db.flush()
    await db.close()
    const again = await openStore(dir)
    expect(() => again.store.create('dup', { meta: { cwd: '/' } })).toThrow(
      expect.objectContaining({ code: 'session-exists' }),
    )
    expect(again.store.has('dup')).toBe(false)
  })

  it('surfaces a write failure through flush instead of swallowing it', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    appendTurn(db.store.create('s', { meta: { cwd: '/' } }), 'a')
    await db.flush()
    await db.close()
    const again = await openStore(dir)
    const session = await again.load('s')
    // The log's directory turns into a file: the next commit cannot open the log.
    fs.renameSync(path.join(dir, 'sessions'), path.join(dir, 'moved'))
    fs.writeFileSync(path.join(dir, 'sessions'), '')
    appendTurn(session, 'b')
    await expect(again.flush('s')).rejects.toMatchObject({ code: 'store-write-failed' })
    await expect(again.flush()).rejects.toMatchObject({ code: 'store-write-failed' })
    // Once the cause is gone, the next flush writes what was pending: nothing was dropped.
    fs.rmSync(path.join(dir, 'sessions'))
    fs.renameSync(path.join(dir, 'moved'), path.join(dir, 'sessions'))
    await again.flush('s')
    expect(logLines(dir, 's')).toHaveLength(1 + session.events.length)
  })

  it('group commit: many appends, one flush, everything durable and in order', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('g', { meta: { cwd: '/' } })
    for (let i = 0; i < 200; i++) appendTurn(session, `turn ${i}`, { tool: i % 3 === 0 })
    await db.flush()
    const lines = logLines(dir, 'g')
    expect(lines).toHaveLength(1 + session.events.length)
    expect(lines.slice(1).map((line) => JSON.parse(line).seq)).toEqual(session.events.map((e) => e.seq))
  })
})

describe('JsonlStore: batches as bytes', () => {
  it('writes every line byte for byte: non-ASCII text, batches over 4 MB, and a line of over 8 MB alone', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('bytes', { meta: { cwd: '/work' } })
    const texts = [
      'plain',
      'é — → … 🤖 中文',
      'x'.repeat(3_000_000),
      `${'ü'.repeat(1_000_000)}🤖`,
      'y'.repeat(9_000_000),
    ]
    for (const text of texts) appendTurn(session, text, { tool: false })
    await db.flush('bytes')
    // What a join of the lines would have written (the writer encodes them one by one now).
    const expected = Buffer.from(
      [
        fs.readFileSync(logFile(dir, 'bytes'), 'utf8').split('\n')[0],
        ...session.events.map((e) => JSON.stringify(e)),
      ]
        .map((line) => `${line}\n`)
        .join(''),
    )
    expect(fs.readFileSync(logFile(dir, 'bytes')).equals(expected)).toBe(true)
    await db.close()
    const reopened = await openStore(dir)
    expect(eventsOf(await reopened.load('bytes'))).toEqual(eventsOf(session))
  })
})

describe('JsonlStore: forks by reference', () => {
  it('a fork writes only its header, whatever the length of the history', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const parent = db.store.create('p', { meta: { cwd: '/' } })
    for (let i = 0; i < 300; i++) appendTurn(parent, `turn ${i} ${'x'.repeat(200)}`)
    const parentSize = () => fs.statSync(logFile(dir, 'p')).size
    const child = db.store.fork(parent, undefined, 'c', { meta: { title: 'child' } })
    await db.flush('c')
    // The parent was flushed through the boundary before the child header was written.
    expect(logLines(dir, 'p')).toHaveLength(1 + parent.events.length)
    const childBytes = fs.statSync(logFile(dir, 'c')).size
    expect(childBytes).toBe(fs.readFileSync(logFile(dir, 'c'), 'utf8').indexOf('\n') + 1)
    expect(childBytes).toBeLessThan(400)
    expect(parentSize()).toBeGreaterThan(100 * childBytes)
    expect(JSON.parse(logLines(dir, 'c')[0]!)).toMatchObject({
      seed: 'ref',
      parentSession: 'p',
      forkedAt: parent.lastSeq,
      inheritedEventCount: parent.events.length,
      title: 'child',
    })
    expect(child.events[5]).toBe(parent.events[5])
  })

  it('a chain of forks loads after a restart, each with its own turns', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const a = db.store.create('a', { meta: { cwd: '/' } })
    appendTurn(a, 'a1')
    appendTurn(a, 'a2')
    const b = db.store.fork(a, 9, 'b') // after the first turn
    appendTurn(b, 'b1')
    const c = db.store.fork(b, undefined, 'c')
    appendTurn(c, 'c1')
    appendTurn(a, 'a3')
    const expected = { a: eventsOf(a), b: eventsOf(b), c: eventsOf(c) }
    await db.close()
    const again = await openStore(dir)
    // Load the deepest first: its prefix comes from b's log and a's log.
    expect(eventsOf(await again.load('c'))).toEqual(expected.c)
    expect(eventsOf(await again.load('b'))).toEqual(expected.b)
    expect(eventsOf(await again.load('a'))).toEqual(expected.a)
    const loadedC = again.store.get('c')!
    expect(loadedC.header).toMatchObject({ parentSession: 'b', inheritedEventCount: b.events.length })
    await again.close()
    open.splice(0)
    // With the parent already loaded, a child shares the parent's event objects.
    const third = await openStore(dir)
    const parentA = await third.load('a')
    const childB = await third.load('b')
    expect(childB.events[3]).toBe(parentA.events[3])
    expect(eventsOf(childB)).toEqual(expected.b)
  })

  it('deleting a parent materialises its direct children inline, and they still load', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const a = db.store.create('a', { meta: { cwd: '/' } })
    appendTurn(a, 'a1')
    const b = db.store.fork(a, undefined, 'b')
    appendTurn(b, 'b1')
    const c = db.store.fork(a, undefined, 'c')
    const d = db.store.fork(b, undefined, 'd')
    appendTurn(d, 'd1')
    const expected = { b: eventsOf(b), c: eventsOf(c), d: eventsOf(d) }
    const result = await db.delete('a')
    expect(result.materialized.sort()).toEqual(['b', 'c'])
    expect(fs.existsSync(logFile(dir, 'a'))).toBe(false)
    expect(db.store.has('a')).toBe(false)
    expect(JSON.parse(logLines(dir, 'b')[0]!)).toMatchObject({ seed: 'inline', parentSession: 'a' })
    expect(logLines(dir, 'b')).toHaveLength(1 + b.events.length)
    // d's log is only promised on disk once flushed (delete flushes the parent and its direct children).
    await db.flush('d')
    expect(JSON.parse(logLines(dir, 'd')[0]!)).toMatchObject({ seed: 'ref', parentSession: 'b' })
    // Live children keep appending to their new log.
    appendTurn(b, 'b2')
    expected.b = eventsOf(b)
    await db.close()
    const again = await openStore(dir)
    expect(eventsOf(await again.load('b'))).toEqual(expected.b)
    expect(eventsOf(await again.load('c'))).toEqual(expected.c)
    expect(eventsOf(await again.load('d'))).toEqual(expected.d)
    expect((await again.list()).map((entry) => entry.id).sort()).toEqual(['b', 'c', 'd'])
  })

  it('a chain loads correctly after any one of its members is deleted', async () => {
    for (const victim of ['a', 'b', 'c']) {
      const dir = tempDataDir()
      const db = await openStore(dir)
      const a = db.store.create('a', { meta: { cwd: '/' } })
      appendTurn(a, 'a1')
      const b = db.store.fork(a, undefined, 'b')
      appendTurn(b, 'b1')
      const c = db.store.fork(b, undefined, 'c')
      appendTurn(c, 'c1')
      const d = db.store.fork(c, undefined, 'd')
      appendTurn(d, 'd1')
      const expected = new Map([a, b, c, d].map((s) => [s.id, eventsOf(s)]))
      await db.close()
      open.splice(open.indexOf(db), 1)
      const second = await openStore(dir)
      await second.delete(victim)
      await second.close()
      open.splice(open.indexOf(second), 1)
      const third = await openStore(dir)
      for (const [id, events] of expected) {
        if (id === victim) await expect(third.load(id)).rejects.toMatchObject({ code: 'session-not-found' })
        else expect(eventsOf(await third.load(id))).toEqual(events)
      }
      await third.close()
      open.splice(open.indexOf(third), 1)
    }
  })
})

describe('JsonlStore: catalog', () => {
  it('keeps titles, models, counts and lineage without parsing logs', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const a = db.store.create('a', { meta: { cwd: '/w' } })
    a.append('model/selection', { provider: 'anthropic', model: 'claude' })
    a.append('session/title', { title: 'first' })
    appendTurn(a, 'one')
    const b = db.store.fork(a, undefined, 'b')
    a.append('session/title', { title: 'renamed' })
    appendTurn(b, 'two')
    expect(await db.get('a')).toMatchObject({ title: 'renamed', eventCount: a.events.length })
    expect(await db.get('b')).toMatchObject({
      title: 'first',
      parentSession: 'a',
      forkedAt: 11,
      eventCount: b.events.length,
      inheritedEventCount: 12,
      model: { provider: 'anthropic', model: 'claude' },
      archived: false,
    })
    await db.close()
    // A clean close leaves a catalog (snapshot and journal) that the next open uses as is.
    expect(readStoredCatalog(dir)?.sessions).toHaveLength(2)
    const again = await openStore(dir)
    expect((await again.list()).map((e) => [e.id, e.title, e.eventCount])).toEqual([
      ['a', 'renamed', a.events.length],
      ['b', 'first', b.events.length],
    ])
  })

  it('rebuilds a deleted, damaged or stale catalog from the logs, archived flags included', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const a = db.store.create('a', { meta: { cwd: '/w' } })
    a.append('session/title', { title: 'A' })
    appendTurn(a, 'one')
    const b = db.store.fork(a, undefined, 'b')
    appendTurn(b, 'two')
    await db.setArchived('b', true)
    await db.close()
    open.splice(0)
    const expected = [
      { id: 'a', title: 'A', archived: false, eventCount: a.events.length, parentSession: null },
      { id: 'b', title: 'A', archived: true, eventCount: b.events.length, parentSession: 'a' },
    ]
    const catalogFile = path.join(dir, 'catalog.json')
    const damage = [
      () => fs.rmSync(catalogFile),
      () => fs.writeFileSync(catalogFile, '{"version":1,"sessions":[{"id":'),
      () => fs.writeFileSync(catalogFile, '{"version":1,"sessions":[]}'),
      () => fs.writeFileSync(catalogFile, '{"version":1,"sessions":"nope"}'),
      // Valid JSON, a record of the wrong shape: the structural check must still refuse it.
      () => {
        const stored = JSON.parse(fs.readFileSync(catalogFile, 'utf8'))
        stored.sessions[1].eventCount = -1
        fs.writeFileSync(catalogFile, JSON.stringify(stored))
      },
      () => {
        const stored = JSON.parse(fs.readFileSync(catalogFile, 'utf8'))
        stored.sessions[0].header = 'a'
        fs.writeFileSync(catalogFile, JSON.stringify(stored))
      },
    ]
    for (const harm of damage) {
      harm()
      const again = await openStore(dir)
      expect(await again.list()).toEqual(expected.map((entry) => expect.objectContaining(entry)))
      expect((await again.get('a'))?.header).toMatchObject({ type: 'session', id: 'a' })
      await again.close()
      open.splice(0)
      expect(JSON.parse(fs.readFileSync(catalogFile, 'utf8')).sessions).toHaveLength(2)
    }
  })

  it('keeps each session’s mode — its own or its fork point’s — in the catalog and when rebuilding it from the logs', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const a = db.store.create('a', { meta: { cwd: '/w' } })
    a.append('session/mode', { mode: 'plan' })
    appendTurn(a, 'one')
    db.store.fork(a, undefined, 'b') // by reference: its mode is in a's log
    a.append('session/mode', { mode: 'ask' })
    const c = db.store.create('c', { meta: { cwd: '/w' } })
    appendTurn(c, 'none')
    const d = db.store.fork(a, undefined, 'd')
    d.append('session/mode', { mode: 'edit' })
    const expected = [
      ['a', 'ask'],
      ['b', 'plan'],
      ['c', undefined],
      ['d', 'edit'],
    ]
    const modes = async (store: JsonlStore) => (await store.list()).map((entry) => [entry.id, entry.mode])
    expect(await modes(db)).toEqual(expected)
    await db.close()
    open.splice(0)
    const catalogFile = path.join(dir, 'catalog.json')
    expect(await modes(await openStore(dir))).toEqual(expected)
    await open.splice(0)[0]!.close()
    // Rebuilt from the logs: b's mode is found in its parent's log, before its fork point.
    fs.rmSync(catalogFile)
    expect(await modes(await openStore(dir))).toEqual(expected)
    await open.splice(0)[0]!.close()
    expect(CatalogFile.safeParse(JSON.parse(fs.readFileSync(catalogFile, 'utf8'))).success).toBe(true)
    // A catalog naming a mode that does not exist is not trusted: it is rebuilt.
    const stored = JSON.parse(fs.readFileSync(catalogFile, 'utf8'))
    stored.sessions[0].mode = 'yolo'
    fs.writeFileSync(catalogFile, JSON.stringify(stored))
    expect(await modes(await openStore(dir))).toEqual(expected)
  })

  it('writes a catalog that its zod schema accepts, and adds logs it does not know yet', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const a = db.store.create('a', { meta: { cwd: '/w', files: { mode: 'shared' } } })
    a.append('session/title', { title: 'A' })
    appendTurn(a, 'one')
    db.store.fork(a, undefined, 'b')
    await db.close()
    open.splice(0)
    const catalogFile = path.join(dir, 'catalog.json')
    expect(CatalogFile.safeParse(JSON.parse(fs.readFileSync(catalogFile, 'utf8'))).success).toBe(true)
    // A fork's log appears behind the catalog's back (copied in from elsewhere).
    const header = { ...JSON.parse(logLines(dir, 'b')[0]!), id: 'c', parentSession: 'a' }
    fs.writeFileSync(logFile(dir, 'c'), `${JSON.stringify(header)}\n`)
    const again = await openStore(dir)
    expect(await again.get('c')).toMatchObject({
      title: 'A',
      parentSession: 'a',
      eventCount: a.events.length,
    })
    expect((await again.list()).map((entry) => entry.id)).toEqual(['a', 'b', 'c'])
    expect((await again.get('a'))?.header).toMatchObject({ files: { mode: 'shared' }, seed: 'inline' })
    expect((await again.get('b'))?.header).toMatchObject({ seed: 'ref', parentSession: 'a' })
  })

  it('lists oldest first then by id, writes the catalog in that order, and listView and headers agree', async () => {
    const dir = tempDataDir()
    let clock = 100
    const db = await JsonlStore.open({ dir, now: () => clock })
    open.push(db)
    for (const [id, at] of [
      ['c', 300],
      ['b', 100],
      ['a', 300],
      ['d', 200],
    ] as const) {
      clock = at
      db.store.create(id, { meta: { cwd: '/w' } })
    }
    const order = ['b', 'd', 'a', 'c']
    expect((await db.list()).map((entry) => entry.id)).toEqual(order)
    expect((await db.listView()).map((entry) => entry.id)).toEqual(order)
    expect([...db.headers()].map((entry) => entry.id).sort()).toEqual(['a', 'b', 'c', 'd'])
    expect([...db.headers()].find((entry) => entry.id === 'a')?.header).toMatchObject({ id: 'a', cwd: '/w' })
    clock = 50
    db.store.create('e', { meta: { cwd: '/w' } })
    await db.delete('d')
    expect((await db.listView()).map((entry) => entry.id)).toEqual(['e', 'b', 'a', 'c'])
    await db.close()
    open.splice(0)
    expect(readStoredCatalog(dir)?.sessions.map((record) => record.id)).toEqual(['e', 'b', 'a', 'c'])
    const again = await openStore(dir)
    expect((await again.list()).map((entry) => entry.id)).toEqual(['e', 'b', 'a', 'c'])
  })

  it('setArchived persists in the catalog and survives a rebuild', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    db.store.create('a', { meta: { cwd: '/' } })
    expect(await db.setArchived('a', true)).toMatchObject({ id: 'a', archived: true })
    expect(readStoredCatalog(dir)?.sessions[0]?.archived).toBe(true)
    await db.close()
    open.splice(0)
    fs.rmSync(path.join(dir, 'catalog.json'))
    const again = await openStore(dir)
    expect(await again.get('a')).toMatchObject({ archived: true })
    expect(await again.setArchived('a', false)).toMatchObject({ archived: false })
    await again.close()
    open.splice(0)
    fs.rmSync(path.join(dir, 'catalog.json'))
    const third = await openStore(dir)
    expect(await third.get('a')).toMatchObject({ archived: false })
  })
})

describe('JsonlStore: read-only', () => {
  it('takes no lock, refuses writes, and never repairs', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const s = db.store.create('s', { meta: { cwd: '/' } })
    appendTurn(s, 'one')
    s.append('turn/start', {})
    await db.flush()
    const reader = await openStore(dir, true)
    const loaded = await reader.load('s')
    expect(loaded.isTurnOpen).toBe(true)
    expect(() => reader.store.create('x', { meta: { cwd: '/' } })).toThrow(TangentError)
    await expect(reader.delete('s')).rejects.toMatchObject({ code: 'store-read-only' })
    expect(logLines(dir, 's')).toHaveLength(1 + s.events.length)
  })

  it('a reader of a data directory that does not exist lists nothing and leaves nothing behind', async () => {
    const parent = tempDataDir()
    const reader = await openStore(path.join(parent, 'tangent'), true)
    expect(await reader.list()).toEqual([])
    expect(fs.readdirSync(parent)).toEqual([])
  })

  it('a reader of an existing data directory without a catalog saves the one it built, for the next reader', async () => {
    const dir = tempDataDir()
    const reader = await openStore(dir, true)
    expect(await reader.list()).toEqual([])
    expect(fs.readdirSync(dir)).toContain('catalog.json')
  })
})
