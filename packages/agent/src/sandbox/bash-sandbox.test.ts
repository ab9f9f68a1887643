// The bash tool in the real OS sandbox (bubblewrap here, no mocks): what a command may write,
// that it cannot reach the network, its private TMPDIR, git, and that timeouts and aborts still
// kill it. The first test fails when the sandbox is silently off on a machine that has one.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolContext } from '../tools/agent-tool.js'
import { type BashSandboxSetting, createBashTool } from '../tools/bash.js'
import { BashSandbox, type CommandSandbox } from './bash-sandbox.js'

const sandbox = new BashSandbox()
afterAll(() => sandbox.dispose())
const probe = await sandbox.probe()
const bwrapOnPath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .some((directory) => directory !== '' && fs.existsSync(path.join(directory, 'bwrap')))
/** Where the sandbox must work: CI installs bubblewrap (.ci/run), and so does anyone with bwrap. */
const sandboxExpected = process.env.CI !== undefined || (process.platform === 'linux' && bwrapOnPath)

let base: string
let cwd: string
let context: ToolContext
let setting: BashSandboxSetting
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-sandbox-')))
  cwd = path.join(base, 'project')
  fs.mkdirSync(cwd)
  fs.mkdirSync(path.join(base, 'outside'))
  context = { cwd, signal: new AbortController().signal }
  setting = { sandbox, mode: 'required', tempKey: `test-${path.basename(base)}` }
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

async function bash(command: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const tool = createBashTool({ sandbox: setting })
  const input = tool.inputSchema.parse({
    command,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  })
  return tool.run(input, options.signal ? { ...context, signal: options.signal } : context)
}

it('is available wherever bubblewrap is installed or CI runs (never silently off)', () => {
  if (sandboxExpected) expect(probe).toEqual({ available: true, kind: 'bubblewrap' })
  // Elsewhere it may be off, but then it says why.
  else if (!probe.available) expect(probe.reason).toMatch(/\S/)
})

