// Snapshot objects in PostgreSQL (docs/architecture.md §4, "Where snapshot objects live"): what a
// snapshot of the generated 10,000-file project adds to the database — the first one, an unchanged
// one (nothing), one file changed (its blob and the trees on its path) — each timed against the
// same snapshot without a database (JSONL) in the same run; and fetching the whole tree into a
// data directory that never saw the project.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { FileState } from '@tangent/files'
import { PostgresStore } from '@tangent/store-postgres'
import { startTestPostgres } from '@tangent/store-postgres/test-support'
import pg from 'pg'
import { generateProject, projectFile, projectFileCount } from './git-project.js'
import { type BenchRow, type BenchSuite, median } from './table.js'

async function ms<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint()
  const value = await fn()
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value }
}

interface Stored {
  objects: number
  bytes: number
}

async function stored(client: pg.Client): Promise<Stored> {
  const { rows } = await client.query<{ objects: string; bytes: string }>(
    'SELECT count(*)::bigint AS objects, coalesce(sum(bytes), 0)::bigint AS bytes FROM snapshot_objects',
  )
  return { objects: Number(rows[0]?.objects ?? 0), bytes: Number(rows[0]?.bytes ?? 0) }
}

function added(after: Stored, before: Stored): Record<string, string | number> {
  return {
    'objects added': after.objects - before.objects,
    'bytes added (data)': (after.bytes - before.bytes).toLocaleString('en'),
  }
}

export const suite: BenchSuite = {
  title: `Snapshot objects in PostgreSQL, ${projectFileCount.toLocaleString('en')}-file project (baseline: the same snapshot without a database)`,
  async run(): Promise<BenchRow[]> {
    const root = mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-objects-'))
    const server = await startTestPostgres({ durable: true })
    const url = await server.createDatabase('bench_objects')
    const store = await PostgresStore.open({ url })
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const cwd = await generateProject(root)
      const plain = new FileState({ home: path.join(root, 'home-plain') })
      const shared = new FileState({ home: path.join(root, 'home-a'), objects: store.snapshotObjects })
      const rows: BenchRow[] = []

      const plainFirst = await ms(() => plain.snapshot(cwd))
      const empty = await stored(client)
      const first = await ms(() => shared.snapshot(cwd))
      const afterFirst = await stored(client)
      rows.push({
        name: 'first snapshot',
        medianMs: first.ms,
        baseline: { name: 'without database', medianMs: plainFirst.ms },
        extra: added(afterFirst, empty),
      })

      const unchanged: number[] = []
      const plainUnchanged: number[] = []
      for (let i = 0; i < 7; i++) {
        plainUnchanged.push((await ms(() => plain.snapshot(cwd))).ms)
        unchanged.push((await ms(() => shared.snapshot(cwd))).ms)
      }
      const afterUnchanged = await stored(client)
      rows.push({
        name: 'unchanged re-snapshot',
        medianMs: median(unchanged),
        baseline: { name: 'without database', medianMs: median(plainUnchanged) },
        extra: added(afterUnchanged, afterFirst),
        target: { text: '0 bytes added', met: afterUnchanged.bytes === afterFirst.bytes },
      })

      const changed: number[] = []
      const plainChanged: number[] = []
      let perChange: Record<string, string | number> = {}
      for (let i = 0; i < 7; i++) {
        const file = path.join(cwd, projectFile(i * 997))
        writeFileSync(file, `export const changed${i} = ${i}\n`)
        plainChanged.push((await ms(() => plain.snapshot(cwd))).ms)
        const before = await stored(client)
        changed.push((await ms(() => shared.snapshot(cwd))).ms)
        perChange = added(await stored(client), before)
      }
      rows.push({
        name: 'one file changed',
        medianMs: median(changed),
        baseline: { name: 'without database', medianMs: median(plainChanged) },
        extra: perChange,
        target: {
          text: '1 blob + 4 trees (root, src, module, part)',
          met: perChange['objects added'] === 5,
        },
      })

      const tree = (await shared.snapshot(cwd)).tree
      const elsewhere = new FileState({ home: path.join(root, 'home-b'), objects: store.snapshotObjects })
      const fetched = await ms(() => elsewhere.ensureTrees([tree]))
      const copied = await ms(() => elsewhere.createWorktree({ cwd: null, tree, sessionId: 'bench-copy' }))
      const { rows: size } = await client.query<{ size: string }>(
        "SELECT pg_total_relation_size('snapshot_objects')::bigint AS size",
      )
      const total = await stored(client)
      rows.push({
        name: 'fetch the tree into another data directory (ensureTrees)',
        medianMs: fetched.ms,
        baseline: { name: 'then copy it out (createWorktree cwd null)', medianMs: copied.ms },
        extra: {
          'objects added': 0,
          'bytes added (data)': 0,
          'table in all': `${total.objects.toLocaleString('en')} objects, ${total.bytes.toLocaleString('en')} B data, ${Number(size[0]?.size ?? 0).toLocaleString('en')} B on disk`,
        },
      })
      return rows
    } finally {
      await client.end().catch(() => undefined)
      await store.close().catch(() => undefined)
      await server.stop()
      rmSync(root, { recursive: true, force: true })
    }
  },
}
