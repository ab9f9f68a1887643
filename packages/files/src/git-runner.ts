// Starts git processes from a small process of their own, the starter, not from Tangent's
// (issue 33, docs/architecture.md §5). Linux's libuv starts a process with fork(): the kernel
// copies the page tables of the whole process that forks, holding its memory map's lock
// meanwhile, and every page written afterwards takes a copy-on-write fault. For a Host or a test
// worker of a few hundred MiB that is 3–25 ms of system time per process, and a thread of the same
// process that touches memory meanwhile (the event loop allocating) waits on that lock, so a worker
// thread does not shield the event loop. The starter is a bare Node process (~40 MiB) started once:
// its forks are cheap, and Tangent's process only writes a request and reads the answer on pipes.
import { type ChildProcess, spawn } from 'node:child_process'
import type { Socket } from 'node:net'

export interface SpawnRequest {
  file: string
  args: readonly string[]
  cwd: string
  env: Record<string, string>
  /** Bytes written to stdin (then closed). */
  input: string | Buffer
}

export interface SpawnOutcome {
  stdout: Buffer
  stderr: Buffer
  /** The exit code; null when the process was ended by a signal. */
  code: number | null
}

/** At most this many processes run at once (more wait in the starter for one to end). */
export const maxRunningProcesses = 8

/**
 * The framing both ends of the starter's pipes speak: a message is a u32 count of parts, a u32
 * length per part, then the parts (big-endian). Returns the function to feed chunks to; it calls
 * `onMessage` with each whole message's parts (views of one buffer). Each message's buffer is
 * allocated once its lengths are known and filled chunk by chunk as they come: a big output (a
 * listing of 100,000 files is 16 MB) is never joined in one go, which held the event loop
 * 60–80 ms. Self-contained: the starter's script embeds its source (one implementation for both
 * ends).
 */
export function messageReader(onMessage: (parts: Buffer[]) => void): (chunk: Buffer) => void {
  let head = Buffer.alloc(0)
  let lengths: number[] = []
  let body: Buffer | null = null
  let filled = 0
  return (chunk: Buffer) => {
    let at = 0
    for (;;) {
      if (body === null) {
        const headLength = head.length < 4 ? 4 : 4 + 4 * head.readUInt32BE(0)
        if (head.length < headLength) {
          if (at >= chunk.length) return
          const piece = chunk.subarray(at, at + headLength - head.length)
          head = Buffer.concat([head, piece])
          at += piece.length
          continue
        }
        lengths = []
        for (let offset = 4; offset < headLength; offset += 4) lengths.push(head.readUInt32BE(offset))
        head = Buffer.alloc(0)
        body = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, 0))
        filled = 0
      }
      if (filled === body.length) {
        const parts: Buffer[] = []
        let offset = 0
        for (const length of lengths) {
          parts.push(body.subarray(offset, offset + length))
          offset += length
        }
        body = null
        onMessage(parts)
        continue
      }
      if (at >= chunk.length) return
      const piece = chunk.subarray(at, at + body.length - filled)
      piece.copy(body, filled)
      filled += piece.length
      at += piece.length
    }
  }
}

/** The bytes of a message of `parts` (see messageReader), as buffers to write in order. */
export function messageBytes(parts: readonly Buffer[]): Buffer[] {
  const header = Buffer.alloc(4 + 4 * parts.length)
  header.writeUInt32BE(parts.length, 0)
  for (const [i, part] of parts.entries()) header.writeUInt32BE(part.length, 4 + 4 * i)
  return [header, ...parts]
}

