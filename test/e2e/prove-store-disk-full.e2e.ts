// A full disk, for real (docs/architecture.md §4 durability): TANGENT_HOME on a 1 MiB tmpfs.
// While writes fail every flush rejects and nothing pending is dropped; once space is freed the
// store catches up by itself (no restart, no reload) and the logs equal the sessions in memory;
// and a catalog write that failed at shutdown is not trusted by the next open.
// Needs root to mount the tmpfs (as in CI containers); skipped, saying so, otherwise.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Session } from '@tangent/core'
import { JsonlStore, readStoredCatalog } from '@tangent/store-jsonl'
import { afterAll, describe, expect, it } from 'vitest'
import { fillDisk, mountSmallDisk, unmountSmallDisk } from '../soak/small-disk.mjs'

const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-prove-enospc-'))
const mounted = mountSmallDisk(mountPoint, '1m')
if (!mounted) console.log('[prove] store disk full: skipped (mounting a tmpfs needs root on Linux)')

afterAll(() => {
  if (mounted) unmountSmallDisk(mountPoint)
  fs.rmSync(mountPoint, { recursive: true, force: true })
})

const home = path.join(mountPoint, 'home')
const filler = path.join(mountPoint, 'filler')

/** A turn with a ~8 KB tool output, as a real one would have. */
function appendTurn(session: Session, n: number): void {
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text: `turn ${n}` }] })
  session.append('step/start', {})
  session.append('assistant/message', {
    content: [{ type: 'tool-call', toolCallId: `c${n}`, toolName: 'read', input: { path: 'a.txt' } }],
  })
  session.append('tool/result', {
    callId: `c${n}`,
    toolName: 'read',
    output: `${n} `.repeat(2000),
    isError: false,
  })
  session.append('step/end', { finishReason: 'tool-calls' })
  session.append('turn/end', { reason: 'completed' })
}

