import { describe, expect, it } from 'vitest'
import type { Usage } from './events.js'
import type { Session } from './session.js'
import { SessionStore } from './store.js'
import { type ModelFacts, summarizeUsage, type UsageOptions } from './usage.js'

const facts: Record<string, ModelFacts> = {
  'p:priced': {
    contextWindow: 100_000,
    price: { inputPerMTokens: 2, outputPerMTokens: 8, cacheReadPerMTokens: 0.5 },
  },
  'p:free': { contextWindow: 1000, price: { inputPerMTokens: 0, outputPerMTokens: 0 } },
  'p:window-only': { contextWindow: 50_000 },
}
const options = (boundary = 0): UsageOptions => ({
  boundary,
  defaultModel: 'p:priced',
  facts: (model) => facts[model],
  priceSource: 'test catalog of 2025-01-01',
})

/** A completed turn with one step per usage. */
function turn(session: Session, ...usages: (Usage | undefined)[]) {
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text: 'q' }] })
  for (const usage of usages) {
    session.append('step/start', {})
    session.append('assistant/message', { content: [{ type: 'text', text: 'a' }] })
    session.append('step/end', { finishReason: 'stop', ...(usage ? { usage } : {}) })
  }
  session.append('turn/end', { reason: 'completed' })
}

describe('summarizeUsage', () => {
  it('sums tokens per turn and for the session, with the cost of a priced model', () => {
    const session = new SessionStore().create()
    turn(session, { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 })
    turn(session, { inputTokens: 2000, outputTokens: 300 }, { inputTokens: 2400, outputTokens: 50 })
    const usage = summarizeUsage(session.events, options())
    // 600 × $2 + 400 × $0.5 + 100 × $8 per million.
    expect(usage.turns[0]).toEqual({
      seq: 0,
      model: 'p:priced',
      inputTokens: 1000,
      outputTokens: 100,
      cachedInputTokens: 400,
      reasoningTokens: 0,
      steps: 1,
      cost: 0.0022,
    })
    expect(usage.turns[1]).toMatchObject({ seq: 6, steps: 2, inputTokens: 4400, outputTokens: 350 })
    expect(usage.turns[1]!.cost).toBeCloseTo((4400 * 2 + 350 * 8) / 1e6, 10)
    expect(usage.total).toEqual(usage.own)
    expect(usage.inherited).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      steps: 0,
      cost: 0,
    })
    expect(usage.total).toMatchObject({ inputTokens: 5400, outputTokens: 450, steps: 3 })
    expect(usage.priceSource).toBe('test catalog of 2025-01-01')
  })

  it('splits a fork into inherited (below its boundary) and own', () => {
    const store = new SessionStore()
    const parent = store.create()
    turn(parent, { inputTokens: 100, outputTokens: 10 })
    const child = store.fork(parent)
    turn(child, { inputTokens: 300, outputTokens: 30 })
    const usage = summarizeUsage(child.events, options(child.inheritedEventCount))
    expect(usage.inherited).toMatchObject({ inputTokens: 100, outputTokens: 10, steps: 1 })
    expect(usage.own).toMatchObject({ inputTokens: 300, outputTokens: 30, steps: 1 })
    expect(usage.total).toMatchObject({ inputTokens: 400, outputTokens: 40, steps: 2 })
    expect(usage.total.cost).toBeCloseTo(usage.own.cost! + usage.inherited.cost!, 12)
    expect(usage.turns.map((t) => t.seq)).toEqual([0, 6])
  })

  it('prices each turn with the model it ran on; an unpriced model makes the sums unknown, never zero', () => {
    const session = new SessionStore().create()
    session.append('model/selection', { provider: 'p', model: 'free' })
    turn(session, { inputTokens: 500, outputTokens: 50 })
    expect(summarizeUsage(session.events, options()).total.cost).toBe(0)
    session.append('model/selection', { provider: 'p', model: 'window-only' })
    turn(session, { inputTokens: 700, outputTokens: 70 })
    const usage = summarizeUsage(session.events, options())
    expect(usage.turns.map((t) => [t.model, t.cost])).toEqual([
      ['p:free', 0],
      ['p:window-only', null],
    ])
    expect(usage.total.cost).toBeNull()
    expect(usage.context).toEqual({ used: 770, window: 50_000, percent: 1.5, model: 'p:window-only' })
    session.append('model/selection', { provider: 'x', model: 'unknown' })
    expect(summarizeUsage(session.events, options()).context).toEqual({
      used: 770,
      window: null,
      percent: null,
      model: 'x:unknown',
    })
  })

  it('measures the context as the last step, a compaction estimate after it, unknown after a step without usage', () => {
    const session = new SessionStore().create()
    expect(summarizeUsage(session.events, options()).context).toMatchObject({ used: 0, percent: 0 })
    turn(session, { inputTokens: 10_000, outputTokens: 2345 })
    expect(summarizeUsage(session.events, options()).context).toEqual({
      used: 12_345,
      window: 100_000,
      percent: 12.3,
      model: 'p:priced',
    })
    session.append('context/compacted', {
      summary: 's',
      throughSeq: 5,
      model: 'p:priced',
      trigger: 'manual',
      tokensAfter: 900,
    })
    expect(summarizeUsage(session.events, options()).context.used).toBe(900)
    turn(session, undefined)
    const usage = summarizeUsage(session.events, options())
    expect(usage.context).toMatchObject({ used: null, percent: null })
    // A step without usage is a model call of unknown tokens: counted, and it leaves the cost alone.
    expect(usage.total).toMatchObject({ steps: 2, inputTokens: 10_000 })
    expect(usage.total.cost).not.toBeNull()
    // Its turn's cost is unknown, not $0 (an aborted call may still be billed).
    expect(usage.turns.map((t) => t.cost === null)).toEqual([false, true])
  })

  it('counts the steps of a running turn', () => {
    const session = new SessionStore().create()
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'q' }] })
    session.append('step/start', {})
    session.append('assistant/message', { content: [] })
    session.append('step/end', { finishReason: 'tool-calls', usage: { inputTokens: 5, outputTokens: 1 } })
    expect(summarizeUsage(session.events, options()).turns).toMatchObject([
      { seq: 0, steps: 1, inputTokens: 5 },
    ])
  })

  it('reads 50,000 events in one pass, asking the catalog once per model', () => {
    const session = new SessionStore().create()
    while (session.events.length < 50_000) turn(session, { inputTokens: 1000, outputTokens: 100 })
    const asked: string[] = []
    const started = performance.now()
    const usage = summarizeUsage(session.events, {
      ...options(),
      facts: (model) => {
        asked.push(model)
        return facts[model]
      },
    })
    const elapsed = performance.now() - started
    expect(usage.turns.length).toBe(Math.ceil(50_000 / 6))
    expect(usage.total.steps).toBe(usage.turns.length)
    expect(asked).toEqual(['p:priced'])
    // A few milliseconds; the ceiling only catches a pass that turned quadratic (minutes).
    expect(elapsed).toBeLessThan(2000)
  })
})
