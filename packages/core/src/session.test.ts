import { describe, expect, it } from 'vitest'
import { TangentError } from './errors.js'
import type { SessionEvent } from './events.js'
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

function clockStore() {
  let t = 1_000
  return new SessionStore({ now: () => t++ })
}

describe('Session.append', () => {
  it('returns the frozen event with a dense seq, the store clock time, the type and the data', () => {
    const store = clockStore()
    const s = store.create('s1', { meta: { cwd: '/w', createdAt: 5 } })
    const a = s.append('model/selection', { provider: 'demo', model: 'scripted' })
    const b = s.append('turn/start', {})
    const c = s.append('user/message', { content: [{ type: 'text', text: 'hi' }] })
    expect([a.seq, b.seq, c.seq]).toEqual([0, 1, 2])
    expect(a).toEqual({
      seq: 0,
      time: 1000,
      type: 'model/selection',
      data: { provider: 'demo', model: 'scripted' },
    })
    expect(b.time).toBe(1001)
    expect(s.events).toEqual([a, b, c])
    expect(s.events[2]).toBe(c)
    expect(Object.isFrozen(a)).toBe(true)
    expect(s.lastSeq).toBe(2)
    expect(s.eventAt(1)).toBe(b)
    expect(s.eventAt(3)).toBeUndefined()
  })

  it('keeps events[i].seq === i over many appends', () => {
    const s = new SessionStore().create()
    for (let i = 0; i < 300; i++) s.append('plugin/tick', { i })
    s.events.forEach((event, i) => {
      expect(event.seq).toBe(i)
    })
  })

  it('uses an explicit time when given', () => {
    const s = clockStore().create()
    expect(s.append('plugin/x', {}, 42).time).toBe(42)
  })

  it('deeply freezes the data, so nobody can change a logged event', () => {
    const s = new SessionStore().create()
    s.append('turn/start', {})
    const content = [{ type: 'text' as const, text: 'hello' }]
    const event = s.append('user/message', { content })
    const data = event.data as { content: { text: string }[] }
    expect(Object.isFrozen(data)).toBe(true)
    expect(Object.isFrozen(data.content)).toBe(true)
    expect(Object.isFrozen(data.content[0])).toBe(true)
    expect(() => {
      data.content[0]!.text = 'changed'
    }).toThrow(TypeError)
    expect(() => {
      ;(data.content as unknown[]).push({ type: 'text', text: 'more' })
    }).toThrow(TypeError)
    expect(data.content[0]!.text).toBe('hello')
  })

  it('deeply freezes data whose outer object was already frozen by the caller', () => {
    const s = new SessionStore().create()
    const inner = { nested: { value: 1 } }
    const event = s.append('plugin/state', Object.freeze({ inner }))
    expect(Object.isFrozen(inner)).toBe(true)
    expect(Object.isFrozen(inner.nested)).toBe(true)
    expect(() => {
      inner.nested.value = 2
    }).toThrow(TypeError)
    expect((event.data as { inner: { nested: { value: number } } }).inner.nested.value).toBe(1)
  })

  it('freezes cyclic plugin data without looping', () => {
    const s = new SessionStore().create()
    const cyclic: { self?: unknown; list: unknown[] } = { list: [] }
    cyclic.self = cyclic
    cyclic.list.push(cyclic)
    const event = s.append('plugin/cycle', cyclic)
    expect(Object.isFrozen(event.data)).toBe(true)
    expect(Object.isFrozen(cyclic.list)).toBe(true)
  })

  it('stores null for missing plugin data and keeps any data for plugin types', () => {
    const s = new SessionStore().create()
    expect(s.append('plugin/empty', undefined).data).toBeNull()
    expect(s.append('plugin/number', 7).data).toBe(7)
    expect(s.append('plugin-name/event-name', ['a']).data).toEqual(['a'])
  })

  it.each([
    [''],
    ['noslash'],
    ['Turn/start'],
    ['a/b/c'],
    ['/start'],
    ['turn/'],
    ['plugin/with space'],
    ['-x/y'],
  ])('rejects the event type %j with invalid-event', (type) => {
    const s = new SessionStore().create()
    expect(codeOf(() => s.append(type, {}))).toBe('invalid-event')
    expect(s.events).toHaveLength(0)
  })

  it.each([
    ['model/selection', { provider: 'openai' }],
    ['model/selection', { provider: '', model: 'x' }],
    ['model/selection', { provider: 'a', model: 'b', reasoningEffort: 3 }],
    ['session/title', {}],
    ['session/title', { title: 5 }],
    ['turn/start', undefined],
    ['turn/start', 'start'],
    ['snapshot/taken', { tree: '', changed: [] }],
    ['snapshot/taken', { tree: 'abc' }],
    ['snapshot/taken', { tree: 'abc', changed: [1] }],
  ])('rejects invalid data for %s between turns with invalid-event: %j', (type, data) => {
    const s = new SessionStore().create()
    expect(codeOf(() => s.append(type, data))).toBe('invalid-event')
    expect(s.events).toHaveLength(0)
    expect(s.grammar.phase).toBe('idle')
  })

  it.each([
    ['user/message', { content: 'hi' }, 1],
    ['user/message', { content: [{ type: 'image', image: 'x' }] }, 1],
    ['user/message', { content: [{ type: 'file', mediaType: 'text/plain' }] }, 1],
    ['user/message', {}, 1],
    ['step/start', null, 2],
    [
      'assistant/message',
      { content: [{ type: 'tool-call', toolCallId: '', toolName: 'read', input: {} }] },
      3,
    ],
    ['assistant/message', { content: [{ type: 'tool-call', toolCallId: 'c', input: {} }] }, 3],
    ['assistant/message', { content: [{ type: 'text' }] }, 3],
    ['assistant/message', {}, 3],
    ['tool/result', { callId: 'c1', toolName: 'read', output: 'x' }, 4],
    ['tool/result', { callId: 'c1', toolName: 'read', output: 'x', isError: 'no' }, 4],
    ['tool/result', { toolName: 'read', output: 'x', isError: false }, 4],
    ['step/end', {}, 5],
    ['step/end', { finishReason: 'stop', usage: { inputTokens: 'many' } }, 5],
    ['turn/end', { reason: 'done' }, 6],
    ['turn/end', {}, 6],
    ['turn/end', { reason: 'error', error: 42 }, 6],
  ])('rejects invalid data for %s with invalid-event: %j', (type, data, at) => {
    const s = new SessionStore().create()
    // A valid run up to the point where `type` would be legal.
    const legal: [string, unknown][] = [
      ['turn/start', {}],
      ['user/message', { content: [{ type: 'text', text: 'q' }] }],
      ['step/start', {}],
      [
        'assistant/message',
        { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }] },
      ],
      ['tool/result', { callId: 'c1', toolName: 'read', output: 'ok', isError: false }],
      ['step/end', { finishReason: 'tool-calls' }],
    ]
    for (const [t, d] of legal.slice(0, at)) s.append(t, d)
    const before = s.grammar
    expect(codeOf(() => s.append(type, data))).toBe('invalid-event')
    expect(s.events).toHaveLength(at)
    expect(s.grammar).toEqual(before)
  })

  it('accepts optional fields and extra usage fields', () => {
    const s = new SessionStore().create()
    s.append('model/selection', { provider: 'openai', model: 'gpt-4.1', reasoningEffort: 'high' })
    s.append('snapshot/taken', { tree: 'abc', changed: ['a.txt'], skipped: ['big.bin'] })
    s.append('turn/start', {})
    s.append('user/message', {
      content: [
        { type: 'text', text: 'look' },
        { type: 'file', mediaType: 'image/png', data: 'iVBOR' },
      ],
    })
    s.append('step/start', {})
    s.append('assistant/message', { content: [] })
    s.append('step/end', {
      finishReason: 'stop',
      usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 1 },
    })
    s.append('turn/end', { reason: 'error', error: 'boom' })
    expect(s.events).toHaveLength(8)
    expect(s.isTurnOpen).toBe(false)
  })

  it('refuses appends to an object the store no longer holds (session-stale), leaving the log unchanged', () => {
    const store = new SessionStore()
    const old = store.create('s')
    old.append('plugin/a', {})
    store.dispose('s')
    expect(codeOf(() => old.append('plugin/b', {}))).toBe('session-stale')
    expect(old.events).toHaveLength(1)
    const fresh = store.create('s')
    expect(codeOf(() => old.append('plugin/b', {}))).toBe('session-stale')
    expect(fresh.append('plugin/b', {}).seq).toBe(0)
    expect(old.events).toHaveLength(1)
  })

  it('tells the store about every append, in order; unsubscribe stops it', () => {
    const store = new SessionStore()
    const seen: [string, number, string][] = []
    const off = store.on('appended', (session, event) => seen.push([session.id, event.seq, event.type]))
    const a = store.create('a')
    const b = store.create('b')
    a.append('plugin/x', {})
    b.append('plugin/y', {})
    a.append('plugin/z', {})
    off()
    a.append('plugin/after', {})
    expect(seen).toEqual([
      ['a', 0, 'plugin/x'],
      ['b', 0, 'plugin/y'],
      ['a', 1, 'plugin/z'],
    ])
  })

  it('passes the very event object it returns to the appended listeners', () => {
    const store = new SessionStore()
    let heard: SessionEvent | undefined
    store.on('appended', (_session, event) => {
      heard = event
    })
    const event = store.create().append('plugin/x', { a: 1 })
    expect(heard).toBe(event)
  })
})

