// Test support (not built): a local HTTP server on 127.0.0.1 that answers model API calls
// with queued replies in each provider's wire format, so the real provider clients run
// against it: streamed SSE, HTTP errors, a stream cut mid-way, a stream that hangs.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeReply {
  /** HTTP status (default 200). */
  status?: number
  /** A JSON body (for errors). */
  json?: unknown
  /** More response headers (e.g. `retry-after-ms`, which sets the client's wait before a retry). */
  headers?: Record<string, string>
  /** SSE frames, each already formatted (`data: …\n\n`). */
  frames?: string[]
  /** After the frames: destroy the socket (a cut) or keep the response open (until the client leaves). */
  after?: 'end' | 'cut' | 'hang'
}

export interface RecordedRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: unknown
}

export interface FakeProviderServer {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

export async function startFakeProviderServer(replies: FakeReply[]): Promise<FakeProviderServer> {
  const queue = [...replies]
  const requests: RecordedRequest[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
      })
      const reply = queue.shift() ?? {
        status: 500,
        json: { error: { message: 'fake server: no reply queued' } },
      }
      if (reply.json !== undefined) {
        res.writeHead(reply.status ?? 500, { ...reply.headers, 'content-type': 'application/json' })
        res.end(JSON.stringify(reply.json))
        return
      }
      res.writeHead(reply.status ?? 200, {
        ...reply.headers,
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
      })
      for (const frame of reply.frames ?? []) res.write(frame)
      if (reply.after === 'cut') setTimeout(() => res.socket?.destroy(), 20)
      else if (reply.after !== 'hang') res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`
}

export function sseEvent(name: string, value: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`
}

export function pieces(text: string, size = 3): string[] {
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}
