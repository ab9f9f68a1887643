// The OS sandbox the bash tool runs commands in (docs/architecture.md §12.2): bubblewrap on Linux,
// run by Tangent itself; Seatbelt on macOS, through @anthropic-ai/sandbox-runtime. A command may
// write only to the session's directory, its private temp directory (TMPDIR) and what `git commit`
// writes of its repository; the repository's machinery, `.tangent/` and Tangent's data directory
// are out of its reach; it reads everywhere else; the network is off.
import { spawn } from 'node:child_process'
import { existsSync, lstatSync, realpathSync } from 'node:fs'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { isInside } from '../confine-path.js'
import { type BubblewrapIsolation, bubblewrapArguments } from './bubblewrap-arguments.js'
import { gitWriteRules, type ProtectedPath } from './git-write-rules.js'
import { Placeholders } from './placeholders.js'
import { defaultTempRoot, privateTempDirectory } from './private-temp.js'
import type { SandboxKind, SandboxProbe } from './sandbox-status.js'
import { seatbeltDependencyErrors, seatbeltLibrary } from './seatbelt-sandbox.js'

/** `false`: no network; a list: only these domains (`example.com`, `*.example.com`, `host:443`; macOS only). */
export type SandboxNetwork = false | readonly string[]

export interface BashSandboxOptions {
  /** Where the per-session temp directories go (default `<os temp>/tangent-<uid>`). */
  tempRoot?: string
  /**
   * Tangent's data directory (TANGENT_HOME): commands see it as an empty read-only folder (the
   * Host token, the session logs), except a worktree fork's folder inside it, their own cwd.
   */
  dataDirectory?: string
}

export interface SandboxWrapOptions {
  /** The session's working directory, a real path (a worktree fork's is its worktree). */
  cwd: string
  /** Names the private temp directory: the session id. */
  tempKey: string
  /** Default false. */
  network?: SandboxNetwork
  /** Paths the command may not write even inside `cwd` (Tangent's data files). */
  protectedPaths?: readonly string[]
  signal?: AbortSignal
}

/** A command ready to run in the sandbox. */
export interface SandboxedCommand {
  /** Run `spawn(file, args, {cwd})`, with the command's environment. */
  readonly file: string
  readonly args: readonly string[]
  /** The command's TMPDIR. */
  readonly tempDirectory: string
  /** The command's output with what the sandbox refused explained, for the model to read. */
  explain(output: string): string
  /** Once, after the command has ended (or never started): removes the wrap's placeholders. */
  release(): Promise<void>
}

/** What the bash tool needs of a sandbox; BashSandbox is the real one. */
export interface CommandSandbox {
  probe(): Promise<SandboxProbe>
  wrap(command: string, options: SandboxWrapOptions): Promise<SandboxedCommand>
}

/**
 * Files of a project that tools run code from when the user opens it (editors, shells, git, MCP
 * clients): read-only where they exist, as the sandbox library keeps them.
 */
const projectConfigFiles = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
]

export class BashSandbox implements CommandSandbox {
  readonly #tempRoot: string
  readonly #dataDirectory: string | undefined
  readonly #placeholders = new Placeholders()
  #probe: Promise<SandboxProbe> | null = null
  /** How bubblewrap isolates commands here: the best the probe found working. */
  #isolation: BubblewrapIsolation = { kind: 'plain' }
  #seatbeltStarted: Promise<void> | null = null
  #disposed = false

  constructor(options: BashSandboxOptions = {}) {
    this.#tempRoot = options.tempRoot ?? defaultTempRoot()
    this.#dataDirectory = options.dataDirectory && realPathOrSelf(options.dataDirectory)
  }

  /**
   * Whether commands can be sandboxed here: the platform, its tool (bwrap, sandbox-exec) and one
   * real sandboxed `true` — which fails where bubblewrap cannot make namespaces (a container
   * without them). Asked once; the answer is kept.
   */
  probe(): Promise<SandboxProbe> {
    this.#probe ??= this.#runProbe()
    return this.#probe
  }

