// Picks the Backend for a command: the Host when one is live on the data dir (its discovery
// file answers), else the runtime in this process. A command that writes also serves the
// store to other local commands while it runs (docs/architecture.md §9): a second terminal
// finds it through host.json and goes through it instead of hitting the writer lock.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { inProcessApi, Runtime } from '@tangent/runtime'
import { ApiBackend } from './api-backend.js'
import type { Backend } from './backend.js'
import type { CliContext } from './context.js'
import { failoverApi, type OpenedApi } from './failover-api.js'
import { hostEnvironmentReason } from './host-environment.js'
import { safeText } from './render/style.js'

export interface OpenBackendOptions {
  /** Commands that only read open the store without the writer lock and serve nothing. */
  readOnly?: boolean
  /** Where the runtime's warnings go (default: stderr, as `tangent: <line>`); `tangent doctor` lists them. */
  report?: (line: string) => void
  /**
   * A command that lives long (`acp`, `chat`): when the Host it goes through closes (another
   * command that served the data dir ended), the next call opens the data dir again
   * (failover-api.ts) instead of failing from then on.
   */
  reopen?: boolean
}

/** How long a command waits for a Host to appear when another process just took the lock. */
const lockedWaitMs = 3000
/** How long a serving command waits, after the turns it served, for their clients to read the answers and leave. */
const servedClientsGraceMs = 5000
/** How long a serving command stopped by SIGTERM/SIGHUP takes at most to close before it exits anyway. */
const stopOnSignalMs = 1000

// The Host is loaded on demand (not to dodge a cycle: for start-up time): a command that reads
// never serves, and `--help` or a usage error needs none of it. The runtime is imported as any
// module: in the bundle it is part of the read chunk, which every command that opens a backend
// loads (scripts/postbuild.mjs), so importing it on demand would only look lazy.
export async function openBackend(context: CliContext, options: OpenBackendOptions = {}): Promise<Backend> {
  const opened = await openSessionApi(context, options)
  return new ApiBackend(opened.api, opened.close, () => opened.hostPid)
}

/** What opening the data dir reads of the CLI's context (an embedder, @tangent/sdk, gives these). */
export type OpenContext = Pick<CliContext, 'home' | 'env' | 'cwd' | 'stderr'>

/**
 * The SessionApi a command works with, opened as every command opens it: the data dir's Host, else
 * the runtime in this process (served to other commands while it writes). @tangent/sdk's
 * `Tangent.open` is this, so a program and a command share one data dir the same way.
 */
export async function openSessionApi(
  context: OpenContext,
  options: OpenBackendOptions = {},
): Promise<OpenedApi> {
  assertHomeIsDirectory(context.home)
  const opened = await openApi(context, options)
  if (!options.reopen || options.readOnly) return opened
  const api = failoverApi(opened, () => openApi(context, options))
  return {
    api,
    close: () => api.close(),
    get hostPid() {
      return api.hostPid
    },
  }
}

/** The Host when one serves the data dir, else the runtime in this process (served when it writes). */
async function openApi(context: OpenContext, options: OpenBackendOptions): Promise<OpenedApi> {
  const viaHost = await connectRunningHost(context)
  if (viaHost) return viaHost
  const runtimeOptions = {
    home: context.home,
    env: context.env,
    startFolder: context.cwd,
    // A command that lives across turns (chat, tui, acp) watches its sessions' folders between them.
    watchFiles: options.reopen === true,
    report: (error: unknown) => {
      const line = error instanceof Error ? error.message : String(error)
      if (options.report) options.report(line)
      else context.stderr.write(`tangent: ${safeText(line)}\n`)
    },
  }
  if (options.readOnly) {
    const runtime = await Runtime.open({ ...runtimeOptions, readOnly: true })
    const api = inProcessApi(runtime)
    return { api, close: () => api.close() }
  }
  let runtime: Runtime
  try {
    runtime = await Runtime.open(runtimeOptions)
  } catch (error) {
    if (!TangentError.hasCode(error, 'store-locked')) throw error
    // Another command may have taken the lock a moment ago and be about to serve it, or be
    // finishing (flushing, closing) and about to let it go: whichever comes first.
    const next = await waitForHostOrLock(context, () => Runtime.open(runtimeOptions), lockedWaitMs)
    if (next === null) throw await storeLocked(context.home, error)
    if (next.kind === 'host') return next.opened
    runtime = next.runtime
  }
  const close = await serveWhileRunning(context, runtime)
  return { api: inProcessApi(runtime, { close }), close }
}

