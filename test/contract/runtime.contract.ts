// The session contract against the runtime in this process (what the CLI runs without a Host).
import { inProcessApi, Runtime } from '@tangent/runtime'
import { describe } from 'vitest'
import { runSessionContract } from './session-contract.js'

describe('contract: runtime in-process', () => {
  runSessionContract({
    open: async ({ home, start, homeDir, demoDelayMs }) => {
      const runtime = await Runtime.open({
        home,
        startFolder: start,
        homeDir,
        demoDelayMs,
        env: {},
        report: () => {},
      })
      return { api: inProcessApi(runtime), home, start, homeDir, close: () => runtime.close() }
    },
  })
})
