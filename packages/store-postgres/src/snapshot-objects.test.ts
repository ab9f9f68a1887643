// The snapshot objects table (docs/architecture.md §4, "Where snapshot objects live"): objects
// stored once by id, batches of 10,000, a read-only store that reads only, and collect() keeping
// what any session's events or header name (through trees) and what is younger than its grace.
import { createHash } from 'node:crypto'
import type { SnapshotObject } from '@tangent/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PostgresStore, type PostgresStoreOptions } from './postgres-store.js'
import { parseTree } from './snapshot-objects.js'
import { postgresTestsRun, sql, startTestPostgres, type TestPostgres } from './test-support.js'

let server: TestPostgres
let databases = 0
const stores: PostgresStore[] = []

async function openStore(url: string, options: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url, leaseMs: 60_000, ...options })
  stores.push(store)
  return store
}

function objectOf(type: 'blob' | 'tree', data: Buffer): SnapshotObject {
  const id = createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex')
  return { id, type, data }
}

const blob = (text: string) => objectOf('blob', Buffer.from(text))

/** A git tree object of `entries` (name → object), directories first-class as mode 40000. */
function tree(entries: Record<string, SnapshotObject | { submodule: string }>): SnapshotObject {
  const parts: Buffer[] = []
  for (const name of Object.keys(entries).sort()) {
    const entry = entries[name]!
    const [mode, id] =
      'submodule' in entry
        ? ['160000', entry.submodule]
        : [entry.type === 'tree' ? '40000' : '100644', entry.id]
    parts.push(Buffer.from(`${mode} ${name}\0`), Buffer.from(id, 'hex'))
  }
  return objectOf('tree', Buffer.concat(parts))
}

async function ids(url: string): Promise<Set<string>> {
  return new Set((await sql<{ id: string }>(url, 'SELECT id FROM snapshot_objects')).map((row) => row.id))
}

async function age(url: string, minutes: number): Promise<void> {
  await sql(url, `UPDATE snapshot_objects SET touched_at = now() - make_interval(mins => $1)`, [minutes])
}

