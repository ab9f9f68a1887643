import { describe, expect, it } from 'vitest'
import { TangentError } from './errors.js'
import { asSeq, type SessionEvent } from './events.js'
import type { Session } from './session.js'
import { openTurnAt, type SessionCreatedVia, SessionStore } from './store.js'

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
  let t = 10_000
  return new SessionStore({ now: () => t++ })
}

function openTurn(s: Session, q: string) {
  s.append('turn/start', {})
  s.append('user/message', { content: [{ type: 'text', text: q }] })
}

/** A completed turn with one tool step and a final text step: 10 events. */
function turn(s: Session, q: string, callId = `call-${s.events.length}`) {
  openTurn(s, q)
  s.append('step/start', {})
  s.append('assistant/message', {
    content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read', input: {} }],
  })
  s.append('tool/result', { callId, toolName: 'read', output: `read for ${q}`, isError: false })
  s.append('step/end', { finishReason: 'tool-calls' })
  s.append('step/start', {})
  s.append('assistant/message', { content: [{ type: 'text', text: `answer to ${q}` }] })
  s.append('step/end', { finishReason: 'stop' })
  s.append('turn/end', { reason: 'completed' })
}

const ev = (seq: number, type: string, data: unknown = {}): SessionEvent => ({
  seq: asSeq(seq),
  time: 1,
  type,
  data,
})

