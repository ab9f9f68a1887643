// `npm run soak` (not in CI): the crash test with hundreds of kills, a load test of concurrent
// clients, a full disk (a small tmpfs; needs root), kill -9 during restores, and the crash and
// fuzz proofs of test/e2e/prove-*.e2e.ts at their long size (`npm test` runs them short). Flags:
// --only crash|load|disk-full|restore-kill|prove, --kills N (crash, default 200), --restore-kills N
// (default 20), --duration SECONDS (load, default 180), --clients N (default 50), --seed N.
// Exit 1 when a promise was broken.
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { runCrashTest } from './crash-driver.mjs'
import { runDiskFullTest } from './disk-full-driver.mjs'
import { proveSeed } from './lib.mjs'
import { runLoadTest } from './load-driver.mjs'
import { runRestoreKillTest } from './restore-kill-driver.mjs'

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    kills: { type: 'string', default: '200' },
    'restore-kills': { type: 'string', default: '20' },
    duration: { type: 'string', default: '180' },
    clients: { type: 'string', default: '50' },
    seed: { type: 'string' },
  },
})
if (values.seed !== undefined) process.env.TANGENT_PROVE_SEED = values.seed
const stamp = () => new Date().toISOString().slice(11, 19)
const log = (/** @type {string} */ line) => console.log(`${stamp()} ${line}`)
let failed = false

if (values.only === undefined || values.only === 'crash') {
  const seed = proveSeed('soak crash', 1729)
  const report = await runCrashTest({
    seed,
    kills: Number(values.kills),
    activePerRound: 4,
    proveAll: true,
    log,
  })
  console.log('\n## Crash soak\n')
  console.log(JSON.stringify({ ...report, problems: report.problems.slice(0, 20) }, null, 2))
  failed ||= report.problems.length > 0
}

if (values.only === undefined || values.only === 'load') {
  const seed = proveSeed('soak load', 4711)
  const report = await runLoadTest({
    seed,
    clients: Number(values.clients),
    durationMs: Number(values.duration) * 1000,
    log,
  })
  console.log('\n## Load\n')
  console.log(
    `${report.clients} clients for ${report.seconds} s: ${report.turns} turns (${report.turnsPerSecond}/s), ${report.forks} forks`,
  )
  console.log('\n| method | calls | p50 ms | p99 ms |\n|---|---|---|---|')
  for (const [method, stats] of Object.entries(report.rpc))
    console.log(`| ${method} | ${stats.count} | ${stats.p50} | ${stats.p99} |`)
  console.log(`\nHost RSS (MB) every 2 s: ${report.memory.map((m) => m.rssMb).join(' ')}`)
  console.log(`Events checked (subscription = log, live and after a restart): ${report.checkedEvents}`)
  console.log(`Problems: ${report.problems.length === 0 ? 'none' : report.problems.slice(0, 20).join('\n')}`)
  failed ||= report.problems.length > 0
}
if (values.only === undefined || values.only === 'disk-full') {
  const seed = proveSeed('soak disk-full', 2024)
  const report = await runDiskFullTest({ seed, log })
  console.log('\n## Disk full\n')
  if ('skipped' in report) console.log(`Skipped: ${report.skipped}`)
  else {
    console.log(JSON.stringify({ ...report, problems: undefined }, null, 2))
    printProblems(report.problems)
    failed ||= report.problems.length > 0
  }
}

if (values.only === undefined || values.only === 'restore-kill') {
  const seed = proveSeed('soak restore-kill', 55)
  const report = await runRestoreKillTest({ seed, kills: Number(values['restore-kills']), log })
  console.log('\n## Kill during restore\n')
  console.log(JSON.stringify({ ...report, problems: undefined }, null, 2))
  printProblems(report.problems)
  failed ||= report.problems.length > 0
}

if (values.only === undefined || values.only === 'prove') {
  // The proofs `npm test` runs short, at their long size (TANGENT_PROVE_LONG, lib.mjs proveSize).
  console.log('\n## Proofs at their long size\n')
  const run = spawnSync('npx', ['vitest', 'run', '--project', 'e2e', 'test/e2e/prove-'], {
    stdio: 'inherit',
    env: { ...process.env, TANGENT_PROVE_LONG: '1' },
  })
  failed ||= run.status !== 0
}

process.exit(failed ? 1 : 0)

/** @param {string[]} problems */
function printProblems(problems) {
  console.log(
    `Problems: ${problems.length === 0 ? 'none' : `${problems.length}\n${problems.slice(0, 20).join('\n')}`}`,
  )
}
