// Feedback while waiting (issue 28): on a terminal `tangent run` says the model is working and
// counts down a retry with its reason; a pipe and --json get none of it. Ctrl-C exits 130 after
// the abort is recorded; --json carries the answer's text; a run refused before its first turn
// leaves no session.
import { spawn } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeProviderServer } from '../../packages/agent/src/testing/fake-provider-server.js'
import { chatCompletionsWire } from '../../packages/agent/src/testing/wire-formats.js'
import { cliMain, createSandbox, removeSandbox, type Sandbox, tangent, tangentJson } from './cli-harness.js'

let sandbox: Sandbox
beforeEach(() => {
  sandbox = createSandbox()
})
afterEach(() => removeSandbox(sandbox))

const tooMany = { status: 429, json: { error: { message: 'Rate limit reached', type: 'rate_limit' } } }

/** Runs `tangent ARGS` under `script`, so stdout and stderr are a terminal. */
function atTerminal(
  args: string,
  env: Record<string, string | undefined>,
  options: { interruptWhen?: RegExp } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(cliMain)} ${args}`
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: sandbox.cwd,
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let output = ''
    let interrupted = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      if (!interrupted && options.interruptWhen?.test(output)) {
        interrupted = true
        // Ctrl-C as a terminal sends it: to the foreground process (the CLI under script).
        child.stdin.write('\x03')
      }
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code: code ?? -1, output }))
  })
}

describe('tangent run while the model works', () => {
  it('on a terminal: a status line while it thinks, and a retried 429 with its reason and countdown', async () => {
    const server = await startFakeProviderServer([
      tooMany,
      { frames: chatCompletionsWire.text('Answer after a retry.') },
    ])
    try {
      const env = { ...sandbox.env, TANGENT_OPENAI_COMPATIBLE_BASE_URL: server.baseUrl }
      const result = await atTerminal('run --model openai-compatible:m hi', env)
      expect(result.code).toBe(0)
      expect(result.output).toContain('Answer after a retry.')
      expect(result.output).toContain('thinking…')
      expect(result.output).toMatch(/retrying in [12]s \(retry 1\/2\): HTTP 429 Rate limit reached/)
    } finally {
      await server.close()
    }
  }, 60_000)

  it('on a pipe and with --json: nothing of it; --json has the answer text', async () => {
    // Each retried at once (retry-after-ms): what is checked is that nothing of it is shown.
    const soon = { 'retry-after-ms': '50' }
    const server = await startFakeProviderServer([
      { ...tooMany, headers: soon },
      { frames: chatCompletionsWire.text('Piped answer.') },
      { status: 500, json: { error: { message: 'boom' } }, headers: soon },
      { frames: chatCompletionsWire.text('JSON answer.') },
    ])
    try {
      sandbox.env.TANGENT_OPENAI_COMPATIBLE_BASE_URL = server.baseUrl
      const piped = await tangent(sandbox, ['run', '--model', 'openai-compatible:m', 'hi'])
      expect(piped.code).toBe(0)
      expect(piped.stdout).toBe('Piped answer.\n')
      expect(piped.stderr).not.toMatch(/retry|thinking/)
      const json = await tangent(sandbox, ['run', '--model', 'openai-compatible:m', 'hi', '--json'])
      expect(json.stderr).toBe('')
      expect(JSON.parse(json.stdout)).toMatchObject({ reason: 'completed', text: 'JSON answer.' })
    } finally {
      await server.close()
    }
  }, 60_000)

  it('Ctrl-C aborts the turn, records it, and exits 130', async () => {
    const server = await startFakeProviderServer([
      { frames: chatCompletionsWire.text('Partial').slice(0, 3), after: 'hang' },
    ])
    try {
      const env = { ...sandbox.env, TANGENT_OPENAI_COMPATIBLE_BASE_URL: server.baseUrl }
      const result = await atTerminal('run --model openai-compatible:m hi', env, { interruptWhen: /Partial/ })
      expect(result.output).toContain('turn ended: aborted')
      expect(result.code).toBe(130)
      const sessions = await tangentJson<{ id: string }[]>(sandbox, ['sessions'])
      const shown = await tangentJson<{ events: { type: string; data: { reason?: string } }[] }>(sandbox, [
        'show',
        sessions[0]!.id,
      ])
      expect(shown.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
    } finally {
      await server.close()
    }
  }, 60_000)

  it('a run refused before its first turn leaves no session', async () => {
    // The default model cannot run (no key), and a model no provider has.
    sandbox.env.TANGENT_MODEL = 'openai:gpt-4.1'
    const noKey = await tangent(sandbox, ['run', 'hi'])
    expect(noKey.code).toBe(1)
    const unknown = await tangent(sandbox, ['run', '--model', 'acme:x', 'hi'])
    expect(unknown.code).not.toBe(0)
    expect(await tangentJson<unknown[]>(sandbox, ['sessions', '--all'])).toEqual([])
  }, 60_000)
})

describe('listings people can scan', () => {
  it('sessions shows folder, age, model and how the last turn went; --json has lastStatus', async () => {
    const ok = (await tangentJson<{ sessionId: string }>(sandbox, ['run', 'all good'])).sessionId
    const server = await startFakeProviderServer([
      {
        status: 400,
        json: { error: { message: 'Bad request: no such model', type: 'invalid_request_error' } },
      },
    ])
    try {
      sandbox.env.TANGENT_OPENAI_COMPATIBLE_BASE_URL = server.baseUrl
      const failedRun = await tangent(sandbox, [
        'run',
        '--model',
        'openai-compatible:m',
        'this fails',
        '--json',
      ])
      expect(failedRun.code).toBe(1)
      const failed = JSON.parse(failedRun.stdout).sessionId as string
      const listed = await tangent(sandbox, ['sessions'])
      expect(listed.code).toBe(0)
      const rows = listed.stdout.trim().split('\n')
      const folder = sandbox.cwd
      expect(rows.find((row) => row.startsWith(ok))).toMatch(
        new RegExp(
          `all good .*demo:scripted · ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · just now {2}ok$`,
        ),
      )
      expect(rows.find((row) => row.startsWith(failed))).toMatch(
        /openai-compatible:m · .* · just now {2}failed$/,
      )
      const json = await tangentJson<{ id: string; lastStatus?: string; cwd: string; updatedAt: number }[]>(
        sandbox,
        ['sessions'],
      )
      expect(json.find((session) => session.id === ok)).toMatchObject({ lastStatus: 'ok', cwd: folder })
      expect(json.find((session) => session.id === failed)).toMatchObject({ lastStatus: 'failed' })
    } finally {
      await server.close()
    }
  }, 60_000)

  it('diff of two unrelated sessions in different folders summarises; --stat, --name-only, --patch', async () => {
    const fs = await import('node:fs')
    const path = await import('node:path')
    const other = path.join(sandbox.cwd, '..', 'other')
    fs.mkdirSync(other)
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(other, `f${i}.txt`), 'x\n'.repeat(100))
    const a = (await tangentJson<{ sessionId: string }>(sandbox, ['run', 'write a.txt: one'])).sessionId
    const b = (await tangentJson<{ sessionId: string }>(sandbox, ['run', '--cwd', other, 'write b.txt: two']))
      .sessionId
    const summary = await tangent(sandbox, ['diff', a, b])
    expect(summary.code).toBe(0)
    expect(summary.stdout).toMatch(/^\+100 −0 {2}added f0\.txt$/m)
    expect(summary.stdout).not.toContain('+x')
    expect(summary.stdout).toMatch(/^32 files changed, \+3001 −1$/m)
    expect(summary.stdout).toContain(`they share no history and work in different folders`)
    expect(summary.stdout).toContain(`tangent diff ${a} ${b} --patch`)
    expect(summary.stdout.split('\n').length).toBeLessThan(60)
    const stat = await tangent(sandbox, ['diff', a.slice(0, 10), b.slice(0, 10), '--stat'])
    expect(stat.stdout).toMatch(/^\+1 −0 +added b\.txt$/m)
    expect(stat.stdout).not.toContain('Common ancestor')
    const names = await tangent(sandbox, ['diff', a, b, '--name-only'])
    expect(names.stdout.split('\n')).toContain('b.txt')
    expect(names.stdout).not.toMatch(/[+−]/)
    const whole = await tangent(sandbox, ['diff', a, b, '--patch'])
    expect(whole.stdout.split('\n').length).toBeGreaterThan(3000)
  }, 60_000)
})
