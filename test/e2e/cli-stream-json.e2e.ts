// `tangent run --stream-json` (issue 32): NDJSON on stdout, one line per event as the turn
// appends it, then the `result` line; in this process and through a running Host, through a
// reader that leaves early, and for a turn that fails or is stopped.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeProviderServer } from '../../packages/agent/src/testing/fake-provider-server.js'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  type Sandbox,
  startProcess,
  stopProcess,
  tangentInProcess,
  tangentJson,
} from './cli-harness.js'

interface StreamedEvent {
  seq: number
  time: number
  type: string
  data: Record<string, unknown>
}

interface ResultLine {
  type: 'result'
  sessionId: string
  turnEndSeq: number
  reason: string
  text: string
}

/** A running `tangent` whose stdout is read line by line as it arrives. */
class LineReader {
  readonly child: ChildProcess
  readonly #lines: string[] = []
  #partial = ''
  #waiting: (() => void) | null = null
  stderr = ''
  readonly exited: Promise<number>

  constructor(sandbox: Sandbox, args: readonly string[], env: Record<string, string | undefined> = {}) {
    this.child = spawn(process.execPath, [cliMain, ...args], {
      cwd: sandbox.cwd,
      env: { ...sandbox.env, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.#partial + chunk).split('\n')
      this.#partial = parts.pop()!
      this.#lines.push(...parts)
      this.#waiting?.()
    })
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk
    })
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code ?? -1)))
    void this.exited.then(() => this.#waiting?.())
  }

  /** The next whole line, or null once the process ended without one. */
  async next(): Promise<string | null> {
    for (;;) {
      const line = this.#lines.shift()
      if (line !== undefined) return line
      if (this.child.exitCode !== null || this.child.signalCode !== null) return null
      await new Promise<void>((resolve) => {
        this.#waiting = resolve
      })
      this.#waiting = null
    }
  }

  /** Every line up to the end of the process, and its exit code. */
  async rest(): Promise<{ lines: string[]; code: number }> {
    const code = await this.exited
    // After `close` every chunk has been read; a trailing partial line would be a bug it shows.
    const lines = [...this.#lines.splice(0), ...(this.#partial === '' ? [] : [this.#partial])]
    return { lines, code }
  }
}

/** The lines of a --stream-json run: events (all but the last) and the result (the last). */
function parseStream(lines: readonly string[]): { events: StreamedEvent[]; result: ResultLine } {
  // Each line must be JSON on its own: that is the format's promise.
  const values = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  const result = values.at(-1) as unknown as ResultLine
  return { events: values.slice(0, -1) as unknown as StreamedEvent[], result }
}

/** What every stream promises: seqs strictly increasing, one turn, the result line last and naming its end. */
function expectWellFormed(events: readonly StreamedEvent[], result: ResultLine): void {
  expect(result.type).toBe('result')
  for (const [index, event] of events.entries()) {
    expect(Object.keys(event).sort()).toEqual(['data', 'seq', 'time', 'type'])
    if (index > 0) expect(event.seq).toBeGreaterThan(events[index - 1]!.seq)
  }
  expect(events[0]!.type).toBe('turn/start')
  expect(events.filter((event) => event.type === 'turn/end')).toHaveLength(1)
  expect(events.at(-1)).toMatchObject({ type: 'turn/end', seq: result.turnEndSeq })
}

/**
 * Runs a turn whose bash call waits on a FIFO the test opens: the lines up to that call must be
 * out while the process still runs, and the rest only come once the test lets the call finish.
 * Ordering by what the turn is waiting for, never by how long anything took.
 */
