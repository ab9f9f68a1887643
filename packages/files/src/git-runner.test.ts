import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { TempDirectories } from './fixture.test-helper.js'
import { runGit } from './git.js'
import { maxRunningProcesses, spawnOffThread } from './git-runner.js'

const node = process.execPath
const run = (script: string, input: string | Buffer = '') =>
  spawnOffThread({
    file: node,
    args: ['-e', script],
    cwd: process.cwd(),
    env: { ...process.env } as Record<string, string>,
    input,
  })

describe('spawnOffThread', () => {
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
      spawnOffThread({
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
