// The catalog as a snapshot plus a journal (docs/architecture.md §4, issue 16): a change writes
// bytes in proportion to the change, whatever the number of sessions; a torn or damaged journal
// loses nothing the logs hold; a read-only open saves a catalog it rebuilt, once, and never
// over a writer's newer one.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { Catalog } from './catalog.js'
import { readStoredCatalog } from './catalog-format.js'
import { injectWriteFault } from './durable-fs.js'
import { JsonlStore } from './jsonl-store.js'
import type { StoreWarning } from './store-errors.js'
import { storePaths } from './store-paths.js'
import { appendTurn, removeTempDataDirs, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
async function openStore(
  dir: string,
  options: { readOnly?: boolean; now?: () => number; onWarning?: (warning: StoreWarning) => void } = {},
) {
  const db = await JsonlStore.open({ dir, ...options })
  open.push(db)
  return db
}
async function closeAll(): Promise<void> {
  for (const db of open.splice(0)) await db.close()
}
afterEach(async () => {
  injectWriteFault(null)
  await closeAll()
  removeTempDataDirs()
})

/** Bytes the store passes to write(2) for each file, through durable-fs's write seam. */
function countWrites(): Map<string, number> {
  const written = new Map<string, number>()
  injectWriteFault((file, bytes) => {
    written.set(path.basename(file), (written.get(path.basename(file)) ?? 0) + bytes)
    return null
  })
  return written
}

function total(written: Map<string, number>): number {
  return [...written.values()].reduce((sum, bytes) => sum + bytes, 0)
}

/** What the data directory gained: a new or replaced file whole, a file that grew its growth. */
function snapshotDir(dir: string): Map<string, { ino: number; size: number }> {
  const states = new Map<string, { ino: number; size: number }>()
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    const stats = fs.statSync(file)
    states.set(file, { ino: stats.ino, size: stats.size })
  }
  return states
}
function gained(before: ReturnType<typeof snapshotDir>, after: ReturnType<typeof snapshotDir>): number {
  let bytes = 0
  for (const [file, state] of after) {
    const old = before.get(file)
    bytes += !old || old.ino !== state.ino ? state.size : Math.max(0, state.size - old.size)
  }
  return bytes
}

/** `count` sessions written straight to disk (the ids all as long), then a catalog by a clean close. */
async function manySessions(count: number): Promise<string> {
  const dir = tempDataDir()
  const sessions = path.join(dir, 'sessions')
  fs.mkdirSync(sessions, { mode: 0o700 })
  for (let i = 0; i < count; i++) {
    const id = `s-${String(i).padStart(5, '0')}`
    const header = {
      type: 'session',
      version: 1,
      id,
      createdAt: 1000 + i,
      cwd: '/w',
      inheritedEventCount: 0,
      seed: 'inline',
      origin: 'user',
    }
    const title = { seq: 0, time: 1000 + i, type: 'session/title', data: { title: `session ${id}` } }
    fs.writeFileSync(
      path.join(sessions, `${id}.jsonl`),
      `${JSON.stringify(header)}\n${JSON.stringify(title)}\n`,
      {
        mode: 0o600,
      },
    )
  }
  await (await JsonlStore.open({ dir })).close()
  return dir
}

/** One change by a writer's whole life, then a read-only listing: the bytes both wrote. */
async function bytesOf(dir: string, change: (db: JsonlStore) => Promise<void>) {
  const before = snapshotDir(dir)
  const written = countWrites()
  const db = await JsonlStore.open({ dir, now: () => 5_000_000 })
  await change(db)
  await db.close()
  const reader = await JsonlStore.open({ dir, readOnly: true })
  const listed = await reader.list()
  await reader.close()
  injectWriteFault(null)
  return {
    seam: total(written),
    files: [...written.keys()].sort(),
    gained: gained(before, snapshotDir(dir)),
    listed,
  }
}

