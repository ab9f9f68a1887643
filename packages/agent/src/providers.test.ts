// The real AI SDK provider clients, driven by the Agent against a local fake server that
// speaks each wire format. Never the internet.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { grammarStateOf, type SessionEvent, SessionStore } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { Agent } from './agent.js'
import { ModelRegistry } from './model-registry.js'
import type { AgentDelta } from './model-step.js'
import {
  type FakeProviderServer,
  type FakeReply,
  startFakeProviderServer,
} from './testing/fake-provider-server.js'
import {
  anthropicThinkingThenToolCall,
  anthropicWire,
  chatCompletionsWire,
  openaiResponsesWire,
  type WireFormat,
} from './testing/wire-formats.js'

interface ProviderCase {
  name: string
  model: string
  wire: WireFormat
  path: string
  env: (baseUrl: string) => Record<string, string>
  /** The header that must carry the key, and its value; null when the provider needs none. */
  auth: [string, string] | null
}

const cases: ProviderCase[] = [
  {
    name: 'openai (Responses API)',
    model: 'openai:gpt-4.1',
    wire: openaiResponsesWire,
    path: '/v1/responses',
    env: (url) => ({ OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: url }),
    auth: ['authorization', 'Bearer sk-test-openai'],
  },
  {
    name: 'anthropic (Messages API)',
    model: 'anthropic:claude-sonnet-4-5',
    wire: anthropicWire,
    path: '/v1/messages',
    env: (url) => ({ ANTHROPIC_API_KEY: 'sk-test-anthropic', ANTHROPIC_BASE_URL: url }),
    auth: ['x-api-key', 'sk-test-anthropic'],
  },
  {
    name: 'deepseek (Chat Completions)',
    model: 'deepseek:deepseek-chat',
    wire: chatCompletionsWire,
    path: '/v1/chat/completions',
    env: (url) => ({ DEEPSEEK_API_KEY: 'sk-test-deepseek', DEEPSEEK_BASE_URL: url }),
    auth: ['authorization', 'Bearer sk-test-deepseek'],
  },
  {
    name: 'openai-compatible (Chat Completions, no key)',
    model: 'openai-compatible:llama3',
    wire: chatCompletionsWire,
    path: '/v1/chat/completions',
    env: (url) => ({ TANGENT_OPENAI_COMPATIBLE_BASE_URL: url }),
    auth: null,
  },
]

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function setup(providerCase: ProviderCase, replies: FakeReply[]) {
  const server: FakeProviderServer = await startFakeProviderServer(replies)
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-'))
  cleanups.push(
    () => server.close(),
    () => fs.rmSync(cwd, { recursive: true, force: true }),
  )
  const session = new SessionStore().create(undefined, { meta: { cwd } })
  const models = new ModelRegistry({ env: providerCase.env(server.baseUrl) })
  const agent = new Agent({
    session,
    models,
    defaultModel: providerCase.model,
    maxRetries: 0,
    flush: async () => {},
  })
  const deltas: AgentDelta[] = []
  agent.onDelta((delta) => deltas.push(delta))
  return { server, cwd, session, agent, deltas }
}

function assistantText(events: readonly SessionEvent[]): string {
  const last = events.findLast((event) => event.type === 'assistant/message')!
  return (last.data as { content: { type: string; text?: string }[] }).content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
}

function turnEnd(events: readonly SessionEvent[]): { reason: string; error?: string } {
  return events.at(-1)!.data as { reason: string; error?: string }
}

