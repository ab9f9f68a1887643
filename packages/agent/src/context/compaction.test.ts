import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import {
  type CompactionData,
  compactionPreamble,
  grammarStateOf,
  type Session,
  SessionStore,
  TangentError,
} from '@tangent/core'
import { MockLanguageModelV4 } from 'ai/test'
import { afterEach, describe, expect, it } from 'vitest'
import { Agent, type AgentOptions } from '../agent.js'
import { ModelRegistry } from '../model-registry.js'
import { mockTextResult, mockTextStream, mockUsage } from '../testing/mock-steps.js'
import { compactionBoundary, estimateContextTokens, overThreshold } from './compaction.js'
import { compactionRequest } from './compaction-request.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** An agent on `mock:big` (a 1000-token window) with no instruction files. */
function setup(model: MockLanguageModelV4, options: Partial<AgentOptions> = {}) {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-compaction-'))
  dirs.push(cwd)
  const session = new SessionStore().create(undefined, { meta: { cwd, baseTree: 'fork-point-tree' } })
  const models = new ModelRegistry({
    env: {},
    models: { 'mock:big': model },
    contextWindows: { 'mock:big': 1000 },
  })
  const agent = new Agent({
    session,
    models,
    defaultModel: 'mock:big',
    maxRetries: 0,
    userInstructionsPath: null,
    flush: async () => {},
    ...options,
  })
  return { session, agent }
}

function textOf(prompt: LanguageModelV4Prompt): string[] {
  return prompt.flatMap((message) =>
    message.role === 'system'
      ? []
      : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])),
  )
}

function compactions(session: Session): CompactionData[] {
  return session.events
    .filter((event) => event.type === 'context/compacted')
    .map((event) => event.data as CompactionData)
}

describe('estimateContextTokens', () => {
  it('is the last step’s input plus output, plus what was appended since at 4 characters a token', () => {
    const session = new SessionStore().create()
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'x'.repeat(400) }] })
    // No usage yet: the characters only (the data's JSON), plus the base (a system prompt).
    expect(estimateContextTokens(session.events, 40)).toBe(
      Math.ceil((JSON.stringify(session.events[1]!.data).length + 40) / 4),
    )
    session.append('step/start', {})
    session.append('assistant/message', { content: [{ type: 'text', text: 'ok' }] })
    session.append('step/end', { finishReason: 'stop', usage: { inputTokens: 700, outputTokens: 50 } })
    session.append('turn/end', { reason: 'completed' })
    expect(estimateContextTokens(session.events)).toBe(750)
    session.append('turn/start', {})
    const user = session.append('user/message', { content: [{ type: 'text', text: 'y'.repeat(80) }] })
    expect(estimateContextTokens(session.events)).toBe(750 + Math.ceil(JSON.stringify(user.data).length / 4))
  })

  it('ignores usage recorded before the latest compaction', () => {
    const session = new SessionStore().create()
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'hi' }] })
    session.append('step/start', {})
    session.append('assistant/message', { content: [{ type: 'text', text: 'ok' }] })
    session.append('step/end', { finishReason: 'stop', usage: { inputTokens: 90_000, outputTokens: 50 } })
    session.append('turn/end', { reason: 'completed' })
    session.append('context/compacted', {
      summary: 's',
      throughSeq: 5,
      model: 'm:x',
      trigger: 'manual',
      tokensAfter: 120,
    })
    expect(estimateContextTokens(session.events)).toBe(120)
  })
})

describe('compactionBoundary and overThreshold', () => {
  it('summarises the turns before the running one, and nothing twice', () => {
    const session = new SessionStore().create()
    expect(compactionBoundary(session)).toBeNull()
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'one' }] })
    // Inside the first turn there is nothing before it.
    expect(compactionBoundary(session)).toBeNull()
    session.append('turn/end', { reason: 'completed' })
    expect(compactionBoundary(session)).toBe(2)
    session.append('turn/start', {})
    expect(compactionBoundary(session)).toBe(2)
    session.append('context/compacted', { summary: 's', throughSeq: 2, model: 'm:x', trigger: 'auto' })
    expect(compactionBoundary(session)).toBeNull()
  })

  it('never passes an unknown window', () => {
    expect(overThreshold(900, 1000, 0.8)).toBe(true)
    expect(overThreshold(800, 1000, 0.8)).toBe(false)
    expect(overThreshold(10 ** 9, undefined, 0.8)).toBe(false)
  })
})

