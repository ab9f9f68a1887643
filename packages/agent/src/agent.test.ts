import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { LanguageModelV4StreamPart, LanguageModelV4StreamResult } from '@ai-sdk/provider'
import { grammarStateOf, type SessionEvent, SessionStore, TangentError } from '@tangent/core'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { Agent, type AgentOptions } from './agent.js'
import { confinePath } from './confine-path.js'
import { ModelRegistry } from './model-registry.js'
import { defineTool } from './tools/agent-tool.js'
import { maxToolOutputChars } from './tools/cap-tool-output.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

function stream(parts: LanguageModelV4StreamPart[]): LanguageModelV4StreamResult {
  return { stream: convertArrayToReadableStream(parts) }
}

function textStep(text: string): LanguageModelV4StreamResult {
  return stream([
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...[...text].map((ch): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't', delta: ch })),
    { type: 'text-end', id: 't' },
    { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
  ])
}

function toolStep(calls: { id: string; name: string; input: unknown }[]): LanguageModelV4StreamResult {
  return stream([
    { type: 'stream-start', warnings: [] },
    ...calls.map(
      (call): LanguageModelV4StreamPart => ({
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.input),
      }),
    ),
    { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
  ])
}

/** A stream that sends `text` then hangs until the call is aborted. */
function hangingTextStep(text: string, signal: AbortSignal | undefined): LanguageModelV4StreamResult {
  let sent = false
  return {
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      pull(controller) {
        if (!sent) {
          sent = true
          controller.enqueue({ type: 'stream-start', warnings: [] })
          controller.enqueue({ type: 'text-start', id: 't' })
          controller.enqueue({ type: 'text-delta', id: 't', delta: text })
          return
        }
        return new Promise<void>((_, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
        })
      },
    }),
  }
}

function setup(
  model: MockLanguageModelV4,
  options: Partial<AgentOptions> = {},
  meta: Record<string, unknown> = {},
) {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-'))
  dirs.push(cwd)
  const store = new SessionStore()
  const session = store.create(undefined, { meta: { cwd, ...meta } })
  const models = new ModelRegistry({ env: {}, models: { 'mock:model': model } })
  const counts = { flushes: 0 }
  const agent = new Agent({
    session,
    models,
    defaultModel: 'mock:model',
    maxRetries: 0,
    flush: async () => {
      counts.flushes++
    },
    ...options,
  })
  return { cwd, store, session, agent, models, counts }
}

/** A session that already knows its first tree (a fork's `baseTree`), so no baseline snapshot is taken. */
const withForkPointTree = { baseTree: 'fork-point-tree' }

function types(events: readonly SessionEvent[]): string[] {
  return events.map((event) => event.type)
}

function dataOf<T>(events: readonly SessionEvent[], type: string): T[] {
  return events.filter((event) => event.type === type).map((event) => event.data as T)
}

