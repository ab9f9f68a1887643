// The CLI's output through real pipes to other programs (docs/architecture.md §9): whole
// through a pipe and a slow reader, quiet when the reader leaves early, and a finished command
// exits even while a provider's keep-alive socket is open.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { JsonlStore } from '@tangent/store-jsonl'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCompletionsWire } from '../../packages/agent/src/testing/wire-formats.js'
import { cliMain, createSandbox, removeSandbox, type Sandbox } from './cli-harness.js'

let sandbox: Sandbox
const sessionCount = 10_000
let bigSession = ''

/** `count` sessions written as logs (one turn each), the way the store lays them out. */
function writeSessions(home: string, cwd: string, count: number): void {
  const dir = path.join(home, 'sessions')
  // Private, as the store makes them (it warns about a sessions directory others can read).
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  for (let i = 0; i < count; i++) {
    const id = `s${String(i).padStart(6, '0')}`
    const header = {
      type: 'session',
      version: 1,
      id,
      createdAt: 1_700_000_000_000 + i,
      cwd,
      inheritedEventCount: 0,
      seed: 'inline',
      origin: 'user',
    }
    const events = [
      ['model/selection', { provider: 'demo', model: 'scripted' }],
      ['session/title', { title: `Session number ${i} about pipes and readers` }],
      ['turn/start', {}],
      ['user/message', { content: [{ type: 'text', text: `hello ${i}` }] }],
      ['step/start', {}],
      ['assistant/message', { content: [{ type: 'text', text: `Turn 1: you said "hello ${i}".` }] }],
      ['step/end', { finishReason: 'stop' }],
      ['turn/end', { reason: 'completed' }],
    ].map(([type, data], seq) => JSON.stringify({ seq, time: 1_700_000_000_000 + seq, type, data }))
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${[JSON.stringify(header), ...events].join('\n')}\n`, {
      mode: 0o600,
    })
  }
}

/** A session whose `show --json` is several MB: 400 turns with ~10 KB answers. */
function writeBigSession(home: string, cwd: string): string {
  const id = 'big000'
  const header = {
    type: 'session',
    version: 1,
    id,
    createdAt: 1_600_000_000_000,
    cwd,
    inheritedEventCount: 0,
    seed: 'inline',
    origin: 'user',
  }
  const lines = [JSON.stringify(header)]
  let seq = 0
  const add = (type: string, data: unknown) =>
    lines.push(JSON.stringify({ seq: seq++, time: 1_600_000_000_000 + seq, type, data }))
  add('model/selection', { provider: 'demo', model: 'scripted' })
  for (let turn = 0; turn < 400; turn++) {
    add('turn/start', {})
    add('user/message', { content: [{ type: 'text', text: `question ${turn}` }] })
    add('step/start', {})
    add('assistant/message', {
      content: [{ type: 'text', text: `answer ${turn} `.padEnd(10_000, 'lorem ipsum ') }],
    })
    add('step/end', { finishReason: 'stop' })
    add('turn/end', { reason: 'completed' })
  }
  fs.writeFileSync(path.join(home, 'sessions', `${id}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 })
  return id
}

interface ShellResult {
  /** The exit code of `tangent` itself (PIPESTATUS[0]). */
  code: number
  stdout: string
  /** What `tangent` wrote on stderr. */
  stderr: string
  ms: number
}

/** Runs `tangent ARGS | PIPELINE` in bash: real processes, a real pipe between them. */
function piped(
  args: string,
  pipeline: string,
  env: Record<string, string | undefined> = sandbox.env,
): Promise<ShellResult> {
  const errFile = path.join(path.dirname(sandbox.home), `stderr-${Math.random().toString(36).slice(2)}`)
  const script = `"${process.execPath}" "${cliMain}" ${args} 2>"${errFile}" | ${pipeline}; echo "exit=\${PIPESTATUS[0]}" >&2`
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: sandbox.cwd,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let trailer = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      trailer += chunk
    })
    child.on('error', reject)
    child.on('close', () => {
      const code = Number(/exit=(\d+)/.exec(trailer)?.[1] ?? -1)
      const stderr = fs.readFileSync(errFile, 'utf8')
      fs.rmSync(errFile, { force: true })
      resolve({ code, stdout, stderr, ms: performance.now() - started })
    })
  })
}

/** What `tangent ARGS` writes to a file (no pipe): the reference output. */
async function toFile(args: string): Promise<string> {
  const file = path.join(path.dirname(sandbox.home), 'reference.out')
  const result = await piped(`${args} >"${file}"; true`, 'cat')
  expect(result.stderr).toBe('')
  const text = fs.readFileSync(file, 'utf8')
  fs.rmSync(file)
  return text
}

/** Reads stdin whole and prints its length in bytes and whether it parses as JSON. */
const jsonReader = `"${process.execPath}" -e "let n=0;const c=[];process.stdin.on('data',d=>{n+=d.length;c.push(d)}).on('end',()=>{let ok=true;try{JSON.parse(Buffer.concat(c))}catch{ok=false}console.log(n+' '+ok)})"`

beforeAll(async () => {
  sandbox = createSandbox()
  writeSessions(sandbox.home, sandbox.cwd, sessionCount)
  bigSession = writeBigSession(sandbox.home, sandbox.cwd)
  // The catalog a writer keeps, so each command reads it instead of scanning 10,000 logs.
  await (await JsonlStore.open({ dir: sandbox.home })).close()
}, 120_000)
afterAll(() => removeSandbox(sandbox))

describe('output through pipes', () => {
  it('sessions --json of 10,000 sessions arrives whole through a pipe and through a slow reader', async () => {
    const reference = await toFile('sessions --json')
    const bytes = Buffer.byteLength(reference)
    expect(bytes).toBeGreaterThan(3_000_000)
    expect(JSON.parse(reference)).toHaveLength(sessionCount + 1)
    for (const reader of [jsonReader, `(sleep 1; ${jsonReader})`]) {
      const result = await piped('sessions --json', reader)
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout.trim()).toBe(`${bytes} true`)
    }
  }, 120_000)

  it('show ID --json and the human transcript arrive whole', async () => {
    for (const args of [`show ${bigSession} --json`, `show ${bigSession}`]) {
      const reference = await toFile(args)
      expect(Buffer.byteLength(reference)).toBeGreaterThan(1_000_000)
      const result = await piped(args, '(sleep 1; wc -c)')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout.trim()).toBe(String(Buffer.byteLength(reference)))
    }
  }, 120_000)

  it('a reader that leaves early (head -1) ends the output quietly: exit 0, no EPIPE', async () => {
    for (const args of ['sessions --json', 'sessions', `show ${bigSession}`]) {
      const result = await piped(args, 'head -1 >/dev/null')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
    }
  }, 120_000)
})

describe('exit', () => {
  it('a finished command exits while its provider keeps the connection alive', async () => {
    // An OpenAI-compatible server that keeps idle connections open for a minute.
    const server = http.createServer((request, response) => {
      request.resume()
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        for (const frame of chatCompletionsWire.text('Hello from a keep-alive provider.'))
          response.write(frame)
        response.end()
      })
    })
    server.keepAliveTimeout = 60_000
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      const env = { ...sandbox.env, TANGENT_OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${port}/v1` }
      const result = await piped('run --model openai-compatible:m "hi" --json', '(sleep 1; cat)', env)
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({ reason: 'completed' })
      // Not held open by the idle socket (60 s).
      expect(result.ms).toBeLessThan(30_000)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  }, 60_000)
})
