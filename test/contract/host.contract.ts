// The session contract against a real Host: JSON-RPC over a WebSocket on loopback.
import { connectHostApi, startHost } from '@tangent/host'
import { describe } from 'vitest'
import { runSessionContract } from './session-contract.js'

describe('contract: Host over JSON-RPC', () => {
  runSessionContract({
    open: async ({ home, start, homeDir, demoDelayMs }) => {
      const host = await startHost({
        home,
        port: 0,
        handleSignals: false,
        defaultCwd: start,
        homeDir,
        demoDelayMs,
        env: {},
        log: () => {},
      })
      const api = await connectHostApi({ url: host.url, token: host.token })
      return {
        api,
        home,
        start,
        homeDir,
        close: async () => {
          await api.close()
          await host.close()
        },
      }
    },
  })
})
