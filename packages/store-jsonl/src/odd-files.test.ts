// One odd file in sessions/ never stops the store from opening, and is never followed out of
// the data directory: what is not a regular file is skipped and said (warnings()), a line
// over the limit is corrupt-log naming it, a log of another format version is left alone and
// said, and a loop of parents is listed, flagged, and refuses to load instead of looping.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { SessionEvent } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonlStore } from './jsonl-store.js'
import { maxLineBytes } from './line-reader.js'
import { SessionWriter } from './session-writer.js'
import { appendTurn, logFile, removeTempDataDirs, tempDataDir } from './test-support.js'

function event(seq: number, text: string): SessionEvent {
  return { seq, time: 1, type: 'note/text', data: { text } } as unknown as SessionEvent
}

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

/** Fails instead of hanging when `promise` does not settle in time. */
function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms (hung)`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** A data dir with one good session 'good' (one turn), closed. */
async function dataDirWithGoodSession(): Promise<string> {
  const dir = tempDataDir()
  const db = await JsonlStore.open({ dir })
  appendTurn(db.store.create('good', { meta: { cwd: '/' } }), 'hello')
  await db.close()
  return dir
}

describe('odd files in sessions/', () => {
  it('a FIFO named X.jsonl: the open does not hang, X is skipped and named, the rest is listed', async () => {
    const dir = await dataDirWithGoodSession()
    const fifo = logFile(dir, 'X')
    execFileSync('mkfifo', [fifo])
    fs.rmSync(path.join(dir, 'catalog.json')) // the rebuild would read every log
    for (const readOnly of [false, true]) {
      const db = await within(openStore(dir, readOnly))
      expect((await db.list()).map((entry) => entry.id)).toEqual(['good'])
      expect(db.warnings()).toContainEqual(
        expect.objectContaining({
          kind: 'skipped-file',
          file: fifo,
          message: expect.stringContaining('FIFO'),
        }),
      )
      expect(db.damaged()).toContain('X')
      await expect(within(db.load('X'))).rejects.toMatchObject({ code: 'corrupt-log', data: { file: fifo } })
      if (!readOnly)
        expect(() => db.store.create('X', { meta: { cwd: '/' } })).toThrow(
          expect.objectContaining({ code: 'session-exists' }),
        )
      await db.close()
      open.splice(0)
    }
  })

  it('a directory named X.jsonl: no EISDIR at open; skipped and named', async () => {
    const dir = await dataDirWithGoodSession()
    fs.mkdirSync(logFile(dir, 'X'))
    fs.rmSync(path.join(dir, 'catalog.json'))
    const db = await openStore(dir)
    expect((await db.list()).map((entry) => entry.id)).toEqual(['good'])
    expect(db.warnings()).toContainEqual(
      expect.objectContaining({ kind: 'skipped-file', file: logFile(dir, 'X') }),
    )
    await expect(db.load('X')).rejects.toMatchObject({
      code: 'corrupt-log',
      data: { file: logFile(dir, 'X') },
    })
    await expect(db.delete('good')).resolves.toEqual({ materialized: [] })
  })

  it('a log that is a symbolic link out of the data directory is never followed: not read, not repaired', async () => {
    const dir = await dataDirWithGoodSession()
    // Outside the data dir: a log whose turn is open, which crash repair would close (a write).
    const outside = tempDataDir()
    const writer = await JsonlStore.open({ dir: outside })
    const session = writer.store.create('L', { meta: { cwd: '/' } })
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'hi' }] })
    await writer.flush()
    await writer.close()
    const target = logFile(outside, 'L')
    const before = fs.readFileSync(target)
    fs.symlinkSync(target, logFile(dir, 'L'))
    fs.rmSync(path.join(dir, 'catalog.json'))
    const db = await openStore(dir)
    expect((await db.list()).map((entry) => entry.id)).toEqual(['good'])
    expect(db.warnings()).toContainEqual(
      expect.objectContaining({
        kind: 'skipped-file',
        file: logFile(dir, 'L'),
        message: expect.stringContaining('symbolic link'),
      }),
    )
    await expect(db.load('L')).rejects.toMatchObject({
      code: 'corrupt-log',
      data: { file: logFile(dir, 'L') },
    })
    await db.close()
    open.splice(0)
    expect(fs.readFileSync(target)).toEqual(before)
    expect(fs.existsSync(path.join(outside, 'sessions', 'L.jsonl.torn'))).toBe(false)
  })

  it('a .torn side file that is a symbolic link is not written through: the repair refuses, nothing changes', async () => {
    const dir = await dataDirWithGoodSession()
    const file = logFile(dir, 'good')
    fs.appendFileSync(file, '{"seq":99,"ti')
    const log = fs.readFileSync(file)
    const outside = path.join(tempDataDir(), 'elsewhere')
    fs.writeFileSync(outside, 'not yours\n')
    fs.symlinkSync(outside, `${file}.torn`)
    const db = await openStore(dir)
    await expect(db.load('good')).rejects.toMatchObject({
      code: 'corrupt-log',
      data: { file: `${file}.torn` },
    })
    expect(fs.readFileSync(outside, 'utf8')).toBe('not yours\n')
    expect(fs.readFileSync(file)).toEqual(log)
  })

  it(`a line over ${maxLineBytes / 1024 / 1024} MiB: the store opens, loading is corrupt-log naming the file and line`, async () => {
    const dir = await dataDirWithGoodSession()
    const file = logFile(dir, 'good')
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
    // Line 3 becomes a run of NULs longer than the limit: a hole (sparse), so it costs no disk
    // writes; it is never read into one string.
    const head = Buffer.from(`${lines.slice(0, 2).join('\n')}\n`)
    fs.writeFileSync(file, head)
    fs.truncateSync(file, head.length + maxLineBytes + 1024)
    fs.appendFileSync(file, `\n${lines.slice(2).join('\n')}\n`)
    fs.rmSync(path.join(dir, 'catalog.json')) // the rebuild scans this log
    const db = await openStore(dir)
    expect((await db.list()).map((entry) => entry.id)).toEqual(['good'])
    const error = await db.load('good').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'corrupt-log', data: { file, line: 3 } })
    expect((error as Error).message).toContain('64 MiB')
    // An unterminated one at the end is refused too (this store never writes such a line), and left alone.
    const whole = Buffer.from(`${lines.join('\n')}\n`)
    fs.writeFileSync(file, whole)
    fs.truncateSync(file, whole.length + maxLineBytes + 1024)
    await expect(db.load('good')).rejects.toMatchObject({
      code: 'corrupt-log',
      data: { file, line: lines.length + 1 },
    })
    expect(fs.statSync(file).size).toBe(whole.length + maxLineBytes + 1024)
    expect(fs.existsSync(`${file}.torn`)).toBe(false)
  })

  it('the writer refuses a line longer than a reader accepts; the log keeps everything before it', async () => {
    const file = path.join(tempDataDir(), 'w.jsonl')
    const writer = new SessionWriter({ file, exists: false, maxLineBytes: 200 })
    writer.enqueueLine('{"type":"session"}')
    writer.enqueueEvent(event(0, 'short'))
    writer.enqueueEvent(event(1, 'y'.repeat(300)))
    writer.enqueueEvent(event(2, 'after'))
    const error = await writer.flush().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'store-write-failed', data: { file, seq: 1 } })
    await expect(writer.flush()).rejects.toBe(error) // permanent: retrying cannot help
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([undefined, 0])
    await writer.close()
  })

  it('an event too large for a line is refused before it enters the session; the session stays writable', async () => {
    const dir = tempDataDir()
    const db = await JsonlStore.open({ dir, maxLineBytes: 300 })
    open.push(db)
    const session = db.store.create('big', { meta: { cwd: '/' } })
    session.append('note/text', { text: 'short' })
    await db.flush('big')
    let refused: unknown = null
    try {
      session.append('note/text', { text: 'y'.repeat(400) })
    } catch (error) {
      refused = error
    }
    expect(refused).toMatchObject({
      code: 'invalid-event',
      data: { sessionId: 'big', seq: 1, limit: 300, bytes: expect.any(Number) },
      message: expect.stringMatching(/over the 300 bytes/),
    })
    expect(session.events).toHaveLength(1)
    // Still writable: later appends are stored, and a fresh open loads every one.
    session.append('note/text', { text: 'after' })
    await db.flush('big')
    expect(session.events.map((e) => e.seq)).toEqual([0, 1])
    const expected = JSON.parse(JSON.stringify(session.events))
    await db.close()
    open.splice(open.indexOf(db), 1)
    const again = await openStore(dir)
    expect(JSON.parse(JSON.stringify((await again.load('big')).events))).toEqual(expected)
  })

  it('a header-only log of an unknown format version is left alone, not listed, and said', async () => {
    const dir = await dataDirWithGoodSession()
    const file = logFile(dir, 'future')
    const header = `${JSON.stringify({ type: 'session', version: 2, id: 'future', createdAt: 1, cwd: '/' })}\n`
    fs.writeFileSync(file, header)
    fs.rmSync(path.join(dir, 'catalog.json'))
    for (let open = 0; open < 2; open++) {
      const db = await JsonlStore.open({ dir })
      expect((await db.list()).map((entry) => entry.id)).toEqual(['good'])
      expect(db.warnings()).toContainEqual(
        expect.objectContaining({ kind: 'damaged-log', file, message: expect.stringContaining('version 2') }),
      )
      await expect(db.load('future')).rejects.toMatchObject({ code: 'corrupt-log', data: { file, line: 1 } })
      await db.close()
      // Not moved aside into .torn: it is some other version's session, not a torn write.
      expect(fs.readFileSync(file, 'utf8')).toBe(header)
      expect(fs.existsSync(`${file}.torn`)).toBe(false)
    }
  })

  it('a loop of parents is listed and flagged (forks too), said, and loading or deleting fails instead of looping', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const a = db.store.create('A', { meta: { cwd: '/' } })
    appendTurn(a, 'one')
    const b = db.store.fork(a, undefined, 'B')
    appendTurn(b, 'two')
    const c = db.store.fork(b, undefined, 'C')
    appendTurn(c, 'three')
    await db.close()
    open.splice(0)
    // Damage A's header: its parent is now B, which reads its prefix from A.
    const file = logFile(dir, 'A')
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    lines[0] = JSON.stringify({
      ...JSON.parse(lines[0]!),
      parentSession: 'B',
      forkedAt: 0,
      seed: 'ref',
      inheritedEventCount: 1,
    })
    lines.splice(1, 1)
    fs.writeFileSync(file, lines.join('\n'))
    fs.rmSync(path.join(dir, 'catalog.json')) // a header edited by hand: the rebuild reads it
    const unrelated = await JsonlStore.open({ dir })
    unrelated.store.create('D', { meta: { cwd: '/' } })
    await unrelated.close()

    const again = await openStore(dir)
    const listed = await again.list()
    expect(listed.map((entry) => [entry.id, entry.parentLoop])).toEqual([
      ['A', ['A', 'B']],
      ['B', ['A', 'B']],
      ['C', ['A', 'B']],
      ['D', undefined],
    ])
    expect((await again.listView()).find((entry) => entry.id === 'C')?.parentLoop).toEqual(['A', 'B'])
    expect(again.warnings()).toContainEqual(
      expect.objectContaining({ kind: 'parent-loop', message: expect.stringContaining('A → B → A') }),
    )
    for (const id of ['A', 'B', 'C'])
      await expect(within(again.load(id))).rejects.toMatchObject({ code: 'corrupt-log' })
    await expect(within(again.delete('A'))).rejects.toMatchObject({ code: 'corrupt-log' })
    expect(fs.existsSync(file)).toBe(true)
    expect((await again.load('D')).id).toBe('D')
  })

  it('deleting a session of a loop of parents ends the loop in the list at once', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    appendTurn(db.store.create('A', { meta: { cwd: '/' } }), 'one')
    db.store.fork('A', undefined, 'B')
    await db.close()
    open.splice(0)
    // A keeps its events inline but names B as its parent: a loop in the lineage only.
    const file = logFile(dir, 'A')
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), parentSession: 'B', forkedAt: 0 })
    fs.writeFileSync(file, lines.join('\n'))
    fs.rmSync(path.join(dir, 'catalog.json'))
    const again = await openStore(dir)
    expect((await again.list()).map((entry) => entry.parentLoop)).toEqual([
      ['A', 'B'],
      ['A', 'B'],
    ])
    expect((await again.load('A')).events.length).toBeGreaterThan(0) // inline: it loads
    await expect(again.delete('A')).resolves.toEqual({ materialized: ['B'] })
    expect((await again.list()).map((entry) => [entry.id, entry.parentLoop])).toEqual([['B', undefined]])
    expect((await again.load('B')).events.length).toBeGreaterThan(0)
  })
})

describe('a data directory that cannot be one', () => {
  it('is refused with home-not-directory when a file is in its place (a writer; nothing is written)', async () => {
    const file = path.join(tempDataDir(), 'a-file')
    fs.writeFileSync(file, 'x')
    const error = await JsonlStore.open({ dir: file }).catch((failure: unknown) => failure)
    expect(error).toMatchObject({ code: 'home-not-directory', data: { home: file } })
    expect(fs.readFileSync(file, 'utf8')).toBe('x')
  })
})
