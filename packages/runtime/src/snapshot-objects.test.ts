// Files travel through the PostgreSQL store (docs/architecture.md §4, "Where snapshot objects
// live"): a session's turns on machine A (its own TANGENT_HOME) record trees whose objects are in
// the database before the events are; machine B, which never saw the project and whose data
// directory is another, compares and copies those trees after A is gone.
import fs from 'node:fs'
import path from 'node:path'
import {
  postgresAvailable,
  sql,
  startTestPostgres,
  type TestPostgres,
} from '@tangent/store-postgres/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateSessions } from './migrate.js'
import { Runtime } from './runtime.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-objects-')

const pgMissing = !postgresAvailable()
if (pgMissing && process.env.CI) throw new Error('CI is set but the PostgreSQL server binaries are missing')

function treesOf(events: readonly { type: string; data: unknown }[]): string[] {
  return events
    .filter((event) => event.type === 'snapshot/taken')
    .map((event) => (event.data as { tree: string }).tree)
}

describe.skipIf(pgMissing)('snapshot objects through PostgreSQL', () => {
  let server: TestPostgres
  beforeAll(async () => {
    server = await startTestPostgres()
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('machine B diffs and copies the trees machine A recorded, A gone; the JSONL engine keeps none in a database', async () => {
    const url = await server.createDatabase('objects_two_machines')
    const project = temp()
    fs.writeFileSync(path.join(project, 'keep.txt'), 'kept\n')
    const a = await Runtime.open({ home: temp(), startFolder: project, env: {}, store: url })
    let sessionId: string
    let trees: string[] = []
    try {
      const session = await a.createSession({ title: 'on A' })
      sessionId = session.id
      await a.prompt({ sessionId, text: 'write a.txt: one' })
      await a.prompt({ sessionId, text: 'write a.txt: two' })
    } finally {
      await a.close()
    }
    // A is gone, and so is its data directory's copy of the project.
    fs.rmSync(project, { recursive: true, force: true })

    const b = await Runtime.open({ home: temp(), startFolder: temp(), env: {}, store: url })
    try {
      const { events } = await b.getSession({ sessionId })
      trees = [...new Set(treesOf(events))]
      expect(trees.length).toBeGreaterThanOrEqual(2)
      const files = await b.fileState()
      const first = trees[0]!
      const last = trees.at(-1)!
      const diffs = await files.diffTrees(first, last)
      expect(diffs.map((diff) => diff.path)).toContain('a.txt')
      expect((await files.readFile(last, 'a.txt'))?.toString()).toBe('two\n')
      const copy = await files.createWorktree({ cwd: null, tree: last, sessionId: 'copied-on-b' })
      expect(fs.readFileSync(path.join(copy.path, 'a.txt'), 'utf8')).toBe('two\n')
      expect(fs.readFileSync(path.join(copy.path, 'keep.txt'), 'utf8')).toBe('kept\n')

      // Collected with no grace left: everything the session names stays.
      await sql(url, "UPDATE snapshot_objects SET touched_at = now() - interval '1 hour'")
      const gc = await files.gc()
      expect(gc.objects?.removed).toBe(0)
      const held = await sql<{ id: string }>(url, 'SELECT id FROM snapshot_objects WHERE id = ANY($1)', [
        trees,
      ])
      expect(new Set(held.map((row) => row.id))).toEqual(new Set(trees))
    } finally {
      await b.close()
    }

    // The JSONL engine has no database to fetch from: another data directory's trees stay unavailable.
    const jsonl = await Runtime.open({ home: temp(), startFolder: temp(), env: {} })
    try {
      const files = await jsonl.fileState()
      await files.ensureTrees(trees)
      await expect(files.diffTrees(null, trees[0]!)).rejects.toMatchObject({ code: 'snapshot-unavailable' })
    } finally {
      await jsonl.close()
    }
  })

  it('tangent migrate from a data directory stores the trees its sessions name: another machine forks them with files', async () => {
    const url = await server.createDatabase('objects_migrate')
    const home = temp()
    const project = temp()
    const local = await Runtime.open({ home, startFolder: project, env: {} })
    let sessionId: string
    try {
      sessionId = (await local.createSession({ title: 'local' })).id
      await local.prompt({ sessionId, text: 'write notes.txt: from the laptop' })
    } finally {
      await local.close()
    }
    const result = await migrateSessions({ from: home, to: url, machine: 'laptop' })
    expect(result.copied).toEqual([sessionId])
    expect(result.trees?.uploaded).toBeGreaterThan(0)
    expect(result.trees?.missing).toEqual([])
    // The laptop and its project are gone; machine B forks the session with its files.
    fs.rmSync(project, { recursive: true, force: true })
    fs.rmSync(home, { recursive: true, force: true })
    const b = await Runtime.open({
      home: temp(),
      startFolder: temp(),
      env: { TANGENT_MACHINE: 'desk' },
      store: url,
    })
    try {
      const fork = await b.fork({ sessionId, files: 'worktree' })
      expect(fork.session.files).toMatchObject({ mode: 'worktree', machine: 'desk' })
      expect(fs.readFileSync(path.join(fork.session.cwd, 'notes.txt'), 'utf8')).toBe('from the laptop\n')
    } finally {
      await b.close()
    }
  })
})
