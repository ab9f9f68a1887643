// File sources through a real Host (docs/protocol.md `session.attachFileSource`): the Host asks
// only the connection that attached one, only that connection may answer, and a closed
// connection's source is gone at once — its open read goes to the disk without waiting.
import fs from 'node:fs'
import path from 'node:path'
import type { NotificationParams, RpcClient } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rpcFailure, startTestHost, type TestHost, waitFor } from './host-harness.js'

type ReadFile = NotificationParams<'session.readFile'>

let t: TestHost
beforeAll(async () => {
  // Long: a read that ends early did not wait for the timeout.
  t = await startTestHost({ fileSourceTimeoutMs: 20_000 })
  fs.writeFileSync(path.join(t.work, 'open.txt'), 'ON DISK\n')
})
afterAll(async () => {
  await t.close()
})

/** A connection that records the reads it is asked. */
async function editor(): Promise<{ rpc: RpcClient; asked: ReadFile[] }> {
  const rpc = await t.connect()
  const asked: ReadFile[] = []
  rpc.onNotification('session.readFile', (params) => asked.push(params))
  return { rpc, asked }
}

const lastResult = async (sessionId: string) =>
  (await t.call('session.get', { sessionId })).events.filter((event) => event.type === 'tool/result').at(-1)
    ?.data as { output: string; isError: boolean }

describe('file sources over the Host', () => {
  it('asks the attaching connection only; an answer from another is refused; the first answer wins', async () => {
    const session = await t.call('session.create', { cwd: t.work })
    const a = await editor()
    const b = await editor()
    expect(await a.rpc.call('session.attachFileSource', { sessionId: session.id })).toEqual({})
    const prompt = b.rpc.call('session.prompt', { sessionId: session.id, text: 'read open.txt' })
    const request = await waitFor(() => a.asked[0], 'the read to reach the editor')
    expect(request).toMatchObject({ sessionId: session.id, path: path.join(t.work, 'open.txt') })
    expect(b.asked).toEqual([])
    expect(
      await b.rpc.call('session.answerReadFile', { requestId: request.requestId, text: 'FROM ANOTHER' }),
    ).toEqual({ answered: false })
    expect(
      await a.rpc.call('session.answerReadFile', { requestId: request.requestId, text: 'UNSAVED BUFFER' }),
    ).toEqual({ answered: true })
    expect(
      await a.rpc.call('session.answerReadFile', { requestId: request.requestId, text: 'AGAIN' }),
    ).toEqual({ answered: false })
    expect((await prompt).reason).toBe('completed')
    expect(await lastResult(session.id)).toEqual({
      toolName: 'read',
      callId: expect.any(String),
      output: 'UNSAVED BUFFER',
      isError: false,
    })

    // Detached: the next read goes to the disk without asking.
    expect(await a.rpc.call('session.detachFileSource', { sessionId: session.id })).toEqual({})
    await b.rpc.call('session.prompt', { sessionId: session.id, text: 'read open.txt' })
    expect(a.asked).toHaveLength(1)
    expect((await lastResult(session.id)).output).toBe('ON DISK\n')
  })

  it('a connection that closes takes its source with it: its open read goes to the disk at once', async () => {
    const session = await t.call('session.create', { cwd: t.work })
    const a = await editor()
    const b = await editor()
    await a.rpc.call('session.attachFileSource', { sessionId: session.id })
    const startedAt = Date.now()
    const prompt = b.rpc.call('session.prompt', { sessionId: session.id, text: 'read open.txt' })
    await waitFor(() => a.asked[0], 'the read to reach the editor')
    a.rpc.close()
    expect((await prompt).reason).toBe('completed')
    // Far from the 20 s timeout: nobody waited for a connection that is gone.
    expect(Date.now() - startedAt).toBeLessThan(10_000)
    const fallback = await lastResult(session.id)
    expect(fallback.output).toMatch(
      /^ON DISK\n\n\[the editor could not give its copy \(the client disconnected\)/,
    )

    // Nothing is left attached: the next read neither waits nor notes anything.
    const again = Date.now()
    await b.rpc.call('session.prompt', { sessionId: session.id, text: 'read open.txt' })
    expect(Date.now() - again).toBeLessThan(10_000)
    expect((await lastResult(session.id)).output).toBe('ON DISK\n')
  })

  it('refuses a source over HTTP, for an unknown session, and a malformed answer', async () => {
    const session = await t.call('session.create', { cwd: t.work })
    const overHttp = await rpcFailure(t.call('session.attachFileSource', { sessionId: session.id }))
    expect(overHttp.data.code).toBe('invalid-request')
    const a = await editor()
    const unknown = await rpcFailure(a.rpc.call('session.attachFileSource', { sessionId: 'NOSUCHSESSION' }))
    expect(unknown.data.code).toBe('session-not-found')
    const malformed = await rpcFailure(
      a.rpc.call('session.answerReadFile', { requestId: 'x', text: 42 } as never),
    )
    expect(malformed.data.code).toBe('invalid-params')
    expect(await a.rpc.call('session.answerReadFile', { requestId: 'nobody-asked', text: 'x' })).toEqual({
      answered: false,
    })
  })
})
