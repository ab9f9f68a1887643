// `npm run test:changed [-- --base REV] [-- --dry-run]`: the developer loop. Builds, then runs
// only the tests a change can affect (CONTRIBUTING.md):
// - test files that changed;
// - the unit tests (packages/*/src) of every package that changed and of every package that
//   depends on one (from the packages' package.json: tests import other packages through dist);
// - the session contract (test/contract) when a package behind it changed;
// - the end-to-end files of the front-ends a changed package reaches (table below; for the
//   packages that changed, not their dependents).
// Changes are those since REV (default: where this branch left main, or HEAD on main), committed
// or not, plus untracked files. `npm test` stays the gate: this is the fast answer, not the proof.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { ensureCurrentNode } from './current-node.mjs'

// On an old Node: runs again under Node 24 (scripts/use-node.sh), or stops here saying what to do.
await ensureCurrentNode('npm run test:changed')

const { values } = parseArgs({
  options: { base: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
})

function git(...args) {
  const run = spawnSync('git', args, { encoding: 'utf8' })
  return run.status === 0 ? run.stdout.trim() : ''
}

const branch = git('rev-parse', '--abbrev-ref', 'HEAD')
const base = values.base ?? (branch === 'main' ? 'HEAD' : git('merge-base', 'HEAD', 'main') || 'HEAD')
const changed = [
  ...git('diff', '--name-only', base).split('\n'),
  ...git('ls-files', '--others', '--exclude-standard').split('\n'),
].filter((file) => file !== '' && existsSync(file))

// Package folder → the folders of the @tangent packages it depends on.
const folders = readdirSync('packages').filter((name) => existsSync(`packages/${name}/package.json`))
const folderOf = new Map(
  folders.map((folder) => [JSON.parse(readFileSync(`packages/${folder}/package.json`, 'utf8')).name, folder]),
)
const dependsOn = new Map(
  folders.map((folder) => {
    const manifest = JSON.parse(readFileSync(`packages/${folder}/package.json`, 'utf8'))
    const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })
    return [folder, names.map((name) => folderOf.get(name)).filter((dep) => dep !== undefined)]
  }),
)
/** `folder` and every package that depends on it, directly or not. */
function withDependents(folder) {
  const out = new Set([folder])
  for (let grew = true; grew; ) {
    grew = false
    for (const [candidate, deps] of dependsOn)
      if (!out.has(candidate) && deps.some((dep) => out.has(dep))) {
        out.add(candidate)
        grew = true
      }
  }
  return out
}

// The end-to-end files each package's changes reach (prefixes of test/e2e/*.e2e.ts). The CLI's
// bundle holds every package, so a change anywhere can show in any of them: this is the likely set.
const e2eOf = {
  core: ['prove-damage', 'prove-store'],
  'store-jsonl': ['prove-crash', 'prove-damage', 'prove-store', 'prove-concurrency'],
  'store-postgres': ['host-postgres'],
  files: ['cli-files', 'prove-files', 'prove-crash-worktree', 'web-files'],
  agent: ['bash-sandbox', 'mcp-tools', 'prove-hostile-model', 'prove-security', 'cli-approvals'],
  runtime: ['host-fork', 'cli-explore', 'compaction-fork', 'agent-persistence', 'oversized-event'],
  protocol: ['host-', 'prove-fuzz'],
  host: ['host-', 'prove-host', 'prove-fuzz', 'web-token', 'web-rebinding'],
  web: ['web-'],
  cli: ['cli-', 'acp', 'prove-cli'],
}
const contractPackages = new Set([
  'core',
  'store-jsonl',
  'store-postgres',
  'files',
  'agent',
  'runtime',
  'protocol',
  'host',
  'cli',
])

const files = new Set()
const changedPackages = new Set()
const packages = new Set()
for (const file of changed) {
  if (/\.(test\.tsx?|e2e\.ts|contract\.ts)$/.test(file)) files.add(file)
  const match = /^packages\/([^/]+)\/(src|package\.json)/.exec(file)
  if (match) {
    changedPackages.add(match[1])
    for (const folder of withDependents(match[1])) packages.add(folder)
  }
  // Shared test helpers: a harness (web-harness.ts) the files of its prefix, others their folder.
  const helper = /^test\/(e2e|contract)\/([^/.]+)\.(ts|mjs)$/.exec(file)
  if (helper && !/\.(e2e|contract)\.ts$/.test(file)) {
    const harness = /^(.*)-harness$/.exec(helper[2])
    files.add(harness ? `test/${helper[1]}/${harness[1]}-` : path.dirname(file))
  }
  if (file.startsWith('test/soak/')) files.add('test/e2e/prove-')
}
const e2eFiles = existsSync('test/e2e')
  ? readdirSync('test/e2e').filter((name) => name.endsWith('.e2e.ts'))
  : []
for (const folder of packages) {
  files.add(`packages/${folder}/src`)
  if (contractPackages.has(folder)) files.add('test/contract')
}
// End-to-end files only for the packages that changed themselves (their dependents' unit tests
// and the contract cover the rest; `npm test` covers everything).
for (const folder of changedPackages)
  for (const prefix of e2eOf[folder] ?? [])
    for (const name of e2eFiles) if (name.startsWith(prefix)) files.add(`test/e2e/${name}`)

const filters = [...files].sort()
console.log(
  `Changed since ${base}: ${changed.length} file(s); packages: ${[...packages].sort().join(', ') || 'none'}`,
)
if (filters.length === 0) {
  console.log('No test can be affected: nothing to run.')
  process.exit(0)
}
console.log(`Runs: ${filters.join(' ')}`)
if (values['dry-run']) process.exit(0)
if (packages.size > 0 || changed.some((file) => file.startsWith('packages/'))) {
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}
const run = spawnSync('npx', ['vitest', 'run', ...filters], { stdio: 'inherit' })
process.exit(run.status ?? 1)
