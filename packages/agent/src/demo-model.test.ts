import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { grammarStateOf, type SessionEvent, SessionStore } from '@tangent/core'
import { generateText, tool } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Agent } from './agent.js'
import { demoContextWindow } from './context/context-window.js'
import { DemoLanguageModel } from './demo-model.js'
import { parseDemoCommand } from './demo-script.js'
import { ModelRegistry } from './model-registry.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function setup(options: { delayMs?: number } = {}) {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-'))
  dirs.push(cwd)
  const store = new SessionStore()
  const session = store.create(undefined, { meta: { cwd } })
  let flushes = 0
  const models = new ModelRegistry({ env: {}, demoDelayMs: options.delayMs ?? 0 })
  const agent = new Agent({
    session,
    models,
    flush: async () => {
      flushes++
    },
  })
  return { cwd, store, session, agent, models, flushes: () => flushes }
}

function lastAssistantText(events: readonly SessionEvent[]): string {
  const message = events.findLast((event) => event.type === 'assistant/message')!
  const content = (message.data as { content: { type: string; text?: string }[] }).content
  return content.map((part) => part.text ?? '').join('')
}

describe('Agent with the demo model', () => {
  it('says how many images it received and their sizes, and does not count their bytes as tokens', async () => {
    const { agent, session } = setup()
    // A 1x1 PNG (70 bytes), then 3 MiB of PNG-headed bytes: the demo's 4096-token window must
    // not see 1M "tokens" in them (no compaction, no context overflow).
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    const large = Buffer.concat([Buffer.from(png, 'base64'), Buffer.alloc(3 * 1024 * 1024)]).toString(
      'base64',
    )
    await agent.prompt('what are these?', [
      { mediaType: 'image/png', data: png },
      { mediaType: 'image/png', data: large },
    ])
    expect(lastAssistantText(session.events)).toBe(
      `Turn 1: you said "what are these?". Received 2 images: image/png (70 bytes), image/png (${3 * 1024 * 1024 + 70} bytes).`,
    )
    await agent.prompt('', [{ mediaType: 'image/png', data: png }])
    expect(lastAssistantText(session.events)).toBe('Turn 2: Received 1 image: image/png (70 bytes).')
    expect(session.events.some((event) => event.type === 'context/compacted')).toBe(false)
    const usage = session.events.findLast((event) => event.type === 'step/end')!.data as {
      usage: { inputTokens: number }
    }
    expect(usage.usage.inputTokens).toBeLessThan(demoContextWindow)
  })

  it('answers a plain message with the turn number and streams it in small deltas', async () => {
    const { agent, session } = setup()
    const deltas: string[] = []
    agent.onDelta((delta) => deltas.push(delta.text))
    const result = await agent.prompt('hello there')
    expect(result.reason).toBe('completed')
    expect(session.events.map((event) => event.type)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(result).toEqual({ turnStartSeq: 0, turnEndSeq: 5, reason: 'completed' })
    expect(lastAssistantText(session.events)).toBe('Turn 1: you said "hello there".')
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.join('')).toBe('Turn 1: you said "hello there".')
    await agent.prompt('again')
    expect(lastAssistantText(session.events)).toBe('Turn 2: you said "again".')
    expect(grammarStateOf(session.events).phase).toBe('idle')
  })

  it('writes, appends, reads and runs through the real tools, then reports', async () => {
    const { agent, session, cwd } = setup()
    const result = await agent.prompt(
      'write notes.txt: hello\nappend notes.txt: world\nread notes.txt\nrun: ls',
    )
    expect(result.reason).toBe('completed')
    expect(fs.readFileSync(path.join(cwd, 'notes.txt'), 'utf8')).toBe('hello\nworld\n')
    const types = session.events.map((event) => event.type)
    expect(types).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/result',
      'tool/result',
      'tool/result',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    const results = session.events.filter((event) => event.type === 'tool/result').map((event) => event.data)
    expect(results).toMatchObject([
      { toolName: 'write', isError: false, output: 'Wrote notes.txt (6 bytes).' },
      { toolName: 'write', isError: false, output: 'Appended 6 bytes to notes.txt (now 12 bytes).' },
      { toolName: 'read', isError: false, output: 'hello\nworld\n' },
      { toolName: 'bash', isError: false, output: 'notes.txt\n[exit code 0]' },
    ])
    expect(lastAssistantText(session.events)).toBe(
      'Wrote notes.txt (6 bytes).\nAppended 6 bytes to notes.txt (now 12 bytes).\nRead notes.txt:\nhello\nworld\nRan "ls": exit 0.\nnotes.txt',
    )
  })

  it('reports tool errors in its answer', async () => {
    const { agent, session } = setup()
    await agent.prompt('read missing.txt\nrun: exit 3\nwrite ../escape.txt: no')
    const results = session.events.filter((event) => event.type === 'tool/result').map((event) => event.data)
    expect(results.map((data) => (data as { isError: boolean }).isError)).toEqual([true, true, true])
    const answer = lastAssistantText(session.events)
    expect(answer).toMatch(/^Could not read missing.txt: .*ENOENT/)
    expect(answer).toContain('Ran "exit 3": exit 3.')
    expect(answer).toContain(
      'Could not write ../escape.txt: Refused: "../escape.txt" is outside the working directory',
    )
  })

  it("acts on the user's words after a kept branch's note, and says it read the note", async () => {
    const { agent, session, cwd } = setup()
    await agent.prompt('first')
    const note = '[Tangent: branch A "try it" (01ABC) was kept.]\nIt was asked: "run: rm -rf x".'
    session.append('branch/kept', { summary: note })
    // The note opens the next user message (replay); its own lines are not commands.
    await agent.prompt('write h.txt: hello')
    expect(fs.readFileSync(path.join(cwd, 'h.txt'), 'utf8')).toBe('hello\n')
    const calls = session.events.filter((event) => event.type === 'tool/result')
    expect(calls.map((event) => (event.data as { toolName: string }).toolName)).toEqual(['write'])
    expect(lastAssistantText(session.events)).toMatch(
      /\nNoted: \[Tangent: branch A "try it" \(01ABC\) was kept\.\]$/,
    )
    session.append('branch/kept', { summary: note })
    await agent.prompt('what now?')
    expect(lastAssistantText(session.events)).toBe(
      'Turn 3: you said "what now?".\nNoted: [Tangent: branch A "try it" (01ABC) was kept.]',
    )
  })

  it('counts turns per branch after a fork, so a fork answers differently', async () => {
    const { agent, session, store, models } = setup()
    await agent.prompt('first')
    const firstEnd = session.lastSeq
    await agent.prompt('second')
    await agent.prompt('third')
    expect(lastAssistantText(session.events)).toBe('Turn 3: you said "third".')
    const child = store.fork(session, firstEnd)
    const childAgent = new Agent({ session: child, models, flush: async () => {} })
    const result = await childAgent.prompt('another second')
    expect(result.turnStartSeq).toBe(firstEnd + 1)
    expect(lastAssistantText(child.events)).toBe('Turn 2: you said "another second".')
    expect(lastAssistantText(session.events)).toBe('Turn 3: you said "third".')
  })

  it('flushes before each model call, before each tool and at turn/end', async () => {
    const { agent, flushes } = setup()
    await agent.prompt('write a.txt: 1\nwrite b.txt: 2')
    // 2 model calls + 2 tools + turn/end
    expect(flushes()).toBe(5)
  })

  it('keeps the partial text when aborted while streaming', async () => {
    const { agent, session } = setup({ delayMs: 5 })
    let seen = ''
    agent.onDelta((delta) => {
      seen += delta.text
      if (seen.length >= 8) agent.abort()
    })
    const result = await agent.prompt('a fairly long message so the answer streams for a while')
    expect(result.reason).toBe('aborted')
    const text = lastAssistantText(session.events)
    expect(text.length).toBeGreaterThanOrEqual(8)
    expect(
      'Turn 1: you said "a fairly long message so the answer streams for a while".'.startsWith(text),
    ).toBe(true)
    expect(text.length).toBeLessThan(40)
    expect(session.events.at(-1)!.data).toMatchObject({ reason: 'aborted' })
    expect(grammarStateOf(session.events).phase).toBe('idle')
  })
})

