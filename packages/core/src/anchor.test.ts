import { describe, expect, it } from 'vitest'
import { resolveForkAnchor } from './anchor.js'
import { TangentError } from './errors.js'
import type { SessionEvent } from './events.js'
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

function openTurn(s: Session, q: string) {
  s.append('turn/start', {})
  s.append('user/message', { content: [{ type: 'text', text: q }] })
}

/**
 *  0 model/selection
 *  1 turn/start  2 user/message  3 step/start  4 assistant (call)  5 tool/result  6 step/end  7 turn/end   (turn A)
 *  8 session/title  9 snapshot/taken  10 plugin/x                                                           (between)
 * 11 turn/start 12 user/message 13 turn/end                                                                 (turn B)
 * 14 turn/start 15 user/message 16 step/start                                                               (turn C, running)
 */
function fixture() {
  const store = new SessionStore()
  const s = store.create('s')
  s.append('model/selection', { provider: 'demo', model: 'scripted' })
  openTurn(s, 'A')
  s.append('step/start', {})
  s.append('assistant/message', {
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }],
  })
  s.append('tool/result', { callId: 'c1', toolName: 'read', output: 'x', isError: false })
  s.append('step/end', { finishReason: 'tool-calls' })
  s.append('turn/end', { reason: 'completed' })
  s.append('session/title', { title: 'T' })
  s.append('snapshot/taken', { tree: 'abc', changed: [] })
  s.append('plugin/x', {})
  openTurn(s, 'B')
  s.append('turn/end', { reason: 'aborted' })
  openTurn(s, 'C')
  s.append('step/start', {})
  expect(s.events).toHaveLength(17)
  return { store, s, events: s.events }
}

