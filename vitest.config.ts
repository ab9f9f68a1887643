import { defineConfig } from 'vitest/config'

// One runner for the whole repository: unit tests sit next to their source,
// end-to-end tests live in test/e2e. Packages import each other through their
// built `dist/` (npm test builds first), exactly as users will.
const timeouts = { testTimeout: 30_000, hookTimeout: 60_000 }
export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest 5 runs one file at a time on a 2-core machine by default; two at once take the
    // suite from ~394 s to ~304 s here (the tests use real processes and sockets, not the CPU).
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'packages/*/src/**/*.test.tsx'],
          ...timeouts,
          // Unit files share their worker process (and its loaded modules) instead of starting
          // one each: a fresh worker per file cost more than most of these files' tests. They keep
          // no state between files (a stubbed global or umask is put back by the file that set it).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          // The end-to-end and contract files start servers, Hosts and browsers, and register
          // exit handlers: each keeps a process of its own.
          include: ['test/e2e/**/*.e2e.ts', 'test/contract/**/*.contract.ts'],
          // One Chromium for the run, which the browser test files connect to (test/e2e/chromium.ts).
          globalSetup: ['test/e2e/chromium-server.ts'],
          ...timeouts,
        },
      },
    ],
  },
})