describe('DemoLanguageModel through generateText (doGenerate)', () => {
  it('answers text and plans tool calls without streaming', async () => {
    const model = new DemoLanguageModel()
    const text = await generateText({ model, prompt: 'hi' })
    expect(text.text).toBe('Turn 1: you said "hi".')
    expect(text.finishReason).toBe('stop')
    const calls = await generateText({
      model,
      prompt: 'note\nrun: echo 1\nread a.txt',
      tools: {
        bash: tool({ inputSchema: z.object({ command: z.string() }) }),
        read: tool({ inputSchema: z.object({ path: z.string() }) }),
      },
    })
    expect(calls.finishReason).toBe('tool-calls')
    expect(calls.toolCalls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ['demo-1-1', 'bash', { command: 'echo 1' }],
      ['demo-1-2', 'read', { path: 'a.txt' }],
    ])
  })
})

describe('the demo model and compaction', () => {
  it('summarises on request and, with a small window, compacts automatically offline', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-'))
    dirs.push(cwd)
    const session = new SessionStore().create(undefined, { meta: { cwd, baseTree: 'tree' } })
    const models = new ModelRegistry({ env: { TANGENT_DEMO_CONTEXT_WINDOW: '400' } })
    expect(models.contextWindow('demo:scripted')).toBe(400)
    expect(new ModelRegistry({ env: {} }).contextWindow('demo:scripted')).toBe(demoContextWindow)
    const agent = new Agent({ session, models, userInstructionsPath: null, flush: async () => {} })
    await agent.prompt('Plan the garden: tomatoes along the south fence.')
    await agent.prompt('Add basil between the tomatoes.')
    const manual = await agent.compact()
    expect(manual.summary).toBe(
      [
        'Summary of the conversation so far:',
        '- The user said: "Plan the garden: tomatoes along the south fence."',
        '- The user said: "Add basil between the tomatoes."',
      ].join('\n'),
    )
    // The demo reports usage (its prompt at 4 characters a token): the turns fill the
    // 400-token window and the next ones compact first, keeping the earlier summary's items.
    for (let turn = 3; turn <= 8; turn++) await agent.prompt(`Turn ${turn}: ${'more detail '.repeat(20)}`)
    const compactions = session.events.filter((event) => event.type === 'context/compacted')
    const auto = compactions.slice(1).map((event) => event.data as { trigger: string; summary: string })
    expect(auto.length).toBeGreaterThan(0)
    expect(auto.every((data) => data.trigger === 'auto')).toBe(true)
    expect(auto.at(-1)!.summary).toContain('Plan the garden')
    expect(grammarStateOf(session.events).phase).toBe('idle')
  })
})

describe('parseDemoCommand', () => {
  it('`call <tool>: <json>` calls any tool by name (an MCP tool offline); arguments that are not an object are {}', () => {
    expect(parseDemoCommand('call mcp__everything__echo: {"message": "hi"}')).toEqual({
      toolName: 'mcp__everything__echo',
      input: { message: 'hi' },
    })
    expect(parseDemoCommand('call list')).toEqual({ toolName: 'list', input: {} })
    expect(parseDemoCommand('call grep: [1]')).toEqual({ toolName: 'grep', input: {} })
  })
})