describe.runIf(probe.available)('a sandboxed command', () => {
  it('writes inside the session directory but not beside it, and says why', async () => {
    const result = await bash('echo in > inside.txt; echo out > ../outside/escaped.txt; echo done')
    expect(fs.readFileSync(path.join(cwd, 'inside.txt'), 'utf8')).toBe('in\n')
    expect(fs.existsSync(path.join(base, 'outside', 'escaped.txt'))).toBe(false)
    expect(result.output).toMatch(/escaped\.txt: Read-only file system/)
    expect(result.output).toContain(`[sandbox: commands may write only inside ${cwd}`)
    expect(result.output).toMatch(/done\n/)
  })

  it("cannot write Tangent's data directory when the project holds it, and still writes beside it", async () => {
    const data = path.join(cwd, 'data')
    fs.mkdirSync(path.join(data, 'sessions'), { recursive: true })
    fs.writeFileSync(path.join(data, 'sessions', 's.jsonl'), 'log\n')
    context = { ...context, protectedPaths: [data] }
    const result = await bash(
      'echo garbage >> data/sessions/s.jsonl; echo new > data/x.txt; echo ok > mine.txt; echo done',
    )
    expect(fs.readFileSync(path.join(data, 'sessions', 's.jsonl'), 'utf8')).toBe('log\n')
    expect(fs.existsSync(path.join(data, 'x.txt'))).toBe(false)
    expect(fs.readFileSync(path.join(cwd, 'mine.txt'), 'utf8')).toBe('ok\n')
    expect(result.output).toMatch(/Read-only file system/)
    expect(result.output).toMatch(/done\n/)
  })

  it('cannot write to the home directory or the shared temp directory either', async () => {
    const marker = `tangent-escape-${path.basename(base)}`
    const result = await bash(`touch ${os.tmpdir()}/${marker} ~/${marker}; echo rc=$?`)
    expect(fs.existsSync(path.join(os.tmpdir(), marker))).toBe(false)
    expect(fs.existsSync(path.join(os.homedir(), marker))).toBe(false)
    expect(result.output).toContain('rc=1')
  })

  it('cannot open a TCP socket, even to a listener on 127.0.0.1', async () => {
    let connections = 0
    const server = net.createServer((socket) => {
      connections += 1
      socket.destroy()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as net.AddressInfo
    try {
      const result = await bash(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`)
      expect(result.isError).toBe(true)
      expect(result.output).not.toContain('connected')
      expect(result.output).toMatch(/Connection refused|Network is unreachable/)
      expect(result.output).toContain('[sandbox: the network is off')
      expect(connections).toBe(0)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('has a private, writable TMPDIR of its session', async () => {
    const result = await bash(
      'echo "tmp=$TMPDIR"; echo scratch > "$TMPDIR/scratch.txt" && cat "$TMPDIR/scratch.txt"',
    )
    const tempDirectory = /tmp=(.*)\n/.exec(result.output)?.[1] ?? ''
    expect(result.isError).toBe(false)
    expect(path.basename(tempDirectory)).toBe(setting.tempKey)
    expect(fs.readFileSync(path.join(tempDirectory, 'scratch.txt'), 'utf8')).toBe('scratch\n')
    expect(fs.statSync(tempDirectory).mode & 0o777).toBe(0o700)
    expect(fs.statSync(path.dirname(tempDirectory)).mode & 0o777).toBe(0o700)
    // Another session's temp directory is out of reach.
    const other = createBashTool({ sandbox: { ...setting, tempKey: `${setting.tempKey}-other` } })
    const attempt = await other.run(
      other.inputSchema.parse({ command: `echo x > ${tempDirectory}/theirs.txt` }),
      context,
    )
    expect(attempt.isError).toBe(true)
    expect(fs.existsSync(path.join(tempDirectory, 'theirs.txt'))).toBe(false)
    fs.rmSync(tempDirectory, { recursive: true, force: true })
    fs.rmSync(`${tempDirectory}-other`, { recursive: true, force: true })
  })

  it("lets git commit in the session's repository, never touch its hooks", async () => {
    execFileSync('git', ['init', '-q'], { cwd })
    const result = await bash(
      'echo a > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm one && git log --format=%s; echo evil > .git/hooks/pre-commit',
    )
    expect(result.output).toMatch(/^one\n/)
    expect(execFileSync('git', ['log', '--format=%s'], { cwd, encoding: 'utf8' })).toBe('one\n')
    expect(fs.existsSync(path.join(cwd, '.git', 'hooks', 'pre-commit'))).toBe(false)
  })

  it('is killed with everything inside it on timeout and on abort', async () => {
    const marker = 4000 + Math.floor(Math.random() * 1000)
    const timedOut = await bash(`sleep ${marker}.1 & sleep ${marker}.2`, { timeoutMs: 300 })
    expect(timedOut.output).toContain('[killed: timed out after 300 ms]')
    const controller = new AbortController()
    const aborted = bash(`sleep ${marker}.3 & sleep ${marker}.4`, { signal: controller.signal })
    setTimeout(() => controller.abort(), 300)
    // Killed while running, or — when preparing the sandbox took longer than the 300 ms (a loaded
    // machine) — never started; either way nothing is left running.
    expect((await aborted).output).toMatch(
      /\[killed: the turn was aborted\]|\[not run: the turn was aborted before the command started\]/,
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.startsWith(`sleep ${marker}.`))
    expect(left).toEqual([])
  })
})

describe('without a sandbox', () => {
  const unavailable: CommandSandbox = {
    probe: async () => ({ available: false, reason: 'bwrap is not installed' }),
    wrap: () => Promise.reject(new Error('wrap must not be called without a sandbox')),
  }

  it('refuses to run when the sandbox is required', async () => {
    setting = { sandbox: unavailable, mode: 'required', tempKey: 't' }
    const result = await bash('echo ran > ran.txt')
    expect(result).toEqual({
      output:
        'Refused: commands must run in an OS sandbox here (TANGENT_SANDBOX=required), and none is available: bwrap is not installed. Nothing was run.',
      isError: true,
    })
    expect(fs.existsSync(path.join(cwd, 'ran.txt'))).toBe(false)
  })

  it('runs unconfined in auto mode', async () => {
    setting = { sandbox: unavailable, mode: 'auto', tempKey: 't' }
    const result = await bash('echo out > ../outside/free.txt && echo ok')
    expect(result).toEqual({ output: 'ok\n[exit code 0]', isError: false })
    expect(fs.existsSync(path.join(base, 'outside', 'free.txt'))).toBe(true)
  })
})