async function streamedWhileRunning(sandbox: Sandbox): Promise<string> {
  const gate = path.join(sandbox.cwd, `gate-${Math.random().toString(36).slice(2)}`)
  execFileSync('mkfifo', [gate])
  const run = new LineReader(sandbox, ['run', '--stream-json', `run: cat ${path.basename(gate)}`], {
    TANGENT_DEMO_DELAY_MS: '2',
  })
  try {
    const early: string[] = []
    for (;;) {
      const line = await run.next()
      if (line === null) throw new Error(`tangent ended before the tool call: ${run.stderr}`)
      early.push(line)
      const event = JSON.parse(line) as StreamedEvent
      expect(event.type).not.toBe('result')
      if (event.type === 'assistant/message') break
    }
    // The tool is blocked on the FIFO: the turn cannot have ended, and the process still runs.
    expect(run.child.exitCode).toBeNull()
    expect(early.map((line) => (JSON.parse(line) as StreamedEvent).type)).toContain('user/message')
    fs.writeFileSync(gate, 'released\n')
    const { lines, code } = await run.rest()
    expect(run.stderr).toBe('')
    expect(code).toBe(0)
    const { events, result } = parseStream([...early, ...lines])
    expectWellFormed(events, result)
    expect(result.reason).toBe('completed')
    expect(events.find((event) => event.type === 'tool/result')?.data.output).toContain('released')
    expect(result.text).toContain('released')

    // The lines are the log's events, as `show --json` has them, from turn/start to turn/end.
    const shown = await tangentJson<{ events: StreamedEvent[] }>(sandbox, ['show', result.sessionId])
    const turnStart = events[0]!.seq
    expect(events).toEqual(
      shown.events.filter((event) => event.seq >= turnStart && event.seq <= result.turnEndSeq),
    )
    return result.sessionId
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGKILL')
    fs.rmSync(gate, { force: true })
  }
}

/** `tangent ARGS | PIPELINE` in bash: the exit code and stderr of `tangent` itself. */
function piped(sandbox: Sandbox, args: string, pipeline: string): Promise<{ code: number; stderr: string }> {
  const errFile = path.join(path.dirname(sandbox.home), `stderr-${Math.random().toString(36).slice(2)}`)
  const script = `"${process.execPath}" "${cliMain}" ${args} 2>"${errFile}" | ${pipeline}; echo "exit=\${PIPESTATUS[0]}"`
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: sandbox.cwd,
      env: sandbox.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.on('error', reject)
    child.on('close', () => {
      const stderr = fs.readFileSync(errFile, 'utf8')
      fs.rmSync(errFile, { force: true })
      resolve({ code: Number(/exit=(\d+)/.exec(stdout)?.[1] ?? -1), stderr })
    })
  })
}