/** Polls until `pid` is gone or a zombie (an unreaped orphan in a container); false after 5 s. */
async function waitForExit(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : ''
    if (stat === '' || /^\d+ \(.*\) Z/.test(stat)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

function expectValidIdleLog(events: readonly SessionEvent[]): void {
  expect(grammarStateOf(events).phase).toBe('idle')
}

describe('Agent loop against MockLanguageModelV4', () => {
  it('runs a multi-step tool loop, one model call per step, replaying the log each time', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep([{ id: 'c1', name: 'write', input: { path: 'a.txt', content: 'alpha' } }]),
        toolStep([
          { id: 'c2', name: 'read', input: { path: 'a.txt' } },
          { id: 'c3', name: 'nope', input: {} },
        ]),
        textStep('Done.'),
      ],
    })
    const { agent, session, cwd, counts } = setup(model)
    const result = await agent.prompt('make a file')
    expect(result.reason).toBe('completed')
    expect(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('alpha')
    expect(types(session.events)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'tool/result',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(dataOf(session.events, 'tool/result')).toMatchObject([
      { callId: 'c1', toolName: 'write', isError: false, output: 'Wrote a.txt (5 bytes).' },
      { callId: 'c2', toolName: 'read', isError: false, output: 'alpha' },
      { callId: 'c3', toolName: 'nope', isError: true },
    ])
    expect(dataOf<{ output: string }>(session.events, 'tool/result')[2]!.output).toContain(
      'Unknown tool "nope"',
    )
    expect(dataOf(session.events, 'step/end')[0]).toEqual({
      finishReason: 'tool-calls',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 0, reasoningTokens: 0 },
    })
    expect(model.doStreamCalls).toHaveLength(3)
    // The tools are offered with schemas; the SDK executes none of them.
    expect(model.doStreamCalls[0]!.tools?.map((t) => t.name).sort()).toEqual([
      'bash',
      'edit',
      'grep',
      'list',
      'read',
      'write',
    ])
    // With core's schemas on zod's CJS build (docs/architecture.md §9) and the tools' on its ESM
    // build in one process, the JSON Schema sent still carries the tools' descriptions.
    expect(model.doStreamCalls[0]!.tools?.find((t) => t.name === 'read')).toMatchObject({
      inputSchema: {
        properties: { path: { type: 'string', description: 'File path relative to the working directory' } },
      },
    })
    const third = model.doStreamCalls[2]!.prompt
    expect(third.filter((message) => message.role === 'tool')).toHaveLength(2)
    // Flushes: 3 model calls + 3 tools + turn/end.
    expect(counts.flushes).toBe(7)
    expectValidIdleLog(session.events)
  })

  it('records cached input and reasoning tokens in step/end when the provider reports them', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () =>
        stream([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'ok' },
          { type: 'text-end', id: 't' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 1200, noCache: 400, cacheRead: 800, cacheWrite: 0 },
              outputTokens: { total: 340, text: 300, reasoning: 40 },
            },
          },
        ]),
    })
    const { agent, session } = setup(model, {}, withForkPointTree)
    await agent.prompt('hi')
    expect(dataOf(session.events, 'step/end')).toEqual([
      {
        finishReason: 'stop',
        usage: {
          inputTokens: 1200,
          outputTokens: 340,
          totalTokens: 1540,
          cachedInputTokens: 800,
          reasoningTokens: 40,
        },
      },
    ])
  })

  it('stops at maxSteps with reason max-steps', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => toolStep([{ id: `c${Math.random()}`, name: 'list', input: {} }]),
    })
    const { agent, session } = setup(model, { maxSteps: 3 })
    const result = await agent.prompt('loop forever')
    expect(result.reason).toBe('max-steps')
    expect(model.doStreamCalls).toHaveLength(3)
    expect(types(session.events).filter((type) => type === 'step/start')).toHaveLength(3)
    expect(session.events.at(-1)!.data).toMatchObject({ reason: 'max-steps' })
    expectValidIdleLog(session.events)
  })

  it('keeps the partial text when aborted during streaming', async () => {
    const model = new MockLanguageModelV4({
      doStream: async (options) => hangingTextStep('Hello, wor', options.abortSignal),
    })
    const { agent, session } = setup(model)
    agent.onDelta(() => agent.abort())
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('aborted')
    expect(dataOf(session.events, 'assistant/message')).toEqual([
      { content: [{ type: 'text', text: 'Hello, wor' }] },
    ])
    expect(types(session.events).slice(-2)).toEqual(['step/end', 'turn/end'])
    expect(session.events.at(-1)!.data).toMatchObject({ reason: 'aborted' })
    expect(agent.running).toBe(false)
    expect(agent.abort()).toBe(false)
    expectValidIdleLog(session.events)
  })

  it('kills a long bash on abort and answers the remaining calls with errors', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep([
          { id: 'b1', name: 'bash', input: { command: 'sleep 30 & echo $! > sleeper.pid; wait' } },
          { id: 'w1', name: 'write', input: { path: 'never.txt', content: 'x' } },
        ]),
      ],
    })
    let snapshots = 0
    const { agent, session, cwd } = setup(
      model,
      {
        snapshot: async () => {
          snapshots++
          return { tree: 'abc123', changed: ['sleeper.pid'] }
        },
      },
      withForkPointTree,
    )
    const pending = agent.prompt('sleep')
    const pidFile = path.join(cwd, 'sleeper.pid')
    while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === '') {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const sleeper = Number(fs.readFileSync(pidFile, 'utf8'))
    expect(agent.abort()).toBe(true)
    const result = await pending
    expect(result.reason).toBe('aborted')
    const results = dataOf<{ callId: string; isError: boolean; output: string }>(
      session.events,
      'tool/result',
    )
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['b1', true],
      ['w1', true],
    ])
    expect(results[0]!.output).toContain('killed: the turn was aborted')
    expect(fs.existsSync(path.join(cwd, 'never.txt'))).toBe(false)
    expect(snapshots).toBe(1)
    expect(types(session.events).slice(-5)).toEqual([
      'tool/result',
      'tool/result',
      'snapshot/taken',
      'step/end',
      'turn/end',
    ])
    expect(dataOf(session.events, 'step/end')).toEqual([{ finishReason: 'abort' }])
    // The background sleep belonged to the command's process group: it is gone.
    expect(await waitForExit(sleeper)).toBe(true)
    expectValidIdleLog(session.events)
  })

  it('ends with reason error and keeps the provider message when the stream fails mid-way', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        stream([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Partial' },
          { type: 'error', error: new Error('upstream exploded') },
        ]),
      ],
    })
    const { agent, session } = setup(model)
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('error')
    expect(session.events.at(-1)!.data).toEqual({ reason: 'error', error: 'upstream exploded' })
    expect(dataOf(session.events, 'assistant/message')).toEqual([
      { content: [{ type: 'text', text: 'Partial' }] },
    ])
    expect(dataOf(session.events, 'step/end')).toEqual([{ finishReason: 'error' }])
    expectValidIdleLog(session.events)
  })

  it('ends with reason error when the model call itself throws', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error('connection refused')
      },
    })
    const { agent, session } = setup(model)
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('error')
    expect((session.events.at(-1)!.data as { error: string }).error).toContain('connection refused')
    expectValidIdleLog(session.events)
  })

  it('refuses a second prompt or a model switch while a turn runs (session-busy)', async () => {
    const model = new MockLanguageModelV4({
      doStream: async (options) => hangingTextStep('…', options.abortSignal),
    })
    const { agent, session } = setup(model)
    const first = agent.prompt('one')
    expect(agent.running).toBe(true)
    await expect(agent.prompt('two')).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'session-busy'),
    )
    expect(() => agent.setModel('demo:scripted')).toThrow(expect.objectContaining({ code: 'session-busy' }))
    agent.abort()
    expect((await first).reason).toBe('aborted')
    expect(dataOf(session.events, 'user/message')).toHaveLength(1)
    expectValidIdleLog(session.events)
  })

  it('takes the next prompt once turn/end is appended, while the last one still flushes; abort reaches the new turn', async () => {
    let calls = 0
    const model = new MockLanguageModelV4({
      doStream: async (options) =>
        ++calls === 1 ? textStep('first') : hangingTextStep('…', options.abortSignal),
    })
    // The first turn's last flush (after its turn/end) waits until released.
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const { agent, session } = setup(model, {
      flush: () => (session.events.at(-1)?.type === 'turn/end' && calls === 1 ? held : Promise.resolve()),
    })
    const first = agent.prompt('one')
    await vi.waitFor(() => expect(session.events.at(-1)?.type).toBe('turn/end'))
    expect(agent.running).toBe(false)
    const second = agent.prompt('two')
    expect(agent.running).toBe(true)
    release()
    expect((await first).reason).toBe('completed')
    // The first prompt's end did not take the second turn's controller with it.
    expect(agent.running).toBe(true)
    expect(agent.abort()).toBe(true)
    expect((await second).reason).toBe('aborted')
    expect(dataOf(session.events, 'turn/end').map((end) => (end as { reason: string }).reason)).toEqual([
      'completed',
      'aborted',
    ])
    expectValidIdleLog(session.events)
  })

  it('throws model-unavailable before appending anything', async () => {
    const { agent, session } = setup(new MockLanguageModelV4(), { defaultModel: 'openai:gpt-4.1' })
    const error = await agent.prompt('hi').catch((caught: unknown) => caught)
    expect(TangentError.hasCode(error, 'model-unavailable')).toBe(true)
    expect((error as TangentError).data).toEqual({ model: 'openai:gpt-4.1' })
    expect((error as TangentError).message).toContain('OPENAI_API_KEY')
    expect(() => agent.setModel('anthropic:claude-sonnet-4-5')).toThrow(/ANTHROPIC_API_KEY/)
    expect(() => agent.setModel('nonsense')).toThrow(expect.objectContaining({ code: 'invalid-model' }))
    expect(session.events).toHaveLength(0)
    expect(agent.running).toBe(false)
  })

  it('appends model/selection and a forked child runs with the latest one in its log', async () => {
    const first = new MockLanguageModelV4({ doStream: async () => textStep('from A') })
    const second = new MockLanguageModelV4({ doStream: async () => textStep('from B') })
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-'))
    dirs.push(cwd)
    const store = new SessionStore()
    const session = store.create(undefined, { meta: { cwd } })
    const models = new ModelRegistry({ env: {}, models: { 'mock:a': first, 'mock:b': second } })
    const agent = new Agent({ session, models, flush: async () => {} })
    agent.setModel('mock:a', 'high')
    await agent.prompt('one')
    agent.setModel('mock:b')
    expect(dataOf(session.events, 'model/selection')).toEqual([
      { provider: 'mock', model: 'a', reasoningEffort: 'high' },
      { provider: 'mock', model: 'b' },
    ])
    const child = store.fork(session)
    const childAgent = new Agent({ session: child, models, flush: async () => {} })
    await childAgent.prompt('two')
    expect(first.doStreamCalls).toHaveLength(1)
    expect(second.doStreamCalls).toHaveLength(1)
    expect(dataOf(child.events, 'assistant/message').at(-1)).toEqual({
      content: [{ type: 'text', text: 'from B' }],
    })
  })

  it('tells the step snapshot which files the step wrote when every call said so, and nothing when any may have written anything', async () => {
    const steps: (readonly string[] | undefined)[][] = []
    const run = async (calls: { id: string; name: string; input: unknown }[], hooks?: boolean) => {
      const model = new MockLanguageModelV4({ doStream: [toolStep(calls), textStep('ok')] })
      const seen: (readonly string[] | undefined)[] = []
      const { agent, cwd } = setup(
        model,
        {
          snapshot: async (_session, written) => {
            seen.push(written)
            return { tree: 'tree1', changed: [] }
          },
          ...(hooks
            ? {
                hooks: {
                  beforeToolCall: async () => null,
                  afterToolCall: async () => undefined,
                  toolHooksConfigured: async () => true,
                },
              }
            : {}),
        },
        withForkPointTree,
      )
      fs.writeFileSync(path.join(cwd, 'seen.txt'), 'seen\n')
      expect((await agent.prompt('go')).reason).toBe('completed')
      steps.push(seen)
    }
    await run([
      { id: 'r', name: 'read', input: { path: 'seen.txt' } },
      { id: 'l', name: 'list', input: {} },
    ])
    await run([
      { id: 'w', name: 'write', input: { path: 'sub/new.txt', content: 'n' } },
      { id: 'e', name: 'edit', input: { path: 'seen.txt', oldText: 'seen', newText: 'edited' } },
    ])
    // An edit that fails may have written nothing or anything: the snapshot is told nothing.
    await run([{ id: 'e', name: 'edit', input: { path: 'seen.txt', oldText: 'absent', newText: 'x' } }])
    await run([{ id: 'b', name: 'bash', input: { command: 'true' } }])
    await run([{ id: 'r', name: 'read', input: { path: 'seen.txt' } }], true)
    expect(steps).toEqual([[[]], [['sub/new.txt', 'seen.txt']], [undefined], [undefined], [undefined]])
  })

  it('records snapshot/taken after tool steps, and a failing snapshot as snapshot/failed without ending the turn', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep([{ id: 'c1', name: 'write', input: { path: 'x.txt', content: '1' } }]),
        toolStep([{ id: 'c2', name: 'write', input: { path: 'y.txt', content: '2' } }]),
        textStep('ok'),
      ],
    })
    let calls = 0
    const { agent, session } = setup(
      model,
      {
        snapshot: async () => {
          calls++
          if (calls === 2) throw new Error('disk full')
          return { tree: 'tree1', changed: ['x.txt'] }
        },
      },
      withForkPointTree,
    )
    const result = await agent.prompt('go')
    expect(result.reason).toBe('completed')
    expect(dataOf(session.events, 'snapshot/taken')).toEqual([{ tree: 'tree1', changed: ['x.txt'] }])
    expect(dataOf(session.events, 'snapshot/failed')).toEqual([{ message: 'disk full' }])
    expect(calls).toBe(2)
    expectValidIdleLog(session.events)
  })

  it('answers a call whose input does not match the schema with an error result the model can act on', async () => {
    const model = new MockLanguageModelV4({
      doStream: [toolStep([{ id: 'c1', name: 'write', input: { path: 'x.txt' } }]), textStep('sorry')],
    })
    const { agent, session } = setup(model)
    expect((await agent.prompt('go')).reason).toBe('completed')
    const [result] = dataOf<{ isError: boolean; output: string }>(session.events, 'tool/result')
    expect(result!.isError).toBe(true)
    expect(result!.output).toMatch(/^Invalid input for write/)
    expectValidIdleLog(session.events)
  })
})

