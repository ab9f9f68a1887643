// `npm test` and `npm start` on a Node older than Tangent supports (package.json's `engines`,
// >=22.12): rather than fail somewhere inside (vitest's `Map.groupBy is not a function`), the
// script says so in its first line and runs again under Node 24 from scripts/use-node.sh (which
// installs it from the npm registry once, as .ci/run does); when that cannot be had it stops
// there, saying what to run. This file runs on old Node (anything with ES modules): it uses
// nothing newer.
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** package.json's `engines.node` (a test keeps the two equal). */
export const minimumNode = [22, 12]
const range = `>= ${minimumNode.join('.')}`
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** use-node.sh failed (no package for this system, no registry): not the script's own exit code. */
const noCurrentNode = 97

export function isCurrentNode(version) {
  const [major, minor] = version.split('.').map((part) => Number.parseInt(part, 10) || 0)
  return major > minimumNode[0] || (major === minimumNode[0] && minor >= minimumNode[1])
}

/**
 * Returns when this Node is current. Otherwise runs this script again (same arguments) under
 * Node 24 from scripts/use-node.sh and exits with its exit code; never returns then.
 * `command` is what the person typed (`npm test`), for the messages.
 */
export async function ensureCurrentNode(command) {
  if (isCurrentNode(process.versions.node)) return
  const cannot = (why) => {
    console.error(
      `${command}: ${why} Install Node ${range} (Node 24 LTS: \`nvm install 24\`, or https://nodejs.org), or run \`. scripts/use-node.sh\` in this shell, then \`${command}\` again.`,
    )
    process.exit(1)
  }
  // Already the second run: use-node.sh put an old Node first on PATH (it checks; this should not happen).
  if (process.env.TANGENT_CURRENT_NODE_RERUN === '1')
    cannot(
      `Node ${process.version} is older than Tangent supports (${range}), even after scripts/use-node.sh.`,
    )
  console.error(
    `${command}: this shell's Node ${process.version} is older than Tangent supports (${range}): running it under Node 24 from scripts/use-node.sh (for this shell too: \`. scripts/use-node.sh\`).`,
  )
  const script = path.relative(repoRoot, process.argv[1] ?? '')
  const child = spawn(
    'sh',
    [
      '-c',
      `. scripts/use-node.sh || exit ${noCurrentNode}; exec node "$@"`,
      'sh',
      script,
      ...process.argv.slice(2),
    ],
    { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, TANGENT_CURRENT_NODE_RERUN: '1' } },
  )
  // Ctrl-C (SIGINT) and a closed terminal (SIGHUP) reach the child too, from the terminal: it
  // stops as it would alone (`tangent serve` closes its Host) and this process exits with it. A
  // SIGTERM is sent to this process alone (npm passes it on): it is handed to the child.
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {})
  process.on('SIGTERM', () => child.kill('SIGTERM'))
  await new Promise(() => {
    child.on('error', (error) => cannot(`could not run sh for scripts/use-node.sh (${error.message}).`))
    child.on('exit', (code, signal) => {
      if (code === noCurrentNode) cannot('could not get Node 24 from scripts/use-node.sh (see above).')
      process.exit(code ?? 128 + (os.constants.signals[signal] ?? 15))
    })
  })
}
