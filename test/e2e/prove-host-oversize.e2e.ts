// A WebSocket message over the 24 MiB limit (twice the largest prompt with images) closes that socket (1009) and is one line in the
// Host's log, not a stack trace per message; the Host keeps serving.
import { rpcSocketUrl } from '@tangent/host'
import { maxWebSocketMessageBytes } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { startTestHost, type TestHost, waitFor } from './host-harness.js'

let t: TestHost
beforeAll(async () => {
  t = await startTestHost()
})
afterAll(async () => {
  await t.close()
})

async function sendOversized(): Promise<number> {
  const socket = new WebSocket(rpcSocketUrl(t.host.url, t.host.token))
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
  socket.send('x'.repeat(maxWebSocketMessageBytes + 1))
  return closed
}

describe('oversized WebSocket messages', () => {
  it('each closes its socket with 1009 and logs one line', async () => {
    for (let i = 0; i < 3; i++) expect(await sendOversized()).toBe(1009)
    await waitFor(() => t.logs.length >= 3, 'three log entries')
    expect(t.logs).toHaveLength(3)
    for (const entry of t.logs) {
      expect(entry).not.toContain('\n')
      expect(entry).toMatch(
        /^tangent host: closed a WebSocket: .*Max payload size exceeded.*\(WS_ERR_UNSUPPORTED_MESSAGE_LENGTH\)$/,
      )
    }
    const client = await t.connect()
    expect((await client.call('host.info')).dataDir).toBe(t.home)
  })
})