describe('Agent tool output too large for the log', () => {
  it('cuts a 70 MB tool output to fit, with a note, and the turn completes', async () => {
    const huge = `${'x'.repeat(70 * 1024 * 1024)}the end`
    const model = new MockLanguageModelV4({
      doStream: [toolStep([{ id: 'c1', name: 'dump', input: {} }]), textStep('ok')],
    })
    const dump = defineTool<Record<string, never>>({
      description: 'prints a lot',
      inputSchema: z.object({}),
      run: async () => ({ output: huge }),
    })
    const { agent, session } = setup(model, { tools: { dump } })
    expect((await agent.prompt('go')).reason).toBe('completed')
    const [result] = dataOf<{ isError: boolean; output: string }>(session.events, 'tool/result')
    expect(result!.output.length).toBeLessThanOrEqual(maxToolOutputChars + 200)
    expect(result!.output).toMatch(/output cut to fit the session log: \d+ of 73400327 characters omitted/)
    expect(result!.output.endsWith('the end')).toBe(true)
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(64 * 1024 * 1024)
    expectValidIdleLog(session.events)
  })
})

describe('Agent baseline snapshot', () => {
  it('takes one baseline snapshot (changed: []) in the first turn of a session with no tree yet', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep([{ id: 'c1', name: 'write', input: { path: 'x.txt', content: '1' } }]),
        textStep('ok'),
        textStep('again'),
      ],
    })
    const trees = ['base', 'after-write', 'unused']
    const { agent, session } = setup(model, {
      snapshot: async () => ({ tree: trees.shift()!, changed: ['someone-elses.txt'] }),
    })
    await agent.prompt('write it')
    await agent.prompt('and talk')
    const taken = dataOf<{ tree: string; changed: string[] }>(session.events, 'snapshot/taken')
    expect(taken).toEqual([
      { tree: 'base', changed: [] },
      { tree: 'after-write', changed: ['someone-elses.txt'] },
    ])
    const baselineSeq = session.events.findIndex((e) => e.type === 'snapshot/taken')
    expect(session.events[baselineSeq - 1]!.type).toBe('user/message')
    expectValidIdleLog(session.events)
  })

  it('takes no baseline when the session has a fork-point tree', async () => {
    const model = new MockLanguageModelV4({ doStream: [textStep('hi')] })
    let calls = 0
    const { agent, session } = setup(
      model,
      { snapshot: async () => ({ tree: `t${++calls}`, changed: [] }) },
      withForkPointTree,
    )
    await agent.prompt('hello')
    expect(calls).toBe(0)
    expect(dataOf(session.events, 'snapshot/taken')).toEqual([])
  })
})

