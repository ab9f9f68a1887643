// Runs the BUILT `tangent` CLI as a child process in a temp TANGENT_HOME and cwd
// (shared by the cli-*.e2e.ts tests).
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { runCli } from '../../packages/cli/dist/index.js'
import { captureContext } from '../../packages/cli/src/capture.test-helper.js'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const cliMain = path.join(repoRoot, 'packages', 'cli', 'dist', 'main.js')

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

export interface Sandbox {
  home: string
  cwd: string
  env: Record<string, string | undefined>
}

/** A temp data dir and a temp working dir, with an environment that has no provider keys. */
export function createSandbox(): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-cli-'))
  const home = path.join(root, 'home')
  const cwd = path.join(root, 'work')
  // Private, as Tangent makes it (a wider data dir is reported on every command).
  fs.mkdirSync(home, { mode: 0o700 })
  fs.mkdirSync(cwd)
  // The user config is the sandbox's own (never the machine's ~/.config/tangent).
  const env: Record<string, string | undefined> = {
    ...process.env,
    TANGENT_HOME: home,
    NO_COLOR: '1',
    XDG_CONFIG_HOME: path.join(root, 'config'),
  }
  for (const key of [
    'FORCE_COLOR',
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'DEEPSEEK_API_KEY',
    'TANGENT_MODEL',
    'TANGENT_CONFIG',
  ]) {
    delete env[key]
  }
  return { home, cwd, env }
}

export function removeSandbox(sandbox: Sandbox): void {
  fs.rmSync(path.dirname(sandbox.home), { recursive: true, force: true })
}

export function tangent(
  sandbox: Sandbox,
  args: readonly string[],
  options: { cwd?: string; input?: string } = {},
): Promise<CliResult> {
  return runToEnd(process.execPath, [cliMain, ...args], {
    cwd: options.cwd ?? sandbox.cwd,
    env: sandbox.env,
    ...(options.input !== undefined ? { input: options.input } : {}),
  })
}

/** Runs a program to its end and collects its output; killed (SIGKILL) after `timeoutMs` when given. */
export function runToEnd(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (options.input !== undefined) child.stdin?.end(options.input)
    let stdout = ''
    let stderr = ''
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const timer =
      options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, stdout, stderr })
    })
  })
}

/**
 * Runs the built CLI's `runCli` inside the test process: the same command code and exit
 * codes as `main.js` without a process start, for checks that need many invocations.
 */
export async function tangentInProcess(
  sandbox: Sandbox,
  args: readonly string[],
  options: { input?: string } = {},
): Promise<CliResult> {
  const capture = captureContext({
    env: sandbox.env,
    cwd: sandbox.cwd,
    home: sandbox.home,
    stdin: options.input === undefined ? process.stdin : Readable.from([options.input]),
  })
  const code = await runCli(args, capture.context)
  return { code, stdout: capture.stdout(), stderr: capture.stderr() }
}

/** Runs a command that must succeed with `--json` (in-process) and returns its parsed output. */
export async function tangentJson<T>(sandbox: Sandbox, args: readonly string[]): Promise<T> {
  return parseJsonResult<T>(args, await tangentInProcess(sandbox, [...args, '--json']))
}

/** The same through a child process: what a script calling `tangent … --json` sees. */
export async function tangentJsonChild<T>(sandbox: Sandbox, args: readonly string[]): Promise<T> {
  return parseJsonResult<T>(args, await tangent(sandbox, [...args, '--json']))
}

function parseJsonResult<T>(args: readonly string[], result: CliResult): T {
  if (result.code !== 0)
    throw new Error(`tangent ${args.join(' ')} failed (${result.code}): ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

/** Starts a long-running process and resolves with it once its stdout has a line matching `ready`. */
export function startProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; ready: RegExp },
): Promise<{ child: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      const line = stdout.split('\n').find((candidate) => options.ready.test(candidate))
      if (line !== undefined) resolve({ child, line })
    })
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`process exited (${code}) before it was ready: ${stderr}`)))
  })
}

/** Stops a process started by the test and waits for it to exit. */
export function stopProcess(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}