describe.each(cases)('$name', (providerCase) => {
  const { wire } = providerCase

  it('streams a tool call, runs it, then streams the answer over a second request', async () => {
    const { server, cwd, session, agent, deltas } = await setup(providerCase, [
      { frames: wire.toolCall('call_1', 'write', { path: 'hello.txt', content: 'hi' }) },
      { frames: wire.text('All done.') },
    ])
    const result = await agent.prompt('make hello.txt')
    expect(turnEnd(session.events)).toEqual({ reason: 'completed' })
    expect(result.reason).toBe('completed')
    expect(fs.readFileSync(path.join(cwd, 'hello.txt'), 'utf8')).toBe('hi')
    expect(assistantText(session.events)).toBe('All done.')
    expect(session.events.find((event) => event.type === 'assistant/message')!.data).toEqual({
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call_1',
          toolName: 'write',
          input: { path: 'hello.txt', content: 'hi' },
        },
      ],
    })
    expect(
      deltas
        .filter((d) => d.kind === 'tool-input')
        .map((d) => d.text)
        .join(''),
    ).toBe(JSON.stringify({ path: 'hello.txt', content: 'hi' }))
    expect(
      deltas
        .filter((d) => d.kind === 'text')
        .map((d) => d.text)
        .join(''),
    ).toBe('All done.')
    expect(server.requests.map((request) => request.path)).toEqual([providerCase.path, providerCase.path])
    for (const request of server.requests) {
      if (providerCase.auth) expect(request.headers[providerCase.auth[0]]).toBe(providerCase.auth[1])
      else expect(request.headers.authorization).toBeUndefined()
    }
    // The second request replays the call and its result from the log.
    const second = JSON.stringify(server.requests[1]!.body)
    expect(second).toContain('call_1')
    expect(second).toContain('Wrote hello.txt (2 bytes).')
    expect(second).toContain('make hello.txt')
    expect(grammarStateOf(session.events).phase).toBe('idle')
    // Each step's usage, as the provider reported it, lands in its step/end.
    const usages = session.events.filter((event) => event.type === 'step/end').map((event) => event.data)
    expect(usages).toHaveLength(2)
    for (const data of usages)
      expect(data).toMatchObject({ usage: { inputTokens: 12, outputTokens: 7, totalTokens: 19 } })
  })

  it('ends with reason error on HTTP 429, keeping the provider message', async () => {
    const { session, agent } = await setup(providerCase, [
      { status: 429, json: wire.error('Rate limit reached for tests') },
    ])
    expect((await agent.prompt('hi')).reason).toBe('error')
    const end = turnEnd(session.events)
    expect(end.reason).toBe('error')
    expect(end.error).toContain('Rate limit reached for tests')
    expect(end.error).toContain('HTTP 429')
    expect(grammarStateOf(session.events).phase).toBe('idle')
  })

  it('ends with reason error on HTTP 500', async () => {
    const { session, agent } = await setup(providerCase, [
      { status: 500, json: wire.error('The server had an error') },
    ])
    expect((await agent.prompt('hi')).reason).toBe('error')
    expect(turnEnd(session.events).error).toContain('The server had an error')
    expect(session.events.map((event) => event.type)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
  })

  it('ends with reason error when the stream is cut mid-way, keeping the partial text', async () => {
    const { session, agent } = await setup(providerCase, [
      { frames: wire.text('Partial answer', false), after: 'cut' },
    ])
    expect((await agent.prompt('hi')).reason).toBe('error')
    expect(turnEnd(session.events).error).toMatch(/terminated|closed/)
    expect(assistantText(session.events)).toBe('Par')
    expect(grammarStateOf(session.events).phase).toBe('idle')
  })

  it('aborts a hanging stream, keeping the partial text', async () => {
    const { session, agent } = await setup(providerCase, [
      { frames: wire.text('Partial answer', false), after: 'hang' },
    ])
    agent.onDelta(() => agent.abort())
    expect((await agent.prompt('hi')).reason).toBe('aborted')
    expect(assistantText(session.events)).toBe('Par')
    expect(turnEnd(session.events).reason).toBe('aborted')
    expect(grammarStateOf(session.events).phase).toBe('idle')
  })
})

describe('reasoningEffort on the wire', () => {
  const effortCases = [
    {
      label: 'openai',
      providerCase: cases[0]!,
      model: 'openai:o4-mini',
      effort: 'high',
      expected: { reasoning: { effort: 'high' } },
    },
    {
      label: 'anthropic',
      providerCase: cases[1]!,
      model: 'anthropic:claude-sonnet-4-5',
      effort: 'high',
      expected: { thinking: { type: 'enabled', budget_tokens: 16384 } },
    },
    {
      label: 'openai-compatible',
      providerCase: cases[3]!,
      model: 'openai-compatible:qwen3',
      effort: 'low',
      expected: { reasoning_effort: 'low' },
    },
  ]
  it.each(effortCases)(
    '$label sends it from the model/selection',
    async ({ providerCase, model, effort, expected }) => {
      const { server, session, agent } = await setup(providerCase, [{ frames: providerCase.wire.text('ok') }])
      agent.setModel(model, effort)
      expect((await agent.prompt('think')).reason).toBe('completed')
      expect(server.requests[0]!.body).toMatchObject(expected)
      expect(session.events[0]!.data).toEqual({
        provider: model.split(':')[0],
        model: model.slice(model.indexOf(':') + 1),
        reasoningEffort: effort,
      })
    },
  )
})

describe('anthropic extended thinking with tools', () => {
  it('keeps the thinking signature in the log and sends the block back on the next step', async () => {
    const { server, session, agent, deltas } = await setup(cases[1]!, [
      { frames: anthropicThinkingThenToolCall('Let me list.', 'sig-123', 'toolu_1', 'list', {}) },
      { frames: anthropicWire.text('Empty.') },
    ])
    agent.setModel('anthropic:claude-sonnet-4-5', 'low')
    expect((await agent.prompt('what is here?')).reason).toBe('completed')
    expect(
      deltas
        .filter((d) => d.kind === 'reasoning')
        .map((d) => d.text)
        .join(''),
    ).toBe('Let me list.')
    const first = session.events.find((event) => event.type === 'assistant/message')!.data
    expect(first).toEqual({
      content: [
        {
          type: 'reasoning',
          text: 'Let me list.',
          providerMetadata: { anthropic: { signature: 'sig-123' } },
        },
        { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'list', input: {} },
      ],
    })
    const second = server.requests[1]!.body as { messages: { role: string; content: unknown[] }[] }
    const assistant = second.messages.find((message) => message.role === 'assistant')!
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'Let me list.', signature: 'sig-123' })
    expect(assistant.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_1', name: 'list' })
  })
})