describe('Agent turn-start snapshot', () => {
  it('appends what the hook found at each turn start with an empty changed list, and nothing when it found nothing', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep([{ id: 'c1', name: 'write', input: { path: 'x.txt', content: '1' } }]),
        textStep('ok'),
        textStep('again'),
      ],
    })
    const found: ({ tree: string; changed: string[]; outside?: string[] } | null)[] = [
      { tree: 'first', changed: ['ignored.txt'] },
      { tree: 'between', changed: ['ignored.txt'], outside: ['mine.txt'] },
    ]
    let baselines = 0
    const { agent, session } = setup(model, {
      turnStartSnapshot: async () => found.shift() ?? null,
      snapshot: async () => {
        baselines++
        return { tree: 'after-write', changed: ['x.txt'] }
      },
    })
    await agent.prompt('write it')
    await agent.prompt('talk')
    const taken = dataOf<{ tree: string; changed: string[] }>(session.events, 'snapshot/taken')
    expect(taken).toEqual([
      { tree: 'first', changed: [] },
      { tree: 'after-write', changed: ['x.txt'] },
      { tree: 'between', changed: [], outside: ['mine.txt'] },
    ])
    // Only the step that ran a tool called `snapshot`: no baseline besides the hook.
    expect(baselines).toBe(1)
    const turnStart = session.events.findLastIndex((e) => e.type === 'snapshot/taken')
    expect(session.events[turnStart - 1]!.type).toBe('user/message')
    expectValidIdleLog(session.events)
  })
})

