import { describe, expect, it } from 'vitest'
import { TangentError } from './errors.js'
import { closingEventsForOpenTurn, GrammarState, grammarStateOf } from './grammar.js'
import type { Session } from './session.js'
import { SessionStore } from './store.js'

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    if (TangentError.isInstance(error)) return error.code
    throw error
  }
  return undefined
}

type Step = [type: string, data: unknown]

const text = (t: string) => ({ content: [{ type: 'text', text: t }] })
const call = (id: string, name = 'read') => ({
  type: 'tool-call',
  toolCallId: id,
  toolName: name,
  input: { id },
})
const result = (id: string, name = 'read') => ({
  callId: id,
  toolName: name,
  output: `out ${id}`,
  isError: false,
})

/** One event of every kind, legal in the phase the prefix leaves. */
const candidates: Record<string, Step> = {
  'turn/start': ['turn/start', {}],
  'user/message': ['user/message', text('q')],
  'step/start': ['step/start', {}],
  'assistant/message': ['assistant/message', text('a')],
  'tool/result': ['tool/result', result('c1')],
  'step/end': ['step/end', { finishReason: 'stop' }],
  'turn/end': ['turn/end', { reason: 'completed' }],
  'model/selection': ['model/selection', { provider: 'demo', model: 'scripted' }],
  'session/title': ['session/title', { title: 't' }],
}

/** Prefixes that leave the log in each grammar phase, and which core types may come next. */
const phases: { name: string; prefix: Step[]; legal: string[] }[] = [
  { name: 'empty log', prefix: [], legal: ['turn/start', 'model/selection', 'session/title'] },
  {
    name: 'idle after a turn',
    prefix: [
      ['turn/start', {}],
      ['user/message', text('q')],
      ['turn/end', { reason: 'completed' }],
    ],
    legal: ['turn/start', 'model/selection', 'session/title'],
  },
  { name: 'turn-opened', prefix: [['turn/start', {}]], legal: ['user/message'] },
  {
    name: 'in-turn after user/message',
    prefix: [
      ['turn/start', {}],
      ['user/message', text('q')],
    ],
    legal: ['step/start', 'turn/end'],
  },
  {
    name: 'step-opened',
    prefix: [
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
    ],
    legal: ['assistant/message'],
  },
  {
    name: 'step-answered with a pending call',
    prefix: [
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
      ['assistant/message', { content: [call('c1')] }],
    ],
    legal: ['tool/result'],
  },
  {
    name: 'step-answered without calls',
    prefix: [
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
      ['assistant/message', text('a')],
    ],
    legal: ['step/end'],
  },
  {
    name: 'step-answered after the last result',
    prefix: [
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
      ['assistant/message', { content: [call('c1')] }],
      ['tool/result', result('c1')],
    ],
    legal: ['step/end'],
  },
  {
    name: 'in-turn after step/end',
    prefix: [
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
      ['assistant/message', text('a')],
      ['step/end', { finishReason: 'stop' }],
    ],
    legal: ['step/start', 'turn/end'],
  },
]

function sessionWith(prefix: Step[]): Session {
  const s = new SessionStore().create()
  for (const [type, data] of prefix) s.append(type, data)
  return s
}

