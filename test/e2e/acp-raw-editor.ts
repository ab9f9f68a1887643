// A scripted editor that speaks raw newline-delimited JSON-RPC to `tangent acp` (a child
// process): it records every line both sides write, so a test sees every byte and can send what
// no SDK client would (a malformed line, a request without params, an unknown method). It
// answers the agent's client-side requests (permission, fs, terminal) for real, per the schema.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { AcpSide } from './acp-schema.js'
import { cliMain, type Sandbox } from './cli-harness.js'

/** One line of the conversation; `invalid` marks what the editor broke on purpose, and why. */
export interface TranscriptEntry {
  from: AcpSide
  line: string
  invalid?: string
}

export interface RawError {
  code: number
  message: string
  data?: unknown
}

/** A response as it came: exactly one of `result` and `error` (the validator checks that). */
export interface RawResponse<T = Record<string, unknown>> {
  id: unknown
  result?: T
  error?: RawError
}

/** The params of a `session/update` (loosely typed: the validator holds the real shape). */
export interface RawSessionNotification {
  sessionId: string
  update: { sessionUpdate: string; [key: string]: unknown }
  _meta?: Record<string, unknown>
}

/** A request the agent sent the editor, with the answer the editor gave once it has. */
export interface AgentCall {
  id: unknown
  method: string
  params: Record<string, unknown>
  /** The position in `transcript` of the agent's line. */
  at: number
  answered: boolean
}

/**
 * How the editor answers one client-side method: a result, or a thrown `ClientError` (any other
 * throw answers -32603). May wait (a permission request the test answers later).
 */
export type ClientHandler = (params: Record<string, unknown>, call: AgentCall) => unknown

export class ClientError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

interface Terminal {
  child: ChildProcess
  output: string
  truncated: boolean
  limit: number
  exit: Promise<{ exitCode: number | null; signal: string | null }>
  exitStatus?: { exitCode: number | null; signal: string | null }
}

export class RawAcpEditor {
  /** Every line each side wrote, in order, without its newline. */
  readonly transcript: TranscriptEntry[] = []
  /** Every session/update the agent sent (params). */
  readonly updates: RawSessionNotification[] = []
  /** Every other notification the agent sent (`$/cancel_request` withdrawing a request of its own…). */
  readonly agentNotifications: { method: string; params: Record<string, unknown> }[] = []
  /** Every request the agent sent. */
  readonly agentCalls: AgentCall[] = []
  /** How the editor answers the agent's requests, by method; replace one to script a step. */
  readonly handlers: Record<string, ClientHandler>
  private nextId = 1
  private readonly waiting = new Map<
    string,
    { method: string; resolve: (response: RawResponse) => void; reject: (error: Error) => void }
  >()
  private readonly disposeClientSide: () => void
  private stdoutTail = ''
  private stderrText = ''
  private readonly exited: Promise<number | null>

