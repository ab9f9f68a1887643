// tangent migrate's engine (docs/architecture.md §4): sessions copied between stores keep their
// events, lineage, fork points (forks written by reference) and archive flags; a second run skips
// what is there. JSONL → JSONL always; JSONL → PostgreSQL → JSONL against a throwaway server.
import fs from 'node:fs'
import path from 'node:path'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '@tangent/store-postgres/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateSessions } from './migrate.js'
import { Runtime } from './runtime.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-migrate-')

/** A root with two turns, a fork at its first turn with one more, a fork of the fork, one archived. */
async function makeSessions(home: string, start: string, store?: string) {
  const runtime = await Runtime.open({ home, startFolder: start, env: {}, ...(store ? { store } : {}) })
  try {
    const root = await runtime.createSession({ title: 'root' })
    await runtime.prompt({ sessionId: root.id, text: 'write a.txt: one' })
    await runtime.prompt({ sessionId: root.id, text: 'write a.txt: two' })
    const events = (await runtime.getSession({ sessionId: root.id })).events
    const firstEnd = events.find((event) => event.type === 'turn/end')!.seq
    const fork = (await runtime.fork({ sessionId: root.id, atSeq: firstEnd, title: 'fork' })).session
    await runtime.prompt({ sessionId: fork.id, text: 'write b.txt: three' })
    const grandchild = (await runtime.fork({ sessionId: fork.id, title: 'grandchild' })).session
    await runtime.setArchived({ sessionId: grandchild.id, archived: true })
    return { root: root.id, fork: fork.id, grandchild: grandchild.id, forkedAt: firstEnd }
  } finally {
    await runtime.close()
  }
}

async function snapshotOf(home: string, start: string, store?: string) {
  const runtime = await Runtime.open({
    home,
    startFolder: start,
    env: {},
    readOnly: true,
    ...(store ? { store } : {}),
  })
  try {
    const sessions = await runtime.listSessions({ includeArchived: true })
    const result: Record<string, unknown> = {}
    for (const summary of sessions) {
      const { events } = await runtime.getSession({ sessionId: summary.id })
      result[summary.id] = {
        title: summary.title,
        parentSession: summary.parentSession,
        forkedAt: summary.forkedAt,
        archived: summary.archived,
        eventCount: summary.eventCount,
        inheritedEventCount: summary.inheritedEventCount,
        createdAt: summary.createdAt,
        events: JSON.parse(JSON.stringify(events)),
      }
    }
    return result
  } finally {
    await runtime.close()
  }
}

describe('migrateSessions between data directories', () => {
  it('copies every session with lineage, fork points and archive flags; forks by reference; a rerun skips them', async () => {
    const start = temp()
    const from = temp()
    const to = temp()
    const ids = await makeSessions(from, start)
    const result = await migrateSessions({ from, to })
    expect(result.copied).toEqual([ids.root, ids.fork, ids.grandchild])
    expect(result.forks).toEqual([ids.fork, ids.grandchild])
    expect(await snapshotOf(to, start)).toEqual(await snapshotOf(from, start))
    // By reference: the fork's log holds its own events only (its header points into the parent's).
    const forkLog = fs
      .readFileSync(path.join(to, 'sessions', `${ids.fork}.jsonl`), 'utf8')
      .trim()
      .split('\n')
    expect(JSON.parse(forkLog[0]!)).toMatchObject({
      seed: 'ref',
      parentSession: ids.root,
      forkedAt: ids.forkedAt,
    })
    const again = await migrateSessions({ from, to })
    expect(again.copied).toEqual([])
    expect(again.skipped.map((skip) => skip.reason)).toEqual(Array(3).fill('already in the target'))
  })

  it('copies one session with its ancestors, and names an unknown id', async () => {
    const start = temp()
    const from = temp()
    const to = temp()
    const ids = await makeSessions(from, start)
    const result = await migrateSessions({ from, to, ids: [ids.fork] })
    expect(result.copied).toEqual([ids.root, ids.fork])
    await expect(migrateSessions({ from, to, ids: ['nope'] })).rejects.toMatchObject({
      code: 'session-not-found',
    })
  })
})

const pgMissing = !postgresAvailable()
if (pgMissing && process.env.CI) throw new Error('CI is set but the PostgreSQL server binaries are missing')

describe.skipIf(pgMissing)('migrateSessions through PostgreSQL', () => {
  let server: TestPostgres
  beforeAll(async () => {
    server = await startTestPostgres()
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('JSONL → PostgreSQL → JSONL gives back the same sessions', async () => {
    const start = temp()
    const from = temp()
    const back = temp()
    await makeSessions(from, start)
    const url = await server.createDatabase('migrate_roundtrip')
    const there = await migrateSessions({ from, to: url, machine: 'laptop' })
    expect(there.copied).toHaveLength(3)
    expect(await snapshotOf(temp(), start, url)).toEqual(await snapshotOf(from, start))
    await migrateSessions({ from: url, to: back })
    expect(await snapshotOf(back, start)).toEqual(await snapshotOf(from, start))
  })
})
