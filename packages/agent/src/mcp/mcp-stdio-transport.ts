// The stdio transport of a server Tangent starts (docs/architecture.md §14.3). Tangent owns the
// process: close() resolves only once it has exited — stdin closed, then SIGTERM, then SIGKILL,
// each to its process group too when it made one — so a command that closes its runtime leaves no
// server behind, whatever state it was in (starting, timed out, running). The SDK's own transport
// ends the process on unref'd timers nobody awaits, and a CLI that exits first orphans it.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { PassThrough } from 'node:stream'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

export interface McpStdioTransportOptions {
  command: string
  args: readonly string[]
  env: Record<string, string>
  cwd: string
  /** How long each step of close() waits for the process to exit before the next, harder one. */
  graceMs?: number
}

const defaultGraceMs = 1_000

export class McpStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** What the server writes to stderr (kept by the caller, never printed). */
  readonly stderr = new PassThrough()
  readonly #options: McpStdioTransportOptions
  readonly #readBuffer = new ReadBuffer()
  #child: ChildProcessWithoutNullStreams | null = null
  /** Resolves when the process has exited (or never started). */
  #exited: Promise<void> | null = null
  #hasExited = false
  #closing: Promise<void> | null = null

  constructor(options: McpStdioTransportOptions) {
    this.#options = options
  }

  /** The server's process id once spawned (kept after it exits). */
  pid: number | undefined

  start(): Promise<void> {
    if (this.#child) throw new Error('the MCP server process is already started')
    // Closed before it started (the runtime closed while the SDK was loading): nothing to spawn.
    if (this.#closing) return Promise.reject(new Error('closed by Tangent'))
    return new Promise((resolve, reject) => {
      const child = spawn(this.#options.command, [...this.#options.args], {
        env: this.#options.env,
        cwd: this.#options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
      })
      this.#child = child
      this.pid = child.pid
      this.#exited = new Promise((exited) => {
        const end = () => {
          this.#hasExited = true
          exited()
        }
        // The process is gone at 'exit' (or when no process started: ENOENT, EACCES); 'close'
        // comes once its pipes are drained too, so the last answer it wrote is read first.
        child.once('exit', end)
        child.on('error', (error) => {
          if (child.pid === undefined) end()
          reject(error)
          this.onerror?.(error)
        })
      })
      child.once('close', () => this.onclose?.())
      child.once('spawn', () => resolve())
      child.stdin.on('error', (error) => this.onerror?.(error))
      child.stdout.on('error', (error) => this.onerror?.(error))
      child.stdout.on('data', (chunk: Buffer) => {
        this.#readBuffer.append(chunk)
        this.#readMessages()
      })
      child.stderr.pipe(this.stderr)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child
    if (!child || this.#hasExited) return Promise.reject(new Error('the MCP server is not running'))
    return new Promise((resolve) => {
      if (child.stdin.write(serializeMessage(message))) resolve()
      else child.stdin.once('drain', resolve)
    })
  }

  /** Ends the process and resolves once it has exited. Idempotent: every caller awaits the same end. */
  close(): Promise<void> {
    this.#closing ??= this.#stop()
    return this.#closing
  }

  async #stop(): Promise<void> {
    const child = this.#child
    const exited = this.#exited
    if (!child || !exited) return
    const grace = this.#options.graceMs ?? defaultGraceMs
    // The MCP stdio shutdown: close its input, then SIGTERM, then SIGKILL.
    child.stdin.end()
    if (!(await exitedWithin(exited, grace))) {
      signalServer(child.pid, 'SIGTERM')
      if (!(await exitedWithin(exited, grace))) {
        signalServer(child.pid, 'SIGKILL')
        await exited
      }
    }
    // What is left of a group it made goes too; a child of it that still holds our pipes (and so
    // holds back 'close') is let go of.
    signalGroup(child.pid, 'SIGKILL')
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy()
    this.#readBuffer.clear()
  }

  #readMessages(): void {
    for (;;) {
      let message: JSONRPCMessage | null
      try {
        message = this.#readBuffer.readMessage()
      } catch (error) {
        // A line that is not JSON-RPC is the server's fault; the next line may be fine.
        this.onerror?.(error as Error)
        continue
      }
      if (message === null) return
      this.onmessage?.(message)
    }
  }
}

/** True when the process exited within `ms`; the timer holds the event loop, so the wait is real. */
async function exitedWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([exited.then(() => true), timedOut])
  } finally {
    clearTimeout(timer)
  }
}

/** Signals the server and, when it made one (a `setsid` launcher), its process group. */
function signalServer(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return
  signalGroup(pid, signal)
  try {
    process.kill(pid, signal)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ESRCH' && code !== 'EPERM') throw error
  }
}

/**
 * A group whose id is the server's pid exists only if the server leads it (a pid is not reused
 * while a group bears it), so this never reaches Tangent's own group. ESRCH: no such group, or
 * it is gone already — both fine. EPERM: a member changed its user; nothing more we can do.
 */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ESRCH' && code !== 'EPERM') throw error
  }
}