/** Serves the runtime on a free loopback port; the returned close waits for the turns it served. */
async function serveWhileRunning(context: OpenContext, runtime: Runtime): Promise<() => Promise<void>> {
  const { serveRuntime } = await import('@tangent/host')
  let host: Awaited<ReturnType<typeof serveRuntime>> | null = null
  try {
    host = await serveRuntime(runtime, {
      port: 0,
      env: context.env,
      handleSignals: false,
      log: (message) => context.stderr.write(`${safeText(message)}\n`),
    })
  } catch (error) {
    // Without a listener other terminals get store-locked, as before; this command still runs.
    context.stderr.write(
      `tangent: could not serve the data dir to other commands (${safeText(error instanceof Error ? error.message : String(error))})\n`,
    )
  }
  let closing: Promise<void> | null = null
  // Asked to stop (an editor closing its agent after the grace it gives, a service manager): the
  // turns served here end aborted and the data dir is let go (host.json removed) before exiting,
  // not left to a default signal death that would leave host.json naming a dead process.
  //
  // Listening with `on`, not `once`, and staying registered until the process exits: a library
  // that restores the terminal on a signal (Ink, for `tangent tui`, through signal-exit) re-raises
  // the signal when it finds itself the only listener left, which would kill the process ~70 ms
  // in, before the runtime closed and the lock was let go. Ours still listening, it only cleans up
  // on the process.exit below.
  let stopping = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    const code = signal === 'SIGHUP' ? 129 : 143
    setTimeout(() => process.exit(code), stopOnSignalMs).unref()
    void (async () => {
      await host?.close()
      await runtime.close()
    })().finally(() => process.exit(code))
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGHUP', onSignal)
  return () => {
    process.off('SIGTERM', onSignal)
    process.off('SIGHUP', onSignal)
    closing ??= (async () => {
      const running = runtime.runningSessions()
      if (running.length > 0) {
        context.stderr.write(
          `tangent: waiting for ${running.length === 1 ? 'a turn' : `${running.length} turns`} another terminal started here (${running.join(', ')}); Ctrl-C to stop it\n`,
        )
      }
      // Turns other terminals run here end first; then their commands get a moment to read
      // the answer and disconnect (a turn one of them starts meanwhile is waited for too).
      await runtime.settled()
      const deadline = Date.now() + servedClientsGraceMs
      while (host !== null && host.connections > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25))
        await runtime.settled()
      }
      await host?.close()
      await runtime.close()
    })()
    return closing
  }
}

async function connectRunningHost(context: OpenContext): Promise<OpenedApi | null> {
  // No discovery file, no Host: skip loading the Host's module just to learn that.
  if (!fs.existsSync(path.join(context.home, 'host.json'))) return null
  const { connectHostApi, readHostDiscovery } = await import('@tangent/host')
  return connectViaDiscovery(
    () => readHostDiscovery(context.home),
    async (discovery): Promise<OpenedApi> => {
      const api = await connectHostApi(discovery)
      return { api, close: () => api.close(), hostPid: discovery.pid }
    },
  )
}

/**
 * Connects to the Host the discovery names, or null when there is none. A Host can close between
 * its health check (in `read`) and the connection — a command that served the data dir while it
 * ran, ending as this one starts: when the connection is refused and the discovery no longer
 * names a live Host, there is none; while it still does, the refusal is the error.
 */
export async function connectViaDiscovery<D, A>(
  read: () => Promise<D | null>,
  connect: (discovery: D) => Promise<A>,
): Promise<A | null> {
  const discovery = await read()
  if (discovery === null) return null
  try {
    return await connect(discovery)
  } catch (error) {
    if (TangentError.hasCode(error, 'host-unreachable') && (await read()) === null) return null
    throw error
  }
}

