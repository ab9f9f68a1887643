import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { TempDirectories } from './fixture.test-helper.js'
import { runGit } from './git.js'
import { maxRunningProcesses, messageBytes, messageReader, spawnFromStarter } from './git-runner.js'

const node = process.execPath
const run = (script: string, input: string | Buffer = '') =>
  spawnFromStarter({
    file: node,
    args: ['-e', script],
    cwd: process.cwd(),
    env: { ...process.env } as Record<string, string>,
    input,
  })

describe('messageReader', () => {
  const messages = [
    [Buffer.from('{"id":1}'), Buffer.alloc(0)],
    [Buffer.from('{"id":2}'), Buffer.alloc(70_000, 7), Buffer.from('tail')],
    [],
    [Buffer.alloc(0), Buffer.alloc(0)],
  ]
  const bytes = Buffer.concat(messages.flatMap((parts) => messageBytes(parts)))

  it('gives back every message and part whatever the chunks the bytes come in', () => {
    for (const size of [1, 3, 4, 5, 7, 64, 65_536, bytes.length]) {
      const got: Buffer[][] = []
      const feed = messageReader((parts) => got.push(parts))
      for (let at = 0; at < bytes.length; at += size) feed(bytes.subarray(at, at + size))
      expect(got, `chunks of ${size} bytes`).toEqual(messages)
    }
  })

  it('waits for the rest of a message cut anywhere', () => {
    const got: Buffer[][] = []
    const feed = messageReader((parts) => got.push(parts))
    feed(bytes.subarray(0, bytes.length - 1))
    expect(got).toHaveLength(3)
    feed(bytes.subarray(bytes.length - 1))
    expect(got).toHaveLength(4)
  })
})