describe('Agent failures outside the model call', () => {
  it('closes the turn with reason error when a flush fails mid-turn', async () => {
    const model = new MockLanguageModelV4({ doStream: async () => textStep('never') })
    let calls = 0
    const { agent, session } = setup(model, {
      flush: async () => {
        calls++
        if (calls === 1) throw new Error('disk gone')
      },
    })
    const result = await agent.prompt('hi')
    expect(result.reason).toBe('error')
    expect(session.events.at(-1)!.data).toEqual({ reason: 'error', error: 'disk gone' })
    expect(model.doStreamCalls).toHaveLength(0)
    expectValidIdleLog(session.events)
  })

  it('reports the model it will use next', () => {
    const { agent, session } = setup(new MockLanguageModelV4())
    expect(agent.modelId).toBe('mock:model')
    session.append('model/selection', { provider: 'demo', model: 'scripted' })
    expect(agent.modelId).toBe('demo:scripted')
  })
})

describe('Agent abort after the tools', () => {
  it('ends the turn without another model call when aborted while the snapshot is taken', async () => {
    const model = new MockLanguageModelV4({
      doStream: [toolStep([{ id: 'c1', name: 'list', input: {} }]), textStep('never')],
    })
    let agentRef: Agent | null = null
    const { agent, session } = setup(
      model,
      {
        snapshot: async () => {
          agentRef?.abort()
          return null
        },
      },
      withForkPointTree,
    )
    agentRef = agent
    expect((await agent.prompt('go')).reason).toBe('aborted')
    expect(model.doStreamCalls).toHaveLength(1)
    expect(types(session.events).slice(-3)).toEqual(['tool/result', 'step/end', 'turn/end'])
    expect(dataOf(session.events, 'step/end')).toEqual([{ finishReason: 'abort' }])
    expectValidIdleLog(session.events)
  })
})