/** The complete lines of a log, parsed (a partial last line, written while full, is left out). */
function logLines(id: string): unknown[] {
  const text = fs.readFileSync(path.join(home, 'sessions', `${id}.jsonl`), 'utf8')
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

function eventsOf(session: Session): unknown[] {
  return JSON.parse(JSON.stringify(session.events))
}

async function until(condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe.skipIf(!mounted)('prove: the store on a full disk (a 1 MiB tmpfs; needs root on Linux)', () => {
  it('rejects flushes while full, drops nothing, and catches up by itself once space is freed', async () => {
    fs.mkdirSync(home)
    fs.writeFileSync(filler, Buffer.alloc(512 * 1024, 1)) // what the user deletes to make room
    const db = await JsonlStore.open({ dir: home, catalogDelayMs: 60_000 })
    const session = db.store.create('s', { meta: { cwd: '/' } })
    let acknowledged = 0
    let failure: unknown = null
    for (let n = 0; n < 1000 && failure === null; n++) {
      appendTurn(session, n)
      try {
        await db.flush('s')
        acknowledged = session.events.length
      } catch (error) {
        failure = error
      }
    }
    expect(failure).toMatchObject({ code: 'store-write-failed' })
    expect(acknowledged).toBeGreaterThan(0)
    // Still full: more turns and a fork are taken in memory, and none of their flushes resolves.
    appendTurn(session, 2000)
    const fork = db.store.fork(session, undefined, 'fork')
    appendTurn(fork, 3000)
    await expect(db.flush('s')).rejects.toMatchObject({ code: 'store-write-failed' })
    await expect(db.flush('fork')).rejects.toMatchObject({ code: 'store-write-failed' })
    expect(logLines('s').length).toBeLessThan(1 + session.events.length)

    // Space is freed: nobody flushes or reloads, and the store writes what was pending by itself.
    fs.rmSync(filler)
    await until(() => logLines('s').length === 1 + session.events.length)
    await until(() => fs.existsSync(path.join(home, 'sessions', 'fork.jsonl')) && logLines('fork').length > 1)
    await db.flush()
    expect(logLines('s').slice(1)).toEqual(eventsOf(session))
    const expected = { s: eventsOf(session), fork: eventsOf(fork) }
    await db.close()

    const again = await JsonlStore.open({ dir: home })
    for (const [id, events] of Object.entries(expected))
      expect(eventsOf(await again.load(id))).toEqual(events)
    await again.delete('fork')
    await again.delete('s')
    await again.close()
  })

  it('a catalog write that failed at shutdown (disk full) is not trusted: the next open lists what the logs hold', async () => {
    fs.rmSync(filler, { force: true })
    const first = await JsonlStore.open({ dir: home, catalogDelayMs: 60_000 })
    const session = first.store.create('c', { meta: { cwd: '/' } })
    for (let n = 0; n < 4; n++) appendTurn(session, n)
    const before = session.events.length
    await first.close()

    const second = await JsonlStore.open({ dir: home, catalogDelayMs: 60_000 })
    const loaded = await second.load('c')
    for (let n = 4; n < 10; n++) appendTurn(loaded, n)
    // More sessions, so the catalog's write at close needs more than the slack of a page it
    // already has (a small journal append could land there even on a full tmpfs).
    for (let n = 0; n < 20; n++)
      second.store.create(`c${n}`, { meta: { cwd: '/' } }).append('session/title', { title: `t${n}` })
    await second.flush() // the logs are durable…
    const after = loaded.events.length
    fillDisk(filler)
    await expect(second.close()).rejects.toMatchObject({ code: 'ENOSPC' }) // …its catalog is not
    fs.rmSync(filler)
    // The catalog files (snapshot and journal, a torn last line left out) miss some of it: a
    // journal append may have put its first records in before the disk refused the rest.
    expect(fs.existsSync(path.join(home, 'catalog.clean'))).toBe(false)
    const stored = new Map(readStoredCatalog(home)?.sessions.map((entry) => [entry.id, entry.eventCount]))
    const missed = ['c', ...Array.from({ length: 20 }, (_, n) => `c${n}`)].filter(
      (id) => stored.get(id) !== (id === 'c' ? after : 1),
    )
    expect(missed.length).toBeGreaterThan(0)
    expect(before).toBeLessThan(after)

    const third = await JsonlStore.open({ dir: home })
    expect(await third.get('c')).toMatchObject({ eventCount: after })
    expect(await third.get('c19')).toMatchObject({ title: 't19', eventCount: 1 })
    expect((await third.load('c')).events).toHaveLength(after)
    await third.close()
  })

  it('a writer cannot open on a full disk or a read-only file system: disk-full / store-write-failed, nothing left behind; a reader still reads', async () => {
    fs.rmSync(filler, { force: true })
    const leftovers = () => fs.readdirSync(home).filter((name) => name.startsWith('.lock'))
    fillDisk(filler)
    try {
      const full = await JsonlStore.open({ dir: home }).catch((error: unknown) => error)
      expect(full).toMatchObject({ code: 'disk-full', data: { path: home } })
      expect((full as Error).message).toContain('still work')
      expect(leftovers()).toEqual([]) // neither the lock nor its temporary file
      const reader = await JsonlStore.open({ dir: home, readOnly: true })
      expect((await reader.load('c')).events.length).toBeGreaterThan(0)
      await reader.close()
    } finally {
      fs.rmSync(filler)
    }
    execFileSync('mount', ['-o', 'remount,ro', mountPoint])
    try {
      const readOnly = await JsonlStore.open({ dir: home }).catch((error: unknown) => error)
      expect(readOnly).toMatchObject({ code: 'store-write-failed', data: { file: home } })
      expect((readOnly as Error).message).toContain('read-only file system')
      const reader = await JsonlStore.open({ dir: home, readOnly: true })
      expect((await reader.list()).length).toBeGreaterThan(0)
      await reader.close()
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint])
    }
    expect(leftovers()).toEqual([])
    await (await JsonlStore.open({ dir: home })).close() // writable again
  })
})
