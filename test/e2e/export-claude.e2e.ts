// `tangent export --format claude` resumed by the real Claude Code (issue 31, "Back out"): a branch
// made with the demo model — user and assistant texts, an image, tool calls with results, one an
// error — is exported where Claude Code looks, in a folder whose name has spaces and non-ASCII
// characters; `claude -p next --resume <uuid>` runs headless against a fake Anthropic Messages
// server on 127.0.0.1, and its first request must carry the branch's history in order, then the
// new prompt. So must an imported Claude Code session forked and continued in Tangent, and a
// compacted one start from its summary. The export also imports back into Tangent, once.
import fs from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
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

// Installed outside the lockfile by scripts/install-claude-code.sh (.ci/run runs it).
const claudeBin = path.join(
  process.env.TANGENT_CLAUDE_CODE_DIR ??
    path.join(
      process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
      'tangent',
      'claude-code-2.1.332',
    ),
  'node_modules',
  '.bin',
  'claude',
)
const haveClaude = fs.existsSync(claudeBin)
if (!haveClaude && process.env.CI)
  throw new Error(`Claude Code is not installed at ${claudeBin}: run scripts/install-claude-code.sh`)

type Block = Record<string, unknown>
interface ApiMessage {
  role: string
  content: string | Block[]
}
interface ApiRequest {
  model: string
  messages: ApiMessage[]
}
interface ShownEvent {
  seq: number
  type: string
  data: Record<string, unknown>
}

/** A fake Anthropic Messages API: records each request, answers every one with a short text. */
async function startFakeAnthropic(): Promise<{ server: Server; baseUrl: string; requests: ApiRequest[] }> {
  const requests: ApiRequest[] = []
  const server = createServer((request, response) => {
    let raw = ''
    request.setEncoding('utf8').on('data', (chunk: string) => {
      raw += chunk
    })
    request.on('end', () => {
      const url = request.url ?? ''
      if (request.method !== 'POST' || !url.startsWith('/v1/messages')) {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url } }))
        return
      }
      if (url.startsWith('/v1/messages/count_tokens')) {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ input_tokens: 100 }))
        return
      }
      const body = JSON.parse(raw) as ApiRequest & { stream?: boolean }
      requests.push(body)
      const text = 'Resumed in Claude Code.'
      const usage = { input_tokens: 100, output_tokens: 5 }
      const message = {
        id: `msg_fake_${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      }
      if (!body.stream) {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify(message))
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const send = (type: string, data: object) =>
        response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
      send('message_start', { message: { ...message, content: [], stop_reason: null } })
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })
      send('content_block_stop', { index: 0 })
      send('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage })
      send('message_stop', {})
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { server, baseUrl: `http://127.0.0.1:${port}`, requests }
}

function runClaude(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runToEnd(claudeBin, args, { ...options, timeoutMs: 60_000 })
}

/** A message's blocks, a string content as the one text block it is; Claude Code's reminders left out. */
function blocksOf(message: ApiMessage): Block[] {
  const blocks =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
  return blocks
    .filter((block) => !(block.type === 'text' && String(block.text).startsWith('<system-reminder>')))
    .map((block) => {
      const { cache_control: _cache, ...rest } = block
      return rest
    })
}