it('records the cached input and reasoning tokens OpenAI reports (Responses API)', async () => {
  const { session, agent } = await setup(cases[0]!, [{ frames: openaiResponsesWire.text('Cached.') }])
  await agent.prompt('hi')
  expect(session.events.find((event) => event.type === 'step/end')!.data).toEqual({
    finishReason: 'stop',
    usage: { inputTokens: 12, outputTokens: 7, totalTokens: 19, cachedInputTokens: 5, reasoningTokens: 3 },
  })
})

describe('images in a prompt', () => {
  // A real 1x1 PNG; every provider must receive these very bytes.
  const png =
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
  const gif = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
  const images = [
    { mediaType: 'image/png', data: png },
    { mediaType: 'image/gif', data: gif },
  ]
  type Body = Record<string, unknown>

  /** The user message content the provider received, in its own wire format. */
  function userContent(body: Body, key: 'input' | 'messages'): unknown[] {
    const messages = body[key] as { role: string; content: unknown }[]
    return messages.find((message) => message.role === 'user')!.content as unknown[]
  }

  it('OpenAI (Responses API) gets input_image parts carrying the bytes, after the text', async () => {
    const { server, session, agent } = await setup(cases[0]!, [
      { frames: openaiResponsesWire.text('A dot.') },
    ])
    expect((await agent.prompt('what is this?', images)).reason).toBe('completed')
    expect(userContent(server.requests[0]!.body as Body, 'input')).toEqual([
      { type: 'input_text', text: 'what is this?' },
      { type: 'input_image', image_url: `data:image/png;base64,${png}` },
      { type: 'input_image', image_url: `data:image/gif;base64,${gif}` },
    ])
    expect(session.events.find((event) => event.type === 'user/message')!.data).toEqual({
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'file', mediaType: 'image/png', data: png },
        { type: 'file', mediaType: 'image/gif', data: gif },
      ],
    })
  })

  it('Anthropic (Messages API) gets base64 image blocks, and again when the log is replayed', async () => {
    const { server, agent } = await setup(cases[1]!, [
      { frames: anthropicWire.text('A dot.') },
      { frames: anthropicWire.text('Still a dot.') },
    ])
    await agent.prompt('', [images[0]!])
    await agent.prompt('and now?')
    const expected = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }
    expect(userContent(server.requests[0]!.body as Body, 'messages')).toEqual([expected])
    // The second turn replays the first one's image from the log.
    expect(userContent(server.requests[1]!.body as Body, 'messages')).toEqual([expected])
  })

  it('a local server declared in TANGENT_IMAGE_MODELS gets image_url data URLs (Chat Completions)', async () => {
    const declared: ProviderCase = {
      ...cases[3]!,
      env: (url) => ({ ...cases[3]!.env(url), TANGENT_IMAGE_MODELS: 'openai-compatible:llama3' }),
    }
    const { server, agent } = await setup(declared, [{ frames: chatCompletionsWire.text('A dot.') }])
    expect((await agent.prompt('look', [images[0]!])).reason).toBe('completed')
    expect(userContent(server.requests[0]!.body as Body, 'messages')).toEqual([
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
    ])
  })

  it.each([
    { providerCase: cases[2]!, message: /deepseek:deepseek-chat does not take images/ },
    {
      providerCase: cases[3]!,
      message: /does not know whether openai-compatible:llama3 takes images.*TANGENT_IMAGE_MODELS/,
    },
  ])(
    '$providerCase.name refuses images before logging or sending anything',
    async ({ providerCase, message }) => {
      const { server, session, agent } = await setup(providerCase, [
        { frames: chatCompletionsWire.text('no') },
      ])
      const refused = agent.prompt('look', [images[0]!])
      await expect(refused).rejects.toMatchObject({ code: 'images-unsupported', message })
      expect(session.events).toEqual([])
      expect(server.requests).toEqual([])
      // The same session still takes a prompt without images.
      expect((await agent.prompt('hi')).reason).toBe('completed')
    },
  )

  it('refuses a malformed image before anything is logged', async () => {
    const { server, session, agent } = await setup(cases[0]!, [])
    await expect(agent.prompt('x', [{ mediaType: 'image/jpeg', data: png }])).rejects.toMatchObject({
      code: 'invalid-params',
    })
    await expect(agent.prompt('', [])).rejects.toMatchObject({ code: 'invalid-params' })
    expect(session.events).toEqual([])
    expect(server.requests).toEqual([])
  })
})
