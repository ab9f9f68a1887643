// Runs one hook's command (docs/architecture.md §12.7): `bash -c` in the session's folder with the
// event as JSON on stdin and only the environment it is given, in the bash tool's OS sandbox when
// one is given. Its process group (and, unsandboxed, every process carrying its marker) is killed
// when it ends, passes its timeout or is aborted; sandboxed, bubblewrap's PID namespace ends too.
import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import type { CommandSandbox, SandboxedCommand } from '../sandbox/bash-sandbox.js'
import { commandMarkerVariable, killGroup, killMarked, newCommandMarker } from '../tools/kill-group.js'
import { OutputBuffer } from '../tools/output-buffer.js'

export interface HookCommandOptions {
  command: string
  /** The session's folder (a real path). */
  cwd: string
  /** The command's stdin (a file, read to its end). */
  input: string
  /** The whole environment of the command (nothing else is inherited). */
  env: Record<string, string>
  timeoutMs: number
  /** Run in this sandbox (the bash tool's), with the session's private temp directory. */
  sandbox?: { sandbox: CommandSandbox; tempKey: string; protectedPaths?: readonly string[] }
  signal?: AbortSignal
}

/** How a hook's command ended; `stderr` is capped (its start and end kept). */
export type HookCommandOutcome =
  | { kind: 'exited'; exitCode: number; stderr: string }
  | { kind: 'killed'; signal: string; stderr: string }
  | { kind: 'timed-out'; stderr: string }
  | { kind: 'aborted'; stderr: string }
  | { kind: 'failed'; message: string }

const maxStderrBytes = 8_000
/** How long after the hook's shell exits its stderr may stay open (held by something it left). */
const stderrGraceMs = 1_000

export async function runHookCommand(options: HookCommandOptions): Promise<HookCommandOutcome> {
  const { signal } = options
  if (signal?.aborted) return { kind: 'aborted', stderr: '' }
  let sandboxed: SandboxedCommand | null = null
  try {
    if (options.sandbox) {
      sandboxed = await options.sandbox.sandbox.wrap(options.command, {
        cwd: options.cwd,
        tempKey: options.sandbox.tempKey,
        network: false,
        ...(options.sandbox.protectedPaths ? { protectedPaths: options.sandbox.protectedPaths } : {}),
        ...(signal ? { signal } : {}),
      })
    }
  } catch (error) {
    return { kind: 'failed', message: `the sandbox could not be prepared: ${messageOf(error)}` }
  }
  const marker = newCommandMarker()
  const env = { ...options.env, [commandMarkerVariable]: marker }
  const [file, args] = sandboxed ? [sandboxed.file, sandboxed.args] : ['bash', ['-c', options.command]]
  let stdin: number
  try {
    stdin = await inputDescriptor(options.input)
  } catch (error) {
    await sandboxed?.release()
    return { kind: 'failed', message: `its input could not be written: ${messageOf(error)}` }
  }
  try {
    return await new Promise<HookCommandOutcome>((resolve) => {
      let child: ChildProcessByStdio<null, null, Readable>
      try {
        // stdin is a file descriptor, so only stderr is a stream.
        child = spawn(file, args, {
          cwd: options.cwd,
          env,
          detached: true,
          stdio: [stdin, 'ignore', 'pipe'],
        }) as ChildProcessByStdio<null, null, Readable>
      } catch (error) {
        resolve({ kind: 'failed', message: messageOf(error) })
        return
      }
      const stderr = new OutputBuffer(maxStderrBytes)
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
      // `setsid` escapes the group (bubblewrap's own `--new-session` too, should bubblewrap be
      // killed before its child took `--die-with-parent`): what carries the marker goes as well.
      const sweep = () => {
        killGroup(child.pid, 'SIGKILL')
        killMarked(marker)
      }
      let stoppedBy: 'timeout' | 'abort' | null = null
      const stop = (why: 'timeout' | 'abort') => {
        if (stoppedBy) return
        stoppedBy = why
        sweep()
      }
      const timer = setTimeout(() => stop('timeout'), options.timeoutMs)
      const onAbort = () => stop('abort')
      signal?.addEventListener('abort', onAbort, { once: true })
      const cleanup = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
      child.on('error', (error) => {
        cleanup()
        sweep()
        resolve({ kind: 'failed', message: messageOf(error) })
      })
      // The hook is over when its shell exits: what it left running goes with it. Should anything
      // still hold its stderr open after that (a process that cleared its environment), the pipe
      // is closed from this side: the caller never waits past the hook's own end.
      let unheld: NodeJS.Timeout | undefined
      child.on('exit', () => {
        sweep()
        unheld = setTimeout(() => child.stderr.destroy(), stderrGraceMs)
      })
      child.on('close', (code, signalName) => {
        cleanup()
        clearTimeout(unheld)
        const text = stderr.text()
        if (stoppedBy === 'timeout') resolve({ kind: 'timed-out', stderr: text })
        else if (stoppedBy === 'abort') resolve({ kind: 'aborted', stderr: text })
        else if (code === null) resolve({ kind: 'killed', signal: signalName ?? 'a signal', stderr: text })
        else resolve({ kind: 'exited', exitCode: code, stderr: text })
      })
    })
  } finally {
    closeSync(stdin)
    await sandboxed?.release()
  }
}

/**
 * The input as a file open for reading, already unlinked: stdin that is a plain file, not a
 * socket — bash given a socket on stdin takes itself for a remote shell and reads ~/.bashrc.
 */
async function inputDescriptor(input: string): Promise<number> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'tangent-hook-'))
  try {
    const file = path.join(folder, 'event.json')
    await writeFile(file, input, { mode: 0o600, flag: 'wx' })
    return openSync(file, 'r')
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
