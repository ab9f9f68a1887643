// Test support for the host-*.e2e.ts files: a real Host on a temp data dir and port 0, typed calls over
// in-process HTTP (`host.request`) and over a real WebSocket.
import fs from 'node:fs'
import { type HostOptions, type RunningHost, rpcSocketUrl, startHost } from '@tangent/host'
import {
  createRpcClient,
  type MethodName,
  type MethodParams,
  type MethodResult,
  type RpcClient,
  RpcError,
} from '@tangent/protocol'
import { WebSocket } from 'ws'
import { removeTempDirs, tempDir } from '../temp-dirs.js'

export interface TestHost {
  host: RunningHost
  home: string
  /** A directory sessions can work in. */
  work: string
  logs: string[]
  /** One JSON-RPC call over in-process HTTP; throws RpcError on an error answer. */
  call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>>
  /** A raw POST /rpc in-process. */
  post(body: string, headers?: Record<string, string>): Promise<Response>
  /** A WebSocket client (closed by `close`). */
  connect(): Promise<RpcClient>
  /** Stops the Host (the data dir stays for a restart). */
  stop(): Promise<void>
  /** Starts a new Host on the same data dir. */
  restart(options?: Partial<HostOptions>): Promise<void>
  close(): Promise<void>
}

export { removeTempDirs, tempDir }

export async function startTestHost(options: Partial<HostOptions> = {}): Promise<TestHost> {
  const home = options.home ?? tempDir()
  const work = fs.realpathSync(tempDir('tangent-work-'))
  const logs: string[] = []
  const clients: RpcClient[] = []
  const begin = (extra: Partial<HostOptions>) =>
    startHost({
      home,
      port: 0,
      handleSignals: false,
      defaultCwd: work,
      env: {},
      log: (line) => logs.push(line),
      ...options,
      ...extra,
    })
  let host = await begin({})
  let stopped = false

  const post = (body: string, headers: Record<string, string> = {}) =>
    host.request('/rpc', {
      method: 'POST',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json', ...headers },
      body,
    })

  async function call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>> {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params ?? {} }))
    const answer = (await response.json()) as {
      result?: unknown
      error?: { code: number; message: string; data?: { code: string } }
    }
    if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data)
    return answer.result as MethodResult<M>
  }

  const fixture: TestHost = {
    get host() {
      return host
    },
    home,
    work,
    logs,
    call,
    post,
    async connect() {
      const socket = new WebSocket(rpcSocketUrl(host.url, host.token))
      const client = createRpcClient(socket)
      await new Promise((resolve, reject) => {
        socket.once('open', resolve)
        socket.once('error', reject)
      })
      clients.push(client)
      return client
    },
    async stop() {
      for (const client of clients.splice(0)) client.close()
      if (!stopped) await host.close()
      stopped = true
    },
    async restart(extra = {}) {
      await fixture.stop()
      host = await begin(extra)
      stopped = false
    },
    async close() {
      await fixture.stop()
      fs.rmSync(home, { recursive: true, force: true })
      fs.rmSync(work, { recursive: true, force: true })
    },
  }
  return fixture
}

/** Waits until `check` returns a value other than undefined/false (polling; no time assertion). */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what = 'condition',
): Promise<T> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`Timed out waiting for ${what}`)
}

/** The RpcError a promise rejects with (fails if it resolves). */
export async function rpcFailure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof RpcError) return error
    throw error
  }
  throw new Error('Expected the call to fail, it succeeded')
}