describe('SessionStore.create', () => {
  it('creates an empty session with a generated id and the header fields', () => {
    const store = clockStore()
    const s = store.create(undefined, { meta: { cwd: '/abs/dir' } })
    expect(s.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
    expect(s.header).toEqual({
      id: s.id,
      cwd: '/abs/dir',
      createdAt: 10_000,
      isSeeded: false,
      origin: 'user',
      inheritedEventCount: 0,
    })
    expect(s.header.parentSession).toBeUndefined()
    expect(s.header.forkedAt).toBeUndefined()
    expect(s.events).toEqual([])
    expect(s.inheritedEventCount).toBe(0)
    expect(store.get(s.id)).toBe(s)
    expect(store.has(s.id)).toBe(true)
    expect(Object.isFrozen(s.header)).toBe(true)
  })

  it('keeps meta in the header: title, createdAt, origin and extra fields', () => {
    const s = new SessionStore().create('with-meta', {
      meta: {
        cwd: '/w',
        title: 'T',
        createdAt: 7,
        origin: 'subagent',
        workspaceId: 'ws1',
        files: { mode: 'shared' },
      },
    })
    expect(s.header).toMatchObject({
      id: 'with-meta',
      cwd: '/w',
      title: 'T',
      createdAt: 7,
      origin: 'subagent',
      workspaceId: 'ws1',
      files: { mode: 'shared' },
    })
    expect(s.title).toBe('T')
  })

  it('generates time-sortable ids: sorted order is creation order', () => {
    const store = new SessionStore()
    const ids = Array.from({ length: 500 }, () => store.create().id)
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(500)
    expect([...store.sessions()].map((s) => s.id)).toEqual(ids)
  })

  it('uses a custom id generator, and newId does not create anything', () => {
    let n = 0
    const store = new SessionStore({ generateId: () => `id-${++n}` })
    expect(store.newId()).toBe('id-1')
    expect(store.create().id).toBe('id-2')
    expect(store.has('id-1')).toBe(false)
  })

  it.each(['../x', '', 'a/b', '\0', 'a\0', 'x'.repeat(129), '_leading', '.', 'a b'])(
    'refuses the id %j with invalid-session-id',
    (id) => {
      const store = new SessionStore()
      expect(codeOf(() => store.create(id))).toBe('invalid-session-id')
      expect([...store.sessions()]).toHaveLength(0)
    },
  )

  it('refuses an invalid generated id too', () => {
    expect(codeOf(() => new SessionStore({ generateId: () => '../evil' }).create())).toBe(
      'invalid-session-id',
    )
  })

  it('refuses a duplicate id with session-exists and keeps the first session', () => {
    const store = new SessionStore()
    const first = store.create('dup')
    expect(codeOf(() => store.create('dup'))).toBe('session-exists')
    expect(store.get('dup')).toBe(first)
  })

  it('seeds a session with a valid log (even with an open turn) and freezes the seed', () => {
    const seed = [
      ev(0, 'model/selection', { provider: 'demo', model: 'scripted' }),
      ev(1, 'turn/start'),
      ev(2, 'user/message', { content: [{ type: 'text', text: 'q' }] }),
      ev(3, 'step/start'),
      ev(4, 'assistant/message', {
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }],
      }),
    ]
    const store = new SessionStore()
    const s = store.create('seeded', { seed })
    expect(s.events).toEqual(seed)
    expect(s.events[4]).toBe(seed[4])
    expect(Object.isFrozen(seed[4]!.data)).toBe(true)
    expect(s.header.isSeeded).toBe(true)
    expect(s.header.origin).toBe('user')
    expect(s.inheritedEventCount).toBe(5)
    expect(s.grammar).toEqual({
      phase: 'step-answered',
      openTurnSeq: 1,
      pendingCalls: [{ toolCallId: 'c1', toolName: 'read' }],
    })
    expect(s.append('tool/result', { callId: 'c1', toolName: 'read', output: 'x', isError: false }).seq).toBe(
      5,
    )
  })

  it('takes lineage and the loaded flag from storage', () => {
    const store = new SessionStore()
    const vias: SessionCreatedVia[] = []
    store.on('created', (_s, via) => vias.push(via))
    const s = store.create('child', {
      seed: [ev(0, 'plugin/x'), ev(1, 'plugin/y')],
      lineage: { parentSession: 'parent', forkedAt: 0, inheritedEventCount: 1 },
      loaded: true,
    })
    expect(s.header).toMatchObject({
      parentSession: 'parent',
      forkedAt: 0,
      inheritedEventCount: 1,
      isSeeded: true,
      origin: 'fork',
    })
    expect(s.ownEvents().map((e) => e.type)).toEqual(['plugin/y'])
    expect(vias).toEqual(['load'])
  })

  it('a loaded log of an unseeded session is not seeded: lineage says nothing was inherited', () => {
    const store = new SessionStore()
    const s = store.create('plain', {
      seed: [ev(0, 'plugin/x'), ev(1, 'plugin/y')],
      lineage: { inheritedEventCount: 0 },
      loaded: true,
    })
    expect(s.header).toMatchObject({ isSeeded: false, origin: 'user', inheritedEventCount: 0 })
    expect(s.ownEvents()).toHaveLength(2)
    expect(s.isOwnSeq(0)).toBe(true)
  })

  it.each([
    [[ev(1, 'plugin/x')]],
    [[ev(0, 'plugin/x'), ev(2, 'plugin/y')]],
    [[ev(0, 'plugin/x'), ev(0, 'plugin/y')]],
  ])('refuses a seed whose seqs are not dense from 0 (invalid-event): %j', (seed) => {
    const store = new SessionStore()
    expect(codeOf(() => store.create('s', { seed }))).toBe('invalid-event')
    expect(store.has('s')).toBe(false)
  })

  it.each([
    [[ev(0, 'user/message', { content: [] })]],
    [[ev(0, 'turn/start'), ev(1, 'turn/start')]],
    [[ev(0, 'turn/start'), ev(1, 'user/message', { content: [] }), ev(2, 'session/title', { title: 'x' })]],
    [[ev(0, 'turn/end', { reason: 'completed' })]],
  ])('refuses a seed that breaks the grammar (grammar-violation): %j', (seed) => {
    const store = new SessionStore()
    expect(codeOf(() => store.create('s', { seed }))).toBe('grammar-violation')
    expect(store.has('s')).toBe(false)
  })

  it('refuses a seed with malformed core data with invalid-event, not a TypeError', () => {
    const store = new SessionStore()
    const seed = [
      ev(0, 'turn/start'),
      ev(1, 'user/message', { content: [] }),
      ev(2, 'step/start'),
      ev(3, 'assistant/message', null),
    ]
    expect(codeOf(() => store.create('s', { seed }))).toBe('invalid-event')
  })

  it("announces 'created' with via 'create'; dispose forgets the object and announces 'disposed'", () => {
    const store = new SessionStore()
    const created: [string, SessionCreatedVia][] = []
    const disposed: string[] = []
    store.on('created', (s, via) => created.push([s.id, via]))
    const off = store.on('disposed', (id) => disposed.push(id))
    store.create('a')
    store.create('b', { seed: [ev(0, 'plugin/x')] })
    expect(created).toEqual([
      ['a', 'create'],
      ['b', 'create'],
    ])
    expect(store.dispose('a')).toBe(true)
    expect(store.dispose('a')).toBe(false)
    expect(store.get('a')).toBeUndefined()
    expect(disposed).toEqual(['a'])
    off()
    store.dispose('b')
    expect(disposed).toEqual(['a'])
  })
})

