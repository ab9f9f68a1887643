// The composition root of a Host: opens the store (taking the writer lock), files,
// models and workspaces, serves HTTP + WebSocket on loopback, writes the discovery file.
import fs from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { Agent, defaultModelId, ModelRegistry, providerNames } from '@tangent/agent'
import { TangentError } from '@tangent/core'
import { FileState } from '@tangent/files'
import { JsonlStore } from '@tangent/store-jsonl'
import { AgentPool } from './agent-pool.js'
import { generateToken, ownOrigins } from './auth.js'
import { ConnectionHub } from './connections.js'
import { removeHostDiscovery, writeHostDiscovery } from './discovery.js'
import { ForkRequests } from './fork-requests.js'
import type { HostContext } from './host-context.js'
import { createHttpApp } from './http-app.js'
import { createMethodHandlers } from './methods/index.js'
import { createRpcRouter } from './rpc-router.js'
import { wireSessionNotifications } from './session-notifications.js'
import { type SnapshotGcSchedule, scheduleSnapshotGc } from './snapshot-gc.js'
import { attachWebSocketRpc } from './websocket-rpc.js'
import { WorkspaceRegistry } from './workspaces.js'

export interface HostOptions {
  /** TANGENT_HOME: sessions, catalog, snapshots, workspaces.json, host.json. */
  home: string
  /** Default 4317; 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Default: TANGENT_TOKEN of `env`, else random per start. */
  token?: string
  /** The built web UI (default: `packages/web/dist` next to this package). */
  webRoot?: string
  /** Model of new sessions and of logs without a selection (default `demo:scripted`). */
  defaultModel?: string
  /** Environment for provider keys and TANGENT_DEMO_DELAY_MS (default process.env). */
  env?: Record<string, string | undefined>
  /** Delay between demo model deltas (default: TANGENT_DEMO_DELAY_MS of `env`). */
  demoDelayMs?: number
  /** Working directory of sessions created without a workspace or cwd (default process.cwd()). */
  defaultCwd?: string
  /** Close (and remove host.json) on SIGINT/SIGTERM, then exit. Default true. */
  handleSignals?: boolean
  /** When the snapshot store is garbage-collected (default: 10 min after start, then daily). */
  snapshotGc?: SnapshotGcSchedule
  /** Where unexpected errors are logged (default console.error). */
  log?: (message: string) => void
}

export interface RunningHost {
  /** The Host's origin, e.g. `http://127.0.0.1:4317`. */
  readonly url: string
  readonly port: number
  readonly token: string
  readonly home: string
  /** An HTTP request answered in-process by the Host's app (no socket), e.g. `request('/healthz')`. */
  request(input: string, init?: RequestInit): Promise<Response>
  /** Aborts running turns, closes sockets and the store, removes host.json. Idempotent. */
  close(): Promise<void>
}