/**
 * Waits up to `timeoutMs` for the lock's holder either to serve the data dir (a Host appears) or
 * to let the lock go (a command ending): the first is taken. Null when neither happened.
 */
async function waitForHostOrLock(
  context: OpenContext,
  open: () => Promise<Runtime>,
  timeoutMs: number,
): Promise<{ kind: 'host'; opened: OpenedApi } | { kind: 'runtime'; runtime: Runtime } | null> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const opened = await connectRunningHost(context).catch(() => null)
    if (opened) return { kind: 'host', opened }
    try {
      return { kind: 'runtime', runtime: await open() }
    } catch (error) {
      if (!TangentError.hasCode(error, 'store-locked')) throw error
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return null
}

async function storeLocked(home: string, error: TangentError): Promise<TangentError> {
  const pid = typeof error.data.pid === 'number' ? `process ${error.data.pid}` : 'another process'
  const lock = typeof error.data.file === 'string' ? ` (lock ${error.data.file})` : ''
  // Only on this error path: the Host's module is not loaded for a command that takes the lock.
  const { readHostDiscoveryFile } = await import('@tangent/host')
  const discovery = readHostDiscoveryFile(home)
  const host = discovery && { pid: discovery.pid, url: new URL(discovery.url).origin }
  if (host && host.pid === error.data.pid) {
    // The holder is the Host this data dir names, alive but not answering its health check.
    return new TangentError(
      'store-locked',
      `The data dir ${home} is served by a Host (process ${host.pid}, ${host.url}) that does not answer: it may be stopped (Ctrl-Z: resume it with \`fg\` or \`kill -CONT ${host.pid}\`) or hung (stop it with \`kill ${host.pid}\`). Its lock is live: do not remove it.`,
      error.data,
      { cause: error },
    )
  }
  return new TangentError(
    'store-locked',
    `The data dir ${home} is locked by ${pid}${lock}, which does not serve it to other commands. Wait for it to finish, or run \`tangent serve\` so every command goes through one Host. If that process is gone, remove the lock file.`,
    error.data,
    { cause: error },
  )
}

/** A data dir that exists must be a directory (a missing one is created by the store). */
function assertHomeIsDirectory(home: string): void {
  const stat = fs.statSync(home, { throwIfNoEntry: false })
  if (stat && !stat.isDirectory()) {
    throw new TangentError(
      'home-not-directory',
      `The data directory ${home} is not a directory: point TANGENT_HOME at a directory (or unset it for the default).`,
      { home },
    )
  }
}

/** Opens a backend, runs `work` with it and always closes it. */
export async function withBackend<T>(
  context: CliContext,
  options: OpenBackendOptions,
  work: (backend: Backend) => Promise<T>,
): Promise<T> {
  const backend = await openBackend(context, options)
  try {
    return await work(backend)
  } catch (error) {
    throw inHostWords(error, backend, context)
  } finally {
    await backend.close()
  }
}

/**
 * withBackend for a command about one session: the id or unique prefix a person gave is
 * resolved to the full id first (docs/protocol.md `session.resolve`), which `work` gets and
 * the answer carries, so what the command prints names the whole id.
 */
export function withSession<T>(
  context: CliContext,
  options: OpenBackendOptions,
  idOrPrefix: string,
  work: (backend: Backend, sessionId: string) => Promise<T>,
): Promise<{ sessionId: string; result: T }> {
  return withBackend(context, options, async (backend) => {
    const sessionId = await backend.resolveSession(idOrPrefix)
    return { sessionId, result: await work(backend, sessionId) }
  })
}

/**
 * A model that cannot run for want of a variable, when commands go through a Host: the Host's
 * environment is the one that counts, not this shell's, and the message says so.
 */
function inHostWords(error: unknown, backend: Backend, context: CliContext): unknown {
  if (backend.kind !== 'host' || !TangentError.hasCode(error, 'model-unavailable')) return error
  const message = hostEnvironmentReason(error.message, backend, context.env)
  return message === error.message
    ? error
    : new TangentError(error.code, message, error.data, { cause: error })
}