describe('catalog journal: what a change writes', () => {
  it('a fork, a rename and an archive each write the same few bytes in a store of 100 or 2,000 sessions', async () => {
    const results: Record<string, Awaited<ReturnType<typeof bytesOf>>>[] = []
    for (const count of [100, 2000]) {
      const dir = await manySessions(count)
      const catalogBytes = fs.statSync(path.join(dir, 'catalog.json')).size
      const fork = await bytesOf(dir, async (db) => {
        db.store.fork(await db.load('s-00042'), undefined, 'fork-00001')
      })
      const rename = await bytesOf(dir, async (db) => {
        ;(await db.load('s-00007')).append('session/title', { title: 'renamed' })
      })
      const archive = await bytesOf(dir, async (db) => {
        await db.setArchived('s-00009', true)
      })
      expect(fork.listed.find((entry) => entry.id === 'fork-00001')).toMatchObject({
        parentSession: 's-00042',
      })
      expect(rename.listed.find((entry) => entry.id === 's-00007')).toMatchObject({ title: 'renamed' })
      expect(archive.listed.find((entry) => entry.id === 's-00009')).toMatchObject({ archived: true })
      expect(fork.listed).toHaveLength(count + 1)
      // Neither the snapshot nor anything else of the catalog's size is written.
      for (const result of [fork, rename, archive]) {
        expect(result.files).not.toContain('catalog.json')
        expect(result.seam).toBeLessThan(Math.min(4096, catalogBytes / 4))
        expect(result.gained).toBeLessThanOrEqual(result.seam)
      }
      results.push({ fork, rename, archive })
    }
    // Independent of the number of sessions: byte for byte the same.
    for (const what of ['fork', 'rename', 'archive'])
      expect([what, results[1]![what]!.seam, results[1]![what]!.gained]).toEqual([
        what,
        results[0]![what]!.seam,
        results[0]![what]!.gained,
      ])
  })

  it('the journal is folded into a new snapshot once it outgrows half of it: the bytes stay in proportion to the changes', async () => {
    const dir = await manySessions(300)
    const snapshotBytes = fs.statSync(path.join(dir, 'catalog.json')).size
    const journal = path.join(dir, 'catalog.journal')
    const written = countWrites()
    const db = await openStore(dir)
    let sizes = 0
    let folded = 0
    let previous = 0
    for (let i = 0; i < 400; i++) {
      await db.setArchived(`s-${String(i % 300).padStart(5, '0')}`, i < 300) // written at once
      const size = fs.existsSync(journal) ? fs.statSync(journal).size : 0
      if (size < previous) folded++
      expect(size).toBeLessThanOrEqual(Math.max(64 * 1024, snapshotBytes / 2))
      previous = size
      sizes += size
    }
    expect(folded).toBeGreaterThan(0)
    expect(sizes).toBeGreaterThan(0)
    // Each fold writes one snapshot; the records written are ~400 small ones.
    const snapshots = written.get('catalog.json') ?? 0
    expect(snapshots / snapshotBytes).toBeLessThanOrEqual(folded + 1)
    expect(total(written)).toBeLessThan(3 * (written.get('catalog.journal') ?? 0) + 2 * snapshotBytes)
    await db.close()
    open.splice(0)
    const reader = await openStore(dir, { readOnly: true })
    const archived = (await reader.list()).filter((entry) => entry.archived).map((entry) => entry.id)
    // Archived once each, then the first 100 unarchived again.
    expect(archived).toEqual(Array.from({ length: 200 }, (_, i) => `s-${String(i + 100).padStart(5, '0')}`))
  })
})

/** A small store whose catalog is a snapshot plus a journal of several records, closed cleanly. */
async function storeWithJournal(): Promise<{ dir: string; expected: unknown[] }> {
  const dir = tempDataDir()
  let clock = 1000
  const db = await JsonlStore.open({ dir, now: () => clock++ })
  const a = db.store.create('a', { meta: { cwd: '/w' } })
  a.append('session/title', { title: 'A' })
  appendTurn(a, 'one')
  await db.close()
  const again = await JsonlStore.open({ dir, now: () => clock++ })
  const b = again.store.fork(await again.load('a'), undefined, 'b')
  appendTurn(b, 'two')
  again.store.create('c', { meta: { cwd: '/x' } }).append('session/title', { title: 'C' })
  await again.setArchived('a', true) // writes the records so far
  b.append('session/title', { title: 'B' }) // the last record: only the log and that line know it
  await again.close()
  expect(fs.readFileSync(path.join(dir, 'catalog.journal'), 'utf8').split('\n').length).toBeGreaterThan(3)
  const reader = await JsonlStore.open({ dir, readOnly: true })
  const expected = summary(await reader.list())
  await reader.close()
  return { dir, expected }
}

