import { configDefaults, defineConfig } from 'vitest/config'

// One runner for the whole repository: unit tests sit next to their source,
// end-to-end tests live in test/e2e. Packages import each other through their
// built `dist/` (npm test builds first), exactly as users will.
const timeouts = { testTimeout: 30_000, hookTimeout: 60_000 }
const e2eFiles = ['test/e2e/**/*.e2e.ts', 'test/contract/**/*.contract.ts']
// The end-to-end files that change what the whole process shares (process.env replaced, the
// working directory changed): each runs in a process of its own, so no file after it sees that.
const isolatedE2eFiles = ['test/e2e/prove-hostile-model.e2e.ts']
export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest 5 runs one file at a time on a 2-core machine by default; two at once take the
    // suite from ~394 s to ~304 s here (the tests use real processes and sockets, not the CPU).
    maxWorkers: 2,
    // No sequencer of our own: vitest starts the longest files first once its cache has their
    // durations, else the largest; either way the unit project's ~180 short files come last and
    // fill both workers to the end (replaying a run's file times in both orders ends within 1 s).
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
          include: e2eFiles,
          exclude: [...configDefaults.exclude, ...isolatedE2eFiles],
          // One Chromium for the run, which the browser test files connect to (test/e2e/chromium.ts).
          globalSetup: ['test/e2e/chromium-server.ts'],
          ...timeouts,
          // The end-to-end and contract files start servers, Hosts, child processes and browsers,
          // and close what they start (their temp dirs, exit and signal handlers too): they share
          // their worker process like the unit files. A fresh worker per file (node, vitest and
          // the packages loaded again) cost ~2 s of a worker per file, most of a small file's time:
          // 12 small files took 37 s isolated, 23 s sharing (vitest run, 2 workers, this machine).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e-isolated',
          include: isolatedE2eFiles,
          ...timeouts,
        },
      },
    ],
  },
})
