// `npm start`: build, then `tangent serve` in a small sample project (made on its first run,
// outside this repository), so the first turns of a demo write there and never into the Tangent
// clone. The sample is `<data directory>-sample`: beside the data directory (default
// ~/.local/share/tangent-sample), not in it — the agent may not write inside the data directory.
// Arguments go to `tangent serve` (`npm start -- --port 0`); `--no-build` (first) skips the build.
// `tangent serve` run anywhere else is unchanged: it serves the folder it was started in.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ensureCurrentNode } from './current-node.mjs'

// On an old Node: runs again under Node 24 (scripts/use-node.sh), or stops here saying what to do.
await ensureCurrentNode('npm start')

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const build = args[0] !== '--no-build'
if (!build) args.shift()

if (build) {
  const built = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'inherit' })
  if (built.status !== 0) {
    console.error('npm start: the build failed (above), so nothing was started.')
    process.exit(built.status ?? 1)
  }
}

// The data directory as the CLI resolves it (TANGENT_HOME, XDG_DATA_HOME, ~/.local/share/tangent);
// absolute, as `tangent serve` runs in the sample folder, not here.
const { resolveHome } = await import(pathToFileURL(path.join(repoRoot, 'packages/cli/dist/home.js')).href)
const home = resolveHome(process.env)
const sample = `${home}-sample`
if (!fs.existsSync(sample)) makeSample(sample)

const child = spawn(process.execPath, [path.join(repoRoot, 'packages/cli/dist/main.js'), 'serve', ...args], {
  cwd: sample,
  stdio: 'inherit',
  env: { ...process.env, TANGENT_HOME: home, PWD: sample },
})
// Ctrl-C reaches `tangent serve` from the terminal; a SIGTERM (npm passes it on) is handed to it.
for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {})
process.on('SIGTERM', () => child.kill('SIGTERM'))
child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 15)))

/** The sample project: a README saying what it is and what to try, and a file to work on. */
function makeSample(folder) {
  const files = {
    'README.md': `# A sample project for Tangent

\`npm start\` in the Tangent repository made this folder and serves it, so that a first try
works here and not in the Tangent clone. It is yours to change: \`npm start\` leaves it as it
is from now on (remove the folder to get it back as new).

With the offline demo model (no key, no network), type for instance:

- \`write notes.txt: hello\`, then \`append notes.txt: more\` and \`read notes.txt\`
- \`run: ls -la\` (the bash tool, in the OS sandbox when there is one)

Then branch from an answer to try another way, and compare the branches on the board.

Your own projects: open their folder from the folder box in the sidebar, or run
\`tangent serve\` in them.
`,
    'hello.js': `// A small file for the agent to read and change.
export function greet(name) {
  return \`Hello, \${name}!\`
}

console.log(greet('Tangent'))
`,
  }
  // Made beside it and renamed into place: a start stopped half-way leaves no half sample.
  fs.mkdirSync(path.dirname(folder), { recursive: true })
  const temp = fs.mkdtempSync(`${folder}.tmp-`)
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(temp, name), text)
  fs.chmodSync(temp, 0o755)
  fs.renameSync(temp, folder)
  console.error(`npm start: made a sample project to work in: ${folder}`)
}