describe('Session accessors', () => {
  it('grammar and isTurnOpen follow the log', () => {
    const s = new SessionStore().create()
    expect(s.grammar).toEqual({ phase: 'idle', openTurnSeq: null, pendingCalls: [] })
    s.append('session/title', { title: 'x' })
    s.append('turn/start', {})
    expect(s.isTurnOpen).toBe(true)
    expect(s.grammar).toEqual({ phase: 'turn-opened', openTurnSeq: 1, pendingCalls: [] })
    s.append('user/message', { content: [] })
    expect(s.grammar.phase).toBe('in-turn')
    s.append('step/start', {})
    expect(s.grammar.phase).toBe('step-opened')
    s.append('assistant/message', {
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: {} },
      ],
    })
    expect(s.grammar).toEqual({
      phase: 'step-answered',
      openTurnSeq: 1,
      pendingCalls: [
        { toolCallId: 'c1', toolName: 'read' },
        { toolCallId: 'c2', toolName: 'bash' },
      ],
    })
    s.append('tool/result', { callId: 'c1', toolName: 'read', output: '', isError: false })
    expect(s.grammar.pendingCalls).toEqual([{ toolCallId: 'c2', toolName: 'bash' }])
    s.append('tool/result', { callId: 'c2', toolName: 'bash', output: '', isError: false })
    s.append('step/end', { finishReason: 'tool-calls' })
    expect(s.grammar.phase).toBe('in-turn')
    s.append('turn/end', { reason: 'completed' })
    expect(s.isTurnOpen).toBe(false)
    expect(s.grammar).toEqual({ phase: 'idle', openTurnSeq: null, pendingCalls: [] })
  })

  it('the grammar snapshot is a copy: changing it does not change the session', () => {
    const s = new SessionStore().create()
    s.append('turn/start', {})
    s.append('user/message', { content: [] })
    s.append('step/start', {})
    s.append('assistant/message', {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'r', input: 1 }],
    })
    const snapshot = s.grammar
    ;(snapshot.pendingCalls as unknown[]).length = 0
    expect(s.grammar.pendingCalls).toHaveLength(1)
    expect(codeOf(() => s.append('step/end', { finishReason: 'stop' }))).toBe('grammar-violation')
  })

  it('title is the latest session/title, else the header title', () => {
    const store = new SessionStore()
    const s = store.create(undefined, { meta: { title: 'From header' } })
    expect(s.title).toBe('From header')
    s.append('session/title', { title: 'First' })
    s.append('session/title', { title: 'Second' })
    expect(s.title).toBe('Second')
    expect(store.create().title).toBeUndefined()
  })

  it('ownEvents and isOwnSeq separate inherited events from own ones', () => {
    const store = new SessionStore()
    const parent = store.create('p')
    parent.append('plugin/a', {})
    parent.append('plugin/b', {})
    expect(parent.ownEvents()).toEqual(parent.events)
    expect(parent.isOwnSeq(0)).toBe(true)
    const child = store.fork(parent, 1, 'c')
    const own = child.append('plugin/c', {})
    expect(child.inheritedEventCount).toBe(2)
    expect(child.ownEvents()).toEqual([own])
    expect([0, 1, 2, 3, -1, 1.5].map((seq) => child.isOwnSeq(seq))).toEqual([
      false,
      false,
      true,
      false,
      false,
      false,
    ])
  })
})
