// `npm test`: the one gate. Check (format, lint, types), build, run every test,
// then print the closing line `N passed, N failed` from vitest's JSON result.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { ensureCurrentNode } from './current-node.mjs'

// On an old Node: runs again under Node 24 (scripts/use-node.sh), or stops here saying what to do.
await ensureCurrentNode('npm test')

const resultFile = '.vitest-result.json'

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', shell: false })
  return r.status ?? 1
}

if (run('npm', ['run', 'check']) !== 0) {
  console.log('0 passed, 1 failed (npm run check failed)')
  process.exit(1)
}
if (run('npm', ['run', 'build']) !== 0) {
  console.log('0 passed, 1 failed (npm run build failed)')
  process.exit(1)
}
rmSync(resultFile, { force: true })
const status = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${resultFile}`,
  ...process.argv.slice(2),
])
if (!existsSync(resultFile)) {
  console.log('0 passed, 1 failed (vitest wrote no result)')
  process.exit(status || 1)
}
const result = JSON.parse(readFileSync(resultFile, 'utf8'))
const passed = result.numPassedTests ?? 0
// Failed tests, plus test files that failed without running a test (an import error, a crash).
const brokenFiles = (result.testResults ?? []).filter(
  (file) =>
    file.status === 'failed' && (file.assertionResults ?? []).every((test) => test.status !== 'failed'),
).length
// Errors vitest caught outside any test (an unhandled rejection) fail the run too.
const outsideTests = status !== 0 && (result.numFailedTests ?? 0) + brokenFiles === 0 ? 1 : 0
const failed = (result.numFailedTests ?? 0) + brokenFiles + outsideTests
const skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0)
const notes = [
  ...(skipped ? [`${skipped} skipped`] : []),
  ...(outsideTests ? ['vitest reported errors outside the tests: see above'] : []),
]
console.log(`\n${passed} passed, ${failed} failed${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`)
process.exit(failed > 0 || status !== 0 ? 1 : 0)
