// Node helper for the CLI: a protocol RPC client over `ws` to a running Host.
import { TangentError } from '@tangent/core'
import { createRpcClient, type RpcClient } from '@tangent/protocol'
import { WebSocket } from 'ws'

/** The `/rpc` WebSocket URL of a Host origin (`http://127.0.0.1:4317` → `ws://…/rpc?token=…`). */
export function rpcSocketUrl(url: string, token: string): string {
  const socketUrl = new URL('/rpc', url)
  socketUrl.protocol = socketUrl.protocol === 'https:' ? 'wss:' : 'ws:'
  socketUrl.searchParams.set('token', token)
  return socketUrl.toString()
}

/** Connects and resolves once the socket is open; `host-unreachable` when it cannot (wrong token: 401). */
export async function connectHost(options: { url: string; token: string }): Promise<RpcClient> {
  const socket = new WebSocket(rpcSocketUrl(options.url, options.token))
  const client = createRpcClient(socket)
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', (error) =>
      reject(
        new TangentError(
          'host-unreachable',
          `Could not connect to the Tangent Host at ${options.url}: ${error.message}. Is \`tangent serve\` running, with this token?`,
          { url: options.url },
        ),
      ),
    )
  })
  return client
}
