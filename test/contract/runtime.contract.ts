// The session contract against the runtime in this process (what the CLI runs without a Host).
import { inProcessApi, Runtime } from '@tangent/runtime'
import { describe } from 'vitest'
import { runSessionContract } from './session-contract.js'

describe('contract: runtime in-process', () => {
  runSessionContract({
    open: async ({ home, start, homeDir, demoDelayMs, fileSourceTimeoutMs, env }) => {
      const runtime = await Runtime.open({
        home,
        startFolder: start,
        homeDir,
        demoDelayMs,
        fileSourceTimeoutMs,
        env,
        report: () => {},
      })
      return {
        api: inProcessApi(runtime),
        importTree: (tree, importOptions) => runtime.importTree(tree, importOptions),
        home,
        start,
        homeDir,
        // A second api over the same runtime: closing it ends what it holds, not the runtime.
        connect: async () => inProcessApi(runtime, { close: async () => {} }),
        close: () => runtime.close(),
      }
    },
  })
})