  /** Wraps `command` for the sandbox. Call only after `probe()` said it is available. */
  async wrap(command: string, options: SandboxWrapOptions): Promise<SandboxedCommand> {
    if (this.#disposed) throw new Error('This BashSandbox was disposed.')
    const kind = sandboxKindOf(process.platform)
    const allowed = options.network === undefined || options.network === false ? [] : options.network
    if (kind === 'bubblewrap' && allowed.length > 0) {
      throw new Error(
        'Allowing network domains to a sandboxed command is not supported on Linux: its network is always off.',
      )
    }
    const cwd = await realpath(options.cwd)
    const tempDirectory = await privateTempDirectory(this.#tempRoot, options.tempKey)
    const git = await gitWriteRules(cwd)
    const data = this.#dataDirectory
    // A session started in the data directory itself keeps it visible (its files stay read-only).
    const hidden = data !== undefined && existsSync(data) && data !== cwd ? [data] : []
    const protect: ProtectedPath[] = [
      ...git.protect,
      // The project's Tangent config decides what the agent may do (§12.1), existing or not.
      { path: path.join(cwd, '.tangent'), absent: 'directory' },
      ...(options.protectedPaths ?? [])
        .filter((target) => !hidden.some((folder) => isInside(folder, target)))
        .map((target) => ({ path: target, absent: 'skip' as const })),
      ...projectConfigFiles
        .map((name) => path.join(cwd, name))
        // A link among these is left alone rather than refusing every command of the project.
        .filter((target) => lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink() === false)
        .map((target) => ({ path: target, absent: 'skip' as const })),
    ]
    const scope = { cwd, tempDirectory, networkOff: allowed.length === 0 }
    if (kind === 'seatbelt')
      return this.#wrapSeatbelt(command, {
        ...scope,
        allowWrite: git.allowWrite,
        protect,
        hidden,
        allowed,
        options,
      })
    const placeholders = await this.#placeholders.acquire(protect)
    const args = bubblewrapArguments(
      {
        cwd,
        tempDirectory,
        writable: git.allowWrite,
        readOnly: placeholders.mounts,
        hidden,
        isolation: this.#isolation,
      },
      command,
    )
    let released = false
    return {
      file: 'bwrap',
      args,
      tempDirectory,
      explain: (output) => explainRefusals(output, scope),
      release: async () => {
        if (released) return
        released = true
        await placeholders.release()
      },
    }
  }

  /** Stops the sandbox library's proxies (macOS) when no other BashSandbox of this process uses them. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    if (this.#seatbeltStarted === null) return
    await this.#seatbeltStarted.catch(() => undefined)
    await seatbeltLibrary.stop()
  }

  async #wrapSeatbelt(
    command: string,
    wrap: {
      cwd: string
      tempDirectory: string
      networkOff: boolean
      allowWrite: readonly string[]
      protect: readonly ProtectedPath[]
      hidden: readonly string[]
      allowed: readonly string[]
      options: SandboxWrapOptions
    },
  ): Promise<SandboxedCommand> {
    this.#seatbeltStarted ??= seatbeltLibrary.start()
    await this.#seatbeltStarted
    const wrapped = await seatbeltLibrary.wrap(command, {
      cwd: wrap.cwd,
      tempDirectory: wrap.tempDirectory,
      allowWrite: wrap.allowWrite,
      protect: wrap.protect,
      // Seatbelt denies reads by path, so a worktree inside the data directory would be unreadable:
      // there, only the data files are hidden.
      hidden: wrap.hidden.some((folder) => isInside(folder, wrap.cwd))
        ? (wrap.options.protectedPaths ?? [])
        : wrap.hidden,
      allowedDomains: wrap.allowed,
      ...(wrap.options.signal ? { signal: wrap.options.signal } : {}),
    })
    return {
      file: '/bin/sh',
      args: ['-c', wrapped.shellCommand],
      tempDirectory: wrap.tempDirectory,
      explain: (output) => explainRefusals(wrapped.annotate(output), wrap),
      release: async () => wrapped.release(),
    }
  }

  async #runProbe(): Promise<SandboxProbe> {
    const kind = sandboxKindOf(process.platform)
    if (kind === undefined) {
      return {
        available: false,
        reason: `no OS sandbox for ${process.platform} (Tangent uses bubblewrap on Linux, Seatbelt on macOS)`,
      }
    }
    if (kind === 'seatbelt') {
      const errors = await seatbeltDependencyErrors()
      if (errors.length > 0) return { available: false, kind, reason: errors.join('; ') }
    }
    const trialDirectory = await mkdtemp(path.join(os.tmpdir(), 'tangent-sandbox-probe-'))
    try {
      let failure: string | null = null
      for (const isolation of kind === 'bubblewrap' ? bubblewrapIsolations() : [this.#isolation]) {
        this.#isolation = isolation
        const trial = await this.#trial(trialDirectory)
        if (trial === null) return { available: true, kind }
        // The best one's failure says most: the others are fallbacks for unusual machines.
        failure ??= trial
      }
      return { available: false, kind, reason: failure ?? 'no way to sandbox commands here' }
    } catch (error) {
      return { available: false, kind, reason: error instanceof Error ? error.message : String(error) }
    } finally {
      await rm(trialDirectory, { recursive: true, force: true })
    }
  }

  /** Runs `true` in the sandbox; null when it worked, else what went wrong. */
  async #trial(cwd: string): Promise<string | null> {
    const sandboxed = await this.wrap('true', { cwd, tempKey: 'probe' })
    try {
      const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(sandboxed.file, sandboxed.args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
        let stderr = ''
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString()
        })
        child.on('error', (error: NodeJS.ErrnoException) =>
          resolve({
            code: null,
            stderr:
              error.code === 'ENOENT'
                ? `${sandboxed.file} is not installed (install bubblewrap)`
                : error.message,
          }),
        )
        child.on('close', (code) => resolve({ code, stderr }))
      })
      if (code === 0) return null
      const message = stderr.trim().split('\n').slice(0, 3).join(' ') || 'no message'
      return code === null ? message : `a sandboxed command fails here (exit ${code}): ${message}`
    } finally {
      await sandboxed.release()
    }
  }
}

