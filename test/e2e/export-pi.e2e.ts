// `tangent export ID --format pi` backed out into the REAL pi (issue 31, "Back out"): a Tangent
// tree made with the demo model (texts, tool calls and results, a fork) is written where pi looks
// (`$PI_CODING_AGENT_DIR/sessions/--<cwd>--/`), pi-coding-agent 0.73.1 resumes it headless
// (`pi -p next --session FILE`) against a fake OpenAI-compatible server on 127.0.0.1 named in pi's
// models.json, and its first request carries the exported branch's history in order, then the new
// prompt — and not the other branch's. `tangent import` of the file gives back the texts and both branches.

import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSandbox,
  removeSandbox,
  repoRoot,
  runToEnd,
  type Sandbox,
  tangent,
  tangentJson,
} from './cli-harness.js'

const piCli = path.join(repoRoot, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'cli.js')

interface ShownEvent {
  seq: number
  type: string
  data: Record<string, unknown>
}
interface ChatMessage {
  role: string
  content: unknown
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

/** An OpenAI chat-completions server that records each request and answers one streamed text. */
async function startFakeOpenAi() {
  const requests: { path: string; body: { messages: ChatMessage[]; model: string } }[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => {
      requests.push({ path: req.url ?? '', body: JSON.parse(body) })
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const chunk = (choice: unknown, usage?: unknown) =>
        res.write(
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [choice], ...(usage ? { usage } : {}) })}\n\n`,
        )
      chunk({ index: 0, delta: { role: 'assistant', content: 'pi carries on' }, finish_reason: null })
      chunk(
        { index: 0, delta: {}, finish_reason: 'stop' },
        { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
      )
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Runs the real pi CLI to its end (print mode), with HOME and its agent dir in the sandbox. */
function runPi(args: readonly string[], cwd: string, env: Record<string, string | undefined>) {
  return runToEnd(process.execPath, [piCli, ...args], { cwd, env, timeoutMs: 15_000 })
}

/** The history Tangent's model had for a session, as OpenAI chat messages pi should send. */
function expectedMessages(events: readonly ShownEvent[]): ChatMessage[] {
  const messages: ChatMessage[] = []
  for (const event of events) {
    const parts = (event.data.content ?? []) as {
      type: string
      text?: string
      toolCallId?: string
      toolName?: string
    }[]
    if (event.type === 'user/message')
      messages.push({ role: 'user', content: parts.map((part) => ({ type: 'text', text: part.text })) })
    if (event.type === 'assistant/message') {
      const texts = parts.filter((part) => part.type === 'text').map((part) => part.text)
      const calls = parts.filter((part) => part.type === 'tool-call')
      messages.push({
        role: 'assistant',
        content: texts.length > 0 ? texts.join('') : null,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) =>
                expect.objectContaining({
                  id: call.toolCallId,
                  function: expect.objectContaining({ name: call.toolName }),
                }),
              ),
            }
          : {}),
      })
    }
    if (event.type === 'tool/result')
      messages.push({ role: 'tool', content: event.data.output, tool_call_id: String(event.data.callId) })
  }
  return messages
}

describe('tangent export --format pi, resumed by the real pi', () => {
  let from: Sandbox
  let piHome: string
  let agentDir: string
  let main: string
  let branch: string
  let exportedFile: string
  let fake: Awaited<ReturnType<typeof startFakeOpenAi>>

  beforeAll(async () => {
    from = createSandbox()
    piHome = path.join(path.dirname(from.home), 'pi-home')
    agentDir = path.join(piHome, 'agent dir ✓')
    fs.mkdirSync(agentDir, { recursive: true })
    from.env = { ...from.env, HOME: piHome, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1' }
    main = (await tangentJson<{ sessionId: string }>(from, ['run', 'hello there'])).sessionId
    await tangentJson(from, ['run', '--session', main, 'write a.txt: alpha\nrun: echo "tool output"'])
    const shown = await tangentJson<{ events: ShownEvent[] }>(from, ['show', main])
    const toolTurnEnd = shown.events.filter((event) => event.type === 'turn/end').at(-1)!.seq
    await tangentJson(from, ['run', '--session', main, 'third on the main line'])
    branch = (
      await tangentJson<{ session: { id: string } }>(from, [
        'fork',
        main,
        '--at',
        String(toolTurnEnd),
        '--title',
        'Branch B',
      ])
    ).session.id
    await tangentJson(from, ['run', '--session', branch, 'words on the branch'])
    fake = await startFakeOpenAi()
    fs.writeFileSync(
      path.join(agentDir, 'models.json'),
      JSON.stringify({
        providers: {
          fake: {
            baseUrl: fake.baseUrl,
            api: 'openai-completions',
            apiKey: 'fake-key',
            models: [{ id: 'fake-model' }],
          },
        },
      }),
    )
  }, 60_000)
  afterAll(async () => {
    await fake?.close()
    removeSandbox(from)
  })

  it('writes the file where pi looks and prints how to resume it', async () => {
    const result = await tangent(from, ['export', branch, '--format', 'pi'])
    expect(result.code).toBe(0)
    const [file, hint] = result.stdout.trimEnd().split('\n')
    exportedFile = file!
    const folder = `--${from.cwd.replace(/^\//, '').replace(/[/\\:]/g, '-')}--`
    expect(path.dirname(exportedFile)).toBe(path.join(agentDir, 'sessions', folder))
    expect(path.basename(exportedFile)).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/,
    )
    expect(hint).toBe(`Resume it with: pi --session ${exportedFile}`)
    const text = fs.readFileSync(exportedFile, 'utf8')
    // The whole tree: the main line's last turn is in the file too.
    expect(text).toContain('third on the main line')
    expect(text).toContain('words on the branch')
    // Exporting again writes the same file in the same place.
    const again = await tangent(from, ['export', branch, '--format', 'pi'])
    expect(again.stdout.split('\n')[0]).toBe(exportedFile)
    expect(fs.readFileSync(exportedFile, 'utf8')).toBe(text)
  })

