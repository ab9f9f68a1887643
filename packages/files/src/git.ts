// Runs the system `git` as a child process. Every call states its environment
// explicitly, so a caller's GIT_DIR/GIT_INDEX_FILE can never leak into a command.
import { realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { type SpawnOutcome, spawnFromStarter } from './git-runner.js'
import { mentionsDiskFull } from './private-files.js'

export interface GitOptions {
  /** Process working directory. */
  cwd: string
  /** Extra variables on top of a copy of the process environment without any GIT_* variable. */
  env?: Record<string, string>
  /** Bytes written to stdin (then closed). */
  input?: string | Buffer
  /** Exit codes that are not failures (0 always is). */
  allowedExitCodes?: readonly number[]
}

export interface GitResult {
  stdout: Buffer
  stderr: string
  exitCode: number
}

/**
 * The process environment minus every `GIT_*` variable (a host started from a git hook
 * would otherwise point all our commands at the user's repository), plus `extra`.
 */
export function gitEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('GIT_')) env[key] = value
  }
  // Stable, English messages (we match a few of them) and never an interactive prompt.
  env.LC_ALL = 'C'
  env.GIT_TERMINAL_PROMPT = '0'
  return { ...env, ...extra }
}

/**
 * Settings every git call of Tangent's runs with (docs/architecture.md §12): the folders it runs
 * git in are the agent's to write, so nothing there may make git run a program. No hook runs
 * (`worktree add` would run post-checkout) and no fsmonitor (`status` and `ls-files` would start
 * it); a command-line `-c` outranks every config file, the repository's included.
 */
export const inertGitSettings: readonly string[] = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'submodule.recurse=false',
]

/**
 * Runs `git args…`; throws TangentError `git-failed` (with stderr) on an unexpected exit code.
 * The process is started by a small starter process (git-runner.ts): forking a big one (a Host,
 * a test worker) costs its every thread milliseconds, and the Host's event loop must keep answering.
 */
export async function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  let outcome: SpawnOutcome
  try {
    outcome = await spawnFromStarter({
      file: 'git',
      args: [...inertGitSettings, ...args],
      cwd: options.cwd,
      env: gitEnvironment(options.env),
      input: options.input ?? '',
    })
  } catch (caught) {
    const error = caught as NodeJS.ErrnoException
    // spawn says ENOENT both when git is missing and when the working directory is: only
    // the second can be checked, and it is the likelier one (a folder removed or moved).
    if (error.code === 'ENOENT' && !isDirectory(options.cwd)) {
      throw new TangentError(
        'not-a-directory',
        `The working directory ${options.cwd} is gone (removed or moved), so git ${args[0] ?? ''} could not run there.`,
        { cwd: options.cwd, args: [...args] },
        { cause: error },
      )
    }
    throw new TangentError(
      'git-failed',
      error.code === 'ENOENT'
        ? 'git is not installed or not on PATH: install git (2.25 or later) to use file snapshots.'
        : `Could not run git ${args[0] ?? ''}: ${error.message}`,
      { args: [...args], stderr: '', cwd: options.cwd },
      { cause: error },
    )
  }
  const exitCode = outcome.code ?? -1
  const stderr = outcome.stderr.toString('utf8')
  if (exitCode !== 0 && !(options.allowedExitCodes ?? []).includes(exitCode)) {
    const diskFull = mentionsDiskFull(stderr)
    throw new TangentError(
      diskFull ? 'disk-full' : 'git-failed',
      diskFull
        ? `git ${args[0] ?? ''} stopped because the disk is full (or its quota is used up): free some space and try again. ${stderr.trim().slice(0, 500)}`
        : `git ${args.join(' ').slice(0, 200)} failed (exit ${exitCode}): ${stderr.trim().slice(0, 2000)}`,
      {
        args: [...args],
        stderr,
        exitCode,
        cwd: options.cwd,
        ...(diskFull ? { path: options.cwd } : {}),
      },
    )
  }
  return { stdout: outcome.stdout, stderr, exitCode }
}

function isDirectory(directory: string): boolean {
  return statSync(directory, { throwIfNoEntry: false })?.isDirectory() === true
}

/** Splits NUL-terminated git output (`-z`) into strings. */
export function splitNul(output: Buffer | string): string[] {
  const text = typeof output === 'string' ? output : output.toString('utf8')
  const parts = text.split('\0')
  if (parts.at(-1) === '') parts.pop()
  return parts
}

/**
 * Refuses a repository whose git metadata points elsewhere (docs/architecture.md §12): a main
 * repository's git directory is its own common directory, and a linked worktree's lives in
 * `<common>/worktrees/`. A `commondir` file planted anywhere else would make git read its config
 * and hooks from a folder the agent chose, so Tangent runs no git command there. Outside a
 * repository there is nothing to check.
 */
export async function assertGitMetadataIntact(cwd: string): Promise<void> {
  const probe = await runGit(['rev-parse', '--absolute-git-dir', '--git-common-dir'], {
    cwd,
    allowedExitCodes: [128],
  })
  if (probe.exitCode !== 0) return
  const [gitDirectory = '', common = ''] = probe.stdout.toString('utf8').split('\n')
  const real = (folder: string) => {
    try {
      return realpathSync(folder)
    } catch {
      return path.resolve(folder)
    }
  }
  const gitDirectoryReal = real(gitDirectory)
  const commonReal = real(path.resolve(cwd, common))
  const intact =
    gitDirectoryReal === commonReal || path.dirname(gitDirectoryReal) === path.join(commonReal, 'worktrees')
  if (intact) return
  throw new TangentError(
    'git-failed',
    `The git metadata of ${cwd} points elsewhere: its git directory ${gitDirectoryReal} names ${commonReal} as its common directory (a "commondir" file git never writes there). Tangent runs no git command in it; inspect ${path.join(gitDirectoryReal, 'commondir')} and remove it if you did not put it there.`,
    { cwd, args: ['rev-parse'], stderr: '', gitDirectory: gitDirectoryReal, commonDirectory: commonReal },
  )
}