// Run by `node -e` (no file to find: the CLI runs from a bundle), with an empty environment: each
// job brings its own. Mirrors what runGit did on its own thread: every chunk kept, stdin written
// then closed (EPIPE ignored: the exit code says what went wrong), the first of 'error' and
// 'close' decides. When Tangent's process goes (its end of stdin closes), the starter takes no new
// job and leaves once the running ones end, as those git processes would have run to their end.
const starterSource = `
const { spawn } = process.getBuiltinModule('node:child_process')
const messageReader = ${messageReader.toString()}
const messageBytes = ${messageBytes.toString()}
const limit = ${maxRunningProcesses}
let running = 0
const waiting = []
process.stdout.on('error', () => undefined)
function send(header, ...bodies) {
  for (const bytes of messageBytes([Buffer.from(JSON.stringify(header)), ...bodies])) process.stdout.write(bytes)
}
function start(job) {
  running++
  let answered = false
  const answer = (header, ...bodies) => {
    if (answered) return
    answered = true
    running--
    send(header, ...bodies)
    const next = waiting.shift()
    if (next) start(next)
  }
  const fail = (error) => answer({ id: job.id, error: {
    message: String(error && error.message), code: error && error.code, errno: error && error.errno,
    syscall: error && error.syscall, path: error && error.path,
  } })
  let child
  try {
    child = spawn(job.file, job.args, { cwd: job.cwd, env: job.env, stdio: ['pipe', 'pipe', 'pipe'] })
  } catch (error) {
    fail(error)
    return
  }
  const out = []
  const err = []
  child.stdout.on('data', (chunk) => out.push(chunk))
  child.stderr.on('data', (chunk) => err.push(chunk))
  child.on('error', fail)
  child.on('close', (code) => answer({ id: job.id, code }, Buffer.concat(out), Buffer.concat(err)))
  child.stdin.on('error', () => undefined)
  child.stdin.end(job.input)
}
process.stdin.on('data', messageReader((parts) => {
  const job = JSON.parse(parts[0].toString('utf8'))
  job.input = parts[1]
  if (running < limit) start(job)
  else waiting.push(job)
}))
process.stdin.on('end', () => { waiting.length = 0 })
`

interface Answer {
  id: number
  code?: number | null
  error?: { message: string; code?: string; errno?: number; syscall?: string; path?: string }
}

interface Pending {
  resolve: (outcome: SpawnOutcome) => void
  reject: (error: Error) => void
}

interface Starter {
  child: ChildProcess
  /** Its jobs not answered yet: rejected if it stops. */
  pending: Map<number, Pending>
}

let current: Starter | null = null
let nextId = 0

/** Holds Tangent's process alive only while the starter has work (a CLI command exits when done). */
function hold(starter: Starter, held: boolean): void {
  // The pipes are sockets (net.Socket), which the typings do not say.
  const pipes = [starter.child.stdin, starter.child.stdout, starter.child.stderr] as unknown as Socket[]
  for (const handle of [starter.child, ...pipes]) {
    if (held) handle.ref()
    else handle.unref()
  }
}

function starter(): Starter {
  if (current !== null) return current
  const child = spawn(process.execPath, ['-e', starterSource], {
    env: {},
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  })
  const started: Starter = { child, pending: new Map() }
  let said = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    said = (said + chunk.toString('utf8')).slice(-2000)
  })
  child.stdout!.on(
    'data',
    messageReader(([header, stdout, stderr]) => {
      const answer = JSON.parse(header!.toString('utf8')) as Answer
      const job = started.pending.get(answer.id)
      if (job === undefined) return
      started.pending.delete(answer.id)
      if (started.pending.size === 0) hold(started, false)
      if (answer.error !== undefined) {
        job.reject(Object.assign(new Error(answer.error.message), answer.error))
        return
      }
      job.resolve({ stdout: stdout!, stderr: stderr!, code: answer.code ?? null })
    }),
  )
  const lost = (error: Error) => {
    if (current === started) current = null
    const jobs = [...started.pending.values()]
    started.pending.clear()
    for (const job of jobs) job.reject(error)
  }
  // Not the job's own error: Node itself could not start (its binary gone, say, after an upgrade
  // under a long-lived Host). Said as such, without spawn's code (ENOENT would read as "no git").
  child.on('error', (error) =>
    lost(
      new Error(
        `could not start the process that starts git processes (${process.execPath}): ${error.message}`,
      ),
    ),
  )
  child.on('exit', (code, signal) =>
    lost(
      new Error(
        `the process that starts git processes stopped (${signal ?? `exit ${code}`})${said ? `: ${said.trim()}` : ''}`,
      ),
    ),
  )
  // A write to a starter that just stopped: 'exit' rejects the jobs.
  child.stdin!.on('error', () => undefined)
  hold(started, false)
  current = started
  return started
}

/** Runs `file args…` to its end from the starter process; rejects as spawn's 'error' would. */
export function spawnFromStarter(request: SpawnRequest): Promise<SpawnOutcome> {
  return new Promise((resolve, reject) => {
    const running = starter()
    const id = ++nextId
    running.pending.set(id, { resolve, reject })
    hold(running, true)
    const header = { id, file: request.file, args: request.args, cwd: request.cwd, env: request.env }
    const input = typeof request.input === 'string' ? Buffer.from(request.input, 'utf8') : request.input
    for (const bytes of messageBytes([Buffer.from(JSON.stringify(header), 'utf8'), input])) {
      running.child.stdin!.write(bytes)
    }
  })
}
