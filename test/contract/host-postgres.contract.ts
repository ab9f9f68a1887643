// The teams-across-machines contract (teams-contract.ts) through real Hosts: two Hosts on one
// throwaway PostgreSQL server's database, each with its own data directory and TANGENT_MACHINE,
// reached over JSON-RPC on a WebSocket. (The whole session contract runs through a Host on JSONL
// in host.contract.ts and in-process on PostgreSQL in postgres.contract.ts.)
import { connectHostApi, startHost } from '@tangent/host'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '@tangent/store-postgres/test-support'
import { afterAll, beforeAll, describe } from 'vitest'
import { runTeamsContract } from './teams-contract.js'

const pgMissing = !postgresAvailable()
if (pgMissing && process.env.CI) throw new Error('CI is set but the PostgreSQL server binaries are missing')

describe.skipIf(pgMissing)('contract: Hosts over JSON-RPC on PostgreSQL', () => {
  let server: TestPostgres
  let databases = 0
  beforeAll(async () => {
    server = await startTestPostgres()
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })
  runTeamsContract({
    newStore: () => server.createDatabase(`host_teams_${++databases}`, { migrated: true }),
    open: async ({ home, start, homeDir, demoDelayMs }, machine, store) => {
      const host = await startHost({
        home,
        port: 0,
        handleSignals: false,
        defaultCwd: start,
        homeDir,
        demoDelayMs,
        env: { TANGENT_STORE: store, TANGENT_MACHINE: machine },
        log: () => {},
      })
      const api = await connectHostApi({ url: host.url, token: host.token })
      return {
        api,
        home,
        start,
        homeDir,
        connect: () => connectHostApi({ url: host.url, token: host.token }),
        close: async () => {
          await api.close()
          await host.close()
        },
      }
    },
  })
})