  it("pi's first request carries the branch's history in order, then the new prompt", async () => {
    const before = fs.readFileSync(exportedFile, 'utf8')
    const result = await runPi(
      ['-p', 'next', '--session', exportedFile, '--provider', 'fake', '--model', 'fake-model'],
      from.cwd,
      from.env,
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('pi carries on')
    expect(fake.requests.length).toBeGreaterThanOrEqual(1)
    const first = fake.requests[0]!
    expect(first.path).toBe('/v1/chat/completions')
    expect(first.body.model).toBe('fake-model')
    const history = first.body.messages.filter(
      (message) => message.role !== 'system' && message.role !== 'developer',
    )
    const events = (await tangentJson<{ events: ShownEvent[] }>(from, ['show', branch])).events
    const expected = expectedMessages(events)
    expect(expected.map((message) => message.role)).toEqual([
      ...['user', 'assistant', 'user', 'assistant', 'tool', 'tool', 'assistant'],
      ...['user', 'assistant'],
    ])
    expect(history).toEqual([...expected, { role: 'user', content: [{ type: 'text', text: 'next' }] }])
    // The calls' arguments are pi's tools' (write, bash), with the branch's inputs.
    const calls = history.find((message) => message.tool_calls)!.tool_calls!
    expect(calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['write', { path: 'a.txt', content: 'alpha\n' }],
      ['bash', { command: 'echo "tool output"' }],
    ])
    expect(JSON.stringify(history)).not.toContain('third on the main line')
    // pi appended its turn to the file it resumed.
    expect(fs.readFileSync(exportedFile, 'utf8').length).toBeGreaterThan(before.length)
  }, 20_000)

  it('tangent import of the exported file gives back the texts and both branches', async () => {
    const to = createSandbox()
    try {
      // Exported afresh (pi's own turn from the test above is not Tangent's).
      const file = path.join(to.cwd, 'exported.jsonl')
      expect((await tangent(from, ['export', branch, '--format', 'pi', '-o', file])).code).toBe(0)
      const imported = await tangentJson<{
        sessions: { id: string; source: string; parentSession?: string }[]
      }>(to, ['import', '--cwd', to.cwd, file])
      expect(imported.sessions.map((session) => session.source)).toEqual(['pi', 'pi'])
      const [line, fork] = imported.sessions
      expect(fork!.parentSession).toBe(line!.id)
      const texts = async (id: string) =>
        (await tangentJson<{ events: ShownEvent[] }>(to, ['show', id])).events
          .filter((event) => event.type === 'user/message' || event.type === 'assistant/message')
          .flatMap((event) =>
            (event.data.content as { type: string; text?: string }[]).filter((part) => part.type === 'text'),
          )
          .map((part) => part.text)
      const original = async (id: string) =>
        (await tangentJson<{ events: ShownEvent[] }>(from, ['show', id])).events
          .filter((event) => event.type === 'user/message' || event.type === 'assistant/message')
          .flatMap((event) =>
            (event.data.content as { type: string; text?: string }[]).filter((part) => part.type === 'text'),
          )
          .map((part) => part.text)
      expect(await texts(line!.id)).toEqual(await original(main))
      expect(await texts(fork!.id)).toEqual(await original(branch))
    } finally {
      removeSandbox(to)
    }
  }, 30_000)
})
