// While `tangent serve` runs on a data dir it holds the writer lock; the CLI's other
// commands find it through host.json and go through it instead of failing on the lock.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  repoRoot,
  type Sandbox,
  startProcess,
  stopProcess,
  tangent,
  tangentInProcess,
  tangentJson,
} from './cli-harness.js'

let sandbox: Sandbox
let serve: ChildProcess
let started: { url: string; port: number; token: string }

beforeAll(async () => {
  sandbox = createSandbox()
  const { child, line } = await startProcess(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
    cwd: sandbox.cwd,
    env: sandbox.env,
    ready: /^\{.*"token"/,
  })
  serve = child
  started = JSON.parse(line) as typeof started
})

afterAll(async () => {
  if (serve) await stopProcess(serve)
  removeSandbox(sandbox)
})

describe('tangent with a running Host', () => {
  it('serve --json prints {url, port, token} for a loopback address and writes host.json', async () => {
    expect(started.port).toBeGreaterThan(0)
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
    expect(started.token.length).toBeGreaterThan(8)
    expect(fs.existsSync(path.join(sandbox.home, 'host.json'))).toBe(true)
    const health = await fetch(new URL('/healthz', started.url))
    expect(health.status).toBe(200)
  })

  it('run, fork, sessions and show go through the Host instead of hitting its lock', async () => {
    const run = await tangent(sandbox, ['run', 'write via-host.txt: through the host'])
    expect(run.stderr).not.toMatch(/store-locked/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/Wrote via-host\.txt/)
    expect(fs.readFileSync(path.join(sandbox.cwd, 'via-host.txt'), 'utf8')).toContain('through the host')

    const second = await tangentJson<{ sessionId: string; turnEndSeq: number; reason: string }>(sandbox, [
      'run',
      'just talking',
    ])
    expect(second.reason).toBe('completed')
    const fork = await tangentJson<{ session: { id: string; parentSession: string }; boundary: number }>(
      sandbox,
      ['fork', second.sessionId],
    )
    expect(fork.session.parentSession).toBe(second.sessionId)
    expect(fork.boundary).toBe(second.turnEndSeq)

    const tree = await tangent(sandbox, ['sessions'])
    expect(tree.code).toBe(0)
    expect(tree.stdout).toMatch(
      new RegExp(`^[├└]─ ${fork.session.id} .*fork @ seq ${second.turnEndSeq}`, 'm'),
    )

    // The Host's own view agrees: the fork is in its session list.
    const rpc = await fetch(new URL('/rpc', started.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${started.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list', params: {} }),
    })
    const listed = (await rpc.json()) as { result: { id: string }[] }
    expect(listed.result.map((session) => session.id)).toContain(fork.session.id)

    const missing = await tangentInProcess(sandbox, ['show', 'NOSUCHSESSION'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^error\[session-not-found\]: /)
  })

  it("names the Host's environment where it is the one that counts (issue 28)", async () => {
    // Set in this shell, not in the Host's: the Host's is the one models run with.
    const here = { ...sandbox.env, TANGENT_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1' }
    const models = await tangent({ ...sandbox, env: here }, ['models'])
    expect(models.code).toBe(0)
    const pid = JSON.parse(fs.readFileSync(path.join(sandbox.home, 'host.json'), 'utf8')).pid as number
    expect(models.stdout).toMatch(
      new RegExp(
        `openai-compatible:\\S* +the running Host \\(pid ${pid}\\) has no TANGENT_OPENAI_COMPATIBLE_BASE_URL: restart \`tangent serve\` with it set \\(this shell has it, but models run in the Host\\)\\.`,
      ),
    )
    const run = await tangent({ ...sandbox, env: here }, ['run', '--model', 'openai-compatible:m', 'hi'])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(
      `the running Host (pid ${pid}) has no TANGENT_OPENAI_COMPATIBLE_BASE_URL: restart \`tangent serve\` with it set`,
    )
  })

  it('chat goes through the Host too: streamed answer and /fork', async () => {
    const chat = await tangentInProcess(sandbox, ['chat'], { input: 'hello via host\n/fork\n' })
    expect(chat.code).toBe(0)
    expect(chat.stdout).toContain('through the running Host')
    expect(chat.stdout).toContain('Turn 1: you said "hello via host".')
    expect(chat.stdout).toMatch(/Forked \S+ through seq \d+: now in \S+/)
  })

  it('a second serve on the same data dir says where the running Host is', async () => {
    const second = await tangent(sandbox, ['serve', '--port', '0'])
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(new RegExp(`^error\\[host-running\\]: .*${started.port}`))
  })

  it('a Host that is stopped (Ctrl-Z) is named with how to resume or end it, never "remove the lock"', async () => {
    process.kill(serve.pid!, 'SIGSTOP')
    try {
      const run = await tangent(sandbox, ['run', 'while the Host is stopped'])
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/^error\[store-locked\]: [^\n]*does not answer[^\n]*\n$/)
      expect(run.stderr).toContain(`kill -CONT ${serve.pid}`)
      expect(run.stderr).toContain(`127.0.0.1:${started.port}`)
      expect(run.stderr).not.toContain(started.token)
      expect(run.stderr).not.toContain('remove the lock file')
    } finally {
      process.kill(serve.pid!, 'SIGCONT')
    }
    // Resumed, it serves again.
    expect((await tangent(sandbox, ['sessions'])).code).toBe(0)
  })

  it('after the Host stops, host.json is gone and the CLI opens the store itself', async () => {
    await stopProcess(serve)
    expect(fs.existsSync(path.join(sandbox.home, 'host.json'))).toBe(false)
    const sessions = await tangentJson<{ id: string }[]>(sandbox, ['sessions'])
    expect(sessions.length).toBe(5)
    const run = await tangentInProcess(sandbox, ['run', 'local again'])
    expect(run.code).toBe(0)
  })
})

describe('a writer that is ending', () => {
  it('a command that meets its lock waits for it to let go, then runs (no store-locked)', async () => {
    const own = createSandbox()
    try {
      const made = await tangentJson<{ sessionId: string }>(own, ['run', 'hello'])
      // Another process holds the writer lock for a moment, then closes (a command finishing).
      const storeModule = path.join(repoRoot, 'packages', 'store-jsonl', 'dist', 'index.js')
      const holder = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { JsonlStore } = await import(${JSON.stringify(storeModule)}); const db = await JsonlStore.open({ dir: process.argv[1] }); console.log('held'); setTimeout(() => db.close(), 1200)`,
          own.home,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      const exited = new Promise((resolve) => holder.once('exit', resolve))
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()))
      const renamed = await tangent(own, ['rename', made.sessionId, 'after the lock'])
      expect(renamed.stderr).toBe('')
      expect(renamed.code).toBe(0)
      await exited
    } finally {
      removeSandbox(own)
    }
  })
})

describe('tangent serve', () => {
  it('prints the URL line with the token and binds loopback by default', async () => {
    const own = createSandbox()
    const { child, line } = await startProcess(process.execPath, [cliMain, 'serve', '--port', '0'], {
      cwd: own.cwd,
      env: own.env,
      ready: /^Tangent listening on /,
    })
    try {
      expect(line).toMatch(/^Tangent listening on http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/)
    } finally {
      await stopProcess(child)
      removeSandbox(own)
    }
  })
  it('says nothing at start of a worktree kept on purpose at delete (it is the user’s now)', async () => {
    const own = createSandbox()
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: own.cwd, encoding: 'utf8' })
      git('init', '-q')
      fs.writeFileSync(path.join(own.cwd, 'a.txt'), 'a\n')
      git('add', '.')
      git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init')
      expect((await tangent(own, ['run', 'write b.txt: b'])).code).toBe(0)
      const id = JSON.parse((await tangent(own, ['sessions', '--json'])).stdout)[0].id as string
      const fork = JSON.parse((await tangent(own, ['fork', id, '--files', 'worktree', '--json'])).stdout) as {
        session: { id: string; cwd: string }
      }
      expect((await tangent(own, ['run', '--session', fork.session.id, 'write c.txt: work'])).code).toBe(0)
      const deleted = await tangent(own, ['delete', fork.session.id, '--worktree', 'keep'])
      expect(deleted.stdout).toContain(
        `Kept its worktree ${fork.session.cwd}: kept as asked; remove it with: git -C`,
      )
      // Its stderr from the first byte: the start's worktree check runs while it starts listening.
      const child = spawn(process.execPath, [cliMain, 'serve', '--port', '0'], {
        cwd: own.cwd,
        env: own.env as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
      })
      await new Promise<void>((resolve) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          if (chunk.includes('Tangent listening on ')) resolve()
        })
      })
      // Closing waits for that check, so everything it would say is said by then.
      await stopProcess(child)
      expect(stderr).not.toContain(fork.session.cwd)
      expect(fs.readFileSync(path.join(fork.session.cwd, 'c.txt'), 'utf8')).toBe('work\n')
    } finally {
      removeSandbox(own)
    }
  })
})
