// SessionHooks over real config files and real processes (unsandboxed: the sandboxed path runs in
// the session contract): which hooks run, how failures are told, and close() ending what runs.
import fs from 'node:fs'
import path from 'node:path'
import { runHookCommand } from '@tangent/agent'
import { describe, expect, it } from 'vitest'
import { ConfigFiles } from './config.js'
import { type HookRunner, hookEnvironment, listHooks, SessionHooks } from './session-hooks.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const tempDir = tempDirs('tangent-session-hooks-')

function setUp(user: unknown, options: { refused?: string; project?: unknown } = {}) {
  const root = tempDir()
  const cwd = path.join(root, 'project')
  fs.mkdirSync(path.join(cwd, '.git'), { recursive: true })
  const userPath = path.join(root, 'config.json')
  fs.writeFileSync(userPath, JSON.stringify(user))
  if (options.project !== undefined) {
    fs.mkdirSync(path.join(cwd, '.tangent'))
    fs.writeFileSync(path.join(cwd, '.tangent', 'config.json'), JSON.stringify(options.project))
  }
  const config = new ConfigFiles({ env: { TANGENT_CONFIG: userPath } })
  const reports: string[] = []
  const runner: HookRunner = { run: runHookCommand, sandbox: null, refused: options.refused ?? null }
  const hooks = new SessionHooks({
    config,
    report: (line) => reports.push(line),
    environment: hookEnvironment({ PATH: process.env.PATH, TANGENT_TOKEN: 'secret' }, root),
    runner: async () => runner,
    protectedPaths: [],
    closing: () => false,
  })
  const call = { sessionId: 's1', cwd, id: 'c1', name: 'bash', input: { command: 'ls' } }
  return { root, cwd, config, reports, hooks, call }
}

describe('SessionHooks', () => {
  it('a preToolUse hook that fails or cannot run denies, naming the hook; others report one line and go on', async () => {
    const { hooks, call, reports, cwd } = setUp({
      hooks: {
        preToolUse: [{ command: 'echo oops >&2; exit 1' }],
        turnEnd: [{ command: 'exit 4' }, { command: 'cat > after.json' }],
      },
    })
    const refusal = await hooks.toolCallHooks.beforeToolCall(call, new AbortController().signal)
    expect(refusal?.reason).toMatch(
      /^the preToolUse hook `echo oops >&2; exit 1` \(.*config\.json\) failed \(exit 1\): oops, so the call is denied/,
    )
    expect(refusal?.hook).toEqual({
      command: 'echo oops >&2; exit 1',
      source: expect.stringMatching(/config\.json$/),
    })
    await hooks.fire('turnEnd', { sessionId: 's1', cwd }, { reason: 'completed' })
    // The failing hook did not stop the next one.
    expect(JSON.parse(fs.readFileSync(path.join(cwd, 'after.json'), 'utf8'))).toEqual({
      event: 'turnEnd',
      sessionId: 's1',
      cwd,
      reason: 'completed',
    })
    expect(reports).toEqual([
      expect.stringMatching(
        /^warning: the preToolUse hook .* failed \(exit 1\): oops; the tool call was denied\.$/,
      ),
      expect.stringMatching(/^warning: the turnEnd hook `exit 4` .* failed \(exit 4\)\.$/),
    ])
  })

  it('where hooks may not run (the sandbox required and missing), preToolUse denies and the rest report', async () => {
    const { hooks, call, reports, cwd } = setUp(
      { hooks: { preToolUse: [{ command: 'true' }], sessionStart: [{ command: 'true' }] } },
      { refused: 'no sandbox here' },
    )
    const refusal = await hooks.toolCallHooks.beforeToolCall(call, new AbortController().signal)
    expect(refusal?.reason).toContain('could not run: no sandbox here')
    await hooks.fire('sessionStart', { sessionId: 's1', cwd }, {})
    expect(reports.at(-1)).toContain('the sessionStart hook `true`')
    expect(reports.at(-1)).toContain('could not run: no sandbox here')
  })

  it('an untrusted project’s hooks are listed as not running and told once; trusted, they run after the user’s', async () => {
    const project = { hooks: { sessionStart: [{ command: 'echo project >> order.txt' }] } }
    const untrusted = setUp({ hooks: { sessionStart: [{ command: 'echo user >> order.txt' }] } }, { project })
    const listed = await listHooks(untrusted.config, untrusted.cwd)
    expect(listed.map((hook) => [hook.event, hook.scope, hook.enabled])).toEqual([
      ['sessionStart', 'user', true],
      ['sessionStart', 'project', false],
    ])
    await untrusted.hooks.fire('sessionStart', { sessionId: 's1', cwd: untrusted.cwd }, {})
    await untrusted.hooks.fire('sessionStart', { sessionId: 's2', cwd: untrusted.cwd }, {})
    expect(fs.readFileSync(path.join(untrusted.cwd, 'order.txt'), 'utf8')).toBe('user\nuser\n')
    expect(untrusted.reports).toEqual([
      expect.stringContaining(`add "trustProjectHooks": [${JSON.stringify(untrusted.cwd)}]`),
    ])

    const trusted = setUp({ hooks: { sessionStart: [{ command: 'echo user >> order.txt' }] } }, { project })
    fs.writeFileSync(
      trusted.config.userPath,
      JSON.stringify({
        hooks: { sessionStart: [{ command: 'echo user >> order.txt' }] },
        trustProjectHooks: [trusted.cwd],
      }),
    )
    await trusted.hooks.fire('sessionStart', { sessionId: 's1', cwd: trusted.cwd }, {})
    expect(fs.readFileSync(path.join(trusted.cwd, 'order.txt'), 'utf8')).toBe('user\nproject\n')
  })

  it('close() kills the hooks still running and starts none after; the environment has no token', async () => {
    const { hooks, cwd, reports } = setUp({
      hooks: { fork: [{ command: 'env > env.txt; echo $$ > pid.txt; exec sleep 30', timeoutMs: 60_000 }] },
    })
    const firing = hooks.fire('fork', { sessionId: 's1', cwd }, {})
    const pidFile = path.join(cwd, 'pid.txt')
    while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8') === '')
      await new Promise((resolve) => setTimeout(resolve, 20))
    const pid = Number(fs.readFileSync(pidFile, 'utf8'))
    await hooks.close()
    await firing
    // `exec sleep`: the hook's own process, which the runner has waited for (no zombie left).
    expect(() => process.kill(pid, 0)).toThrow()
    expect(reports).toEqual([])
    expect(fs.readFileSync(path.join(cwd, 'env.txt'), 'utf8')).not.toContain('secret')
    fs.rmSync(pidFile)
    await hooks.fire('fork', { sessionId: 's1', cwd }, {})
    expect(fs.existsSync(pidFile)).toBe(false)
    const refusal = await hooks.toolCallHooks.beforeToolCall(
      { sessionId: 's1', cwd, id: 'c', name: 'bash', input: {} },
      new AbortController().signal,
    )
    expect(refusal?.reason).toContain('closing')
  })
})