describe('grammar on append', () => {
  for (const phase of phases) {
    describe(phase.name, () => {
      for (const [name, [type, data]] of Object.entries(candidates)) {
        if (phase.legal.includes(name)) {
          it(`accepts ${name}`, () => {
            const s = sessionWith(phase.prefix)
            expect(s.append(type, data).seq).toBe(phase.prefix.length)
          })
        } else {
          it(`refuses ${name} with grammar-violation and leaves the log and grammar unchanged`, () => {
            const s = sessionWith(phase.prefix)
            const events = [...s.events]
            const grammar = s.grammar
            let caught: unknown
            try {
              s.append(type, data)
            } catch (error) {
              caught = error
            }
            expect(TangentError.hasCode(caught, 'grammar-violation')).toBe(true)
            expect((caught as TangentError).data).toMatchObject({ seq: events.length, type })
            expect(s.events).toEqual(events)
            expect(s.grammar).toEqual(grammar)
            // The log still accepts a legal event at the same seq.
            const [legalType, legalData] = candidates[phase.legal[0]!]!
            expect(s.append(legalType, legalData).seq).toBe(events.length)
          })
        }
      }

      it('accepts log-only events (snapshot/taken, plugin types) and stays in the same phase', () => {
        const s = sessionWith(phase.prefix)
        const grammar = s.grammar
        s.append('snapshot/taken', { tree: 'abc123', changed: ['a.txt'] })
        s.append('plugin/anything', { any: ['thing'] })
        s.append('files/restored', null)
        expect(s.grammar).toEqual(grammar)
        expect(s.events).toHaveLength(phase.prefix.length + 3)
        const [legalType, legalData] = candidates[phase.legal[0]!]!
        s.append(legalType, legalData)
      })
    })
  }

  it('accepts a whole turn of several steps with results in any order, and a turn without steps', () => {
    const s = sessionWith([
      ['model/selection', { provider: 'demo', model: 'scripted' }],
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
      [
        'assistant/message',
        { content: [{ type: 'reasoning', text: 'hm' }, call('c1'), call('c2', 'bash'), call('c3')] },
      ],
      ['snapshot/taken', { tree: 't1', changed: [] }],
      ['tool/result', result('c2', 'bash')],
      ['tool/result', { ...result('c3'), isError: true }],
      ['tool/result', result('c1')],
      ['step/end', { finishReason: 'tool-calls' }],
      ['step/start', {}],
      ['assistant/message', text('done')],
      ['step/end', { finishReason: 'stop' }],
      ['turn/end', { reason: 'completed' }],
      ['session/title', { title: 't' }],
      ['turn/start', {}],
      ['user/message', text('again')],
      ['turn/end', { reason: 'aborted' }],
    ])
    expect(s.events).toHaveLength(18)
    expect(s.grammar.phase).toBe('idle')
  })

  it('a tool/result must answer a pending call of the current step', () => {
    const s = sessionWith(phases[5]!.prefix)
    expect(codeOf(() => s.append('tool/result', result('unknown')))).toBe('grammar-violation')
    s.append('tool/result', result('c1'))
    // Answering the same call twice is refused too.
    expect(codeOf(() => s.append('tool/result', result('c1')))).toBe('grammar-violation')
    s.append('step/end', { finishReason: 'tool-calls' })
    // A call of an earlier step cannot be answered in the next one.
    s.append('step/start', {})
    s.append('assistant/message', { content: [call('c2')] })
    expect(codeOf(() => s.append('tool/result', result('c1')))).toBe('grammar-violation')
  })

  it('step/end needs every call of the step answered', () => {
    const s = sessionWith([
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
      ['assistant/message', { content: [call('c1'), call('c2')] }],
      ['tool/result', result('c2')],
    ])
    let caught: unknown
    try {
      s.append('step/end', { finishReason: 'tool-calls' })
    } catch (error) {
      caught = error
    }
    expect(TangentError.hasCode(caught, 'grammar-violation')).toBe(true)
    expect((caught as Error).message).toContain('c1')
    expect(codeOf(() => s.append('turn/end', { reason: 'completed' }))).toBe('grammar-violation')
    s.append('tool/result', result('c1'))
    s.append('step/end', { finishReason: 'tool-calls' })
  })

  it('refuses duplicate tool call ids within one assistant message', () => {
    const s = sessionWith(phases[4]!.prefix)
    expect(codeOf(() => s.append('assistant/message', { content: [call('c1'), call('c1')] }))).toBe(
      'grammar-violation',
    )
    expect(s.grammar.phase).toBe('step-opened')
    expect(s.events).toHaveLength(3)
  })
})

