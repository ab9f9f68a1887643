// A small JSON-RPC 2.0 client over anything shaped like a WebSocket: the browser's
// native WebSocket and Node's `ws` both fit. Calls are typed by the `methods` map.
import { RpcError, type RpcErrorData } from './errors.js'
import type { MethodName, MethodParams, MethodResult } from './methods.js'
import type { NotificationName, NotificationParams } from './notifications.js'

/** The subset of the WebSocket API the client needs (browser WebSocket, `ws`). */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  addEventListener(
    type: 'open' | 'message' | 'close' | 'error',
    listener: (event: SocketEventLike) => void,
  ): void
}

/** What the client reads from socket events: `data` of a message, `code`/`reason` of a close. */
export interface SocketEventLike {
  readonly data?: unknown
  readonly code?: number
  readonly reason?: string
  readonly type?: string
}

export interface RpcCloseInfo {
  code: number
  reason: string
}

/** Params of `call` are optional for methods whose params are all optional (e.g. `host.info`). */
export type CallArgs<M extends MethodName> =
  Record<string, never> extends MethodParams<M> ? [params?: MethodParams<M>] : [params: MethodParams<M>]

export interface RpcClient {
  call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<MethodResult<M>>
  /** Returns the unsubscribe function. */
  onNotification<N extends NotificationName>(
    method: N,
    listener: (params: NotificationParams<N>) => void,
  ): () => void
  /** Called once when the socket closes; pending calls are rejected with `connection-closed`. */
  onClose(listener: (info: RpcCloseInfo) => void): () => void
  readonly closed: boolean
  close(): void
}

const connecting = 0
const open = 1

interface Pending {
  resolve(value: unknown): void
  reject(error: RpcError): void
}

export function createRpcClient(socket: SocketLike): RpcClient {
  const pending = new Map<number, Pending>()
  const notificationListeners = new Map<string, Set<(params: never) => void>>()
  const closeListeners = new Set<(info: RpcCloseInfo) => void>()
  const queued: string[] = []
  let nextId = 1
  let closed = false

  const listen = socket.addEventListener.bind(socket)

  listen('open', () => {
    for (const text of queued.splice(0)) socket.send(text)
  })
  listen('message', (event) => {
    const text = typeof event.data === 'string' ? event.data : String(event.data)
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      // A server that sends non-JSON is broken; there is no call to attach this to.
      return
    }
    for (const item of Array.isArray(message) ? message : [message]) dispatch(item)
  })
  listen('close', (event) => finish({ code: event.code ?? 1006, reason: event.reason ?? '' }))
  listen('error', () => {
    if (socket.readyState !== connecting && socket.readyState !== open) {
      finish({ code: 1006, reason: 'socket error' })
    }
  })

  function dispatch(item: unknown): void {
    if (typeof item !== 'object' || item === null) return
    const message = item as {
      id?: unknown
      method?: unknown
      params?: unknown
      result?: unknown
      error?: unknown
    }
    if (typeof message.method === 'string' && message.id === undefined) {
      const listeners = notificationListeners.get(message.method)
      if (listeners)
        for (const listener of [...listeners]) (listener as (params: unknown) => void)(message.params)
      return
    }
    if (typeof message.id !== 'number') return
    const call = pending.get(message.id)
    if (!call) return
    pending.delete(message.id)
    if (message.error !== undefined) call.reject(toRpcError(message.error))
    else call.resolve(message.result)
  }

  function finish(info: RpcCloseInfo): void {
    if (closed) return
    closed = true
    const error = new RpcError(-32000, `Connection to the Tangent Host closed (${info.code}).`, {
      code: 'connection-closed',
    })
    for (const call of pending.values()) call.reject(error)
    pending.clear()
    for (const listener of closeListeners) listener(info)
  }

  return {
    call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<MethodResult<M>> {
      if (closed) {
        return Promise.reject(
          // `sent: false`: the Host never saw this call, so it is safe to make again elsewhere.
          new RpcError(-32000, 'Connection to the Tangent Host is closed.', {
            code: 'connection-closed',
            sent: false,
          }),
        )
      }
      const id = nextId++
      const text = JSON.stringify({ jsonrpc: '2.0', id, method, params: args[0] ?? {} })
      return new Promise<MethodResult<M>>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
        if (socket.readyState === connecting) queued.push(text)
        else socket.send(text)
      })
    },
    onNotification(method, listener) {
      let set = notificationListeners.get(method)
      if (!set) {
        set = new Set()
        notificationListeners.set(method, set)
      }
      set.add(listener)
      return () => {
        set.delete(listener)
      }
    },
    onClose(listener) {
      closeListeners.add(listener)
      return () => {
        closeListeners.delete(listener)
      }
    },
    get closed() {
      return closed
    },
    close() {
      socket.close()
      finish({ code: 1000, reason: 'closed by client' })
    },
  }
}

function toRpcError(value: unknown): RpcError {
  if (typeof value !== 'object' || value === null)
    return new RpcError(-32603, 'Malformed error from the Host.')
  const error = value as { code?: unknown; message?: unknown; data?: unknown }
  const data =
    typeof error.data === 'object' &&
    error.data !== null &&
    typeof (error.data as { code?: unknown }).code === 'string'
      ? (error.data as RpcErrorData)
      : undefined
  return new RpcError(
    typeof error.code === 'number' ? error.code : -32603,
    typeof error.message === 'string' ? error.message : 'Unknown error from the Host.',
    data,
  )
}
