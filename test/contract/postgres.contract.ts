// The session contract against the runtime on the PostgreSQL engine (docs/architecture.md §4):
// the same suite the JSONL runtime and the Host pass, with a fresh database per test on one
// throwaway server. The engine's own behaviour suite is test/contract/store.contract.ts.
import { inProcessApi, Runtime } from '@tangent/runtime'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '@tangent/store-postgres/test-support'
import pg from 'pg'
import { afterAll, beforeAll, describe } from 'vitest'
import { runSessionContract } from './session-contract.js'
import { runTeamsContract } from './teams-contract.js'

const pgMissing = !postgresAvailable()
if (pgMissing && process.env.CI) throw new Error('CI is set but the PostgreSQL server binaries are missing')

describe.skipIf(pgMissing)('contract: runtime in-process on PostgreSQL', () => {
  let server: TestPostgres
  let databases = 0
  /** The database of each data directory: opening it again reopens the same one. */
  const stores = new Map<string, string>()
  const query = async (home: string, sql: string, values: unknown[]) => {
    const client = new pg.Client({ connectionString: stores.get(home)! })
    await client.connect()
    try {
      await client.query(sql, values)
    } finally {
      await client.end()
    }
  }
  beforeAll(async () => {
    server = await startTestPostgres()
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })
  const openOn = async (
    {
      home,
      start,
      homeDir,
      demoDelayMs,
      fileSourceTimeoutMs,
      env = {},
    }: {
      home: string
      start: string
      homeDir: string
      demoDelayMs: number
      fileSourceTimeoutMs?: number
      env?: Record<string, string>
    },
    store: string,
    machine: string,
  ) => {
    const runtime = await Runtime.open({
      home,
      store,
      startFolder: start,
      homeDir,
      demoDelayMs,
      ...(fileSourceTimeoutMs !== undefined ? { fileSourceTimeoutMs } : {}),
      env: { ...env, TANGENT_MACHINE: machine },
      report: () => {},
    })
    return {
      api: inProcessApi(runtime),
      importTree: (
        tree: Parameters<Runtime['importTree']>[0],
        importOptions?: Parameters<Runtime['importTree']>[1],
      ) => runtime.importTree(tree, importOptions),
      home,
      start,
      homeDir,
      connect: async () => inProcessApi(runtime, { close: async () => {} }),
      close: () => runtime.close(),
    }
  }
  runSessionContract({
    open: async (opened) => {
      const store =
        stores.get(opened.home) ??
        (await server.createDatabase(`contract_${++databases}`, { migrated: true }))
      stores.set(opened.home, store)
      return openOn(opened, store, 'machine-a')
    },
    damage: (home) => ({
      async lose(id) {
        await query(home, 'DELETE FROM events WHERE session_id = $1', [id])
        await query(home, 'DELETE FROM sessions WHERE id = $1', [id])
      },
      async corrupt(id, seq) {
        await query(home, "UPDATE events SET line = '{not json' WHERE session_id = $1 AND seq = $2", [
          id,
          seq,
        ])
      },
    }),
  })
  runTeamsContract({
    newStore: () => server.createDatabase(`teams_${++databases}`, { migrated: true }),
    open: (opened, machine, store) => openOn(opened, store, machine),
  })
})