  private constructor(readonly child: ChildProcess) {
    const clientSide = createClientHandlers()
    this.handlers = clientSide.handlers
    this.disposeClientSide = clientSide.dispose
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        // A request the agent can no longer answer fails its step at once, with the agent's stderr.
        for (const { method, reject } of this.waiting.values())
          reject(
            new Error(
              `tangent acp exited (${code ?? signal}) before answering ${method}:\n${this.stderrText}`,
            ),
          )
        this.waiting.clear()
        resolve(code)
      }),
    )
    // Writing to an agent that died is reported through the exit above, not as a crash of the test.
    child.stdin!.on('error', (error) => {
      this.stderrText += `\n[editor] stdin: ${error.message}`
    })
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText += chunk
    })
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.stdoutTail + chunk).split('\n')
      this.stdoutTail = lines.pop()!
      for (const line of lines) this.received(line)
    })
  }

  /** Starts `tangent acp` in the sandbox (the demo model answers). */
  static start(sandbox: Sandbox, env: Record<string, string> = {}): RawAcpEditor {
    const child = spawn(process.execPath, [cliMain, 'acp'], {
      cwd: sandbox.cwd,
      env: { ...sandbox.env, ...env } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    return new RawAcpEditor(child)
  }

  get stderr(): string {
    return this.stderrText
  }

  /** What the agent wrote after its last newline (a torn line): empty when every line ended. */
  get unterminated(): string {
    return this.stdoutTail
  }

  /**
   * Sends a request and resolves with its response, error or not. `params: undefined` sends none;
   * `invalid` says why a request breaks the schema on purpose (the conformance check expects it
   * refused); `id` replaces the editor's own counter (a string id, say).
   */
  request<T = Record<string, unknown>>(
    method: string,
    params?: unknown,
    options: { invalid?: string; id?: string | number } = {},
  ): Promise<RawResponse<T>> {
    const id = options.id ?? this.nextId++
    const answered = new Promise<RawResponse>((resolve, reject) =>
      this.waiting.set(JSON.stringify(id), { method, resolve, reject }),
    )
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }, options.invalid)
    return answered as Promise<RawResponse<T>>
  }

  /** A request that must succeed: its result (an error fails the step with the agent's words). */
  async call<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> {
    const response = await this.request<T>(method, params)
    if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`)
    return response.result as T
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params })
  }

  /** Writes one line as is (a newline is added): for lines no conforming client would send. */
  sendLine(line: string, invalid?: string): void {
    this.transcript.push({ from: 'client', line, ...(invalid ? { invalid } : {}) })
    this.child.stdin!.write(`${line}\n`)
  }

  /** Resolves when the condition holds; fails after `timeoutMs` naming what it waited for. */
  async waitFor(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!condition()) {
      if (Date.now() > deadline || this.child.exitCode !== null)
        throw new Error(`timed out waiting for ${what}; agent stderr:\n${this.stderrText}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** The next request of `method` the agent sends from now on (or one already unanswered). */
  async nextAgentCall(method: string, timeoutMs?: number): Promise<AgentCall> {
    let found: AgentCall | undefined
    await this.waitFor(
      `the agent's ${method}`,
      () => {
        found = this.agentCalls.find((call) => call.method === method && !call.answered)
        return found !== undefined
      },
      timeoutMs,
    )
    return found!
  }

  /** Ends stdin (the editor closes) and waits for the agent to exit (SIGKILL after 10 s). */
  async close(): Promise<number | null> {
    this.disposeClientSide()
    this.child.stdin!.end()
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000)
    const code = await this.exited
    clearTimeout(timer)
    return code
  }

  private send(message: Record<string, unknown>, invalid?: string): void {
    this.sendLine(JSON.stringify(message), invalid)
  }

  private received(line: string): void {
    const at = this.transcript.length
    this.transcript.push({ from: 'agent', line })
    let message: Record<string, unknown>
    try {
      message = JSON.parse(line) as Record<string, unknown>
    } catch {
      return // The validator reports it.
    }
    if (typeof message.method === 'string') {
      const params = (message.params ?? {}) as Record<string, unknown>
      if (!('id' in message)) {
        if (message.method === 'session/update')
          this.updates.push(params as unknown as RawSessionNotification)
        else this.agentNotifications.push({ method: message.method, params })
        return
      }
      const call: AgentCall = { id: message.id, method: message.method, params, at, answered: false }
      this.agentCalls.push(call)
      void this.answer(call)
      return
    }
    const waiting = this.waiting.get(JSON.stringify(message.id))
    if (waiting) {
      this.waiting.delete(JSON.stringify(message.id))
      waiting.resolve(message as unknown as RawResponse)
    }
  }

  private async answer(call: AgentCall): Promise<void> {
    const handler = this.handlers[call.method]
    let reply: Record<string, unknown>
    try {
      if (!handler) throw new ClientError(-32601, `Method not found: ${call.method}`)
      reply = { result: (await handler(call.params, call)) ?? {} }
    } catch (error) {
      reply =
        error instanceof ClientError
          ? {
              error: {
                code: error.code,
                message: error.message,
                ...(error.data ? { data: error.data } : {}),
              },
            }
          : { error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }
    }
    call.answered = true
    if (this.child.stdin!.writable) this.send({ jsonrpc: '2.0', id: call.id, ...reply })
  }
}

/**
 * The editor's side of the client methods, for real: permission (allow once), files on disk,
 * terminals as child processes. `dispose` kills the terminals still running.
 */