function summary(entries: { id: string; title: string | null; eventCount: number; archived: boolean }[]) {
  return entries.map((entry) => [entry.id, entry.title, entry.eventCount, entry.archived])
}

function copyDir(from: string): string {
  const to = tempDataDir()
  fs.cpSync(from, to, { recursive: true })
  return to
}

describe('catalog journal: crashes and damage', () => {
  it('a journal torn at any byte of its last record: every listing is what the logs hold, and nothing is appended after the torn line', async () => {
    const { dir, expected } = await storeWithJournal()
    const text = fs.readFileSync(path.join(dir, 'catalog.journal'), 'utf8')
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1
    const cuts = new Set([lastStart, lastStart + 1, text.length - 1])
    for (let cut = lastStart + 1; cut < text.length; cut += 97) cuts.add(cut)
    for (const cut of cuts) {
      const copy = copyDir(dir)
      fs.truncateSync(path.join(copy, 'catalog.journal'), Buffer.byteLength(text.slice(0, cut)))
      // A crash between two whole records leaves no catalog.clean (the close never ran); within
      // a record it is kept here, the harder case: the torn line alone must not be trusted.
      if (cut === lastStart) fs.rmSync(path.join(copy, 'catalog.clean'))
      const warnings: StoreWarning[] = []
      const reader = await JsonlStore.open({ dir: copy, readOnly: true, onWarning: (w) => warnings.push(w) })
      expect(summary(await reader.list()), `cut at ${cut}`).toEqual(expected)
      await reader.close()
      const writer = await JsonlStore.open({ dir: copy, onWarning: (w) => warnings.push(w) })
      expect(summary(await writer.list())).toEqual(expected)
      await writer.close()
      expect(warnings).toEqual([]) // a torn last line is a crash's trace, not damage
      // Nothing is appended after the torn line (it would merge with it into a damaged line):
      // the next change is read back, and nobody warns.
      const next = await JsonlStore.open({ dir: copy, onWarning: (w) => warnings.push(w) })
      ;(await next.load('c')).append('session/title', { title: 'C3' })
      await next.close()
      const after = await JsonlStore.open({ dir: copy, readOnly: true, onWarning: (w) => warnings.push(w) })
      expect(summary(await after.list())).toEqual(
        expected.map((row) => ((row as unknown[])[0] === 'c' ? ['c', 'C3', 2, false] : row)),
      )
      expect(readStoredCatalog(copy)?.sessions.find((record) => record.id === 'c')?.title).toBe('C3')
      await after.close()
      expect(warnings).toEqual([])
    }
  })

  it('garbage in a middle line of the journal: said, and the listing is still what the logs hold', async () => {
    const { dir, expected } = await storeWithJournal()
    const file = path.join(dir, 'catalog.journal')
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    lines[2] = '{"set":{"id":"b","title":5}}'
    fs.writeFileSync(file, lines.join('\n'))
    const warnings: StoreWarning[] = []
    const db = await openStore(dir, { onWarning: (w) => warnings.push(w) })
    expect(summary(await db.list())).toEqual(expected)
    expect(warnings).toEqual([
      expect.objectContaining({ kind: 'catalog-rebuilt', message: expect.stringContaining('line 3') }),
    ])
  })

  it('a journal of an older snapshot (a crash between writing a snapshot and removing the journal) is ignored', async () => {
    const { dir, expected } = await storeWithJournal()
    const journal = path.join(dir, 'catalog.journal')
    const old = fs.readFileSync(journal)
    // A fold: the next writer's first change writes a snapshot (the old journal was its only copy of nothing).
    const db = await openStore(dir)
    await db.delete('c')
    await db.setArchived('a', false) // …and a record the old journal says otherwise
    await db.close()
    open.splice(0)
    fs.writeFileSync(journal, old) // the old journal back, as if its removal never reached the disk
    const reader = await openStore(dir, { readOnly: true })
    const now = summary(await reader.list())
    expect(now).toEqual(
      expected
        .filter((row) => (row as string[])[0] !== 'c')
        .map((row) => {
          const copy = [...(row as unknown[])]
          copy[3] = false
          return copy
        }),
    )
  })

  it('a snapshot replaced behind a writer (a reader saving a rebuild): the writer writes a snapshot, not a journal the new one ignores', async () => {
    const { dir } = await storeWithJournal()
    const db = await openStore(dir)
    ;(await db.load('c')).append('session/title', { title: 'C2' })
    // Another process renames a snapshot of its own (another token, without this change) in.
    const stale = readStoredCatalog(dir)!
    const file = path.join(dir, 'catalog.json')
    fs.writeFileSync(`${file}.other`, JSON.stringify({ version: 2, token: 'other', ...stale }))
    fs.renameSync(`${file}.other`, file)
    await db.close()
    open.splice(0)
    expect(readStoredCatalog(dir)?.sessions.find((record) => record.id === 'c')?.title).toBe('C2')
    const reader = await openStore(dir, { readOnly: true })
    expect(await reader.get('c')).toMatchObject({ title: 'C2' })
  })
})