export async function startHost(options: HostOptions): Promise<RunningHost> {
  const home = path.resolve(options.home)
  await fs.mkdir(home, { recursive: true, mode: 0o700 })
  const log = options.log ?? ((message: string) => console.error(message))
  const report = (error: unknown) =>
    log(`tangent host: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  const env = options.env ?? process.env
  const token = options.token ?? (env.TANGENT_TOKEN || generateToken())
  const bindHost = options.host ?? '127.0.0.1'
  const defaultModel = options.defaultModel ?? defaultModelId

  const persistence = await JsonlStore.open({ dir: home })
  let unwire = () => {}
  try {
    const files = new FileState({ home })
    const models = new ModelRegistry({
      env,
      ...(options.demoDelayMs !== undefined ? { demoDelayMs: options.demoDelayMs } : {}),
    })
    const workspaces = await WorkspaceRegistry.open(home)
    const forkRequests = ForkRequests.fromHeaders(() => persistence.headers())
    const hub = new ConnectionHub()
    const agents = new AgentPool(
      (session) =>
        new Agent({
          session,
          flush: () => persistence.flush(session.id),
          models,
          defaultModel,
          snapshot: (live) => files.snapshot(live.header.cwd),
        }),
      (sessionId, delta) =>
        hub.notifySubscribers(sessionId, 'session.delta', { sessionId, kind: delta.kind, text: delta.text }),
    )
    const context: HostContext = {
      home,
      version: await readVersion(),
      defaultModel,
      // Real paths everywhere, so one directory is always the same string (shared activity, workspaces).
      defaultCwd: await fs.realpath(options.defaultCwd ?? process.cwd()),
      persistence,
      files,
      models,
      validateModel,
      workspaces,
      hub,
      agents,
      forkRequests,
      report,
    }
    // Wired before the first connection can arrive, so no append goes unannounced.
    unwire = wireSessionNotifications(context)
    const router = createRpcRouter(createMethodHandlers(context), report)
    const app = createHttpApp({ token, router, webRoot: options.webRoot ?? defaultWebRoot(), report })
    const server = await listen(app.fetch, options.port ?? 4317, bindHost, report)
    const port = (server.address() as AddressInfo).port
    const url = `http://${urlHostOf(bindHost)}:${port}`
    const sockets = attachWebSocketRpc(server, {
      token,
      allowedOrigins: ownOrigins(bindHost, port),
      router,
      hub,
      report,
    })
    const stopServing = async () => {
      await sockets.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
    try {
      await writeHostDiscovery(home, { pid: process.pid, port, token, url })
    } catch (error) {
      await stopServing()
      throw error
    }
    const stopGc = scheduleSnapshotGc(files, report, options.snapshotGc)
    // A crash in the middle of a worktree fork leaves a worktree (and its branch in the
    // user's repository) that no session owns: clean those up, in the background.
    const reconciling = reconcileOrphanWorktrees(context, Date.now(), log).catch(report)

    let closing: Promise<void> | null = null
    const close = () => {
      closing ??= (async () => {
        removeSignalHandlers()
        stopGc()
        removeHostDiscovery(home, token)
        agents.abortAll()
        await stopServing()
        await agents.settled()
        await reconciling
        unwire()
        await persistence.close()
      })()
      return closing
    }
    const onSignal = (signal: NodeJS.Signals) => {
      void close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
    }
    // If the process exits some other way, at least the discovery file goes.
    const onExit = () => removeHostDiscovery(home, token)
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
    const request = async (input: string, init?: RequestInit) => app.request(input, init)
    return { url, port, token, home, request, close }
  } catch (error) {
    unwire()
    await persistence.close()
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

/** `provider:model` of a known provider, else `invalid-model` (unavailable is fine: that is checked at prompt). */
function validateModel(id: string): { provider: string; model: string } {
  const parsed = ModelRegistry.parse(id)
  if (!(providerNames as readonly string[]).includes(parsed.provider)) {
    throw new TangentError(
      'invalid-model',
      `Unknown model provider "${parsed.provider}" in "${id}": use one of ${providerNames.join(', ')}.`,
      { model: id },
    )
  }
  return parsed
}

/** How the bound address appears in a URL (wildcards are reached through loopback). */
function urlHostOf(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

function defaultWebRoot(): string {
  return fileURLToPath(new URL('../../web/dist', import.meta.url))
}

async function readVersion(): Promise<string> {
  const text = await fs.readFile(new URL('../package.json', import.meta.url), 'utf8')
  const version = (JSON.parse(text) as { version?: unknown }).version
  return typeof version === 'string' ? version : '0.0.0'
}

async function reconcileOrphanWorktrees(
  context: HostContext,
  startedAt: number,
  log: (message: string) => void,
): Promise<void> {
  const known = new Set((await context.persistence.list()).map((entry) => entry.id))
  const result = await context.files.reconcileWorktrees(
    (sessionId) => known.has(sessionId) || context.persistence.store.has(sessionId),
    // Forks made by this Host are finishing or published: only older records can be orphans.
    { createdBefore: startedAt },
  )
  for (const removed of result.removed) log(`tangent host: removed ${removed}, a worktree no session owns`)
  for (const kept of result.kept) log(`tangent host: kept ${kept.path} (no session owns it): ${kept.reason}`)
}