export function createClientHandlers(): { handlers: Record<string, ClientHandler>; dispose(): void } {
  const terminals = new Map<string, Terminal>()
  let created = 0
  const terminalOf = (params: Record<string, unknown>): Terminal => {
    const terminal = terminals.get(String(params.terminalId))
    if (!terminal) throw new ClientError(-32002, `No terminal ${String(params.terminalId)}`)
    return terminal
  }
  const handlers: Record<string, ClientHandler> = {
    'session/request_permission': (params) => allowOnce(params),
    'fs/read_text_file': (params) => readTextFile(params),
    'fs/write_text_file': (params) => {
      fs.writeFileSync(absolutePath(params.path), String(params.content))
      return {}
    },
    'terminal/create': (params) => {
      const terminalId = `term-${++created}`
      terminals.set(terminalId, createTerminal(params))
      return { terminalId }
    },
    'terminal/output': (params) => {
      const terminal = terminalOf(params)
      return {
        output: terminal.output,
        truncated: terminal.truncated,
        ...(terminal.exitStatus ? { exitStatus: terminal.exitStatus } : {}),
      }
    },
    'terminal/wait_for_exit': (params) => terminalOf(params).exit,
    'terminal/kill': (params) => {
      terminalOf(params).child.kill('SIGKILL')
      return {}
    },
    'terminal/release': (params) => {
      terminalOf(params).child.kill('SIGKILL')
      terminals.delete(String(params.terminalId))
      return {}
    },
  }
  return {
    handlers,
    dispose: () => {
      for (const terminal of terminals.values()) terminal.child.kill('SIGKILL')
    },
  }
}

/** session/request_permission: the first `allow_once` option (else the first option). */
export function allowOnce(params: Record<string, unknown>): unknown {
  const options = params.options as { optionId: string; kind: string }[]
  const allow = options.find((option) => option.kind === 'allow_once') ?? options[0]!
  return { outcome: { outcome: 'selected', optionId: allow.optionId } }
}

/** terminal/create: a child process whose output (stdout and stderr) is kept up to outputByteLimit. */
function createTerminal(params: Record<string, unknown>): Terminal {
  const env = { ...process.env }
  for (const variable of (params.env ?? []) as { name: string; value: string }[])
    env[variable.name] = variable.value
  const child = spawn(String(params.command), (params.args ?? []) as string[], {
    cwd: typeof params.cwd === 'string' ? params.cwd : undefined,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let exited: (status: { exitCode: number | null; signal: string | null }) => void = () => {}
  const terminal: Terminal = {
    child,
    output: '',
    truncated: false,
    limit: typeof params.outputByteLimit === 'number' ? params.outputByteLimit : Number.POSITIVE_INFINITY,
    exit: new Promise((resolve) => {
      exited = (status) => {
        terminal.exitStatus ??= status
        resolve(terminal.exitStatus)
      }
    }),
  }
  child.once('close', (exitCode, signal) => exited({ exitCode, signal }))
  const collect = (chunk: Buffer) => {
    terminal.output += chunk.toString('utf8')
    // Keeps the end, cut at a character boundary (the schema's rule for outputByteLimit).
    while (Buffer.byteLength(terminal.output) > terminal.limit) {
      terminal.output = terminal.output.slice(1)
      terminal.truncated = true
    }
  }
  child.stdout!.on('data', collect)
  child.stderr!.on('data', collect)
  // A command that cannot start: its error is the output, and it has exited (no code, no signal).
  child.on('error', (error) => {
    terminal.output += String(error)
    exited({ exitCode: null, signal: null })
  })
  return terminal
}

function absolutePath(value: unknown): string {
  if (typeof value !== 'string' || !path.isAbsolute(value))
    throw new ClientError(-32602, `path must be absolute, got ${JSON.stringify(value)}`)
  return value
}

/** fs/read_text_file: the file's text, from `line` (1-based) for `limit` lines when given. */
function readTextFile(params: Record<string, unknown>): { content: string } {
  const file = absolutePath(params.path)
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    throw new ClientError(-32002, `No file ${file}`)
  }
  if (typeof params.line !== 'number' && typeof params.limit !== 'number') return { content: text }
  const lines = text.split('\n')
  const start = typeof params.line === 'number' ? Math.max(0, params.line - 1) : 0
  const end = typeof params.limit === 'number' ? start + params.limit : lines.length
  return { content: lines.slice(start, end).join('\n') }
}
