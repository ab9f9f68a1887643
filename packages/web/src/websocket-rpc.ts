// A minimal JSON-RPC 2.0 client over the browser's WebSocket, used until/unless
// `@tangent/protocol`'s `createRpcClient` is wired in. Requests sent before the socket
// opens wait for it; a closed socket rejects every pending call.
import type { RpcConnection } from './host-client.js'

export class RpcCallError extends Error {
  readonly code: number
  readonly data: { code: string; [key: string]: unknown }

  constructor(code: number, message: string, data?: { code: string; [key: string]: unknown }) {
    super(message)
    this.name = 'RpcError'
    this.code = code
    this.data = data ?? { code: 'internal' }
  }
}

interface Pending {
  resolve: (value: unknown) => void
  reject: (error: Error) => void
}

export function connectWebSocketRpc(socket: WebSocket): RpcConnection {
  const pending = new Map<number, Pending>()
  const listeners = new Map<string, Set<(params: unknown) => void>>()
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true })
    socket.addEventListener('close', () => reject(new Error('The connection to the Host closed.')), {
      once: true,
    })
  })
  // A rejected `opened` that nobody awaited would be reported as unhandled.
  opened.catch(() => undefined)
  let nextId = 1

  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number
      method?: string
      params?: unknown
      result?: unknown
      error?: { code: number; message: string; data?: { code: string } }
    }
    if (message.method !== undefined && message.id === undefined) {
      for (const listener of listeners.get(message.method) ?? []) listener(message.params)
      return
    }
    if (typeof message.id !== 'number') return
    const waiter = pending.get(message.id)
    if (!waiter) return
    pending.delete(message.id)
    if (message.error)
      waiter.reject(new RpcCallError(message.error.code, message.error.message, message.error.data))
    else waiter.resolve(message.result)
  })
  socket.addEventListener('close', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('The connection to the Host closed.'))
    pending.clear()
  })

  return {
    async call(method, params) {
      await opened
      const id = nextId++
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject })
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
      })
    },
    onNotification(method, listener) {
      let set = listeners.get(method)
      if (!set) {
        set = new Set()
        listeners.set(method, set)
      }
      set.add(listener)
      return () => set.delete(listener)
    },
    close() {
      socket.close()
    },
  }
}
