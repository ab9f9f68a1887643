// The composition root of a Host: a runtime (opened here, or one the caller holds) served
// over HTTP + WebSocket on loopback, with the discovery file other local commands find.
import type { Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { TangentError } from '@tangent/core'
import { Runtime } from '@tangent/runtime'
import { generateToken, ownHosts } from './auth.js'
import { ConnectionHub } from './connections.js'
import { generateInstanceId, removeHostDiscovery, writeHostDiscovery } from './discovery.js'
import type { HostContext } from './host-context.js'
import { createHttpApp } from './http-app.js'
import { createMethodHandlers } from './methods/index.js'
import { createRpcRouter } from './rpc-router.js'
import { SessionFanout } from './session-fanout.js'
import { wireSessionNotifications } from './session-notifications.js'
import { type SnapshotGcSchedule, scheduleSnapshotGc } from './snapshot-gc.js'
import { attachWebSocketRpc } from './websocket-rpc.js'

export interface ServeOptions {
  /** An import upload left this long without a chunk is dropped (default 10 minutes; tests shorten it). */
  uploadIdleMs?: number
  /** Default 4317; 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Default: TANGENT_TOKEN of `env`, else random per start. */
  token?: string
  /** The built web UI (default: the @tangent/web package's `dist/`). */
  webRoot?: string
  /** Environment for TANGENT_TOKEN (default process.env). */
  env?: Record<string, string | undefined>
  /** Close (and remove host.json) on SIGINT/SIGTERM, then exit. Default true. */
  handleSignals?: boolean
  /** When the snapshot store is garbage-collected (default: 10 min after start, then daily). */
  snapshotGc?: SnapshotGcSchedule
  /** Where unexpected errors are logged (default console.error). */
  log?: (message: string) => void
}

export interface HostOptions extends ServeOptions {
  /** TANGENT_HOME: sessions, catalog, snapshots, workspaces.json, host.json. */
  home: string
  /** Model of new sessions and of logs without a selection (default TANGENT_MODEL, else `demo:scripted`). */
  defaultModel?: string
  /** Delay between demo model deltas (default: TANGENT_DEMO_DELAY_MS of `env`). */
  demoDelayMs?: number
  /** How long a client's file source may take to answer a read before the disk is read (default 3000 ms). */
  fileSourceTimeoutMs?: number
  /** The folder the Host starts in: cwd of sessions created without a workspace or cwd (default process.cwd()). */
  defaultCwd?: string
  /** Open `defaultCwd` as a workspace at start (what `tangent serve` does). Default false. */
  openStartFolder?: boolean
  /** What `~` means in folder paths (default os.homedir()). */
  homeDir?: string
}

export interface RunningHost {
  /** The Host's origin, e.g. `http://127.0.0.1:4317`. */
  readonly url: string
  readonly port: number
  readonly token: string
  readonly home: string
  readonly runtime: Runtime
  /** WebSocket clients connected now. */
  readonly connections: number
  /** An HTTP request answered in-process by the Host's app (no socket), e.g. `request('/healthz')`. */
  request(input: string, init?: RequestInit): Promise<Response>
  /**
   * Stops serving and removes host.json. A Host made by startHost also aborts running turns
   * and closes its runtime; one made by serveRuntime leaves the runtime to its owner. Idempotent.
   */
  close(): Promise<void>
}

/** Opens a runtime on `home` (taking the writer lock) and serves it: `tangent serve`. */
export async function startHost(options: HostOptions): Promise<RunningHost> {
  const log = options.log ?? ((message: string) => console.error(message))
  const runtime = await Runtime.open({
    home: options.home,
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options.defaultModel !== undefined ? { defaultModel: options.defaultModel } : {}),
    ...(options.demoDelayMs !== undefined ? { demoDelayMs: options.demoDelayMs } : {}),
    ...(options.fileSourceTimeoutMs !== undefined
      ? { fileSourceTimeoutMs: options.fileSourceTimeoutMs }
      : {}),
    ...(options.defaultCwd !== undefined ? { startFolder: options.defaultCwd } : {}),
    openStartFolder: options.openStartFolder === true,
    // A Host lives across turns: the folders of its sessions are watched between them.
    watchFiles: true,
    ...(options.homeDir !== undefined ? { homeDir: options.homeDir } : {}),
    report: reporter(log),
  })
  try {
    return await serve_(runtime, options, true)
  } catch (error) {
    await runtime.close()
    throw error
  }
}

/**
 * Serves a runtime this process already holds (a CLI command that writes without a Host):
 * other local commands find it through host.json and go through it.
 */
export function serveRuntime(runtime: Runtime, options: ServeOptions = {}): Promise<RunningHost> {
  return serve_(runtime, options, false)
}

