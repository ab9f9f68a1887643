// Approvals from the CLI (docs/architecture.md §12.1): `tangent run` without a terminal denies
// with one line naming the flag, `--allow`/`--yes` answer from flags (recorded `by: flag`), and
// `tangent chat` asks inline — piped here, in a real terminal in cli-chat.e2e.ts.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeProviderServer } from '../../packages/agent/src/testing/fake-provider-server.js'
import { openaiResponsesWire } from '../../packages/agent/src/testing/wire-formats.js'
import { cliMain, createSandbox, removeSandbox, type Sandbox, tangent, tangentJson } from './cli-harness.js'

let sandbox: Sandbox
beforeEach(() => {
  sandbox = createSandbox()
  const dir = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ permission: { bash: 'ask' } }))
})
afterEach(() => removeSandbox(sandbox))

interface Shown {
  events: { type: string; data: Record<string, unknown> }[]
}

const answers = async (sessionId: string) =>
  (await tangentJson<Shown>(sandbox, ['show', sessionId])).events
    .filter((event) => event.type === 'permission/answered')
    .map((event) => event.data)

describe('approvals in the CLI', () => {
  it('tangent run without a terminal denies an ask with one line naming the flag; nothing runs', async () => {
    const result = await tangent(sandbox, ['run', 'run: echo hi > ../outside.txt'])
    expect(result.code).toBe(0)
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('tangent: denied'))
    expect(lines).toEqual([
      'tangent: denied bash: echo hi > ../outside.txt (no terminal to ask: pass --allow "bash:exact:echo hi > ../outside.txt" (or --yes) to allow it)',
    ])
    expect(fs.existsSync(path.join(path.dirname(sandbox.cwd), 'outside.txt'))).toBe(false)
    const sessionId = result.stderr.match(/session (\S+) ·/)![1]!
    expect(await answers(sessionId)).toEqual([
      expect.objectContaining({
        decision: 'deny',
        // Nobody was asked: not "the user" (issue 28).
        by: 'no-terminal',
        reason: expect.stringContaining('--allow "bash:exact:echo hi > ../outside.txt" (or --yes)'),
      }),
    ])
    expect(result.stdout + result.stderr).not.toContain('by the user')
    expect(result.stdout).toContain(
      'Permission denied: nobody could be asked (the command that runs this turn has no terminal): the tool did not run.',
    )
  })

  it('--allow answers the calls it covers (every command of the line), --yes all of them', async () => {
    const allowed = await tangent(sandbox, ['run', '--allow', 'bash:touch', '--json', 'run: touch one.txt'])
    expect(allowed.code).toBe(0)
    const { sessionId } = JSON.parse(allowed.stdout) as { sessionId: string }
    expect(fs.existsSync(path.join(sandbox.cwd, 'one.txt'))).toBe(true)
    expect(await answers(sessionId)).toEqual([expect.objectContaining({ decision: 'once', by: 'flag' })])

    // `touch` does not cover `rm`, nor a redirection: each line is asked about, and denied without a terminal.
    fs.writeFileSync(path.join(sandbox.cwd, 'keep.txt'), 'keep')
    const chained = await tangent(sandbox, [
      'run',
      '--session',
      sessionId,
      '--allow',
      'bash:touch',
      'run: touch x && rm keep.txt',
    ])
    expect(chained.stderr).toContain('tangent: denied bash: touch x && rm keep.txt')
    expect(fs.existsSync(path.join(sandbox.cwd, 'keep.txt'))).toBe(true)

    const yes = await tangent(sandbox, ['run', '--session', sessionId, '--yes', 'run: rm keep.txt'])
    expect(yes.code).toBe(0)
    expect(fs.existsSync(path.join(sandbox.cwd, 'keep.txt'))).toBe(false)
    expect((await answers(sessionId)).map((answer) => [answer.decision, answer.by])).toEqual([
      ['once', 'flag'],
      ['deny', 'no-terminal'],
      ['once', 'flag'],
    ])
  })

  it('tangent chat takes the next line as the answer; "a" keeps the rule for the session', async () => {
    const result = await tangent(sandbox, ['chat'], {
      input: 'run: touch one.txt\na\nrun: touch two.txt\nrun: rm one.txt\nn\n',
    })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      [
        'Allow bash to run:',
        '  │ touch one.txt',
        '  [a] always = allow bash commands starting with `touch` for the rest of this session',
        '[y] once · [a] always · [n] deny › a',
      ].join('\n'),
    )
    expect(result.stdout).toContain('✓ allowed always in this session: bash touch')
    // The second touch runs under the rule, unasked; rm is asked and denied.
    expect(result.stdout).not.toContain('│ touch two')
    expect(result.stdout).toContain('  │ rm one.txt\n')
    expect(result.stdout).toContain('[y] once · [a] always · [n] deny › n')
    expect(fs.existsSync(path.join(sandbox.cwd, 'two.txt'))).toBe(true)
    expect(fs.existsSync(path.join(sandbox.cwd, 'one.txt'))).toBe(true)
  })

  it('tangent chat shows the whole command, folded and escaped, and what "always" keeps, before it reads the answer', async () => {
    // 300 characters whose end is the part that matters: a cut question would hide it. A real
    // provider client (OpenAI Responses) against a local fake server makes the call.
    const command = `echo ${'a'.repeat(260)} \x1b[2J; touch hidden.txt`
    const model = await startFakeProviderServer([
      { frames: openaiResponsesWire.toolCall('call_1', 'bash', { command }) },
      { frames: openaiResponsesWire.text('Done.') },
    ])
    const child = spawn(process.execPath, [cliMain, 'chat', '--model', 'openai:gpt-4.1'], {
      cwd: sandbox.cwd,
      env: { ...sandbox.env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseUrl } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    const shown = new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk
        if (stdout.includes('[n] deny › ')) resolve(stdout)
      })
      child.once('exit', (code) =>
        reject(new Error(`tangent chat exited (${code}) before asking: ${stdout}`)),
      )
    })
    // No answer is written until the question is on the screen.
    child.stdin!.write('clean up the build folder\n')
    const question = (await shown).slice(stdout.indexOf('Allow bash to run:'))
    const body = question
      .split('\n')
      .filter((line) => line.startsWith('  │ '))
      .map((line) => line.slice(4))
    // Folded at 80 columns, all of it shown; the escape character is shown escaped, never sent.
    expect(body.length).toBeGreaterThan(3)
    for (const line of body) expect(line.length).toBeLessThanOrEqual(76)
    expect(body.join('')).toBe(command.replace('\x1b', '\\x1b'))
    expect(question).not.toContain('\x1b')
    expect(question).toContain('; touch hidden.txt')
    // A control character makes the line opaque (§12.1): `always` would keep this exact line only.
    expect(question).toContain(
      '  [a] always = allow only this exact bash command for the rest of this session',
    )
    child.stdin!.write('n\n')
    // The model reads the denial and answers; then the chat ends with its input.
    await new Promise<void>((resolve) => {
      const check = () => stdout.includes('Done.') && resolve()
      child.stdout!.on('data', check)
      check()
    })
    child.stdin!.end()
    await new Promise<void>((resolve) => child.once('exit', () => resolve()))
    await model.close()
    expect(fs.existsSync(path.join(sandbox.cwd, 'hidden.txt'))).toBe(false)

    // The scope shown is the event's pattern, exactly.
    const sessions = await tangentJson<{ id: string }[]>(sandbox, ['sessions'])
    const events = (await tangentJson<Shown>(sandbox, ['show', sessions[0]!.id])).events
    const requested = events.find((event) => event.type === 'permission/requested')!.data
    expect(requested.input).toEqual({ command })
    expect(requested.pattern).toBe(`exact:${command}`)
  })
})