describe("SessionStore 'appending'", () => {
  it('a listener that throws refuses the event: the session, its grammar and appended listeners see nothing', () => {
    const store = new SessionStore()
    const session = store.create('s')
    const appended: number[] = []
    store.on('appended', (_, event) => appended.push(event.seq))
    store.on('appending', (_, event) => {
      if (event.type === 'turn/start' && appended.length === 0)
        throw new TangentError('invalid-event', 'too large', { type: event.type })
    })
    expect(codeOf(() => session.append('turn/start', {}))).toBe('invalid-event')
    expect(session.events).toHaveLength(0)
    expect(session.isTurnOpen).toBe(false)
    expect(appended).toEqual([])
    session.append('note/text', { text: 'fine' })
    session.append('turn/start', {})
    expect(appended).toEqual([0, 1])
  })
})

describe('SessionStore.fork', () => {
  function parentWithTwoTurns() {
    const store = clockStore()
    const parent = store.create('parent', { meta: { cwd: '/proj', title: 'Parent', workspaceId: 'w' } })
    parent.append('model/selection', { provider: 'demo', model: 'scripted' }) // 0
    turn(parent, 'one') // 1..10, turn/end at 10
    parent.append('session/title', { title: 'Named' }) // 11
    parent.append('snapshot/taken', { tree: 'tree1', changed: ['a'] }) // 12
    turn(parent, 'two') // 13..22, turn/end at 22
    return { store, parent }
  }

  it('copies through the boundary inclusively and sets the lineage header', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent, 10, 'child')
    expect(child.events).toHaveLength(11)
    expect(child.header).toEqual({
      id: 'child',
      cwd: '/proj',
      createdAt: expect.any(Number),
      parentSession: 'parent',
      forkedAt: 10,
      isSeeded: true,
      origin: 'fork',
      inheritedEventCount: 11,
    })
    expect(child.inheritedEventCount).toBe(11)
    expect(child.isTurnOpen).toBe(false)
    expect(store.get('child')).toBe(child)
  })

  it('shares the parent event objects (no copy) and continues the seqs', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent, 12, 'child')
    for (let i = 0; i < 13; i++) expect(child.events[i]).toBe(parent.events[i])
    expect(child.events.map((e) => e.seq)).toEqual([...Array(13).keys()])
    const own = child.append('turn/start', {})
    expect(own.seq).toBe(13)
  })

  it('defaults the boundary to the last event', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent)
    expect(child.header.forkedAt).toBe(22)
    expect(child.events).toEqual(parent.events)
    expect(child.inheritedEventCount).toBe(23)
  })

  it('forks an empty source into an empty child', () => {
    const store = new SessionStore()
    const empty = store.create('empty', { meta: { cwd: '/e' } })
    const child = store.fork(empty)
    expect(child.events).toEqual([])
    expect(child.header).toMatchObject({
      parentSession: 'empty',
      forkedAt: -1,
      inheritedEventCount: 0,
      isSeeded: true,
      cwd: '/e',
    })
    expect(store.fork('empty', -1).inheritedEventCount).toBe(0)
    expect(codeOf(() => store.fork(empty, 0))).toBe('invalid-boundary')
  })

  it('forks an empty prefix with boundary -1', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent, -1, 'blank')
    expect(child.events).toEqual([])
    expect(child.header).toMatchObject({
      forkedAt: -1,
      inheritedEventCount: 0,
      isSeeded: true,
      parentSession: 'parent',
    })
    expect(child.append('turn/start', {}).seq).toBe(0)
  })

  it.each([[-2], [23], [100], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], ['3'], [null]])(
    'refuses the boundary %j with invalid-boundary',
    (boundary) => {
      const { store, parent } = parentWithTwoTurns()
      const before = [...store.sessions()].length
      expect(codeOf(() => store.fork(parent, boundary as number, 'child'))).toBe('invalid-boundary')
      expect([...store.sessions()]).toHaveLength(before)
    },
  )

  it('refuses every boundary inside a turn with open-turn', () => {
    const { store, parent } = parentWithTwoTurns()
    // 1 turn/start, 2 user/message, 3 step/start (mid-step), 4 assistant/message, 5 tool/result, 6 step/end, ... 9 step/end
    for (const boundary of [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 21]) {
      let caught: unknown
      try {
        store.fork(parent, boundary, `c${boundary}`)
      } catch (error) {
        caught = error
      }
      expect(TangentError.hasCode(caught, 'open-turn'), `boundary ${boundary}`).toBe(true)
      expect((caught as TangentError).data).toMatchObject({ sessionId: 'parent', boundary })
      expect(store.has(`c${boundary}`)).toBe(false)
    }
  })

  it('accepts a boundary at a turn/end, at a later standalone or log-only event, and before the first turn', () => {
    const { store, parent } = parentWithTwoTurns()
    for (const boundary of [0, 10, 11, 12, 22]) {
      const child = store.fork(parent, boundary, `c${boundary}`)
      expect(child.events).toHaveLength(boundary + 1)
      expect(child.isTurnOpen).toBe(false)
    }
  })

  it('refuses a boundary at a log-only event inside a turn', () => {
    const store = new SessionStore()
    const s = store.create('s')
    openTurn(s, 'q')
    s.append('snapshot/taken', { tree: 't', changed: [] })
    s.append('plugin/progress', { pct: 50 })
    expect(codeOf(() => store.fork(s, 2))).toBe('open-turn')
    expect(codeOf(() => store.fork(s, 3))).toBe('open-turn')
  })

  it('never trims silently: the default boundary during an open turn is open-turn', () => {
    const { store, parent } = parentWithTwoTurns()
    openTurn(parent, 'three')
    const before = [...store.sessions()].length
    expect(codeOf(() => store.fork(parent))).toBe('open-turn')
    expect([...store.sessions()]).toHaveLength(before)
  })

  it('forks a source with a running turn at an earlier completed boundary; the running turn continues', () => {
    const { store, parent } = parentWithTwoTurns()
    openTurn(parent, 'three') // 23, 24
    parent.append('step/start', {}) // 25
    const child = store.fork(parent, 22, 'child')
    expect(child.events).toHaveLength(23)
    expect(child.isTurnOpen).toBe(false)
    parent.append('assistant/message', { content: [{ type: 'text', text: 'still going' }] })
    parent.append('step/end', { finishReason: 'stop' })
    parent.append('turn/end', { reason: 'completed' })
    expect(parent.events).toHaveLength(29)
    expect(child.events).toHaveLength(23)
    openTurn(child, 'child question')
    expect(child.events[23]!.seq).toBe(23)
    expect(child.events[23]).not.toBe(parent.events[23])
  })

  it('keeps parent and child independent after the fork', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent, 10, 'child')
    child.append('session/title', { title: 'Child' })
    expect(parent.events).toHaveLength(23)
    expect(parent.title).toBe('Named')
    parent.append('session/title', { title: 'Parent again' })
    expect(child.events).toHaveLength(12)
    expect(child.title).toBe('Child')
    expect(child.events[11]!.data).toEqual({ title: 'Child' })
    expect(parent.events[23]!.data).toEqual({ title: 'Parent again' })
  })

  it('forks a fork: seqs continue and lineage points at the direct parent', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent, 10, 'child')
    turn(child, 'child turn') // 11..20
    const grandchild = store.fork(child, 20, 'grandchild')
    expect(grandchild.header).toMatchObject({
      parentSession: 'child',
      forkedAt: 20,
      inheritedEventCount: 21,
      cwd: '/proj',
    })
    for (let i = 0; i < 11; i++) expect(grandchild.events[i]).toBe(parent.events[i])
    for (let i = 11; i < 21; i++) expect(grandchild.events[i]).toBe(child.events[i])
    expect(grandchild.append('plugin/x', {}).seq).toBe(21)
  })

  it('accepts the source as an id or as the live object', () => {
    const { store, parent } = parentWithTwoTurns()
    expect(store.fork('parent', 10, 'by-id').header.parentSession).toBe('parent')
    expect(store.fork(parent, 10, 'by-object').header.parentSession).toBe('parent')
  })

  it('passes meta through to the child header; cwd defaults to the source and may be overridden', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent, 10, 'child', {
      meta: {
        title: 'Branch B',
        workspaceId: 'w',
        files: { mode: 'worktree', path: '/wt' },
        baseTree: 'abc',
      },
    })
    expect(child.header).toMatchObject({
      cwd: '/proj',
      title: 'Branch B',
      workspaceId: 'w',
      files: { mode: 'worktree', path: '/wt' },
      baseTree: 'abc',
      origin: 'fork',
    })
    const moved = store.fork(parent, 10, 'moved', { meta: { cwd: '/wt', origin: 'subagent' } })
    expect(moved.header.cwd).toBe('/wt')
    expect(moved.header.origin).toBe('subagent')
  })

  it('does not let meta override the lineage fields', () => {
    const { store, parent } = parentWithTwoTurns()
    const child = store.fork(parent, 10, 'child', {
      meta: { parentSession: 'x', forkedAt: 3, inheritedEventCount: 99, isSeeded: false, id: 'other' },
    })
    expect(child.header).toMatchObject({
      id: 'child',
      parentSession: 'parent',
      forkedAt: 10,
      inheritedEventCount: 11,
      isSeeded: true,
    })
  })

  it('generates a time-sortable child id when none is given', () => {
    const { store, parent } = parentWithTwoTurns()
    const a = store.fork(parent, 10)
    const b = store.fork(parent, 10)
    expect(a.id).toMatch(/^[0-9A-Z]{26}$/)
    expect(a.id < b.id).toBe(true)
  })

  it('session-not-found for an unknown id and for a Session object of another store', () => {
    const { store } = parentWithTwoTurns()
    expect(codeOf(() => store.fork('nope'))).toBe('session-not-found')
    const other = new SessionStore().create('foreign')
    expect(codeOf(() => store.fork(other))).toBe('session-not-found')
    expect(store.has('foreign')).toBe(false)
  })

  it('session-not-found for an object of another store even when this store holds its id', () => {
    const { store } = parentWithTwoTurns()
    const lookalike = new SessionStore().create('parent')
    expect(codeOf(() => store.fork(lookalike))).toBe('session-not-found')
  })

  it('session-stale for a disposed object (as for appends to it)', () => {
    const { store, parent } = parentWithTwoTurns()
    store.dispose('parent')
    expect(codeOf(() => store.fork(parent, 10, 'child'))).toBe('session-stale')
    expect(codeOf(() => parent.append('plugin/x', {}))).toBe('session-stale')
    expect(codeOf(() => store.fork('parent', 10, 'child'))).toBe('session-not-found')
    expect(store.has('child')).toBe(false)
  })

  it('invalid-session-id for a malformed source id', () => {
    const { store } = parentWithTwoTurns()
    expect(codeOf(() => store.fork('../parent'))).toBe('invalid-session-id')
  })

  it('session-stale for an object whose id was disposed and created again', () => {
    const { store, parent } = parentWithTwoTurns()
    store.dispose('parent')
    const again = store.create('parent', { seed: parent.events })
    expect(codeOf(() => store.fork(parent, 10, 'child'))).toBe('session-stale')
    expect(store.has('child')).toBe(false)
    expect(store.fork(again, 10, 'child').events[10]).toBe(parent.events[10])
  })

  it('session-exists for a duplicate child id (including the source id)', () => {
    const { store, parent } = parentWithTwoTurns()
    store.fork(parent, 10, 'child')
    expect(codeOf(() => store.fork(parent, 10, 'child'))).toBe('session-exists')
    expect(codeOf(() => store.fork(parent, 10, 'parent'))).toBe('session-exists')
  })

  it.each(['../x', '', 'a/b', '\0', '_x', 'y'.repeat(129)])(
    'invalid-session-id for the child id %j',
    (id) => {
      const { store, parent } = parentWithTwoTurns()
      const before = [...store.sessions()].length
      expect(codeOf(() => store.fork(parent, 10, id))).toBe('invalid-session-id')
      expect([...store.sessions()]).toHaveLength(before)
    },
  )

  it("announces 'created' with via 'fork', then the child's own appends, and 'disposed'", () => {
    const { store, parent } = parentWithTwoTurns()
    const log: string[] = []
    store.on('created', (s, via) => log.push(`created ${s.id} ${via} ${s.events.length}`))
    store.on('appended', (s, e) => log.push(`appended ${s.id} ${e.seq} ${e.type}`))
    store.on('disposed', (id) => log.push(`disposed ${id}`))
    const child = store.fork(parent, 10, 'child')
    child.append('session/title', { title: 'x' })
    store.dispose('child')
    expect(log).toEqual(['created child fork 11', 'appended child 11 session/title', 'disposed child'])
  })

  it('the child is live in the store when the created listener runs', () => {
    const { store, parent } = parentWithTwoTurns()
    let live: Session | undefined
    store.on('created', (s) => {
      live = store.get(s.id)
    })
    const child = store.fork(parent, 10, 'child')
    expect(live).toBe(child)
  })
})

describe('openTurnAt', () => {
  it('finds the unmatched turn/start holding a seq, or null outside turns', () => {
    const events = [
      ev(0, 'session/title', { title: 't' }),
      ev(1, 'turn/start'),
      ev(2, 'user/message', { content: [] }),
      ev(3, 'turn/end', { reason: 'completed' }),
      ev(4, 'plugin/x'),
      ev(5, 'turn/start'),
      ev(6, 'user/message', { content: [] }),
    ]
    expect([-1, 0, 1, 2, 3, 4, 5, 6].map((seq) => openTurnAt(events, seq))).toEqual([
      null,
      null,
      1,
      1,
      null,
      null,
      5,
      5,
    ])
  })
})
