// `tangent doctor` names what stops Tangent from working (docs/architecture.md §9): a default model
// that cannot run, a corrupt workspaces file, an MCP server whose command is missing, a bad hooks
// config — one line each with what to do, exit 1 for the errors; and what hooks say reaches the
// terminal (§12.7). And a corrupt workspaces file leaves the commands
// that only read working (one warning) while the ones that write refuse and never overwrite it.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createSandbox,
  removeSandbox,
  type Sandbox,
  tangent,
  tangentInProcess,
  tangentJson,
} from './cli-harness.js'

const sandboxes: Sandbox[] = []
afterEach(() => {
  for (const sandbox of sandboxes.splice(0)) removeSandbox(sandbox)
})

function sandboxWith(env: Record<string, string> = {}): Sandbox {
  const sandbox = createSandbox()
  sandboxes.push(sandbox)
  return { ...sandbox, env: { ...sandbox.env, ...env } }
}

interface DoctorJson {
  problems: { level: 'error' | 'warning'; text: string }[]
}

function problemLines(stdout: string): string[] {
  const lines = stdout.split('\n')
  const start = lines.findIndex((line) => line.startsWith('Problems'))
  expect(start, stdout).toBeGreaterThanOrEqual(0)
  return lines.slice(start + 1).filter((line) => line.startsWith('  '))
}

describe('tangent doctor', () => {
  it('a healthy setup: no problems, exit 0', async () => {
    const result = await tangentInProcess(sandboxWith(), ['doctor'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Problems {2}none$/m)
    expect(result.stderr).toBe('')
  })

  it('a default model that is not a model: one error line saying what to set, exit 1', async () => {
    const result = await tangentInProcess(sandboxWith({ TANGENT_MODEL: 'bogus' }), ['doctor'])
    expect(result.code).toBe(1)
    expect(problemLines(result.stdout)).toEqual([
      expect.stringMatching(
        /✗ The default model cannot run: Invalid model "bogus".*set TANGENT_MODEL to one that can run here \(demo:scripted\)/,
      ),
    ])
    expect(result.stderr).toMatch(/^error\[doctor-problems\]: found a problem/)
  })

  it('a default model whose provider has no key: the setting to provide, exit 1; --json lists it', async () => {
    const sandbox = sandboxWith({ TANGENT_MODEL: 'openai:gpt-4.1' })
    const result = await tangentInProcess(sandbox, ['doctor'])
    expect(result.code).toBe(1)
    expect(problemLines(result.stdout)).toEqual([
      expect.stringMatching(/✗ The default model openai:gpt-4.1 cannot run: set OPENAI_API_KEY/),
    ])
    const json = await tangentInProcess(sandbox, ['doctor', '--json'])
    expect(json.code).toBe(1)
    expect((JSON.parse(json.stdout) as DoctorJson).problems).toEqual([
      { level: 'error', text: expect.stringMatching(/openai:gpt-4.1 cannot run/) },
    ])
    // With the key the same default is fine.
    const keyed = { ...sandbox, env: { ...sandbox.env, OPENAI_API_KEY: 'sk-test' } }
    expect((await tangentJson<DoctorJson>(keyed, ['doctor'])).problems).toEqual([])
  })

  it('an MCP server whose command does not exist: a warning that says so (exit 0: the rest works)', async () => {
    const sandbox = sandboxWith()
    const configFile = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent', 'config.json')
    fs.mkdirSync(path.dirname(configFile), { recursive: true })
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        mcp: {
          servers: {
            bad: { command: 'tangent-no-such-mcp-server' },
            good: { command: process.execPath, args: ['server.js'] },
          },
        },
      }),
    )
    const result = await tangentInProcess(sandbox, ['doctor'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^ {2}bad {2}stdio {2}enabled, will not start/m)
    expect(result.stdout).toMatch(/^ {2}good {2}stdio {2}enabled {2}/m)
    expect(problemLines(result.stdout)).toEqual([
      expect.stringMatching(
        /! MCP server "bad" \(.*config\.json\) will not start: command "tangent-no-such-mcp-server" is not found on PATH: install it/,
      ),
    ])
  })
})

