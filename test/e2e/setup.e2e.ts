// Setup that tells the truth (issue 28): on a Node older than package.json's `engines`,
// `tangent doctor` reports it as an error and every other command warns once on stderr, each
// with how to get a current Node; `npm test` and `npm start` say so in their first line and run
// under Node 24 from scripts/use-node.sh, or stop saying what to run. `npm start` serves a sample
// project made on first run outside the repository. The CLI bundle builds without a warning.
// The old-Node cases use a real old Node when the machine has one (its system Node, e.g.
// /usr/bin/node); the CLI's warning is also checked on any machine with a Node that says it is 20.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { minimumNode } from '../../packages/cli/src/node-version.js'
import { cliMain, createSandbox, removeSandbox, repoRoot, type Sandbox, tangent } from './cli-harness.js'

const sandboxes: Sandbox[] = []
const children: ChildProcess[] = []
afterEach(async () => {
  await Promise.all(children.splice(0).map(stop))
  for (const sandbox of sandboxes.splice(0)) removeSandbox(sandbox)
})

function sandbox(env: Record<string, string | undefined> = {}): Sandbox {
  const made = createSandbox()
  sandboxes.push(made)
  return { ...made, env: { ...made.env, ...env } }
}

function isOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number)
  return major < minimumNode.major || (major === minimumNode.major && minor < minimumNode.minor)
}

/** A Node older than Tangent supports on this machine (the system's), or null. */
function findOldNode(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin', '/bin']
  for (const dir of dirs) {
    const candidate = path.join(dir, 'node')
    try {
      const version = execFileSync(candidate, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim()
      if (isOld(version)) return candidate
    } catch {
      // Not there, or not a Node.
    }
  }
  return null
}
const oldNode = findOldNode()

/**
 * PATH as a machine with only the old Node has it: this one's entries but those holding a current
 * `node` (vitest runs under one, often put first by scripts/use-node.sh), and `extra` first.
 */
function oldNodePath(extra: readonly string[] = []): string {
  const kept = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => {
    const candidate = path.join(dir, 'node')
    if (!fs.existsSync(candidate)) return true
    try {
      return isOld(execFileSync(candidate, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim())
    } catch {
      return true
    }
  })
  return [...extra, path.dirname(oldNode!), ...kept].join(path.delimiter)
}

interface Ran {
  code: number | null
  stdout: string
  stderr: string
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: Record<string, string | undefined> },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: options.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Starts `scripts/start.mjs` (npm start, without its build) and waits for serve's JSON line. */
function start(
  node: string,
  env: Record<string, string | undefined>,
): Promise<{ child: ChildProcess; url: string; token: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['scripts/start.mjs', '--no-build', '--port', '0', '--json'], {
      cwd: repoRoot,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    let stdout = ''
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'))
      if (line !== undefined) {
        const { url, token } = JSON.parse(line) as { url: string; token: string }
        resolve({ child, url, token, stderr: () => stderr })
      }
    })
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`npm start exited (${code}) before serving: ${stderr}`)))
  })
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

async function rpc<T>(
  host: { url: string; token: string },
  method: string,
  params: unknown = {},
): Promise<T> {
  const response = await fetch(`${host.url}/rpc`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: T; error?: unknown }
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result as T
}

/** Advice every old-Node message gives: how to get a current Node. */
const advice = /`\. scripts\/use-node\.sh`.*nvm install 24.*https:\/\/nodejs\.org/

describe('the supported Node range', () => {
  it("is package.json's engines, in the CLI and in the npm scripts", async () => {
    const engines = (
      JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
        engines: { node: string }
      }
    ).engines.node
    expect(engines).toBe(`>=${minimumNode.major}.${minimumNode.minor}`)
    const scripts = (await import(pathToFileURL(path.join(repoRoot, 'scripts/current-node.mjs')).href)) as {
      minimumNode: number[]
    }
    expect(scripts.minimumNode).toEqual([minimumNode.major, minimumNode.minor])
  })
})

