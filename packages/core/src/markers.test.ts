import { describe, expect, it } from 'vitest'
import type { SessionEvent } from './events.js'
import { markersBefore, markersOf, noteMarker } from './markers.js'
import { SessionStore } from './store.js'

function sessionWithMarkers() {
  const store = new SessionStore()
  const session = store.create(undefined, { meta: { cwd: '/p' } })
  session.append('session/title', { title: 'First' }) // 0
  session.append('model/selection', { provider: 'demo', model: 'scripted' }) // 1
  session.append('turn/start', {}) // 2
  session.append('user/message', { content: [{ type: 'text', text: 'hi' }] }) // 3
  session.append('turn/end', { reason: 'completed' }) // 4
  session.append('session/title', { title: 'Second' }) // 5
  return session
}

describe('title and model markers', () => {
  it('lists a session’s titles and models by seq, all or among its first events', () => {
    const session = sessionWithMarkers()
    expect(markersOf(session)).toEqual({
      titles: [
        { seq: 0, title: 'First' },
        { seq: 5, title: 'Second' },
      ],
      models: [{ seq: 1, model: { provider: 'demo', model: 'scripted' } }],
      modes: [],
    })
    expect(markersOf(session, 5).titles).toEqual([{ seq: 0, title: 'First' }])
    expect(markersOf(session, 1)).toEqual({ titles: [{ seq: 0, title: 'First' }], models: [], modes: [] })
  })

  it('gives a fork point’s inherited markers, and none for an unknown parent', () => {
    const markers = markersOf(sessionWithMarkers())
    expect(markersBefore(markers, 5).titles.map((marker) => marker.title)).toEqual(['First'])
    expect(markersBefore(markers, 0)).toEqual({ titles: [], models: [], modes: [] })
    expect(markersBefore(undefined, 3)).toEqual({ titles: [], models: [], modes: [] })
  })

  it('notes an appended title or model, and ignores other events', () => {
    const session = sessionWithMarkers()
    const markers = markersOf(session)
    const title = session.append('session/title', { title: 'Third' })
    expect(noteMarker(markers, title)).toEqual({ title: 'Third' })
    const model = session.append('model/selection', { provider: 'openai', model: 'gpt-4.1' })
    expect(noteMarker(markers, model)).toEqual({ model: { provider: 'openai', model: 'gpt-4.1' } })
    const mode = session.append('session/mode', { mode: 'plan' })
    expect(noteMarker(markers, mode)).toEqual({ mode: 'plan' })
    expect(noteMarker(markers, session.append('turn/start', {}))).toBeNull()
    // A mode may change inside a turn (the policy reads it per tool call).
    const inTurn = session.append('session/mode', { mode: 'ask' })
    expect(noteMarker(markers, inTurn)).toEqual({ mode: 'ask' })
    expect(markers).toEqual(markersOf(session))
    expect(session.mode).toBe('ask')
    expect(markersBefore(markers, inTurn.seq).modes).toEqual([{ seq: mode.seq, mode: 'plan' }])
    expect(noteMarker(undefined, title)).toEqual({ title: 'Third' }) // no markers kept: still says which
  })

  it('skips a mode this version does not know in a loaded log (not schema-checked), as Session.mode does', () => {
    const seed = [
      { seq: 0, time: 0, type: 'session/mode', data: { mode: 'plan' } },
      { seq: 1, time: 1, type: 'session/mode', data: { mode: 'yolo' } },
      { seq: 2, time: 2, type: 'session/mode', data: null },
    ] as unknown as SessionEvent[]
    const session = new SessionStore().create(undefined, { meta: { cwd: '/p' }, seed })
    expect(session.mode).toBe('plan')
    expect(markersOf(session).modes).toEqual([{ seq: 0, mode: 'plan' }])
    expect(noteMarker(undefined, seed[1]!)).toBeNull()
    const none = new SessionStore().create(undefined, {
      meta: { cwd: '/p' },
      seed: [{ ...seed[1]!, seq: 0 } as SessionEvent],
    })
    expect(none.mode).toBe('edit')
  })
})
