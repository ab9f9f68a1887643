import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { createRpcClient, RpcError } from './index.js'

// A real `ws` server on loopback that answers like a Host would.
const servers: WebSocketServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

async function serve(
  onMessage: (socket: WebSocket, message: { id: number; method: string; params: unknown }) => void,
) {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  servers.push(server)
  await new Promise((resolve) => server.once('listening', resolve))
  server.on('connection', (socket) => {
    socket.on('message', (data) => onMessage(socket, JSON.parse(String(data))))
  })
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('createRpcClient over ws', () => {
  it('sends queued calls once open, resolves results and delivers notifications', async () => {
    const url = await serve((socket, message) => {
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', method: 'session.deleted', params: { sessionId: 'gone' } }),
      )
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { echo: message.method } }))
    })
    const client = createRpcClient(new WebSocket(url))
    const deleted: string[] = []
    client.onNotification('session.deleted', (params) => deleted.push(params.sessionId))
    const result = await client.call('host.info')
    expect(result).toEqual({ echo: 'host.info' })
    expect(deleted).toEqual(['gone'])
    client.close()
    expect(client.closed).toBe(true)
  })

  it('rejects with RpcError carrying code and data', async () => {
    const url = await serve((socket, message) => {
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32000, message: 'busy', data: { code: 'session-busy', sessionId: 'a' } },
        }),
      )
    })
    const client = createRpcClient(new WebSocket(url))
    const error = await client.call('session.abort', { sessionId: 'a' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RpcError)
    expect((error as RpcError).code).toBe(-32000)
    expect((error as RpcError).data).toEqual({ code: 'session-busy', sessionId: 'a' })
    client.close()
  })

  it('rejects pending calls with connection-closed when the server goes away', async () => {
    const url = await serve((socket) => socket.terminate())
    const client = createRpcClient(new WebSocket(url))
    const closes: number[] = []
    client.onClose((info) => closes.push(info.code))
    const error = await client.call('host.info').catch((e: unknown) => e)
    expect((error as RpcError).data.code).toBe('connection-closed')
    expect(closes).toHaveLength(1)
  })
})
