// The cost of the security layers (issue 25, docs/architecture.md §6, §12.1, §12.2), each against
// what the same call costs anyway, measured in the same run: the bash permission decision (the
// line parsed with tree-sitter-bash) against spawning `bash -c true`; a command run in the OS
// sandbox against the same command unsandboxed; the write tool's confined walk against a plain
// fs.writeFile of the same file.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { BashSandbox, createDefaultTools, type ToolContext } from '@tangent/agent'
import { type DecideContext, decidePermission, loadBashGrammar, rulesOf } from '@tangent/agent/light'
import { type BenchRow, type BenchSuite, median, timeIt } from './table.js'

/** Per call, in ms: `fn` run `batch` times per sample, the median of `samples`. */
async function perCall(fn: () => unknown, batch: number, samples: number): Promise<number> {
  const times = await timeIt(
    async () => {
      for (let i = 0; i < batch; i++) await fn()
    },
    samples,
    1,
  )
  return median(times) / batch
}

/** Spawns `file args` in `cwd` as the bash tool does (own process group, output piped) and waits for it. */
function run(file: string, args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stdout.resume()
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`${file} exited ${code}: ${stderr.trim()}`))
    })
  })
}

/** Times `a` and `b` alternately, `iterations` times each, so both see the same load. */
async function interleaved(
  iterations: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<{ a: number[]; b: number[] }> {
  await a()
  await b()
  const result = { a: [] as number[], b: [] as number[] }
  for (let i = 0; i < iterations; i++) {
    result.a.push(...(await timeIt(a, 1, 0)))
    result.b.push(...(await timeIt(b, 1, 0)))
  }
  return result
}

const typicalLine = 'git status && npm test -- -t foo | tee /dev/null'
const hostileLine = "git status $'\\'' ; touch X ; echo \\'"

/**
 * A 100 KB line of chained commands, each with arguments, a quoted string and a pipe: ~1,900
 * commands nest deeper than the analysis goes (bash-command.ts), so a deny rule makes it ask.
 */
function hundredKbChain(): string {
  const parts: string[] = []
  let size = 0
  for (let i = 0; size < 100 * 1024; i++) {
    const part = `grep -n "pattern ${i}" src/file${i}.ts | head -n ${i % 50}`
    parts.push(part)
    size += part.length + 4
  }
  return parts.join(' && ').slice(0, 100 * 1024)
}

/** A 100 KB line as a model writes one: a file written through a quoted heredoc. */
function hundredKbHeredoc(): string {
  let body = ''
  for (let i = 0; body.length < 100 * 1024 - 40; i++)
    body += `export const value${i} = "text \${${i}} $HOME \`x\`" // line ${i}\n`
  return `cat > src/big.ts <<'EOF'\n${body}EOF`
}

export const suite: BenchSuite = {
  title: 'Trust: the bash permission decision, the OS sandbox, the file tools’ walk (issue 25)',
  async run(): Promise<BenchRow[]> {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-trust-')))
    const sandbox = new BashSandbox({ tempRoot: path.join(root, 'tmp') })
    const rows: BenchRow[] = []
    let sink = 0
    try {
      // A small git repository: the folder every command of the suite runs in.
      const repo = path.join(root, 'repo')
      fs.mkdirSync(repo)
      const gitEnv = {
        ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_'))),
        GIT_AUTHOR_NAME: 'bench',
        GIT_AUTHOR_EMAIL: 'b@b',
        GIT_COMMITTER_NAME: 'bench',
        GIT_COMMITTER_EMAIL: 'b@b',
      }
      fs.writeFileSync(path.join(repo, 'README.md'), 'bench\n')
      execFileSync('git', ['init', '--quiet'], { cwd: repo, env: gitEnv })
      execFileSync('git', ['add', '-A'], { cwd: repo, env: gitEnv })
      execFileSync('git', ['commit', '--quiet', '-m', 'init'], { cwd: repo, env: gitEnv })

      // 1. The bash permission decision, per call, against one `bash -c true`.
      await loadBashGrammar()
      const context: DecideContext = {
        cwd: repo,
        rules: rulesOf({ bash: { 'git status': 'allow', rm: 'deny' } }, 'bench'),
        sessionRules: [],
        defaults: 'guarded',
        bashSandboxed: true,
      }
      const chain = hundredKbChain()
      const heredoc = hundredKbHeredoc()
      const lines = [
        { name: 'typical line', command: typicalLine, batch: 200, target: true },
        {
          name: 'hostile line (ANSI-C quote hiding `; touch X`)',
          command: hostileLine,
          batch: 200,
          target: true,
        },
        {
          name: `${(heredoc.length / 1024).toFixed(0)} KB line (one command: a quoted heredoc)`,
          command: heredoc,
          batch: 1,
          target: false,
        },
        {
          name: `${(chain.length / 1024).toFixed(0)} KB line (${chain.split(' && ').length} commands joined by &&)`,
          command: chain,
          batch: 1,
          target: false,
        },
      ]
      const spawnTrue = () => run('bash', ['-c', 'true'], repo)
      const spawnMs = median(await timeIt(spawnTrue, 30, 3))
      const spawnBaseline = { name: 'spawning `bash -c true` once (every bash call)', medianMs: spawnMs }
      for (const line of lines) {
        const verdict = decidePermission('bash', { command: line.command }, context)
        const ms = await perCall(
          () => {
            sink += decidePermission('bash', { command: line.command }, context).reason.length
          },
          line.batch,
          line.batch === 1 ? 15 : 9,
        )
        rows.push({
          name: `bash permission decision: ${line.name}`,
          medianMs: ms,
          baseline: spawnBaseline,
          extra: {
            verdict: `${verdict.action} (${verdict.reason.length > 60 ? `${verdict.reason.slice(0, 57)}…` : verdict.reason})`,
            'of a spawn': `${((ms / spawnMs) * 100).toFixed(2)} %`,
          },
          ...(line.target ? { target: { text: '≤ 5% of a spawn', met: ms <= spawnMs * 0.05 } } : {}),
        })
      }
      // Re-measured after the decisions: the baseline moves with the machine's load.
      const spawnAfterMs = median(await timeIt(spawnTrue, 30, 1))
      for (const row of rows) row.extra!['spawn again after'] = `${spawnAfterMs.toFixed(2)} ms`

      // 2. `true` in the OS sandbox against `bash -c true` unsandboxed, in the same repository.
      const probe = await sandbox.probe()
      const unsandboxed = { name: '`bash -c true` unsandboxed, same folder', medianMs: Number.NaN }
      if (!probe.available) {
        rows.push({
          name: 'sandboxed `true` (skipped)',
          medianMs: Number.NaN,
          extra: { note: `sandbox unavailable: ${probe.reason ?? 'no reason given'}` },
        })
      } else {
        // Wrap and release timed apart too: what Tangent does itself, beside bubblewrap's run.
        const wrapTimes: number[] = []
        const releaseTimes: number[] = []
        const sandboxed = async () => {
          const start = process.hrtime.bigint()
          const wrapped = await sandbox.wrap('true', { cwd: repo, tempKey: 'bench' })
          wrapTimes.push(Number(process.hrtime.bigint() - start) / 1e6)
          try {
            await run(wrapped.file, wrapped.args, repo)
          } finally {
            const released = process.hrtime.bigint()
            await wrapped.release()
            releaseTimes.push(Number(process.hrtime.bigint() - released) / 1e6)
          }
        }
        const times = await interleaved(30, spawnTrue, sandboxed)
        unsandboxed.medianMs = median(times.a)
        rows.push({
          name: `sandboxed \`true\` (${probe.kind}: wrap + spawn + release)`,
          medianMs: median(times.b),
          baseline: unsandboxed,
          extra: {
            // The first (warm-up) call is left out, as for the medians.
            'wrap alone': `${median(wrapTimes.slice(1)).toFixed(2)} ms`,
            'release alone': `${median(releaseTimes.slice(1)).toFixed(2)} ms`,
            'added per call': `${(median(times.b) - unsandboxed.medianMs).toFixed(2)} ms`,
          },
        })
      }

      // 3. The write tool (confined walk, parents opened without following links) against a
      // plain fs.writeFile of the same 1 KB file, 6 levels deep.
      const tools = createDefaultTools()
      const write = tools.write!
      const relative = 'a/b/c/d/e/f/file.txt'
      const absolute = path.join(repo, relative)
      fs.mkdirSync(path.dirname(absolute), { recursive: true })
      const content = `${'x'.repeat(1023)}\n`
      const toolContext: ToolContext = { cwd: repo, signal: new AbortController().signal }
      const viaTool = async () => {
        sink += (await write.run({ path: relative, content }, toolContext)).output.length
      }
      const plain = async () => {
        await fs.promises.writeFile(absolute, content)
      }
      await perCall(viaTool, 50, 2)
      await perCall(plain, 50, 2)
      const toolTimes: number[] = []
      const plainTimes: number[] = []
      for (let i = 0; i < 9; i++) {
        toolTimes.push(await perCall(viaTool, 50, 1))
        plainTimes.push(await perCall(plain, 50, 1))
      }
      if (fs.readFileSync(absolute, 'utf8') !== content)
        throw new Error('the write tool wrote something else')
      const toolMs = median(toolTimes)
      const plainMs = median(plainTimes)
      rows.push({
        name: 'write tool, 1 KB file 6 levels deep (replace)',
        medianMs: toolMs,
        baseline: { name: 'fs.promises.writeFile of the same file', medianMs: plainMs },
        extra: { 'added per call': `${((toolMs - plainMs) * 1000).toFixed(0)} µs` },
      })
    } finally {
      await sandbox.dispose()
      fs.rmSync(root, { recursive: true, force: true })
    }
    if (sink === 0) throw new Error('nothing measured')
    return rows
  },
}
