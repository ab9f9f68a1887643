// A branch's check (docs/architecture.md §13.2): a command the user gave (e.g. `npm test`) run in
// the branch's directory after each of its turns. Its exit code and the tail of its output are
// recorded as `check/ran` in the branch's log, so the result is history and survives a restart.
import { killGroup } from '@tangent/agent/light'

export interface CheckRanData {
  command: string
  /** Null when it was killed (timeout) or could not start. */
  exitCode: number | null
  ok: boolean
  /** The last 4 KB of stdout and stderr together. */
  output: string
  durationMs: number
  timedOut?: boolean
  /** The turn it checked (its `turn/end` seq). */
  afterSeq: number
}

const maxOutputBytes = 4096
const killGraceMs = 500

/** Runs `command` with `bash -c` in `cwd`, in its own process group (a timeout kills all of it). */
export function runCheck(
  command: string,
  cwd: string,
  options: { timeoutMs: number; afterSeq: number },
): Promise<CheckRanData> {
  const started = performance.now()
  return new Promise((resolve) => {
    let tail = Buffer.alloc(0)
    const keep = (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk])
      if (tail.length > maxOutputBytes * 2) tail = tail.subarray(tail.length - maxOutputBytes)
    }
    const finish = (exitCode: number | null, extra: { timedOut?: boolean; error?: string } = {}) => {
      clearTimeout(timer)
      clearTimeout(killTimer)
      let output = tail.subarray(Math.max(0, tail.length - maxOutputBytes)).toString('utf8')
      if (extra.error) output += `${output && !output.endsWith('\n') ? '\n' : ''}${extra.error}`
      resolve({
        command,
        exitCode,
        ok: exitCode === 0,
        output,
        durationMs: Math.round(performance.now() - started),
        ...(extra.timedOut ? { timedOut: true } : {}),
        afterSeq: options.afterSeq,
      })
    }
    let killTimer: NodeJS.Timeout | undefined
    let timedOut = false
    // node:child_process on first use: importing it costs start-up that a command that only reads never needs.
    const child = process
      .getBuiltinModule('node:child_process')
      .spawn('bash', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid, 'SIGTERM')
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), killGraceMs)
    }, options.timeoutMs)
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('error', (error) => finish(null, { error: `The check could not start: ${error.message}` }))
    child.on('close', (code) =>
      finish(
        timedOut ? null : code,
        timedOut ? { timedOut: true, error: `Stopped after ${options.timeoutMs} ms.` } : {},
      ),
    )
  })
}