describe('GrammarState', () => {
  it('grammarStateOf replays a log to its final state', () => {
    const s = sessionWith(phases[5]!.prefix)
    const state = grammarStateOf(s.events)
    expect(state.snapshot()).toEqual(s.grammar)
    expect(state.snapshot()).toEqual({
      phase: 'step-answered',
      openTurnSeq: 0,
      pendingCalls: [{ toolCallId: 'c1', toolName: 'read' }],
    })
  })

  it('grammarStateOf throws grammar-violation on an invalid log', () => {
    expect(
      codeOf(() =>
        grammarStateOf([
          { seq: 0, type: 'turn/start', data: {} },
          { seq: 1, type: 'turn/start', data: {} },
        ]),
      ),
    ).toBe('grammar-violation')
  })

  it('accept leaves the state unchanged when it throws', () => {
    const state = new GrammarState()
    state.accept(0, 'turn/start', {})
    state.accept(1, 'user/message', text('q'))
    state.accept(2, 'step/start', {})
    state.accept(3, 'assistant/message', { content: [call('a'), call('b')] })
    const before = state.snapshot()
    expect(codeOf(() => state.accept(4, 'tool/result', result('zzz')))).toBe('grammar-violation')
    expect(codeOf(() => state.accept(4, 'step/end', {}))).toBe('grammar-violation')
    expect(codeOf(() => state.accept(4, 'session/title', { title: 'x' }))).toBe('grammar-violation')
    expect(state.snapshot()).toEqual(before)
  })

  it('reports malformed data that skipped schema checks (seeds) as invalid-event, not a TypeError', () => {
    const state = new GrammarState()
    state.accept(0, 'turn/start', {})
    state.accept(1, 'user/message', text('q'))
    state.accept(2, 'step/start', {})
    expect(codeOf(() => state.accept(3, 'assistant/message', null))).toBe('invalid-event')
    expect(codeOf(() => state.accept(3, 'assistant/message', { content: 'x' }))).toBe('invalid-event')
    expect(codeOf(() => state.accept(3, 'assistant/message', { content: [null] }))).toBe('invalid-event')
    expect(state.phase).toBe('step-opened')
    state.accept(3, 'assistant/message', { content: [call('c1')] })
    expect(codeOf(() => state.accept(4, 'tool/result', null))).toBe('invalid-event')
    expect(codeOf(() => state.accept(4, 'tool/result', { callId: 7 }))).toBe('invalid-event')
    expect(state.pendingCalls).toHaveLength(1)
  })
})

describe('closingEventsForOpenTurn', () => {
  it('is empty between turns', () => {
    expect(closingEventsForOpenTurn(sessionWith([]).grammar, 'interrupted', 'crash')).toEqual([])
    expect(closingEventsForOpenTurn(sessionWith(phases[1]!.prefix).grammar, 'aborted', 'x')).toEqual([])
  })

  for (const phase of phases.filter((p) => !p.legal.includes('turn/start'))) {
    for (const reason of ['interrupted', 'aborted', 'error'] as const) {
      it(`closes a turn left ${phase.name} (${reason}) so the grammar accepts it and ends idle`, () => {
        const s = sessionWith(phase.prefix)
        const pending = s.grammar.pendingCalls
        const closing = closingEventsForOpenTurn(s.grammar, reason, 'The host stopped.')
        for (const event of closing) s.append(event.type, event.data)
        expect(s.grammar.phase).toBe('idle')
        expect(s.events.at(-1)).toMatchObject({
          type: 'turn/end',
          data: { reason, error: 'The host stopped.' },
        })
        const results = closing.filter((e) => e.type === 'tool/result').map((e) => e.data)
        expect(results).toEqual(
          pending.map((c) => ({
            callId: c.toolCallId,
            toolName: c.toolName,
            output: 'The host stopped.',
            isError: true,
          })),
        )
      })
    }
  }

  it('answers every pending call in call order', () => {
    const s = sessionWith([
      ['turn/start', {}],
      ['user/message', text('q')],
      ['step/start', {}],
      ['assistant/message', { content: [call('a'), call('b', 'bash'), call('c')] }],
      ['tool/result', result('b', 'bash')],
    ])
    const closing = closingEventsForOpenTurn(s.grammar, 'interrupted', 'gone')
    expect(closing.map((e) => e.type)).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end'])
    expect(closing.map((e) => (e.data as { callId?: string }).callId)).toEqual([
      'a',
      'c',
      undefined,
      undefined,
    ])
  })
})