describe('catalog journal: a read-only open saves what it rebuilt', () => {
  it('saves a rebuilt catalog once; the next reader reads it and writes nothing', async () => {
    const { dir, expected } = await storeWithJournal()
    fs.rmSync(path.join(dir, 'catalog.json'))
    const written = countWrites()
    const first = await openStore(dir, { readOnly: true })
    expect(summary(await first.list())).toEqual(expected)
    expect([...written.keys()]).toEqual(['catalog.json'])
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8'))).toMatchObject({ version: 2 })
    written.clear()
    const second = await openStore(dir, { readOnly: true })
    expect(summary(await second.list())).toEqual(expected)
    expect(await second.list()).toEqual(await first.list())
    expect(total(written)).toBe(0)
    expect(fs.readdirSync(dir).filter((name) => name.includes('.tmp-'))).toEqual([])
  })

  it('a reader that only loads never reads the catalog; its first list reads it, warns and saves it', async () => {
    const { dir, expected } = await storeWithJournal()
    const file = path.join(dir, 'catalog.json')
    fs.writeFileSync(file, '{"version":2,"tok') // damaged: rebuilt from the logs (no warning)
    const fifo = path.join(dir, 'sessions', 'X.jsonl') // the catalog's read says it skips this
    execFileSync('mkfifo', [fifo])
    const warnings: StoreWarning[] = []
    const written = countWrites()
    const reader = await openStore(dir, { readOnly: true, onWarning: (warning) => warnings.push(warning) })
    const b = await reader.load('b') // a fork: its prefix is read from a's log
    expect(b.events.map((event) => event.type).slice(0, 2)).toEqual(['session/title', 'turn/start'])
    expect(b.title).toBe('B')
    await expect(reader.load('nope')).rejects.toMatchObject({ code: 'session-not-found' })
    expect(warnings).toEqual([])
    expect(total(written)).toBe(0)
    expect(fs.readFileSync(file, 'utf8')).toBe('{"version":2,"tok')
    expect(summary(await reader.list())).toEqual(expected)
    expect(warnings.map((warning) => [warning.kind, warning.file])).toEqual([['skipped-file', fifo]])
    expect(reader.damaged()).toEqual(['X'])
    expect([...written.keys()]).toEqual(['catalog.json'])
    expect(
      readStoredCatalog(dir)
        ?.sessions.map((record) => record.id)
        .sort(),
    ).toEqual(['a', 'b', 'c'])
  })

  it('a catalog that is current is not saved again: readers after a crash write nothing, however often', async () => {
    const { dir, expected } = await storeWithJournal()
    // A writer crashed (no catalog.clean; its lock removed by hand) and left a torn tail behind.
    fs.rmSync(path.join(dir, 'catalog.clean'))
    fs.appendFileSync(path.join(dir, 'sessions', 'b.jsonl'), '{"seq":99,"ty')
    const written = countWrites()
    for (let i = 0; i < 2; i++) {
      const reader = await openStore(dir, { readOnly: true })
      expect(summary(await reader.list())).toEqual(expected)
      await closeAll()
    }
    expect(total(written)).toBe(0)
  })

  it('never while a writer holds the lock', async () => {
    const { dir, expected } = await storeWithJournal()
    const writer = await openStore(dir)
    fs.rmSync(path.join(dir, 'catalog.json'))
    const written = countWrites()
    const reader = await openStore(dir, { readOnly: true })
    expect(summary(await reader.list())).toEqual(expected)
    expect(total(written)).toBe(0)
    expect(fs.existsSync(path.join(dir, 'catalog.json'))).toBe(false)
    await writer.close()
  })

  it('never over a catalog a writer changed after the reader read it (the generation check)', async () => {
    const { dir } = await storeWithJournal()
    fs.rmSync(path.join(dir, 'catalog.json'))
    const paths = storePaths(dir)
    const stale = await Catalog.open(paths, { verifySizes: true }) // a reader's rebuild, not saved yet
    const writer = await openStore(dir)
    writer.store.create('d', { meta: { cwd: '/' } })
    await writer.close()
    open.splice(0)
    expect(await stale.saveSnapshot(paths, () => true)).toBe(false)
    expect(readStoredCatalog(dir)?.sessions.map((record) => record.id)).toContain('d')
    expect(fs.readdirSync(dir).filter((name) => name.includes('.tmp-'))).toEqual([])
  })
})