describe('Agent file tools and the path their permission was decided for', () => {
  it('refuses a path whose link changed after the decision, and asks the guard with the real path', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep([
          { id: 'c1', name: 'write', input: { path: 's/key', content: 'x' } },
          { id: 'c2', name: 'write', input: { path: 's/other', content: 'y' } },
        ]),
        textStep('done'),
      ],
    })
    let swap = () => {}
    const guarded: string[] = []
    const { cwd, session, agent } = setup(model, {
      // The decision sees s -> ok; the link is changed to s -> secrets right after the first one.
      permissions: async (request) => {
        const { relative } = await confinePath(request.cwd, (request.input as { path: string }).path)
        swap()
        return { action: 'allow', pattern: '**', reason: 'test', realPath: relative }
      },
      checkRealPath: async ({ toolName, path: real, access }) => {
        guarded.push(`${toolName} ${access} ${real}`)
      },
    })
    fs.mkdirSync(path.join(cwd, 'ok'))
    fs.mkdirSync(path.join(cwd, 'secrets'))
    fs.symlinkSync('ok', path.join(cwd, 's'))
    swap = () => {
      fs.rmSync(path.join(cwd, 's'))
      fs.symlinkSync('secrets', path.join(cwd, 's'))
      swap = () => {}
    }
    await agent.prompt('go')
    const results = dataOf<{ output: string; isError: boolean }>(session.events, 'tool/result')
    expect(results[0]).toMatchObject({
      isError: true,
      output: expect.stringContaining('now leads to secrets/key, not to ok/key'),
    })
    // The second call was decided with the link as it now is.
    expect(results[1]).toMatchObject({ isError: false, output: 'Wrote secrets/other (1 bytes).' })
    expect(guarded).toEqual(['write write secrets/other'])
    expect(fs.readdirSync(path.join(cwd, 'secrets'))).toEqual(['other'])
    expect(fs.readdirSync(path.join(cwd, 'ok'))).toEqual([])
  })
})