describe('run --stream-json in this process', () => {
  let sandbox: Sandbox
  beforeAll(() => {
    sandbox = createSandbox()
  })
  afterAll(() => removeSandbox(sandbox))

  it('writes each event while the turn runs, seqs increasing, the result line last', async () => {
    await streamedWhileRunning(sandbox)
  })

  it('`| head -1` ends the output quietly while the turn goes on to its end', async () => {
    // The reader leaves after one line; only then is the turn's bash call let go, so every later
    // line is written to a pipe nobody reads (EPIPE), deterministically.
    execFileSync('mkfifo', [path.join(sandbox.cwd, 'head-gate')])
    const result = await piped(
      sandbox,
      'run --stream-json "run: cat head-gate"',
      // `exec 0<&-`: the subshell lets go of the pipe too, so no reader is left.
      '(head -1 >"$TANGENT_HOME/../first-line"; exec 0<&-; echo go > head-gate)',
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const first = JSON.parse(fs.readFileSync(path.join(sandbox.home, '..', 'first-line'), 'utf8'))
    expect(first).toMatchObject({ type: 'turn/start' })
    // The turn was not cut in half: it ran to its end in the log.
    const sessions = await tangentJson<{ id: string; title: string }[]>(sandbox, ['sessions'])
    const session = sessions.find((candidate) => candidate.title === 'run: cat head-gate')!
    const shown = await tangentJson<{ events: StreamedEvent[] }>(sandbox, ['show', session.id])
    expect(shown.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
    expect(shown.events.find((event) => event.type === 'tool/result')?.data.output).toContain('go')
  })

  it('a call nobody can approve is denied as `run` does: its events in the stream, the notice on stderr', async () => {
    const config = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent')
    fs.mkdirSync(config, { recursive: true })
    fs.writeFileSync(path.join(config, 'config.json'), JSON.stringify({ permission: { bash: 'ask' } }))
    try {
      // In this process (the same command code, no process start); stdin is not a terminal.
      const result = await tangentInProcess(sandbox, ['run', '--stream-json', 'run: echo asked'], {
        input: '',
      })
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/^tangent: denied bash: echo asked \(no terminal to ask: pass/m)
      const { events, result: end } = parseStream(result.stdout.trimEnd().split('\n'))
      expectWellFormed(events, end)
      expect(events.find((event) => event.type === 'permission/answered')?.data).toMatchObject({
        decision: 'deny',
        by: 'no-terminal',
      })
    } finally {
      fs.rmSync(path.join(config, 'config.json'))
    }
  })

  it('a failed turn still ends with the result line, and exits 1 with the error on stderr', async () => {
    const model = await startFakeProviderServer([
      {
        status: 400,
        json: { error: { message: 'the fake provider refuses this', type: 'invalid_request_error' } },
      },
    ])
    try {
      const withModel = {
        ...sandbox,
        env: { ...sandbox.env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseUrl },
      }
      const result = await tangentInProcess(
        withModel,
        ['run', '--stream-json', '--model', 'openai:gpt-4.1', 'hello'],
        {
          input: '',
        },
      )
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^error\[turn-error\]: .*the fake provider refuses this/m)
      const { events, result: end } = parseStream(result.stdout.trimEnd().split('\n'))
      expectWellFormed(events, end)
      expect(end.reason).toBe('error')
      expect(events.at(-1)?.data).toMatchObject({ reason: 'error' })
    } finally {
      await model.close()
    }
  })

  it('a turn stopped with Ctrl-C ends with an `aborted` result line and exit 130', async () => {
    execFileSync('mkfifo', [path.join(sandbox.cwd, 'never')])
    const run = new LineReader(sandbox, ['run', '--stream-json', 'run: cat never'])
    try {
      const early: string[] = []
      for (;;) {
        const line = await run.next()
        if (line === null) throw new Error(`tangent ended before the tool call: ${run.stderr}`)
        early.push(line)
        if ((JSON.parse(line) as StreamedEvent).type === 'assistant/message') break
      }
      run.child.kill('SIGINT')
      const { lines, code } = await run.rest()
      expect(code).toBe(130)
      const { events, result } = parseStream([...early, ...lines])
      expectWellFormed(events, result)
      expect(result.reason).toBe('aborted')
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL')
    }
  })

  it('--json with --stream-json is bad usage, with nothing on stdout and no session made', async () => {
    const result = await tangentInProcess(sandbox, ['run', '--json', '--stream-json', 'hello'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/--json .* or --stream-json .*not both/)
    const before = await tangentJson<unknown[]>(sandbox, ['sessions', '--all'])
    const again = await tangentInProcess(sandbox, ['run', '--stream-json', '--json', 'hello'])
    expect(again.code).toBe(2)
    expect(await tangentJson<unknown[]>(sandbox, ['sessions', '--all'])).toHaveLength(before.length)
  })
})

describe('run --stream-json through a running Host', () => {
  let sandbox: Sandbox
  let serve: ChildProcess
  let started: { url: string; token: string }
  beforeAll(async () => {
    sandbox = createSandbox()
    sandbox.env.TANGENT_DEMO_DELAY_MS = '2'
    const { child, line } = await startProcess(
      process.execPath,
      [cliMain, 'serve', '--port', '0', '--json'],
      {
        cwd: sandbox.cwd,
        env: sandbox.env,
        ready: /^\{.*"token"/,
      },
    )
    serve = child
    started = JSON.parse(line) as typeof started
  })
  afterAll(async () => {
    if (serve) await stopProcess(serve)
    removeSandbox(sandbox)
  })

  it('streams the same lines, from the Host, while the turn runs', async () => {
    // `serve` holds the store's writer lock: a run that did not go through it could not write.
    const sessionId = await streamedWhileRunning(sandbox)
    expect(serve.exitCode).toBeNull()
    const rpc = await fetch(new URL('/rpc', started.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${started.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.get', params: { sessionId } }),
    })
    const { result } = (await rpc.json()) as { result: { events: StreamedEvent[] } }
    expect(result.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
  })
})