describe('catalog: a data directory written by commit 88184bf (catalog.json version 1)', () => {
  const fixture = fileURLToPath(new URL('../../../test/fixtures/store-88184bf', import.meta.url))
  const original = [
    ['s-alpha', 'Alpha', 8, false],
    ['s-beta', 'Beta fork', 15, false],
    ['s-gamma', 'Gamma', 6, true],
    ['s-delta', 'Alpha', 8, false],
  ]

  function copyFixture(): string {
    const dir = copyDir(fixture)
    // git keeps no modes: make it as private as the store made it.
    for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
      fs.chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600)
    fs.chmodSync(dir, 0o700)
    return dir
  }

  for (const clean of [true, false])
    it(`reads, lists and loads it as it is, then migrates and continues it (${clean ? 'closed cleanly' : 'catalog.clean missing'})`, async () => {
      const dir = copyFixture()
      if (!clean) fs.rmSync(path.join(dir, 'catalog.clean'))
      const catalogText = fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8')
      expect(JSON.parse(catalogText)).toMatchObject({ version: 1 })
      const warnings: StoreWarning[] = []
      const reader = await openStore(dir, { readOnly: true })
      expect(summary(await reader.list())).toEqual(original)
      expect(await reader.get('s-delta')).toMatchObject({
        parentSession: 's-beta',
        forkedAt: 7,
        inheritedEventCount: 8,
      })
      expect((await reader.load('s-delta')).events).toHaveLength(8)
      expect((await reader.load('s-beta')).events.at(-1)).toMatchObject({ type: 'session/title' })
      expect(fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8')).toBe(catalogText) // unchanged
      await closeAll()

      let clock = 1_767_000_100_000
      const writer = await JsonlStore.open({ dir, now: () => clock++, onWarning: (w) => warnings.push(w) })
      open.push(writer)
      expect(summary(await writer.list())).toEqual(original)
      const beta = await writer.load('s-beta')
      appendTurn(beta, 'more')
      const fork = writer.store.fork(beta, undefined, 's-epsilon')
      fork.append('session/title', { title: 'Epsilon' })
      await writer.setArchived('s-gamma', false)
      await writer.delete('s-alpha') // s-beta reads its prefix from it: it is rewritten inline first
      await closeAll()
      expect(warnings).toEqual([])
      const migrated = JSON.parse(fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8'))
      expect(migrated).toMatchObject({ version: 2, token: expect.any(String) })

      const after = [
        ['s-beta', 'Beta fork', beta.events.length, false],
        ['s-gamma', 'Gamma', 6, false],
        ['s-delta', 'Alpha', 8, false],
        ['s-epsilon', 'Epsilon', beta.events.length + 1, false],
      ]
      const again = await openStore(dir, { readOnly: true })
      expect(summary(await again.list())).toEqual(after)
      expect((await again.load('s-delta')).events).toHaveLength(8)
      expect((await again.load('s-epsilon')).events).toHaveLength(beta.events.length + 1)
      await closeAll()
      // And the same from the logs alone.
      fs.rmSync(path.join(dir, 'catalog.json'))
      const rebuilt = await openStore(dir, { readOnly: true })
      expect(summary(await rebuilt.list())).toEqual(after)
    })
})
