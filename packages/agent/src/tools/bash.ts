// `bash`: runs a shell command in the working directory with a timeout and an output cap.
// The command gets its own process group so a timeout or an abort kills everything it started.
import { spawn } from 'node:child_process'
import { z } from 'zod'
import { resolveWorkingDirectory } from '../confine-path.js'
import { type AgentTool, defineTool } from './agent-tool.js'
import { OutputBuffer } from './output-buffer.js'

export const BashInput = z.object({
  command: z.string().min(1).describe('The shell command (bash -c)'),
  timeoutMs: z.number().int().min(1).optional().describe('Kill the command after this many milliseconds'),
})
export type BashInput = z.infer<typeof BashInput>

export interface BashToolOptions {
  /** Default timeout (120 s). */
  timeoutMs?: number
  /** Cap on the combined stdout+stderr kept for the model (30 KB). */
  maxOutputBytes?: number
}

/** Grace between SIGTERM and SIGKILL for the command's process group. */
const killGraceMs = 500

export function createBashTool(options: BashToolOptions = {}): AgentTool {
  const defaultTimeoutMs = options.timeoutMs ?? 120_000
  const maxOutputBytes = options.maxOutputBytes ?? 30_000
  return defineTool<BashInput>({
    description: `Run a bash command in the working directory (stdout and stderr combined, timeout ${Math.round(defaultTimeoutMs / 1000)} s, output capped). Non-zero exit codes are reported as errors.`,
    inputSchema: BashInput,
    async run(input, { cwd, signal }) {
      signal.throwIfAborted()
      const directory = await resolveWorkingDirectory(cwd)
      const timeoutMs = input.timeoutMs ?? defaultTimeoutMs
      return new Promise((resolve, reject) => {
        const child = spawn('bash', ['-c', input.command], {
          cwd: directory,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        const output = new OutputBuffer(maxOutputBytes)
        child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
        child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
        let stoppedBy: 'timeout' | 'abort' | null = null
        let killTimer: NodeJS.Timeout | undefined
        const stop = (why: 'timeout' | 'abort') => {
          if (stoppedBy) return
          stoppedBy = why
          killGroup(child.pid, 'SIGTERM')
          killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), killGraceMs)
        }
        const timer = setTimeout(() => stop('timeout'), timeoutMs)
        const onAbort = () => stop('abort')
        signal.addEventListener('abort', onAbort, { once: true })
        const cleanup = () => {
          clearTimeout(timer)
          clearTimeout(killTimer)
          signal.removeEventListener('abort', onAbort)
        }
        child.on('error', (error) => {
          cleanup()
          reject(error)
        })
        child.on('close', (code, signalName) => {
          cleanup()
          // Whatever is left of the group (background jobs holding no pipes) goes too.
          killGroup(child.pid, 'SIGKILL')
          const text = output.text()
          const body = text === '' ? '(no output)' : text.replace(/\n$/, '')
          if (stoppedBy === 'timeout') {
            resolve({ output: `${body}\n[killed: timed out after ${timeoutMs} ms]`, isError: true })
          } else if (stoppedBy === 'abort') {
            resolve({ output: `${body}\n[killed: the turn was aborted]`, isError: true })
          } else if (code === null) {
            resolve({ output: `${body}\n[killed by ${signalName}]`, isError: true })
          } else {
            resolve({ output: `${body}\n[exit code ${code}]`, isError: code !== 0 })
          }
        })
      })
    },
  })
}

function killGroup(pid: number | undefined, signalName: NodeJS.Signals): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signalName)
  } catch (error) {
    // ESRCH: the group is already gone, which is what we wanted.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}