describe('tangent doctor and hooks', () => {
  it('lists the hooks for the folder, says which project hooks do not run, and a bad hooks config is an error', async () => {
    const sandbox = sandboxWith()
    const configFile = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent', 'config.json')
    fs.mkdirSync(path.dirname(configFile), { recursive: true })
    fs.writeFileSync(
      configFile,
      JSON.stringify({ hooks: { preToolUse: [{ command: './guard.sh', match: 'bash' }] } }),
    )
    fs.mkdirSync(path.join(sandbox.cwd, '.tangent'))
    fs.writeFileSync(
      path.join(sandbox.cwd, '.tangent', 'config.json'),
      JSON.stringify({ hooks: { turnEnd: [{ command: 'notify-send done' }] } }),
    )
    const listed = await tangentInProcess(sandbox, ['doctor'])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^Hooks {5}2 configured for /m)
    expect(listed.stdout).toMatch(/^ {2}preToolUse \[bash\] {2}\.\/guard\.sh {2}runs {2}.*config\.json$/m)
    expect(listed.stdout).toMatch(
      /^ {2}turnEnd {2}notify-send done {2}does not run: the project is not trusted/m,
    )

    fs.writeFileSync(configFile, JSON.stringify({ hooks: { preToolUse: [{ command: 'x', timeoutMs: -5 }] } }))
    const bad = await tangentInProcess(sandbox, ['doctor'])
    expect(bad.code).toBe(1)
    expect(problemLines(bad.stdout)).toContainEqual(
      expect.stringMatching(
        /✗ Config file .*config\.json is not valid: hooks\.preToolUse\.0\.timeoutMs: timeoutMs must be/,
      ),
    )
  })
})

describe('hooks from the CLI', () => {
  it('tangent run: a preToolUse hook’s denial is printed with its reason, a failing turnEnd hook is one warning line', async () => {
    const sandbox = sandboxWith()
    const configFile = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent', 'config.json')
    fs.mkdirSync(path.dirname(configFile), { recursive: true })
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        hooks: {
          preToolUse: [{ command: 'echo "not rm, please" >&2; exit 2', match: 'bash' }],
          turnEnd: [{ command: 'echo boom >&2; exit 3' }],
        },
      }),
    )
    fs.writeFileSync(path.join(sandbox.cwd, 'keep.txt'), 'k\n')
    const result = await tangentInProcess(sandbox, ['run', 'run: rm keep.txt'])
    expect(result.code, result.stderr).toBe(0)
    expect(fs.existsSync(path.join(sandbox.cwd, 'keep.txt'))).toBe(true)
    expect(result.stdout).toContain('✗ denied by a preToolUse hook: not rm, please')
    expect(result.stderr.split('\n').filter((line) => line.includes('turnEnd hook'))).toEqual([
      expect.stringMatching(
        /^tangent: warning: the turnEnd hook `echo boom >&2; exit 3` \(.*config\.json\) failed \(exit 3\): boom\.$/,
      ),
    ])
  })
})

describe('a corrupt workspaces.json', () => {
  it('read-only commands work and warn once; doctor lists it and exits 1; writing commands refuse and keep the file', async () => {
    const sandbox = sandboxWith()
    const { sessionId } = await tangentJson<{ sessionId: string }>(sandbox, ['run', 'hello'])
    const file = path.join(sandbox.home, 'workspaces.json')
    fs.writeFileSync(file, 'x')
    const warning = /^tangent: warning: .*workspaces\.json is not a valid workspaces file .*Fix or remove it/

    const ls = await tangent(sandbox, ['ls'])
    expect(ls.code).toBe(0)
    expect(ls.stdout).toContain(sessionId)
    expect(ls.stderr.trim().split('\n')).toEqual([expect.stringMatching(warning)])
    const show = await tangent(sandbox, ['show', sessionId])
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('you said "hello"')
    expect(show.stderr.trim().split('\n')).toEqual([expect.stringMatching(warning)])

    const doctor = await tangentInProcess(sandbox, ['doctor'])
    expect(doctor.code).toBe(1)
    expect(problemLines(doctor.stdout)).toEqual([
      expect.stringMatching(
        /✗ .*workspaces\.json is not a valid workspaces file.*every command that writes refuses/,
      ),
    ])
    // Said once, as a problem line: not again as a warning on stderr.
    expect(doctor.stderr).not.toMatch(/warning/)

    for (const args of [
      ['run', 'again'],
      ['serve', '--port', '0'],
    ]) {
      const refused = await tangent(sandbox, args)
      expect(refused.code, args.join(' ')).toBe(1)
      expect(refused.stderr).toMatch(/^error\[corrupt-workspaces\]: /)
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('x')
  })
})
