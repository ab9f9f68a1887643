// An event too large for a session log (over 64 MiB as one line; here a small limit stands in),
// through the runtime as the CLI and the Host run it, on both engines: a user message that large
// ends its turn as an error that says what to do, nothing of it is stored, and the session takes
// the next prompt (docs/architecture.md §4). (session.prompt caps its text at 256 Ki characters,
// so over RPC only a limit below that is reached; a library caller of Agent.prompt has no cap.)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { inProcessApi, Runtime } from '@tangent/runtime'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  postgresAvailable,
  startTestPostgres,
  type TestPostgres,
} from '../../packages/store-postgres/src/test-support.js'

const temps: string[] = []
const tempDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  temps.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

let server: TestPostgres | null = null
let databases = 0
const withPostgres = postgresAvailable()
beforeAll(async () => {
  if (withPostgres) server = await startTestPostgres()
}, 60_000)
afterAll(async () => {
  await server?.stop()
})

const engines = [
  { name: 'jsonl', store: async () => undefined },
  ...(withPostgres
    ? [
        {
          name: 'postgres',
          store: async () => server!.createDatabase(`oversized_${++databases}`, { migrated: true }),
        },
      ]
    : []),
]

describe.each(engines)('an event too large for the log, through the runtime ($name)', (engine) => {
  it('ends the turn with a clear error, stores none of it, and takes the next prompt', async () => {
    const runtime = await Runtime.open({
      home: tempDir('tangent-home-'),
      store: await engine.store(),
      maxEventBytes: 16 * 1024,
      startFolder: tempDir('tangent-start-'),
      homeDir: tempDir('tangent-userhome-'),
      env: {},
      report: () => {},
    })
    const api = inProcessApi(runtime)
    try {
      const session = await api.call('session.create', {})
      expect((await api.call('session.prompt', { sessionId: session.id, text: 'hello' })).reason).toBe(
        'completed',
      )

      const huge = 'x'.repeat(20 * 1024)
      const refused = await api.call('session.prompt', { sessionId: session.id, text: huge })
      expect(refused.reason).toBe('error')
      const { events } = await api.call('session.get', { sessionId: session.id })
      const end = events.at(-1)!
      expect(end.type).toBe('turn/end')
      expect(end.data).toMatchObject({
        reason: 'error',
        error: expect.stringMatching(
          /^Event user\/message of session .* is 20\.\d KiB as a log line, over the 16 KiB one event may hold: it was not appended and the session is unchanged\. Send a shorter message/,
        ),
      })
      // Nothing of the message was stored: the turn closes with an empty one (the grammar wants one).
      expect(events.slice(refused.turnStartSeq).map((event) => [event.type, event.data])).toEqual([
        ['turn/start', {}],
        ['user/message', { content: [] }],
        ['turn/end', expect.objectContaining({ reason: 'error' })],
      ])

      // The session still writes: the next prompt runs a whole turn, and it reads back.
      const next = await api.call('session.prompt', { sessionId: session.id, text: 'a shorter one' })
      expect(next.reason).toBe('completed')
      const after = await api.call('session.get', { sessionId: session.id })
      expect(after.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
      expect(after.session.eventCount).toBe(after.events.length)
    } finally {
      await api.close()
    }
  }, 120_000)
})
