// A first message the CLI or the Host refuses leaves nothing behind (no session that `-c` would
// pick up next), and the refusals read in the user's terms; the built CLI, in-process, offline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionSummary } from '../../packages/protocol/dist/index.js'
import { createSandbox, removeSandbox, type Sandbox, tangentInProcess, tangentJson } from './cli-harness.js'

let sandbox: Sandbox
beforeAll(() => {
  sandbox = createSandbox()
})
afterAll(() => removeSandbox(sandbox))

const sessions = () => tangentJson<SessionSummary[]>(sandbox, ['sessions', '--all'])
const oneLine = (stderr: string) => stderr.trim().split('\n')

describe('refused first messages', () => {
  it('an unknown model of a known provider, or a message past the limit, makes no session; chat exits 1', async () => {
    const unknownModel =
      'error[invalid-model]: Unknown model "demo:nonexistent": the demo provider has one model, demo:scripted.'
    const run = await tangentInProcess(sandbox, ['run', '--model', 'demo:nonexistent', 'hi'])
    expect([run.code, oneLine(run.stderr)]).toEqual([1, [unknownModel]])
    const chat = await tangentInProcess(sandbox, ['chat', '--model', 'demo:nonexistent'], { input: 'hi\n' })
    expect([chat.code, oneLine(chat.stderr)]).toEqual([1, [unknownModel]])
    // Words of a message are joined with spaces: 263 words of 999 characters make 262,999.
    const words = Array.from({ length: 263 }, () => 'a'.repeat(999))
    const long = await tangentInProcess(sandbox, ['run', ...words])
    expect([long.code, oneLine(long.stderr)]).toEqual([
      1,
      [
        'error[invalid-params]: The message is 262,999 characters; the limit is 262,144: shorten it, or put the text in a file and ask the agent to read it.',
      ],
    ])
    // In chat the line is refused before its session is made; the chat goes on.
    const chatLong = await tangentInProcess(sandbox, ['chat'], { input: `${words.join(' ')}\n` })
    expect(chatLong.stderr).toContain('error[invalid-params]: The message is 262,999 characters')
    expect(await sessions()).toEqual([])
    // So `-c` finds nothing to continue rather than the broken session.
    const again = await tangentInProcess(sandbox, ['run', '-c', 'hello again'])
    expect([again.code, again.stderr]).toEqual([
      1,
      expect.stringMatching(/^error\[session-not-found\]: No session to continue/),
    ])
  })

  it('refuses a blank or too long title in the user’s terms, keeping the title it had', async () => {
    const { sessionId } = await tangentJson<{ sessionId: string }>(sandbox, ['run', 'hello'])
    for (const title of ['', '  ']) {
      const blank = await tangentInProcess(sandbox, ['rename', sessionId, title])
      expect([blank.code, blank.stderr]).toEqual([
        2,
        expect.stringMatching(/^error\[usage\]: rename needs a title with a visible character/),
      ])
    }
    const long = await tangentInProcess(sandbox, ['rename', sessionId, 'x'.repeat(201)])
    expect([long.code, long.stderr]).toEqual([
      1,
      'error[invalid-params]: The title is 201 characters; the limit is 200.\n',
    ])
    expect((await sessions()).find((session) => session.id === sessionId)?.title).toBe('hello')
    // The hint's way works: after --, text that starts with "-" is the message.
    const dashed = await tangentInProcess(sandbox, [
      'run',
      '--json',
      '--session',
      sessionId,
      '--',
      '-x starts with dash',
    ])
    expect(dashed.code).toBe(0)
    expect(JSON.parse(dashed.stdout)).toMatchObject({ sessionId, reason: 'completed' })
  })
})