describe.skipIf(!haveClaude)('tangent export --format claude, resumed by Claude Code 2.1.332', () => {
  let sandbox: Sandbox
  let root: string
  let claudeConfig: string
  let branch: string
  let branchEvents: ShownEvent[]
  const firstPrompt = 'write notes.txt: alpha\nread missing.txt\nrun: cat notes.txt'

  beforeAll(async () => {
    const base = createSandbox()
    root = path.dirname(base.home)
    // A folder name with spaces, an accent and a character outside the BMP: Claude Code must find
    // the file under the folder key it computes itself.
    const cwd = path.join(base.cwd, 'my project ü 🦀')
    fs.mkdirSync(cwd)
    claudeConfig = path.join(root, 'claude config')
    sandbox = { ...base, cwd, env: { ...base.env, CLAUDE_CONFIG_DIR: claudeConfig } }
    const parent = (await tangentJson<{ sessionId: string }>(sandbox, ['run', firstPrompt])).sessionId
    await tangentJson(sandbox, ['run', '--session', parent, 'words only the parent has'])
    const parentEvents = (await tangentJson<{ events: ShownEvent[] }>(sandbox, ['show', parent])).events
    const firstEnd = parentEvents.find((event) => event.type === 'turn/end')!.seq
    branch = (
      await tangentJson<{ session: { id: string } }>(sandbox, [
        'fork',
        parent,
        '--at',
        String(firstEnd),
        '--title',
        'Branch A',
      ])
    ).session.id
    // The branch's prompt carries an image (a one-pixel PNG).
    const pixel =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    fs.writeFileSync(path.join(cwd, 'pixel.png'), Buffer.from(pixel, 'base64'))
    await tangentJson(sandbox, ['run', '--session', branch, '--image', 'pixel.png', 'branch words'])
    branchEvents = (await tangentJson<{ events: ShownEvent[] }>(sandbox, ['show', branch])).events
  }, 60_000)
  afterAll(() => {
    if (sandbox) removeSandbox(sandbox)
  })

  /** Claude Code offline: its home and config in the sandbox, the fake server its API. */
  function claudeEnv(baseUrl: string): Record<string, string> {
    const claudeHome = path.join(root, 'claude-home')
    fs.mkdirSync(claudeHome, { recursive: true })
    return {
      PATH: process.env.PATH ?? '',
      HOME: claudeHome,
      CLAUDE_CONFIG_DIR: claudeConfig,
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: 'fake-key',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }
  }

  /** The branch's history as the Anthropic API carries it, from Tangent's own log. */
  function expectedHistory(): { role: string; blocks: Block[] }[] {
    const history: { role: string; blocks: Block[] }[] = []
    for (const event of branchEvents) {
      const content = event.data.content as Block[] | undefined
      if (event.type === 'user/message')
        history.push({
          role: 'user',
          blocks: content!.map((part) =>
            part.type === 'text'
              ? { type: 'text', text: part.text }
              : { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } },
          ),
        })
      else if (event.type === 'assistant/message') {
        const blocks = content!.map((part) =>
          part.type === 'text'
            ? { type: 'text', text: part.text }
            : {
                type: 'tool_use',
                id: part.toolCallId,
                name: { write: 'Write', read: 'Read', bash: 'Bash' }[String(part.toolName)],
                input:
                  part.toolName === 'bash'
                    ? part.input
                    : {
                        file_path: path.join(sandbox.cwd, String((part.input as { path: string }).path)),
                        ...(part.toolName === 'write'
                          ? { content: (part.input as { content: string }).content }
                          : {}),
                      },
              },
        )
        history.push({ role: 'assistant', blocks })
      } else if (event.type === 'tool/result') {
        const block = {
          type: 'tool_result',
          tool_use_id: event.data.callId,
          content: event.data.output,
          is_error: event.data.isError,
        }
        const last = history.at(-1)!
        if (last.role === 'user' && last.blocks[0]?.type === 'tool_result') last.blocks.push(block)
        else history.push({ role: 'user', blocks: [block] })
      }
    }
    return history
  }

  it('writes the file where Claude Code looks, the same file each time; -o writes the same bytes', async () => {
    const first = await tangent(sandbox, ['export', branch, '--format', 'claude'])
    expect(first.code).toBe(0)
    const [target, hint] = first.stdout.trim().split('\n')
    const uuid = /^Resume it with: claude --resume ([0-9a-f-]{36})$/.exec(hint ?? '')?.[1]
    expect(uuid).toBeDefined()
    const folder = path.join(claudeConfig, 'projects', sandbox.cwd.replace(/[^a-zA-Z0-9]/g, '-'))
    expect(target).toBe(path.join(folder, `${uuid}.jsonl`))
    const written = fs.readFileSync(target!, 'utf8')
    expect(written.endsWith('}\n')).toBe(true)
    const again = await tangent(sandbox, ['export', branch, '--format', 'claude'])
    expect(again.stdout).toBe(first.stdout)
    expect(fs.readdirSync(folder)).toEqual([`${uuid}.jsonl`])
    expect(fs.readFileSync(target!, 'utf8')).toBe(written)
    const copy = await tangent(sandbox, ['export', branch, '--format', 'claude', '-o', '../copy.jsonl'])
    expect(copy.code).toBe(0)
    expect(fs.readFileSync(path.join(sandbox.cwd, '..', 'copy.jsonl'), 'utf8')).toBe(written)
  })

  it("Claude Code's first request carries the branch's history in order, then the new prompt", async () => {
    const exported = await tangent(sandbox, ['export', branch, '--format', 'claude'])
    const uuid = exported.stdout.trim().split(' ').at(-1)!
    const fake = await startFakeAnthropic()
    try {
      const resumed = await runClaude(
        ['-p', 'next', '--resume', uuid, '--output-format', 'json', '--model', 'claude-sonnet-4-5'],
        {
          cwd: sandbox.cwd,
          env: claudeEnv(fake.baseUrl),
        },
      )
      expect(resumed.stderr).toBe('')
      expect(resumed.code).toBe(0)
      expect(JSON.parse(resumed.stdout)).toMatchObject({ is_error: false, result: 'Resumed in Claude Code.' })
      const first = fake.requests[0]!
      const sent = first.messages.map((message) => ({ role: message.role, blocks: blocksOf(message) }))
      const history = expectedHistory()
      // The demo model's first turn: three calls in one step, one a failed read, then its report.
      expect(history.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ])
      expect(history[2]!.blocks.map((block) => block.is_error)).toEqual([false, true, false])
      expect(history[4]!.blocks.map((block) => block.type)).toEqual(['text', 'image'])
      expect(sent.slice(0, history.length)).toEqual(history)
      expect(sent[history.length]).toEqual({ role: 'user', blocks: [{ type: 'text', text: 'next' }] })
      expect(sent).toHaveLength(history.length + 1)
      expect(JSON.stringify(first.messages)).not.toContain('words only the parent has')
    } finally {
      await new Promise((resolve) => fake.server.close(resolve))
    }
  }, 60_000)

  it('a Claude Code session imported, forked and continued in Tangent goes back with its tools; a compacted branch resumes from its summary', async () => {
    const fixture = path.join(repoRoot, 'test/fixtures/imports/claude/tools-branch-compact.jsonl')
    const imported = await tangentJson<{ sessions: { id: string }[] }>(sandbox, [
      'import',
      '--cwd',
      sandbox.cwd,
      fixture,
    ])
    const [main, rewound] = imported.sessions.map((session) => session.id)
    const mainEvents = (await tangentJson<{ events: ShownEvent[] }>(sandbox, ['show', main!])).events
    const firstEnd = mainEvents.find((event) => event.type === 'turn/end')!.seq
    const fork = (
      await tangentJson<{ session: { id: string } }>(sandbox, ['fork', main!, '--at', String(firstEnd)])
    ).session.id
    await tangentJson(sandbox, ['run', '--session', fork, '--model', 'demo:scripted', 'continued in tangent'])
    const fake = await startFakeAnthropic()
    try {
      const resume = async (sessionId: string) => {
        const exported = await tangent(sandbox, ['export', sessionId, '--format', 'claude'])
        expect(exported.code).toBe(0)
        const before = fake.requests.length
        const resumed = await runClaude(
          [
            '-p',
            'next',
            '--resume',
            exported.stdout.trim().split(' ').at(-1)!,
            '--model',
            'claude-sonnet-4-5',
          ],
          { cwd: sandbox.cwd, env: claudeEnv(fake.baseUrl) },
        )
        expect(resumed.code, resumed.stderr).toBe(0)
        return fake.requests[before]!.messages.map((message) => ({
          role: message.role,
          blocks: blocksOf(message),
        }))
      }
      const sent = await resume(fork)
      const uses = sent.flatMap((message) => message.blocks.filter((block) => block.type === 'tool_use'))
      // Claude Code's own tools came in as Tangent's (Glob kept its name) and go back as Claude Code's.
      expect(uses.map((block) => [block.name, block.id])).toEqual([
        ['Write', 'toolu_write_1'],
        ['Read', 'toolu_read_1'],
        ['Edit', 'toolu_edit_1'],
        ['Bash', 'toolu_bash_1'],
        ['Grep', 'toolu_grep_1'],
        ['Glob', 'toolu_glob_1'],
        ['Read', 'toolu_read_2'],
      ])
      expect(uses[0]!.input).toEqual({
        file_path: path.join(sandbox.cwd, 'notes.txt'),
        content: 'alpha\nbeta\n',
      })
      const results = sent.flatMap((message) =>
        message.blocks.filter((block) => block.type === 'tool_result'),
      )
      expect(results.map((block) => [block.tool_use_id, block.is_error])).toEqual([
        ['toolu_write_1', false],
        ['toolu_read_1', false],
        ['toolu_edit_1', false],
        ['toolu_bash_1', false],
        ['toolu_glob_1', false],
        ['toolu_grep_1', false],
        ['toolu_read_2', true],
      ])
      expect(results[5]!.content).toBe('notes.txt:2:gamma')
      // Each tool_use is answered in the very next message.
      sent.forEach((message, index) => {
        const ids = message.blocks.filter((block) => block.type === 'tool_use').map((block) => block.id)
        const answered = (sent[index + 1]?.blocks ?? []).map((block) => block.tool_use_id)
        for (const id of ids) expect(answered).toContain(id)
      })
      const texts = sent.map((message) =>
        message.blocks
          .filter((block) => block.type === 'text')
          .map((block) => block.text)
          .join(' '),
      )
      expect(texts.filter((text) => text !== '')).toEqual([
        'Make notes.txt, read it, change beta to gamma, show it, search it. [[scenario:tools]]',
        "I'll create the file first.",
        'Done: notes.txt now says alpha and gamma; missing.txt does not exist.',
        'continued in tangent',
        expect.stringContaining('"continued in tangent"'),
        'next',
      ])
      // The rewind branch ends with Claude Code's /compact: resumed, it starts from the summary and
      // holds nothing from before it (Claude Code answers a history that ends with a user message
      // with its own "No response requested." before the new prompt).
      const compacted = await resume(rewound!)
      expect(compacted[0]).toEqual({
        role: 'user',
        blocks: [
          {
            type: 'text',
            text: expect.stringContaining('The user asked for notes.txt to be made, read and edited'),
          },
        ],
      })
      expect(compacted.at(-1)!.blocks.at(-1)).toEqual({ type: 'text', text: 'next' })
      expect(compacted.length).toBeLessThanOrEqual(3)
      expect(JSON.stringify(compacted)).not.toMatch(/Branch answer|toolu_|Make notes\.txt/)
    } finally {
      await new Promise((resolve) => fake.server.close(resolve))
    }
  }, 60_000)

  it('imports back into Tangent with the same texts and results; importing again creates nothing', async () => {
    const copyFile = path.join(sandbox.cwd, '..', 'copy.jsonl')
    if (!fs.existsSync(copyFile))
      await tangent(sandbox, ['export', branch, '--format', 'claude', '-o', copyFile])
    const other = createSandbox()
    try {
      const target = { ...other, cwd: sandbox.cwd }
      const imported = await tangentJson<{ sessions: { id: string; source: string; status: string }[] }>(
        target,
        ['import', copyFile],
      )
      expect(imported.sessions.map((session) => [session.source, session.status])).toEqual([
        ['claude', 'created'],
      ])
      const events = (await tangentJson<{ events: ShownEvent[] }>(target, ['show', imported.sessions[0]!.id]))
        .events
      const conversation = (list: ShownEvent[]) =>
        list.flatMap((event) => {
          const content = event.data.content as Block[] | undefined
          if (event.type === 'user/message' || event.type === 'assistant/message')
            return [
              [
                event.type,
                content!.map((part) =>
                  part.type === 'tool-call'
                    ? [part.toolCallId, part.toolName, part.input]
                    : part.type === 'file'
                      ? [part.mediaType, part.data]
                      : part.text,
                ),
              ],
            ]
          if (event.type === 'tool/result')
            return [[event.type, event.data.callId, event.data.output, event.data.isError]]
          return []
        })
      expect(conversation(events)).toEqual(conversation(branchEvents))
      const title = events.filter((event) => event.type === 'session/title').at(-1)
      expect(title?.data.title).toBe('Branch A')
      const again = await tangentJson<{ sessions: { status: string }[] }>(target, ['import', copyFile])
      expect(again.sessions.map((session) => session.status)).toEqual(['existing'])
    } finally {
      removeSandbox(other)
    }
  }, 60_000)
})
