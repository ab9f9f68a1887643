// A full disk (ENOSPC, injected through durable-fs's write seam; test/e2e/prove-store-disk-full
// does it on a real 1 MiB tmpfs): every flush rejects while writes fail, nothing pending is
// dropped, the store catches up by itself once space returns (the log then equals the session
// in memory), and a catalog write that failed is never trusted by the next open.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readStoredCatalog } from './catalog-format.js'
import { injectWriteFault } from './durable-fs.js'
import { JsonlStore } from './jsonl-store.js'
import { appendTurn, logFile, logLines, removeTempDataDirs, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
async function openStore(dir: string, catalogDelayMs?: number): Promise<JsonlStore> {
  const db = await JsonlStore.open({ dir, ...(catalogDelayMs !== undefined ? { catalogDelayMs } : {}) })
  open.push(db)
  return db
}
afterEach(async () => {
  injectWriteFault(null)
  for (const db of open.splice(0)) await db.close().catch(() => undefined)
  removeTempDataDirs()
})

function eventsOf(session: { events: readonly unknown[] }): unknown[] {
  return JSON.parse(JSON.stringify(session.events))
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('disk full', () => {
  it('flush rejects while writes fail; once space returns the store writes what was pending by itself, and the log equals memory', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    appendTurn(session, 'before')
    await db.flush('s')
    const durable = session.events.length

    // The disk fills up: each write gets half its bytes onto the disk, then ENOSPC.
    let full = true
    injectWriteFault((_file, bytes) => (full ? Math.floor(bytes / 2) : null))
    appendTurn(session, 'while full')
    const error = await db.flush('s').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'store-write-failed', data: { file: logFile(dir, 's') } })
    expect((error as Error).message).toContain('no space left')
    expect((error as Error).message).not.toContain('load the session again')
    // Appends and forks are still taken (in memory), and their flushes reject: none is durable.
    appendTurn(session, 'still full')
    const child = db.store.fork(session, undefined, 'child')
    appendTurn(child, 'in the fork')
    await expect(db.flush('s')).rejects.toMatchObject({ code: 'store-write-failed' })
    await expect(db.flush('child')).rejects.toMatchObject({ code: 'store-write-failed' })
    await expect(db.flush()).rejects.toMatchObject({ code: 'store-write-failed' })
    // What is on disk meanwhile is the durable prefix plus, at most, a partial batch: a
    // restart now would cut that as a torn tail and load exactly the durable events.
    expect(logLines(dir, 's').length).toBeLessThan(1 + session.events.length)
    // Readers are given only what is durable meanwhile: what a restart would load.
    expect(db.servableEventCount(session)).toBe(durable)

    // Space returns. Nobody flushes: the writer retries by itself and catches up.
    full = false
    await until(() => logLines(dir, 's').length === 1 + session.events.length)
    await db.flush('s')
    await db.flush('child')
    await db.flush()
    expect(db.servableEventCount(session)).toBe(session.events.length)
    expect(
      logLines(dir, 's')
        .map((line) => JSON.parse(line))
        .slice(1),
    ).toEqual(eventsOf(session))
    expect(fs.existsSync(path.join(dir, 'sessions', 's.jsonl.torn'))).toBe(false)
    // Appends and forks work again without a restart.
    appendTurn(session, 'after')
    const second = db.store.fork(session, undefined, 'second')
    await db.flush()
    expect(session.events.length).toBeGreaterThan(durable)

    const expected = { s: eventsOf(session), child: eventsOf(child), second: eventsOf(second) }
    await db.close()
    open.splice(0)
    const again = await openStore(dir)
    for (const [id, events] of Object.entries(expected))
      expect(eventsOf(await again.load(id))).toEqual(events)
    expect(fs.existsSync(path.join(dir, 'sessions', 's.jsonl.torn'))).toBe(false)
  })

  it('closed while the disk is still full: the log is cut back to what was durable, with no fragment to set aside', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    appendTurn(session, 'before')
    await db.flush('s')
    const durable = fs.readFileSync(logFile(dir, 's'))
    injectWriteFault((_file, bytes) => Math.floor(bytes / 2)) // half of each write lands, then ENOSPC
    appendTurn(session, 'lost with the process')
    await expect(db.flush('s')).rejects.toMatchObject({ code: 'store-write-failed' })
    expect(fs.statSync(logFile(dir, 's')).size).toBeGreaterThan(durable.length) // a fragment is there now
    const closing = await db.close().catch((error: unknown) => error)
    open.splice(open.indexOf(db), 1)
    expect(closing).toMatchObject({ code: 'store-write-failed' })
    expect((closing as Error).message).toContain('a command that ends before then loses them')
    injectWriteFault(null)
    expect(fs.readFileSync(logFile(dir, 's'))).toEqual(durable)
    const reopened = await openStore(dir)
    expect((await reopened.load('s')).events).toHaveLength(logLines(dir, 's').length - 1)
    expect(fs.readdirSync(path.join(dir, 'sessions')).filter((name) => name.includes('torn'))).toEqual([])
  })

  it('a batch whose bytes went in but whose write failed is written again from the last durable byte, not twice', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    session.append('session/title', { title: 'one' })
    await db.flush('s')
    // Every byte reaches the file, then the call fails (as an fsync error would after the write).
    let failures = 1
    injectWriteFault((_file, bytes) => (failures-- > 0 ? bytes : null))
    session.append('session/title', { title: 'two' })
    await expect(db.flush('s')).rejects.toMatchObject({ code: 'store-write-failed' })
    await db.flush('s')
    expect(logLines(dir, 's').map((line) => JSON.parse(line).data?.title)).toEqual([undefined, 'one', 'two'])
  })

  it('a catalog write that failed at shutdown is not trusted at the next start: the list shows what the logs hold', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir, 60_000)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    for (let i = 0; i < 128; i++) session.append('session/title', { title: `t${i}` })
    await db.close()
    open.splice(0)

    const again = await openStore(dir, 60_000)
    const loaded = await again.load('s')
    for (let i = 128; i < 196; i++) loaded.append('session/title', { title: `t${i}` })
    await again.flush('s') // the log is durable…
    injectWriteFault((file) => (path.basename(file).startsWith('catalog.') ? 0 : null))
    open.splice(0)
    await expect(again.close()).rejects.toMatchObject({ code: 'ENOSPC' }) // …the catalog is not
    injectWriteFault(null)
    expect(fs.existsSync(path.join(dir, 'catalog.clean'))).toBe(false)
    expect(readStoredCatalog(dir)?.sessions[0]?.eventCount).toBe(128)

    // A reader checks the stale catalog against the logs, and so does the next writer.
    const reader = await JsonlStore.open({ dir, readOnly: true })
    expect(await reader.get('s')).toMatchObject({ eventCount: 196, title: 't195' })
    await reader.close()
    const third = await openStore(dir)
    expect(await third.get('s')).toMatchObject({ eventCount: 196, title: 't195' })
    expect((await third.list())[0]).toMatchObject({ eventCount: 196 })
  })

  it('after a clean close the catalog is trusted as is (no log is read); the next writer unmarks it before writing', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    appendTurn(db.store.create('s', { meta: { cwd: '/' } }), 'one')
    await db.close()
    open.splice(0)
    expect(fs.existsSync(path.join(dir, 'catalog.clean'))).toBe(true)
    const again = await openStore(dir)
    expect(fs.existsSync(path.join(dir, 'catalog.clean'))).toBe(false)
    expect((await again.list()).map((entry) => entry.id)).toEqual(['s'])
  })
})
