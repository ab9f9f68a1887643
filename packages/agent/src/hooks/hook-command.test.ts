// The hook runner unsandboxed (the sandboxed path runs in the session contract, where the machine
// has bubblewrap): stdin, exit codes, stderr, the environment given, timeouts and aborts.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runHookCommand } from './hook-command.js'

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-hook-')))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
const run = (command: string, more: Partial<Parameters<typeof runHookCommand>[0]> = {}) =>
  runHookCommand({ command, cwd: dir, input: '{"event":"x"}\n', env, timeoutMs: 5_000, ...more })

/** Polls until `pid` is gone or a zombie (an orphan its new parent has not reaped yet); false after 5 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : ''
    if (stat === '' || /^\d+ \(.*\) Z/.test(stat)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

describe('runHookCommand', () => {
  it('gives the command its input on stdin, in its folder, with only the environment given', async () => {
    expect(await run('cat > got.json; env > env.txt; pwd > pwd.txt')).toEqual({
      kind: 'exited',
      exitCode: 0,
      stderr: '',
    })
    expect(fs.readFileSync(path.join(dir, 'got.json'), 'utf8')).toBe('{"event":"x"}\n')
    expect(fs.readFileSync(path.join(dir, 'pwd.txt'), 'utf8')).toBe(`${dir}\n`)
    const names = fs
      .readFileSync(path.join(dir, 'env.txt'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => line.slice(0, line.indexOf('=')))
    expect(
      names.filter((name) => !['PATH', 'TANGENT_COMMAND_ID', 'PWD', 'SHLVL', '_'].includes(name)),
    ).toEqual([])
  })

  it('reports the exit code and stderr; one that does not read its input is fine', async () => {
    expect(await run('echo no >&2; exit 2')).toEqual({ kind: 'exited', exitCode: 2, stderr: 'no\n' })
    expect(await run('exit 7', { input: 'x'.repeat(1024 * 1024) })).toMatchObject({
      kind: 'exited',
      exitCode: 7,
    })
  })

  it('kills the command at its timeout, and with what it started on abort', async () => {
    expect((await run('sleep 30', { timeoutMs: 200 })).kind).toBe('timed-out')
    const pidFile = path.join(dir, 'child.pid')
    const controller = new AbortController()
    const aborted = run(`sleep 30 & echo $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; wait`, {
      signal: controller.signal,
      timeoutMs: 60_000,
    })
    while (!fs.existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 20))
    const child = Number(fs.readFileSync(pidFile, 'utf8'))
    expect(() => process.kill(child, 0)).not.toThrow()
    controller.abort()
    expect((await aborted).kind).toBe('aborted')
    expect(await gone(child)).toBe(true)
  })

  it('says why a command could not start', async () => {
    expect(await run('true', { cwd: path.join(dir, 'missing') })).toMatchObject({ kind: 'failed' })
  })
})
