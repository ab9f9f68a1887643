// Starts git processes from a worker thread, not the caller's (issue 33). Starting a process blocks
// the thread that starts it: libuv forks, then waits until the child has exec'd (it reads a pipe
// that closes on exec). On the 2-core machine of the benchmarks that wait was 10–50 ms per
// process under load, and a first snapshot starts a dozen of them: the Host's event loop could not
// answer meanwhile. In a worker thread only the worker waits; the output comes back as one
// transferred buffer (no copy), so the caller's thread never handles a process's chunks either.
import { Worker } from 'node:worker_threads'

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

/** At most this many processes run at once (more wait in the worker for one to end). */
export const maxRunningProcesses = 8

// Evaluated in the worker (no file to find: the CLI runs from a bundle), as a script or as a module
// (a worker takes its parent's flags, `--input-type=module` among them): no require, no import.
// Mirrors what runGit did on its own thread: every chunk kept, stdin written then closed (EPIPE
// ignored: the exit code says what went wrong), the first of 'error' and 'close' decides.
const workerSource = `
const { parentPort } = process.getBuiltinModule('node:worker_threads')
const { spawn } = process.getBuiltinModule('node:child_process')
const limit = ${maxRunningProcesses}
let running = 0
const waiting = []
function joined(chunks) {
  let length = 0
  for (const chunk of chunks) length += chunk.length
  // A buffer of its own (never a slice of Node's shared pool), so it can be transferred.
  const bytes = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.length }
  return bytes
}
function start(job) {
  running++
  let answered = false
  const answer = (message, transfer) => {
    if (answered) return
    answered = true
    running--
    parentPort.postMessage(message, transfer)
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
  child.on('close', (code) => {
    const stdout = joined(out)
    const stderr = joined(err)
    answer({ id: job.id, code, stdout, stderr }, [stdout.buffer, stderr.buffer])
  })
  child.stdin.on('error', () => undefined)
  child.stdin.end(job.input)
}
parentPort.on('message', (job) => {
  if (running < limit) start(job)
  else waiting.push(job)
})
`

type Answer =
  | { id: number; code: number | null; stdout: Uint8Array; stderr: Uint8Array }
  | {
      id: number
      error: { message: string; code?: string; errno?: number; syscall?: string; path?: string }
    }

interface Pending {
  resolve: (outcome: SpawnOutcome) => void
  reject: (error: Error) => void
}

interface Runner {
  thread: Worker
  /** Its jobs not answered yet: rejected if it stops. */
  pending: Map<number, Pending>
}

let current: Runner | null = null
let nextId = 0

function runner(): Runner {
  if (current !== null) return current
  const thread = new Worker(workerSource, { eval: true, stdout: false, stderr: false })
  const started: Runner = { thread, pending: new Map() }
  thread.on('message', (answer: Answer) => {
    const job = started.pending.get(answer.id)
    if (job === undefined) return
    started.pending.delete(answer.id)
    // Idle, the worker must not keep the process alive (a CLI command exits when its work is done).
    if (started.pending.size === 0) thread.unref()
    if ('error' in answer) {
      job.reject(Object.assign(new Error(answer.error.message), answer.error))
      return
    }
    const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    job.resolve({ stdout: view(answer.stdout), stderr: view(answer.stderr), code: answer.code })
  })
  const lost = (error: Error) => {
    if (current === started) current = null
    const jobs = [...started.pending.values()]
    started.pending.clear()
    for (const job of jobs) job.reject(error)
  }
  thread.on('error', lost)
  thread.on('exit', (code) => lost(new Error(`the thread that starts git processes stopped (exit ${code})`)))
  thread.unref()
  current = started
  return started
}

/** Runs `file args…` to its end from the worker thread; rejects as spawn's 'error' would. */
export function spawnOffThread(request: SpawnRequest): Promise<SpawnOutcome> {
  return new Promise((resolve, reject) => {
    const { thread, pending } = runner()
    const id = ++nextId
    pending.set(id, { resolve, reject })
    thread.ref()
    thread.postMessage({
      id,
      file: request.file,
      args: [...request.args],
      cwd: request.cwd,
      env: request.env,
      input: request.input,
    })
  })
}
