// JSON-RPC over WebSocket at `/rpc?token=TOKEN`: the upgrade is refused without the token
// (401) or with a foreign Host or Origin (403); each socket is a Connection of the hub.
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { maxPromptMessageBytes, maxWebSocketMessageBytes, type RpcResponse } from '@tangent/protocol'
import { type RawData, WebSocket, WebSocketServer } from 'ws'
import { foreignRequestReason, tokensEqual } from './auth.js'
import type { Connection, ConnectionHub } from './connections.js'
import { type RpcRouter, tooLargeError } from './rpc-router.js'

export interface WebSocketRpcOptions {
  token: string
  /** The `Host` values that name this Host (`ownHosts`); Origins must be `http://` one of them. */
  allowedHosts: ReadonlySet<string>
  router: RpcRouter
  hub: ConnectionHub
  /** Logs an unexpected error (with its stack). */
  report: (error: unknown) => void
  /** Logs one line. */
  log: (message: string) => void
  /** Called before an answer is sent on a connection: sends it the notifications queued for it. */
  beforeAnswer?: (connection: Connection) => void
}

/** A client that lets this much output pile up is too slow to follow; it is disconnected. */
const maxBufferedBytes = 32 * 1024 * 1024
/** Sockets are pinged this often; one that missed the previous pong is cut (half-open TCP). */
const heartbeatMs = 30_000

export interface WebSocketRpc {
  /** Closes every socket (1001, going away) and stops accepting new ones. */
  close(): Promise<void>
}

export function attachWebSocketRpc(server: Server, options: WebSocketRpcOptions): WebSocketRpc {
  // Messages up to twice the largest (a prompt with images) get a JSON-RPC error; beyond that ws
  // closes with 1009.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxWebSocketMessageBytes })

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://host.invalid')
    const foreign = foreignRequestReason(
      { host: request.headers.host, origin: request.headers.origin },
      options.allowedHosts,
    )
    if (foreign !== null) return refuse(socket, 403, 'Forbidden', foreign)
    if (url.pathname !== '/rpc')
      return refuse(socket, 404, 'Not Found', 'WebSocket endpoint is /rpc?token=TOKEN')
    if (!tokensEqual(options.token, url.searchParams.get('token'))) {
      return refuse(socket, 401, 'Unauthorized', 'Missing or wrong token: connect to /rpc?token=TOKEN')
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      wss.emit('connection', ws, request)
      serveSocket(ws, options)
    })
  }
  server.on('upgrade', onUpgrade)

  const alive = new WeakSet<WebSocket>()
  wss.on('connection', (ws) => {
    alive.add(ws)
    ws.on('pong', () => alive.add(ws))
  })
  const heartbeat = setInterval(() => {
    for (const client of wss.clients) {
      if (!alive.has(client)) {
        client.terminate()
        continue
      }
      alive.delete(client)
      client.ping()
    }
  }, heartbeatMs).unref()

  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade)
        clearInterval(heartbeat)
        for (const client of wss.clients) client.close(1001, 'Tangent Host is shutting down')
        wss.close(() => resolve())
        // Sockets that do not answer the close handshake are cut.
        setTimeout(() => {
          for (const client of wss.clients) client.terminate()
        }, 1000).unref()
      }),
  }
}

function serveSocket(ws: WebSocket, options: WebSocketRpcOptions): void {
  const sendRaw = (data: Buffer | string) => {
    if (ws.readyState !== WebSocket.OPEN) return
    if (ws.bufferedAmount > maxBufferedBytes) {
      ws.close(1013, 'Client too slow: notifications piled up')
      return
    }
    // A Buffer is sent as a text frame as it is: a broadcast is serialised once for every socket.
    ws.send(data, { binary: false })
  }
  const send = (message: unknown) => sendRaw(JSON.stringify(message))
  const connection: Connection = {
    send: sendRaw,
    get bufferedAmount() {
      return ws.bufferedAmount
    },
    batch(work) {
      // Corked, the frames of several notifications leave in one write (writev) instead of one each.
      const socket = (ws as unknown as { _socket?: Duplex | null })._socket
      socket?.cork()
      try {
        work()
      } finally {
        socket?.uncork()
      }
    },
  }
  options.hub.add(connection)
  ws.on('close', () => options.hub.remove(connection))
  ws.on('error', (error) => {
    // A client that breaks the protocol (a message over the 24 MiB limit: 1009, a bad frame)
    // is one line in the log, not a stack trace: ws closes that socket itself.
    const code = (error as NodeJS.ErrnoException).code
    if (typeof code === 'string' && code.startsWith('WS_ERR_')) {
      options.log(`tangent host: closed a WebSocket: ${error.message} (${code})`)
      return
    }
    options.report(error)
  })
  ws.on('message', (data: RawData) => {
    const bytes = toBuffer(data)
    // Past the largest message of all, not even parsed; the router bounds the others by method.
    if (bytes.byteLength > maxPromptMessageBytes) {
      send({ jsonrpc: '2.0', id: null, error: tooLargeError(maxPromptMessageBytes) } satisfies RpcResponse)
      return
    }
    options.router
      .handleText(bytes.toString('utf8'), { connection })
      .then((answer) => {
        if (answer === null) return
        // The events this request caused go out before its answer (a prompt's turn, a title).
        options.beforeAnswer?.(connection)
        send(answer)
      })
      .catch(options.report)
  })
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data
  if (Array.isArray(data)) return Buffer.concat(data)
  return Buffer.from(data)
}

function refuse(socket: Duplex, status: number, statusText: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}