describe.skipIf(!postgresTestsRun('snapshot-objects.test.ts'))('PostgresStore.snapshotObjects', () => {
  beforeAll(async () => {
    server = await startTestPostgres()
  })
  afterAll(async () => {
    await server?.stop()
  })
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close().catch(() => undefined)
  })

  it('stores each object once by id: put is idempotent, has and get answer only what is held', async () => {
    const url = await server.createDatabase(`objects_${++databases}`)
    const store = await openStore(url)
    const objects = store.snapshotObjects
    const a = blob('a\n')
    const b = blob('b\n')
    const root = tree({ 'a.txt': a, 'b.txt': b })
    await objects.put([a, root])
    await objects.put([a, b, root, a])
    expect(await ids(url)).toEqual(new Set([a.id, b.id, root.id]))
    const unknown = 'f'.repeat(40)
    expect(await objects.has([a.id, unknown, 'not-an-id'])).toEqual(new Set([a.id]))
    const got = await objects.get([root.id, unknown, b.id])
    expect(got.map((object) => object.id).sort()).toEqual([root.id, b.id].sort())
    const gotRoot = got.find((object) => object.id === root.id)!
    expect(gotRoot.type).toBe('tree')
    expect(Buffer.from(gotRoot.data).equals(Buffer.from(root.data))).toBe(true)
    expect(parseTree(gotRoot.data).map((entry) => entry.name)).toEqual(['a.txt', 'b.txt'])
    expect(await objects.bytes()).toBe(a.data.byteLength + b.data.byteLength + root.data.byteLength)
    // Another Host sees them as they are.
    const other = await openStore(url)
    expect(await other.snapshotObjects.has([a.id, b.id, root.id])).toEqual(new Set([a.id, b.id, root.id]))
    await expect(objects.put([{ id: 'nope', type: 'blob', data: Buffer.from('') }])).rejects.toMatchObject({
      code: 'invalid-params',
    })
  })

  it('puts, finds and gets 10,000 objects in batches', async () => {
    const url = await server.createDatabase(`objects_${++databases}`)
    const store = await openStore(url)
    const many = Array.from({ length: 10_000 }, (_, i) => blob(`file ${i}\n`.repeat(1 + (i % 7))))
    await store.snapshotObjects.put(many)
    expect((await ids(url)).size).toBe(10_000)
    const wanted = many.map((object) => object.id)
    expect((await store.snapshotObjects.has(wanted)).size).toBe(10_000)
    const got = await store.snapshotObjects.get(wanted)
    expect(got).toHaveLength(10_000)
    const byId = new Map(got.map((object) => [object.id, object]))
    for (const object of many.slice(0, 500))
      expect(Buffer.from(byId.get(object.id)!.data).toString()).toBe(Buffer.from(object.data).toString())
    await store.snapshotObjects.put(many) // all held: nothing changes
    expect((await ids(url)).size).toBe(10_000)
  })

  it('a read-only store reads objects but stores and collects none', async () => {
    const url = await server.createDatabase(`objects_${++databases}`)
    const writer = await openStore(url)
    const a = blob('held\n')
    await writer.snapshotObjects.put([a])
    const reader = await openStore(url, { readOnly: true })
    expect(await reader.snapshotObjects.has([a.id])).toEqual(new Set([a.id]))
    expect((await reader.snapshotObjects.get([a.id]))[0]?.id).toBe(a.id)
    await expect(reader.snapshotObjects.put([blob('new\n')])).rejects.toMatchObject({
      code: 'store-read-only',
    })
    await expect(reader.snapshotObjects.collect()).rejects.toMatchObject({ code: 'store-read-only' })
    expect(await ids(url)).toEqual(new Set([a.id]))
  })

  it('collect keeps what events and headers name through trees, removes the unnamed and old, keeps the young', async () => {
    const url = await server.createDatabase(`objects_${++databases}`)
    const store = await openStore(url)
    // Named by a snapshot/taken event: root → src/ → a blob, and a submodule entry (not stored).
    const inSrc = blob('export {}\n')
    const src = tree({ 'index.ts': inSrc })
    const taken = tree({ src, 'top.txt': blob('top\n'), vendor: { submodule: 'c'.repeat(40) } })
    // Named by a header's baseTree, and by a files/restored event's undoTree.
    const based = tree({ 'base.txt': blob('base\n') })
    const undo = tree({ 'undo.txt': blob('undo\n') })
    // Named by nothing; one of them shares a blob with a named tree (the blob stays).
    const loose = blob('loose\n')
    const orphan = tree({ 'o.txt': blob('orphan\n'), 'index.ts': inSrc })
    const named = [inSrc, src, taken, blob('top\n'), based, blob('base\n'), undo, blob('undo\n')]
    await store.snapshotObjects.put([...named, loose, orphan, blob('orphan\n')])

    await store.claim('s1')
    const session = store.store.create('s1', { meta: { cwd: '/', baseTree: based.id } })
    session.append('snapshot/taken', { tree: taken.id, changed: [] })
    session.append('files/restored', {
      toSeq: 0,
      paths: ['undo.txt'],
      undoTree: undo.id,
      // Quoted inside a string, a tree is text, not a reference.
      note: JSON.stringify({ tree: orphan.id }),
    })
    await store.flush()

    // Young: nothing goes, named or not.
    const young = await store.snapshotObjects.collect()
    expect(young.removed).toBe(0)
    expect((await ids(url)).size).toBe(named.length + 3)

    await age(url, 60)
    const before = await store.snapshotObjects.bytes()
    const result = await store.snapshotObjects.collect()
    expect(result.removed).toBe(3)
    expect(await ids(url)).toEqual(new Set(named.map((object) => object.id)))
    expect(result.bytesBefore).toBe(before)
    expect(result.bytesAfter).toBe(await store.snapshotObjects.bytes())
    expect(result.bytesAfter).toBeLessThan(result.bytesBefore)

    // An object found again by has() (a Host about to record it) is young again.
    const again = blob('again\n')
    await store.snapshotObjects.put([again])
    await age(url, 60)
    expect(await store.snapshotObjects.has([again.id])).toEqual(new Set([again.id]))
    expect((await store.snapshotObjects.collect()).removed).toBe(0)
    expect((await ids(url)).has(again.id)).toBe(true)
  })
})