describe('resolveForkAnchor', () => {
  it('an anchor inside a completed turn gives its turn/end, extended over the following events up to the next turn/start', () => {
    const { events } = fixture()
    for (let atSeq = 1; atSeq <= 7; atSeq++) expect(resolveForkAnchor(events, { atSeq })).toBe(10)
    for (let atSeq = 11; atSeq <= 13; atSeq++) expect(resolveForkAnchor(events, { atSeq })).toBe(13)
  })

  it('an anchor between turns gives the first turn/end after it (docs/protocol.md: first turn/end at or after atSeq)', () => {
    const { events } = fixture()
    expect(resolveForkAnchor(events, { atSeq: 0 })).toBe(10)
    for (const atSeq of [8, 9, 10]) expect(resolveForkAnchor(events, { atSeq })).toBe(13)
  })

  it('omitted: the last completed turn', () => {
    const { events } = fixture()
    expect(resolveForkAnchor(events)).toBe(13)
    expect(resolveForkAnchor(events, {})).toBe(13)
  })

  it('past the end is invalid-boundary naming the last seq, never an earlier point than asked', () => {
    const { events } = fixture()
    const last = events.length - 1
    for (const before of [false, true]) {
      for (const atSeq of [last + 1, 1000]) {
        let thrown: unknown
        try {
          resolveForkAnchor(events, { atSeq, before })
        } catch (error) {
          thrown = error
        }
        expect(TangentError.isInstance(thrown) && thrown.code).toBe('invalid-boundary')
        expect((thrown as TangentError).data).toMatchObject({ atSeq, lastSeq: last })
        expect((thrown as TangentError).message).toContain(`its last seq is ${last}`)
      }
    }
  })

  it('an anchor in the running turn is fork-unavailable, never an earlier turn', () => {
    const { events } = fixture()
    for (const atSeq of [14, 15, 16]) {
      let caught: unknown
      try {
        resolveForkAnchor(events, { atSeq })
      } catch (error) {
        caught = error
      }
      expect(TangentError.hasCode(caught, 'fork-unavailable')).toBe(true)
      expect((caught as TangentError).data).toEqual({ atSeq })
    }
  })

  it('an anchor between a completed turn and a running one is fork-unavailable too', () => {
    const s = new SessionStore().create()
    openTurn(s, 'A')
    s.append('turn/end', { reason: 'completed' }) // 2
    s.append('model/selection', { provider: 'openai', model: 'gpt-4.1' }) // 3
    openTurn(s, 'B') // 4, 5 running
    expect(codeOf(() => resolveForkAnchor(s.events, { atSeq: 3 }))).toBe('fork-unavailable')
    expect(resolveForkAnchor(s.events, { atSeq: 2 })).toBe(3)
    expect(resolveForkAnchor(s.events)).toBe(3)
  })

  it('an anchor in the idle tail after the last completed turn gives that turn (it holds the anchor)', () => {
    const s = new SessionStore().create()
    openTurn(s, 'A')
    s.append('turn/end', { reason: 'completed' }) // 2
    s.append('session/title', { title: 'x' }) // 3
    s.append('plugin/y', {}) // 4
    expect(resolveForkAnchor(s.events, { atSeq: 3 })).toBe(4)
    expect(resolveForkAnchor(s.events, { atSeq: 4 })).toBe(4)
    expect(resolveForkAnchor(s.events, { atSeq: 0 })).toBe(4)
  })

  it('no completed turn: fork-unavailable for every anchor in the log (past it: invalid-boundary)', () => {
    const empty: SessionEvent[] = []
    expect(codeOf(() => resolveForkAnchor(empty))).toBe('fork-unavailable')
    expect(codeOf(() => resolveForkAnchor(empty, { atSeq: 0 }))).toBe('invalid-boundary')
    const s = new SessionStore().create()
    s.append('model/selection', { provider: 'demo', model: 'scripted' })
    s.append('session/title', { title: 'only standalone' })
    for (const atSeq of [undefined, 0, 1]) {
      expect(codeOf(() => resolveForkAnchor(s.events, { atSeq }))).toBe('fork-unavailable')
    }
    expect(codeOf(() => resolveForkAnchor(s.events, { atSeq: 5 }))).toBe('invalid-boundary')
    openTurn(s, 'running')
    for (const atSeq of [undefined, 0, 1, 2, 3]) {
      expect(codeOf(() => resolveForkAnchor(s.events, { atSeq }))).toBe('fork-unavailable')
    }
    expect(codeOf(() => resolveForkAnchor(s.events, { atSeq: 9 }))).toBe('invalid-boundary')
  })

  it('before: the event before the turn/start of the turn holding atSeq', () => {
    const { events } = fixture()
    for (let atSeq = 1; atSeq <= 7; atSeq++)
      expect(resolveForkAnchor(events, { atSeq, before: true })).toBe(0)
    for (let atSeq = 11; atSeq <= 13; atSeq++)
      expect(resolveForkAnchor(events, { atSeq, before: true })).toBe(10)
    // Before the running turn is a completed prefix, so it is allowed.
    for (let atSeq = 14; atSeq <= 16; atSeq++)
      expect(resolveForkAnchor(events, { atSeq, before: true })).toBe(13)
  })

  it('before the first turn is an empty prefix (-1)', () => {
    const s = new SessionStore().create()
    openTurn(s, 'A')
    s.append('turn/end', { reason: 'completed' })
    expect(resolveForkAnchor(s.events, { atSeq: 0, before: true })).toBe(-1)
    expect(resolveForkAnchor(s.events, { atSeq: 1, before: true })).toBe(-1)
    expect(resolveForkAnchor(s.events, { atSeq: 2, before: true })).toBe(-1)
  })

  it('before an anchor between turns: just before the anchor', () => {
    const { events } = fixture()
    expect(resolveForkAnchor(events, { atSeq: 0, before: true })).toBe(-1)
    expect(resolveForkAnchor(events, { atSeq: 8, before: true })).toBe(7)
    expect(resolveForkAnchor(events, { atSeq: 10, before: true })).toBe(9)
  })

  it('before needs an anchor inside the log', () => {
    const { events } = fixture()
    expect(codeOf(() => resolveForkAnchor(events, { before: true }))).toBe('invalid-boundary')
    // Without an anchor the message names what is missing, never "got undefined".
    expect(() => resolveForkAnchor(events, { before: true })).toThrow(
      /^"before" needs atSeq: the seq of the message to fork just before \(0 to \d+\)\.$/,
    )
    expect(codeOf(() => resolveForkAnchor(events, { atSeq: 17, before: true }))).toBe('invalid-boundary')
  })

  it.each([[-1], [-5], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'refuses the anchor %j with invalid-boundary',
    (atSeq) => {
      const { events } = fixture()
      expect(codeOf(() => resolveForkAnchor(events, { atSeq }))).toBe('invalid-boundary')
      expect(codeOf(() => resolveForkAnchor(events, { atSeq, before: true }))).toBe('invalid-boundary')
    },
  )

  it('before: false is the same as omitting it', () => {
    const { events } = fixture()
    expect(resolveForkAnchor(events, { atSeq: 3, before: false })).toBe(10)
  })
})

/** A small deterministic PRNG, so the generated logs are the same on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

function generatedLog(seed: number): Session {
  const random = prng(seed)
  const pick = (n: number) => Math.floor(random() * n)
  const store = new SessionStore()
  const s = store.create(`gen-${seed}`)
  const between = () => {
    for (let k = pick(3); k > 0; k--) {
      const kind = pick(4)
      if (kind === 0) s.append('model/selection', { provider: 'demo', model: `m${k}` })
      else if (kind === 1) s.append('session/title', { title: `t${k}` })
      else if (kind === 2) s.append('snapshot/taken', { tree: `tree${k}`, changed: [] })
      else s.append('plugin/note', { k })
    }
  }
  const maybeLogOnly = () => {
    if (pick(4) === 0) s.append('snapshot/taken', { tree: 'inner', changed: ['f'] })
  }
  const step = (callPrefix: string) => {
    s.append('step/start', {})
    maybeLogOnly()
    const calls = Array.from({ length: pick(3) }, (_, i) => `${callPrefix}-${i}`)
    s.append('assistant/message', {
      content: [
        { type: 'text', text: 'thinking' },
        ...calls.map((id) => ({ type: 'tool-call', toolCallId: id, toolName: 'bash', input: {} })),
      ],
    })
    for (const id of calls) {
      s.append('tool/result', { callId: id, toolName: 'bash', output: 'ok', isError: false })
      maybeLogOnly()
    }
    s.append('step/end', { finishReason: calls.length > 0 ? 'tool-calls' : 'stop' })
  }
  const turns = 3 + pick(3)
  for (let t = 0; t < turns; t++) {
    between()
    openTurn(s, `turn ${t}`)
    maybeLogOnly()
    for (let k = pick(3); k > 0; k--) step(`c${t}-${k}`)
    s.append('turn/end', { reason: 'completed' })
  }
  between()
  // An open last turn, cut at a random phase.
  openTurn(s, 'running')
  if (pick(2) === 0) {
    s.append('step/start', {})
    if (pick(2) === 0) {
      s.append('assistant/message', {
        content: [{ type: 'tool-call', toolCallId: 'open', toolName: 'bash', input: {} }],
      })
    }
  }
  maybeLogOnly()
  return s
}

describe('resolveForkAnchor against store.fork (generated logs)', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`every boundary it returns is accepted by store.fork, and holds the anchor (seed ${seed})`, () => {
      const source = generatedLog(seed)
      const events = source.events
      const last = events.length - 1
      const store = new SessionStore()
      const s = store.create('src', { seed: events })
      const lastTurnEnd = events.findLastIndex((e) => e.type === 'turn/end')
      let forks = 0
      for (let atSeq = -1; atSeq <= last + 2; atSeq++) {
        for (const before of [false, true]) {
          let boundary: number
          try {
            boundary = resolveForkAnchor(events, { atSeq, before })
          } catch (error) {
            if (!TangentError.isInstance(error)) throw error
            if (atSeq < 0 || atSeq > last) {
              expect(error.code).toBe('invalid-boundary')
            } else {
              // Only anchors with no turn/end at or after them (the running turn) are unavailable.
              expect(error.code).toBe('fork-unavailable')
              expect(before).toBe(false)
              expect(atSeq).toBeGreaterThan(lastTurnEnd)
            }
            continue
          }
          expect(atSeq).toBeGreaterThanOrEqual(0)
          const child = store.fork(s, boundary)
          forks++
          expect(child.events).toHaveLength(boundary + 1)
          expect(child.isTurnOpen).toBe(false)
          if (before) {
            expect(boundary).toBeLessThan(atSeq)
          } else {
            // Never an earlier turn: the clicked event is in the child.
            expect(boundary).toBeGreaterThanOrEqual(atSeq)
            // The cut is maximal: the next event, if any, starts a turn.
            if (boundary < last) expect(events[boundary + 1]!.type).toBe('turn/start')
          }
          store.dispose(child.id)
        }
      }
      expect(forks).toBeGreaterThan(events.length)
      // The default anchor too.
      expect(store.fork(s, resolveForkAnchor(events)).events.at(-1)!.seq).toBeGreaterThanOrEqual(lastTurnEnd)
    })
  }
})