describe('tangent on a Node older than Tangent supports', () => {
  it.skipIf(oldNode === null)(
    'doctor lists it as an error with how to get a current Node; it prints no warning of its own',
    async () => {
      const box = sandbox()
      const result = await run(oldNode!, [cliMain, 'doctor'], { cwd: box.cwd, env: box.env })
      expect(result.code, result.stderr).toBe(1)
      expect(result.stdout).toMatch(
        /^Node {6}v\d+\.\d+\.\d+ {2}\(older than Tangent supports: see Problems\)$/m,
      )
      expect(result.stdout).toMatch(/^Problems {2}1 error, 0 warnings$/m)
      const problem = result.stdout.split('\n').find((line) => line.startsWith('  ✗ Node v'))
      expect(problem).toMatch(/is older than Tangent supports \(>= 22\.12;/)
      expect(problem).toMatch(advice)
      expect(result.stderr).not.toContain('warning')
      expect(result.stderr).toMatch(/^error\[doctor-problems\]/)

      const json = await run(oldNode!, [cliMain, 'doctor', '--json'], { cwd: box.cwd, env: box.env })
      const report = JSON.parse(json.stdout) as { node: string; problems: { level: string; text: string }[] }
      expect(isOld(report.node)).toBe(true)
      expect(report.problems).toEqual([{ level: 'error', text: expect.stringMatching(advice) }])
    },
  )

  it.skipIf(oldNode === null)(
    'every other command warns once on stderr, and its --json stdout stays JSON',
    async () => {
      const box = sandbox()
      const listed = await run(oldNode!, [cliMain, 'sessions', '--json'], { cwd: box.cwd, env: box.env })
      expect(listed.code, listed.stderr).toBe(0)
      expect(JSON.parse(listed.stdout)).toEqual([])
      const lines = listed.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^tangent: warning: Node v\d+\.\d+\.\d+ is older than Tangent supports/)
      expect(lines[0]).toMatch(advice)

      const ran = await run(oldNode!, [cliMain, 'run', '--model', 'demo:scripted', 'hello', '--json'], {
        cwd: box.cwd,
        env: box.env,
      })
      expect(ran.code, ran.stderr).toBe(0)
      expect(JSON.parse(ran.stdout)).toMatchObject({ sessionId: expect.any(String) })
      expect(ran.stderr.match(/tangent: warning: Node v/g)).toHaveLength(1)
    },
  )

  it('a Node that says it is 20 gets the same warning and doctor problem; a current one none', async () => {
    const box = sandbox()
    // Any machine: a preload makes this Node report 20.11.0 (as process.version and versions.node).
    const preload = path.join(path.dirname(box.home), 'node-20.mjs')
    fs.writeFileSync(
      preload,
      "Object.defineProperty(process.versions, 'node', { value: '20.11.0' })\nObject.defineProperty(process, 'version', { value: 'v20.11.0' })\n",
    )
    const old = { ...box, env: { ...box.env, NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` } }
    const listed = await tangent(old, ['sessions', '--json'])
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout)).toEqual([])
    expect(listed.stderr).toMatch(
      /^tangent: warning: Node v20\.11\.0 is older than Tangent supports \(>= 22\.12;/,
    )
    expect(listed.stderr.trim().split('\n')).toHaveLength(1)
    const doctor = await tangent(old, ['doctor', '--json'])
    expect(doctor.code).toBe(1)
    expect((JSON.parse(doctor.stdout) as { problems: unknown[] }).problems).toContainEqual({
      level: 'error',
      text: expect.stringMatching(/^Node v20\.11\.0 is older than Tangent supports/),
    })
    expect(doctor.stderr).not.toContain('warning')

    const current = await tangent(box, ['sessions', '--json'])
    expect(current.code).toBe(0)
    expect(current.stderr).toBe('')
  })
})

describe('npm test and npm start on an old Node', () => {
  it.skipIf(oldNode === null)(
    'npm start says so first, runs under Node 24 from scripts/use-node.sh, and serves',
    async () => {
      const box = sandbox({ PATH: oldNodePath() })
      const host = await start(oldNode!, box.env)
      const lines = host.stderr().split('\n')
      expect(lines[0]).toMatch(
        /^npm start: this shell's Node v\d+\.\d+\.\d+ is older than Tangent supports \(>= 22\.12\): running it under Node 24 from scripts\/use-node\.sh/,
      )
      expect(host.stderr()).toMatch(/use-node\.sh: node v24\./)
      // The Host runs on the current Node: its CLI printed no old-Node warning.
      expect(host.stderr()).not.toContain('tangent: warning: Node')
      expect(await rpc<{ version: string }>(host, 'host.info')).toMatchObject({ version: expect.any(String) })
    },
  )

  it.skipIf(oldNode === null)(
    'npm test stops at once, saying why and what to run, when Node 24 cannot be had',
    async () => {
      const box = sandbox()
      const root = path.dirname(box.home)
      // No current Node on PATH, and an `npm` that cannot install one: use-node.sh fails (and
      // were the suite reached, its first step, `npm run check`, would fail too).
      const bin = path.join(root, 'bin')
      fs.mkdirSync(bin)
      fs.writeFileSync(
        path.join(bin, 'npm'),
        '#!/bin/sh\necho "npm: the registry cannot be reached" >&2\nexit 1\n',
        {
          mode: 0o755,
        },
      )
      const result = await run(oldNode!, ['scripts/test.mjs'], {
        env: { ...box.env, PATH: oldNodePath([bin]), TANGENT_NODE_DIR: path.join(root, 'node') },
      })
      expect(result.code).toBe(1)
      const lines = result.stderr.trim().split('\n')
      expect(lines[0]).toMatch(/^npm test: this shell's Node v\d+\.\d+\.\d+ is older than Tangent supports/)
      expect(lines.at(-1)).toMatch(
        /^npm test: could not get Node 24 from scripts\/use-node\.sh \(see above\)\. Install Node >= 22\.12 .*nvm install 24.*, then `npm test` again\.$/,
      )
      // Nothing of the suite ran: no check, no build, no vitest.
      expect(result.stdout).toBe('')
      expect(result.stderr).not.toMatch(/vitest|biome|tsc/)
    },
  )
})

describe('npm start', () => {
  it('serves a sample project made on first run beside the data directory; a demo turn writes there, not in the repository', async () => {
    const box = sandbox()
    const sample = `${box.home}-sample`
    const before = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: repoRoot,
      encoding: 'utf8',
    })
    const host = await start(process.execPath, box.env)
    expect(host.stderr()).toContain(`npm start: made a sample project to work in: ${sample}`)
    expect(fs.readdirSync(sample).sort()).toEqual(['README.md', 'hello.js'])
    expect(fs.readFileSync(path.join(sample, 'README.md'), 'utf8')).toContain('`npm start`')
    const info = await rpc<{ startFolder: string }>(host, 'host.info')
    expect(info.startFolder).toBe(fs.realpathSync(sample))
    // A first session, as the web UI starts one: in the Host's folder.
    const session = await rpc<{ id: string; cwd: string }>(host, 'session.create', { model: 'demo:scripted' })
    expect(session.cwd).toBe(fs.realpathSync(sample))
    await rpc(host, 'session.prompt', { sessionId: session.id, text: 'write notes.txt: hi' })
    expect(fs.readFileSync(path.join(sample, 'notes.txt'), 'utf8')).toBe('hi\n')
    expect(fs.existsSync(path.join(repoRoot, 'notes.txt'))).toBe(false)
    expect(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
        cwd: repoRoot,
        encoding: 'utf8',
      }),
    ).toBe(before)
    await stop(host.child)

    // The next start keeps the sample as the person left it.
    fs.writeFileSync(path.join(sample, 'hello.js'), 'changed\n')
    const again = await start(process.execPath, box.env)
    expect(again.stderr()).not.toContain('made a sample project')
    expect(fs.readFileSync(path.join(sample, 'hello.js'), 'utf8')).toBe('changed\n')
    expect(fs.readdirSync(sample).sort()).toEqual(['README.md', 'hello.js', 'notes.txt'])
  })

  it('`tangent serve` elsewhere still serves the folder it was started in', async () => {
    const box = sandbox()
    const child = spawn(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
      cwd: box.cwd,
      env: box.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk
        if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!)
      })
      child.on('exit', (code) => reject(new Error(`serve exited (${code})`)))
    })
    const host = JSON.parse(line) as { url: string; token: string }
    expect((await rpc<{ startFolder: string }>(host, 'host.info')).startFolder).toBe(fs.realpathSync(box.cwd))
    expect(fs.existsSync(`${box.home}-sample`)).toBe(false)
  })
})

describe('the build', () => {
  it('bundles the CLI without a warning (scripts/postbuild.mjs, in memory)', async () => {
    const result = await run(process.execPath, ['scripts/postbuild.mjs', '--no-write'], {
      env: { ...process.env, NO_COLOR: '1' },
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })
})
