import { defineConfig } from 'vitest/config'

// One runner for the whole repository: unit tests sit next to their source,
// end-to-end tests live in test/e2e. Packages import each other through their
// built `dist/` (npm test builds first), exactly as users will.
export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/src/**/*.test.tsx',
      'test/e2e/**/*.e2e.ts',
      'test/contract/**/*.contract.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest 5 runs one file at a time on a 2-core machine by default; two at once take the
    // suite from ~394 s to ~304 s here (the tests use real processes and sockets, not the CPU).
    maxWorkers: 2,
  },
})
