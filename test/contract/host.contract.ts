// The session contract against a real Host: JSON-RPC over a WebSocket on loopback.
import { connectHostApi, startHost } from '@tangent/host'
import { describe } from 'vitest'
import { runSessionContract } from './session-contract.js'

describe('contract: Host over JSON-RPC', () => {
  runSessionContract({
    open: async ({ home, start, homeDir, demoDelayMs, fileSourceTimeoutMs, env }) => {
      const host = await startHost({
        home,
        port: 0,
        handleSignals: false,
        defaultCwd: start,
        homeDir,
        demoDelayMs,
        fileSourceTimeoutMs,
        env,
        log: () => {},
      })
      const api = await connectHostApi({ url: host.url, token: host.token })
      return {
        api,
        // Trees come from files the Host reads (its session.import): the Host's runtime makes them.
        importTree: (tree, importOptions) => host.runtime.importTree(tree, importOptions),
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
