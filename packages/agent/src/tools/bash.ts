// `bash`: runs a shell command in the working directory with a timeout and an output cap, in
// the OS sandbox when it is given one (docs/architecture.md §6, §12.2). The command gets its own
// process group so a timeout or an abort kills everything it started (with the sandbox, the
// group holds bubblewrap, whose death ends every process inside).
import { type ChildProcessByStdio, spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { z } from 'zod'
import { resolveWorkingDirectory } from '../confine-path.js'
import type { CommandSandbox, SandboxedCommand, SandboxNetwork } from '../sandbox/bash-sandbox.js'
import { type AgentTool, defineTool } from './agent-tool.js'
import { killGroup } from './kill-group.js'
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
  /** Run commands in this OS sandbox; without it they run unconfined. */
  sandbox?: BashSandboxSetting
}

export interface BashSandboxSetting {
  readonly sandbox: CommandSandbox
  /** `auto`: unconfined where the sandbox is unavailable; `required`: refuse to run there. */
  readonly mode: 'auto' | 'required'
  /** Default false (no network). */
  readonly network?: SandboxNetwork
  /** Names the session's private temp directory (the session id). */
  readonly tempKey: string
}

/** Grace between SIGTERM and SIGKILL for the command's process group. */
const killGraceMs = 500

export function createBashTool(options: BashToolOptions = {}): AgentTool {
  const defaultTimeoutMs = options.timeoutMs ?? 120_000
  const maxOutputBytes = options.maxOutputBytes ?? 30_000
  return defineTool<BashInput>({
    description: `Run a bash command in the working directory (stdout and stderr combined, timeout ${Math.round(defaultTimeoutMs / 1000)} s, output capped). Non-zero exit codes are reported as errors.`,
    inputSchema: BashInput,
    async run(input, { cwd, signal, protectedPaths }) {
      signal.throwIfAborted()
      const directory = await resolveWorkingDirectory(cwd)
      const timeoutMs = input.timeoutMs ?? defaultTimeoutMs
      let sandboxed: SandboxedCommand | null = null
      const setting = options.sandbox
      if (setting) {
        const probe = await setting.sandbox.probe()
        if (probe.available) {
          try {
            sandboxed = await setting.sandbox.wrap(input.command, {
              cwd: directory,
              tempKey: setting.tempKey,
              network: setting.network ?? false,
              signal,
              ...(protectedPaths ? { protectedPaths } : {}),
            })
          } catch (error) {
            // Aborted while the sandbox was being prepared: the command never started.
            if (!signal.aborted) throw error
            return { output: '[not run: the turn was aborted before the command started]', isError: true }
          }
        } else if (setting.mode === 'required') {
          return {
            output: `Refused: commands must run in an OS sandbox here (TANGENT_SANDBOX=required), and none is available: ${probe.reason ?? 'unknown reason'}. Nothing was run.`,
            isError: true,
          }
        }
      }
      return new Promise((resolve, reject) => {
        let child: ChildProcessByStdio<null, Readable, Readable>
        try {
          child = sandboxed
            ? spawn(sandboxed.command, {
                shell: true,
                cwd: directory,
                detached: true,
                stdio: ['ignore', 'pipe', 'pipe'],
              })
            : spawn('bash', ['-c', input.command], {
                cwd: directory,
                detached: true,
                stdio: ['ignore', 'pipe', 'pipe'],
              })
        } catch (error) {
          sandboxed?.release()
          throw error
        }
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
          sandboxed?.release()
          reject(error)
        })
        child.on('close', (code, signalName) => {
          cleanup()
          // Whatever is left of the group (background jobs holding no pipes) goes too.
          killGroup(child.pid, 'SIGKILL')
          sandboxed?.release()
          const text = sandboxed ? sandboxed.explain(output.text()) : output.text()
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