describe('Agent compaction against MockLanguageModelV4', () => {
  it('compacts before a call that would pass 80% of the window; the next prompt starts with the summary', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        mockTextStream('first answer', mockUsage(850, 20)),
        mockTextStream('second answer', mockUsage(60, 10)),
      ],
      doGenerate: [mockTextResult('The user asked for the first thing.', mockUsage(870, 12))],
    })
    const { session, agent } = setup(model)
    expect((await agent.prompt('first question')).reason).toBe('completed')
    expect(compactions(session)).toEqual([])
    expect((await agent.prompt('second question')).reason).toBe('completed')

    const [compaction] = compactions(session)
    const turnStarts = session.seqsOfType('turn/start')
    expect(compaction).toMatchObject({
      summary: 'The user asked for the first thing.',
      throughSeq: turnStarts[1]! - 1,
      model: 'mock:big',
      trigger: 'auto',
      usage: { inputTokens: 870, outputTokens: 12 },
    })
    expect(compaction!.tokensBefore).toBeGreaterThan(870)
    expect(compaction!.tokensAfter).toBeLessThan(compaction!.tokensBefore!)
    // The summary call saw the first turn and the request, no tools.
    const summaryCall = model.doGenerateCalls[0]!
    expect(textOf(summaryCall.prompt)).toEqual(['first question', 'first answer', compactionRequest])
    expect(summaryCall.tools ?? []).toEqual([])
    // The second turn's call: the summary opens the first (and only) user message, then the question.
    const second = model.doStreamCalls[1]!.prompt.filter((message) => message.role !== 'system')
    expect(textOf(second)).toEqual([
      compactionPreamble('The user asked for the first thing.'),
      'second question',
    ])
    expect(second).toHaveLength(1)
    // Nothing was removed from the log, and it still parses.
    expect(session.events.filter((event) => event.type === 'user/message')).toHaveLength(2)
    expect(grammarStateOf(session.events).phase).toBe('idle')
  })

  it('a failed summary is noted and the turn goes on with the whole history', async () => {
    const model = new MockLanguageModelV4({
      doStream: [mockTextStream('first', mockUsage(900)), mockTextStream('second', mockUsage(950))],
      doGenerate: async () => {
        throw new Error('summary service down')
      },
    })
    const { session, agent } = setup(model)
    await agent.prompt('one')
    expect((await agent.prompt('two')).reason).toBe('completed')
    expect(compactions(session)).toEqual([])
    const notes = session.events.filter((event) => event.type === 'context/compaction-failed')
    expect(notes.map((event) => event.data)).toEqual([{ model: 'mock:big', message: 'summary service down' }])
    expect(textOf(model.doStreamCalls[1]!.prompt)).toEqual(['one', 'first', 'two'])
  })

  it('compacts on request between turns, and refuses when there is nothing new', async () => {
    const model = new MockLanguageModelV4({
      doStream: [mockTextStream('answer'), mockTextStream('later')],
      doGenerate: [mockTextResult('Summary A')],
    })
    const { session, agent } = setup(model)
    const empty = await agent.compact().catch((error: unknown) => error)
    expect(TangentError.isInstance(empty) && empty.code).toBe('nothing-to-compact')
    await agent.prompt('question')
    const result = await agent.compact()
    expect(result).toMatchObject({
      seq: session.lastSeq,
      throughSeq: session.lastSeq - 1,
      trigger: 'manual',
      summary: 'Summary A',
    })
    const again = await agent.compact().catch((error: unknown) => error)
    expect(TangentError.isInstance(again) && again.code).toBe('nothing-to-compact')
    await agent.prompt('next')
    expect(textOf(model.doStreamCalls[1]!.prompt)).toEqual([compactionPreamble('Summary A'), 'next'])
  })

  it('a manual compaction that fails records nothing and says why', async () => {
    const model = new MockLanguageModelV4({
      doStream: [mockTextStream('answer')],
      doGenerate: async () => {
        throw new Error('rate limited')
      },
    })
    const { session, agent } = setup(model)
    await agent.prompt('question')
    const before = session.lastSeq
    const error = await agent.compact().catch((caught: unknown) => caught)
    expect(TangentError.isInstance(error) && error.code).toBe('compaction-failed')
    expect((error as Error).message).toContain('rate limited')
    expect(session.lastSeq).toBe(before)
    expect(agent.running).toBe(false)
  })
})