describe('Agent tool-call hooks', () => {
  it('asks preToolUse before the policy for known tools only, records a refusal as a hook decision, and gives postToolUse what ran', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep([
          { id: 'w1', name: 'write', input: { path: 'kept.txt', content: 'k' } },
          { id: 'w2', name: 'write', input: { path: 'refused.txt', content: 'r' } },
          { id: 'u1', name: 'nope', input: {} },
        ]),
        textStep('done'),
      ],
    })
    const seen: string[] = []
    const decided: string[] = []
    const { agent, session, cwd } = setup(
      model,
      {
        permissions: async ({ toolName }) => {
          decided.push(toolName)
          return { action: 'allow', pattern: '**', reason: 'test' }
        },
        hooks: {
          beforeToolCall: async (call) => {
            seen.push(`pre ${call.id} ${call.name} ${JSON.stringify(call.input)}`)
            return call.id === 'w2'
              ? { reason: 'not this one', hook: { command: 'guard', source: 'cfg' } }
              : null
          },
          afterToolCall: async (call, result) => {
            seen.push(`post ${call.id} ${result.isError} ${String(result.output).slice(0, 20)}`)
          },
        },
      },
      withForkPointTree,
    )
    expect((await agent.prompt('go')).reason).toBe('completed')
    expect(seen).toEqual([
      `pre w1 write {"path":"kept.txt","content":"k"}`,
      'post w1 false Wrote kept.txt (1 by',
      `pre w2 write {"path":"refused.txt","content":"r"}`,
    ])
    // The refused call never reached the policy.
    expect(decided).toEqual(['write'])
    expect(fs.existsSync(path.join(cwd, 'refused.txt'))).toBe(false)
    expect(dataOf(session.events, 'permission/answered')).toEqual([
      {
        callId: 'w2',
        decision: 'deny',
        reason: 'not this one',
        by: 'hook',
        hook: { command: 'guard', source: 'cfg' },
      },
    ])
    const results = dataOf<{ callId: string; output: string }>(session.events, 'tool/result')
    expect(results[1]!.output).toBe(
      'Permission denied by a preToolUse hook: the tool did not run. Reason: not this one',
    )
    expectValidIdleLog(session.events)
  })

  it('an abort while a preToolUse hook runs ends the turn with the call unrun and nothing decided', async () => {
    const model = new MockLanguageModelV4({
      doStream: [toolStep([{ id: 'w1', name: 'write', input: { path: 'x.txt', content: 'x' } }])],
    })
    let started!: () => void
    const running = new Promise<void>((resolve) => {
      started = resolve
    })
    const { agent, session, cwd } = setup(
      model,
      {
        hooks: {
          beforeToolCall: (_call, signal) => {
            started()
            return new Promise((resolve) =>
              signal.addEventListener('abort', () => resolve(null), { once: true }),
            )
          },
          afterToolCall: async () => {
            throw new Error('must not run')
          },
        },
      },
      withForkPointTree,
    )
    const pending = agent.prompt('go')
    await running
    agent.abort()
    expect((await pending).reason).toBe('aborted')
    expect(fs.existsSync(path.join(cwd, 'x.txt'))).toBe(false)
    expect(dataOf(session.events, 'permission/answered')).toEqual([])
    expectValidIdleLog(session.events)
  })
})