/** The isolations to try, best first (bubblewrap-arguments.ts). */
function bubblewrapIsolations(): BubblewrapIsolation[] {
  const helper = seccompHelperPath()
  return [
    ...(helper !== undefined ? [{ kind: 'seccomp' as const, helper }] : []),
    { kind: 'user-namespace' },
    { kind: 'plain' },
  ]
}

/** The sandbox library's `apply-seccomp` for this machine (x64, arm64), when it is installed. */
function seccompHelperPath(): string | undefined {
  const architecture = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : undefined
  if (architecture === undefined) return undefined
  try {
    const main = fileURLToPath(import.meta.resolve('@anthropic-ai/sandbox-runtime'))
    const helper = path.join(path.dirname(main), '..', 'vendor', 'seccomp', architecture, 'apply-seccomp')
    return existsSync(helper) ? realpathSync(helper) : undefined
  } catch {
    // The library is not installed: the other isolations remain.
    return undefined
  }
}

function sandboxKindOf(platform: NodeJS.Platform): SandboxKind | undefined {
  if (platform === 'linux') return 'bubblewrap'
  if (platform === 'darwin') return 'seatbelt'
  return undefined
}

function realPathOrSelf(target: string): string {
  try {
    return realpathSync(target)
  } catch {
    // Not made yet: the name as given is what it will be.
    return path.resolve(target)
  }
}

/**
 * Adds a line saying what the sandbox allows when the output shows it refused something, so the
 * model learns why instead of retrying the same command.
 */
function explainRefusals(
  output: string,
  scope: { cwd: string; tempDirectory: string; networkOff: boolean },
): string {
  const notes: string[] = []
  if (/Read-only file system|Operation not permitted|Permission denied/.test(output)) {
    notes.push(
      `[sandbox: commands may write only inside ${scope.cwd} and $TMPDIR (${scope.tempDirectory}); everything else is read-only, and so are .tangent/ and the repository's git machinery (config, hooks, commondir, info, modules, worktrees): git add and commit work, but git init, git worktree add, git submodule and git config must be run by the user]`,
    )
  }
  if (
    scope.networkOff &&
    /Network is unreachable|Could not resolve|Temporary failure in name resolution|Connection refused|ENETUNREACH|ECONNREFUSED|EAI_AGAIN|response 403|sandbox_violations/.test(
      output,
    )
  ) {
    notes.push('[sandbox: the network is off for commands in this session]')
  }
  return notes.length === 0 ? output : `${output.replace(/\n$/, '')}\n${notes.join('\n')}`
}
