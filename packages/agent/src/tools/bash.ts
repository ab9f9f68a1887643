// `bash`: runs a shell command in the working directory with a timeout and an output cap, in
// the OS sandbox when it is given one (docs/architecture.md §6, §12.2), without Tangent's secrets
// in its environment. Every process it starts ends with it: its process group, a marker in its
// environment (kill-group.ts) and, sandboxed, bubblewrap's PID namespace, which dies with Tangent.
import { type ChildProcessByStdio, spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { z } from 'zod'
import { resolveWorkingDirectory } from '../confine-path.js'
import type { CommandSandbox, SandboxedCommand, SandboxNetwork } from '../sandbox/bash-sandbox.js'
import { commandEnvironment } from '../sandbox/command-environment.js'
import { type AgentTool, defineTool } from './agent-tool.js'
import {
  commandMarkerVariable,
  killGroup,
  killMarked,
  killOrphanedCommands,
  newCommandMarker,
} from './kill-group.js'
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
  /**
   * Names of environment variables a command gets although they look like secrets. By default
   * it gets Tangent's environment without TANGENT_TOKEN, the providers' keys and every variable
   * named like a credential (`*_API_KEY`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`…:
   * sandbox/command-environment.ts).
   */
  passEnv?: readonly string[]
  /** The environment commands start from (default `process.env`). */
  env?: NodeJS.ProcessEnv
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
  let sweptOrphans = false
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
      // What a Tangent killed -9 left running goes before this one starts (once per tool).
      if (!sweptOrphans) {
        sweptOrphans = true
        killOrphanedCommands()
      }
      const marker = newCommandMarker()
      const env = commandEnvironment(options.env ?? process.env, options.passEnv, {
        [commandMarkerVariable]: marker,
      })
      const [file, args] = sandboxed ? [sandboxed.file, sandboxed.args] : ['bash', ['-c', input.command]]
      const outcome = await new Promise<{ output: string; isError: boolean }>((resolve, reject) => {
        let child: ChildProcessByStdio<null, Readable, Readable>
        try {
          child = spawn(file, args, {
            cwd: directory,
            env,
            detached: true,
            stdio: ['ignore', 'pipe', 'pipe'],
          })
        } catch (error) {
          reject(error)
          return
        }
        const output = new OutputBuffer(maxOutputBytes)
        child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
        child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
        // Unsandboxed, `setsid` escapes the group: what carries the marker goes too (a /proc scan).
        // Sandboxed, bubblewrap's PID namespace ends with the command, so no scan is needed.
        const sweepMarked = () => {
          if (sandboxed === null) killMarked(marker)
        }
        let stoppedBy: 'timeout' | 'abort' | null = null
        let killTimer: NodeJS.Timeout | undefined
        const stop = (why: 'timeout' | 'abort') => {
          if (stoppedBy) return
          stoppedBy = why
          killGroup(child.pid, 'SIGTERM')
          killTimer = setTimeout(() => {
            killGroup(child.pid, 'SIGKILL')
            sweepMarked()
          }, killGraceMs)
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
        // The command is over when its shell exits: what it left running in the background (also
        // in a session of its own, holding the output pipes open) goes with it.
        child.on('exit', () => {
          killGroup(child.pid, 'SIGKILL')
          sweepMarked()
        })
        child.on('close', (code, signalName) => {
          cleanup()
          killGroup(child.pid, 'SIGKILL')
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
      }).finally(() => sandboxed?.release())
      return outcome
    },
  })
}