function reporter(log: (message: string) => void): (error: unknown) => void {
  return (error: unknown) =>
    log(`tangent host: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
}

async function serve_(runtime: Runtime, options: ServeOptions, ownsRuntime: boolean): Promise<RunningHost> {
  const home = runtime.home
  const log = options.log ?? ((message: string) => console.error(message))
  const report = reporter(log)
  const env = options.env ?? process.env
  const token = options.token ?? (env.TANGENT_TOKEN || generateToken())
  const bindHost = options.host ?? '127.0.0.1'
  const instanceId = generateInstanceId()
  const hub = new ConnectionHub()
  const context: HostContext = { runtime, hub, fanout: new SessionFanout(runtime, report), report }
  // Wired before the first connection can arrive, so no change goes unannounced.
  const unwire = wireSessionNotifications(context)
  try {
    const router = createRpcRouter(
      createMethodHandlers(
        context,
        options.uploadIdleMs !== undefined ? { uploadIdleMs: options.uploadIdleMs } : {},
      ),
      report,
    )
    // Empty until the server listens (no request can come before): then the names of its port.
    let allowedHosts: ReadonlySet<string> = new Set()
    const app = createHttpApp({
      token,
      instanceId,
      router,
      webRoot: options.webRoot ?? defaultWebRoot(),
      allowedHosts: () => allowedHosts,
      report,
    })
    const server = await listen(app.fetch, options.port ?? 4317, bindHost, report)
    const port = (server.address() as AddressInfo).port
    allowedHosts = ownHosts(bindHost, port)
    const url = `http://${urlHostOf(bindHost)}:${port}`
    const sockets = attachWebSocketRpc(server, {
      token,
      allowedHosts,
      router,
      hub,
      report,
      log,
      beforeAnswer: (connection) => context.fanout.flushTo(connection),
    })
    const stopServing = async () => {
      await sockets.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
    try {
      await writeHostDiscovery(home, { pid: process.pid, port, token, url, instanceId })
    } catch (error) {
      await stopServing()
      throw error
    }
    const stopGc = scheduleSnapshotGc(
      { gc: async () => (await runtime.fileState()).gc() },
      report,
      options.snapshotGc,
    )
    // A crash in the middle of a worktree fork leaves a worktree (and its branch in the
    // user's repository) that no session owns: clean those up, in the background.
    const reconciling = ownsRuntime
      ? runtime.reconcileWorktrees(Date.now(), log).catch(report)
      : Promise.resolve()

    let closing: Promise<void> | null = null
    const close = () => {
      closing ??= (async () => {
        removeSignalHandlers()
        stopGc()
        removeHostDiscovery(home, instanceId)
        await stopServing()
        await reconciling
        unwire()
        if (ownsRuntime) await runtime.close()
      })()
      return closing
    }
    const onSignal = (signal: NodeJS.Signals) => {
      void close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
    }
    // If the process exits some other way, at least the discovery file goes.
    const onExit = () => removeHostDiscovery(home, instanceId)
    const removeSignalHandlers = () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      process.off('exit', onExit)
    }
    if (options.handleSignals !== false) {
      process.once('SIGINT', onSignal)
      process.once('SIGTERM', onSignal)
    }
    process.once('exit', onExit)
    // A path is asked of the Host's own URL, so it passes the Host check as a local client would.
    const request = async (input: string, init?: RequestInit) =>
      app.request(input.startsWith('/') ? `${url}${input}` : input, init)
    return {
      url,
      port,
      token,
      home,
      runtime,
      get connections() {
        return hub.size
      },
      request,
      close,
    }
  } catch (error) {
    unwire()
    throw error
  }
}

function listen(
  fetch: Parameters<typeof serve>[0]['fetch'],
  port: number,
  hostname: string,
  report: (error: unknown) => void,
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }) as Server
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error)
      reject(
        new TangentError(
          'port-in-use',
          `Port ${port} on ${hostname} is already in use: stop the other process or pick another port (--port 0 takes a free one).`,
          { port, host: hostname },
        ),
      )
    }
    server.once('error', onError)
    server.once('listening', () => {
      server.off('error', onError)
      // Later server errors (a broken client socket) are logged; the Host keeps serving.
      server.on('error', report)
      resolve(server)
    })
  })
}

/** How the bound address appears in a URL (wildcards are reached through loopback). */
function urlHostOf(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

/**
 * The built web UI: `dist/` of the @tangent/web package, found through Node's package resolver
 * rather than a path relative to this file, which differs once the CLI is bundled (the code
 * then runs from packages/cli/dist/chunks/; docs/architecture.md §9).
 */
function defaultWebRoot(): string {
  try {
    const manifest = createRequire(import.meta.url).resolve('@tangent/web/package.json')
    return path.join(path.dirname(manifest), 'dist')
  } catch {
    // Not installed beside the Host: the workspace layout, next to this package (unbundled).
    return fileURLToPath(new URL('../../web/dist', import.meta.url))
  }
}
