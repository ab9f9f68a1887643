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
    const server = await startFakeProviderServer([
      tooMany,
      { frames: chatCompletionsWire.text('Piped answer.') },
      { status: 500, json: { error: { message: 'boom' } } },
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
