// A turn's events when notifications trail the answer, or never come (a socket's may arrive after
// session.prompt's answer): the rest is read from the log, in order, none twice.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { SessionEvent } from '@tangent/protocol'
import { inProcessApi, Runtime, type SessionApi, type SessionListener } from '@tangent/runtime'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Turn } from './turn.js'

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-sdk-turn-')))
let runtime: Runtime
let api: SessionApi

beforeAll(async () => {
  runtime = await Runtime.open({
    home: path.join(root, 'home'),
    startFolder: root,
    env: {},
    report: () => {},
  })
  api = inProcessApi(runtime)
})

afterAll(async () => {
  await api.close()
  fs.rmSync(root, { recursive: true, force: true })
})

/** The api, but the events its subscriptions deliver are held back: `release` sends them, or they are dropped. */
function trailing(inner: SessionApi, mode: 'hold' | 'drop') {
  const held: { listener: SessionListener; event: SessionEvent }[] = []
  const wrapped: SessionApi = {
    ...inner,
    subscribe: (sessionId, options, listener) =>
      inner.subscribe(sessionId, options, {
        onEvent: (event) => {
          if (mode === 'hold') held.push({ listener, event })
        },
      }),
  }
  return {
    api: wrapped,
    /** Sends the first `count` held events (default all). */
    release: (count = held.length) => {
      for (const { listener, event } of held.splice(0, count)) listener.onEvent(event)
    },
  }
}

async function collect(turn: Turn): Promise<SessionEvent[]> {
  const events: SessionEvent[] = []
  for await (const event of turn) events.push(event)
  return events
}

describe('Turn', () => {
  it('reads the turn from the log when no notification comes', async () => {
    const session = await api.call('session.create', {})
    const { api: silent } = trailing(api, 'drop')
    const turn = new Turn(silent, session.id, 'write a.txt: one')
    const events = await collect(turn)
    const result = await turn.result
    const log = (await api.call('session.get', { sessionId: session.id })).events
    expect(events).toEqual(log.slice(result.turnStartSeq, result.turnEndSeq + 1))
    expect([events[0]!.type, events.at(-1)!.type]).toEqual(['turn/start', 'turn/end'])
    expect(result.text).toBe('Wrote a.txt (4 bytes).')
  })

  it('yields each event once when the notifications arrive while the log is read, and after', async () => {
    const session = await api.call('session.create', {})
    const late = trailing(api, 'hold')
    // The first held notifications arrive while the turn's rest is read from the log: both have them.
    const racing: SessionApi = {
      ...late.api,
      call: async (method, params) => {
        const answer = await api.call(method, params)
        if (method === 'session.get') late.release(3)
        return answer
      },
    }
    const turn = new Turn(racing, session.id, 'hello')
    const result = await turn.result
    late.release()
    const events = await collect(turn)
    expect(events.map((event) => event.seq)).toEqual(
      Array.from(
        { length: result.turnEndSeq - result.turnStartSeq + 1 },
        (_, index) => result.turnStartSeq + index,
      ),
    )
    expect(result.text).toBe('Turn 1: you said "hello".')
  })

  it('leaves out what the subscription sees before its turn starts', async () => {
    const session = await api.call('session.create', {})
    const seen: string[] = []
    // A rename lands after the subscription and before the prompt: the listener gets it, the turn does not.
    const renaming: SessionApi = {
      ...api,
      subscribe: async (sessionId, options, listener) => {
        const off = await api.subscribe(sessionId, options, {
          onEvent: (event) => {
            seen.push(event.type)
            listener.onEvent(event)
          },
        })
        await api.call('session.rename', { sessionId, title: 'renamed' })
        return off
      },
    }
    const turn = new Turn(renaming, session.id, 'first')
    const events = await collect(turn)
    expect(seen[0]).toBe('session/title')
    expect(events[0]!.type).toBe('turn/start')
    expect(events.map((event) => event.type)).not.toContain('session/title')
  })
})