describe('spawnFromStarter', () => {
  it('gives the whole output of a process, its stderr and exit code, after writing its stdin', async () => {
    const input = Buffer.alloc(300_000, 'x')
    const outcome = await run(
      `let n = 0
       process.stdin.on('data', (c) => { n += c.length })
       process.stdin.on('end', () => {
         process.stdout.write('y'.repeat(2_000_000))
         process.stderr.write('read ' + n)
         process.exitCode = 3
       })`,
      input,
    )
    expect(outcome.code).toBe(3)
    expect(outcome.stdout.length).toBe(2_000_000)
    expect(outcome.stdout.every((byte) => byte === 0x79)).toBe(true)
    expect(outcome.stderr.toString('utf8')).toBe('read 300000')
  })

  it('rejects as spawn does for a program that does not exist', async () => {
    await expect(
      spawnFromStarter({
        file: 'no-such-program-tangent',
        args: [],
        cwd: process.cwd(),
        env: { PATH: '/nowhere' },
        input: '',
      }),
    ).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('runs more processes than run at once, each to its end, in any order of ending', async () => {
    const count = maxRunningProcesses + 2
    const outcomes = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        run(`setTimeout(() => process.stdout.write('${i}'), ${(count - i) * 5})`),
      ),
    )
    expect(outcomes.map((outcome) => outcome.stdout.toString('utf8'))).toEqual(
      Array.from({ length: count }, (_, i) => String(i)),
    )
  })

  it('starts processes from a process of its own that holds none of our environment', async () => {
    process.env.TANGENT_RUNNER_TEST_SECRET = 'sk-not-for-children'
    try {
      // The job reads its parent's (the starter's) environment and command line.
      const outcome = await run(
        `const fs = require('node:fs')
         process.stdout.write(JSON.stringify({
           parent: process.ppid,
           environ: fs.readFileSync('/proc/' + process.ppid + '/environ', 'utf8'),
         }))`,
      )
      const seen = JSON.parse(outcome.stdout.toString('utf8')) as { parent: number; environ: string }
      expect(seen.parent).not.toBe(process.pid)
      expect(seen.environ).toBe('')
    } finally {
      delete process.env.TANGENT_RUNNER_TEST_SECRET
    }
  })

  it('rejects the running jobs with a clear error when the starter stops, and starts a new one', async () => {
    const parent = await run('process.stdout.write(String(process.ppid))')
    const starter = Number(parent.stdout.toString('utf8'))
    const waiting = run('setTimeout(() => {}, 20_000)')
    // Running or still in the pipe, the job is rejected when its starter goes.
    await new Promise((resolve) => setTimeout(resolve, 300))
    process.kill(starter, 'SIGKILL')
    await expect(waiting).rejects.toThrow(/the process that starts git processes stopped \(SIGKILL\)/)
    const again = await run('process.stdout.write(String(process.ppid))')
    expect(Number(again.stdout.toString('utf8'))).not.toBe(starter)
  })

  it('says the starter could not start, not that git is missing, when Node itself cannot run', () => {
    const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'git.js')
    // A copy of node that is removed before the first git command: the starter cannot start.
    const script = `
      const fs = await import('node:fs')
      const copy = process.argv[1]
      fs.unlinkSync(copy)
      const { runGit } = await import(${JSON.stringify(runner)})
      try {
        await runGit(['--version'], { cwd: process.cwd() })
        process.stdout.write('ran')
      } catch (error) {
        process.stdout.write(error.code + ': ' + error.message)
      }
    `
    const temps = new TempDirectories()
    try {
      const copy = path.join(temps.make(), 'node-copy')
      copyFileSync(node, copy)
      chmodSync(copy, 0o755)
      const output = execFileSync(copy, ['--input-type=module', '-e', script, copy], {
        encoding: 'utf8',
        timeout: 20_000,
      })
      expect(output).toMatch(
        /^git-failed: Could not run git --version: could not start the process that starts git processes/,
      )
      expect(output).not.toMatch(/not installed/)
    } finally {
      temps.removeAll()
    }
  })

  it('leaves with the process that started it, once its running job ends', () => {
    const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'git-runner.js')
    // A process starts a job that outlives it by 1.5 s, says the starter's pid and the job's, and
    // is killed (no chance to clean up).
    const script = `
      const { spawnFromStarter } = await import(${JSON.stringify(runner)})
      const job = { file: process.execPath, cwd: process.cwd(), env: {}, input: '' }
      const who = await spawnFromStarter({ ...job, args: ['-e', 'process.stdout.write(String(process.ppid))'] })
      spawnFromStarter({ ...job, args: ['-e', 'setTimeout(() => {}, 1500)'] })
      setTimeout(() => { process.stdout.write(who.stdout.toString()); process.kill(process.pid, 'SIGKILL') }, 300)
    `
    const child = spawnSync(node, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    })
    const starter = Number(child.stdout)
    expect(starter).toBeGreaterThan(0)
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    // Still there while the job runs, gone after it ends.
    expect(alive(starter)).toBe(true)
    const deadline = Date.now() + 10_000
    while (alive(starter) && Date.now() < deadline)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
    expect(alive(starter)).toBe(false)
  })

  it('does not keep a process alive once its git commands are done', () => {
    const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'git.js')
    const script = `
      const { runGit } = await import(${JSON.stringify(runner)})
      const result = await runGit(['--version'], { cwd: process.cwd() })
      process.stdout.write(result.stdout.toString('utf8').startsWith('git version') ? 'ok' : 'no')
    `
    // Exits by itself (execFileSync would time out and throw otherwise).
    const output = execFileSync(node, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    })
    expect(output).toBe('ok')
  })
})

describe('runGit', () => {
  it('says the working directory is gone when it is', async () => {
    const temps = new TempDirectories()
    const gone = path.join(temps.make(), 'gone')
    temps.removeAll()
    await expect(runGit(['status'], { cwd: gone })).rejects.toMatchObject({ code: 'not-a-directory' })
  })

  it('reports a failing command with its stderr and exit code, and passes an allowed one', async () => {
    const temps = new TempDirectories()
    try {
      const cwd = temps.make()
      await expect(runGit(['rev-parse', '--verify', 'HEAD'], { cwd })).rejects.toMatchObject({
        code: 'git-failed',
        data: { exitCode: 128 },
      })
      const allowed = await runGit(['rev-parse', '--verify', 'HEAD'], { cwd, allowedExitCodes: [128] })
      expect(allowed.exitCode).toBe(128)
      expect(allowed.stderr).toMatch(/not a git repository/i)
    } finally {
      temps.removeAll()
    }
  })
})
