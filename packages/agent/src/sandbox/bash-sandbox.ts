// The OS sandbox the bash tool runs commands in (docs/architecture.md §12.2), over
// @anthropic-ai/sandbox-runtime (bubblewrap on Linux, Seatbelt on macOS). A command may write only
// to the session's directory, its private temp directory (TMPDIR) and its repository's git
// metadata; it reads everywhere; the network is off unless domains are allowed for it.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime'
import { gitWriteRules } from './git-write-rules.js'
import { defaultTempRoot, privateTempDirectory } from './private-temp.js'
import type { SandboxKind, SandboxProbe } from './sandbox-status.js'

/** `false`: no network; a list: only these domains (`example.com`, `*.example.com`, `host:443`). */
export type SandboxNetwork = false | readonly string[]

export interface BashSandboxOptions {
  /** Where the per-session temp directories go (default `<os temp>/tangent-<uid>`). */
  tempRoot?: string
}

export interface SandboxWrapOptions {
  /** The session's working directory, a real path (a worktree fork's is its worktree). */
  cwd: string
  /** Names the private temp directory: the session id. */
  tempKey: string
  /** Default false. */
  network?: SandboxNetwork
  /** Folders the command may not write even inside `cwd` (Tangent's data directory). */
  protectedPaths?: readonly string[]
  signal?: AbortSignal
}

/** A command ready to run in the sandbox. */
export interface SandboxedCommand {
  /** A shell command line: run it with `spawn(command, {shell: true, cwd})`. */
  readonly command: string
  /** The command's TMPDIR. */
  readonly tempDirectory: string
  /** The command's output with what the sandbox refused appended, for the model to read. */
  explain(output: string): string
  /** Once, after the command has ended (or never started): releases what the wrap holds. */
  release(): void
}

/** What the bash tool needs of a sandbox; BashSandbox is the real one. */
export interface CommandSandbox {
  probe(): Promise<SandboxProbe>
  wrap(command: string, options: SandboxWrapOptions): Promise<SandboxedCommand>
}

/** The process-wide configuration; every command narrows it with its own (per-call) rules. */
const baseConfig: SandboxRuntimeConfig = {
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
}

// The library is one per process (its proxies, its mount-point bookkeeping). These count the
// BashSandbox instances using it, so the last one to be disposed stops its proxies — which
// otherwise keep the process alive — and a later one starts them again.
let users = 0
let stopping: Promise<void> = Promise.resolve()

type SandboxLibrary = typeof import('@anthropic-ai/sandbox-runtime')
/**
 * The library is loaded by the first probe or command, not on import: it is ~100 modules
 * (its proxies and certificates), and a process that never runs bash (`tangent show`) needs none.
 */
let library: Promise<SandboxLibrary> | null = null
function sandboxLibrary(): Promise<SandboxLibrary> {
  library ??= import('@anthropic-ai/sandbox-runtime')
  return library
}

export class BashSandbox implements CommandSandbox {
  readonly #tempRoot: string
  #probe: Promise<SandboxProbe> | null = null
  #started: Promise<void> | null = null
  #disposed = false

  constructor(options: BashSandboxOptions = {}) {
    this.#tempRoot = options.tempRoot ?? defaultTempRoot()
  }

  /**
   * Whether commands can be sandboxed here: the platform, the tools the library needs (bwrap,
   * socat, rg on Linux) and one real sandboxed `true` — which fails where bubblewrap cannot make
   * namespaces (a container without them). Asked once; the answer is kept.
   */
  probe(): Promise<SandboxProbe> {
    this.#probe ??= this.#runProbe()
    return this.#probe
  }

  /** Wraps `command` for the sandbox. Call only after `probe()` said it is available. */
  async wrap(command: string, options: SandboxWrapOptions): Promise<SandboxedCommand> {
    await this.#start()
    const { getDefaultWritePaths, SandboxManager } = await sandboxLibrary()
    const cwd = await realpath(options.cwd)
    const tempDirectory = await privateTempDirectory(this.#tempRoot, options.tempKey)
    const git = await gitWriteRules(cwd)
    const commandId = randomBytes(16).toString('base64url')
    const filesystem = {
      denyRead: [],
      allowWrite: [cwd, tempDirectory, ...git.allowWrite],
      // The library's own conveniences (a shared /tmp/claude, ~/.npm/_logs) would let sessions
      // write outside their directory: where they exist, they are read-only here.
      denyWrite: [
        ...git.denyWrite,
        // The project's Tangent config decides what the agent may do (docs/architecture.md §12.1).
        ...(existsSync(path.join(cwd, '.tangent')) ? [path.join(cwd, '.tangent')] : []),
        // Tangent's data directory, when the project holds it: the logs a command is recorded in.
        ...(options.protectedPaths ?? []).filter((folder) => existsSync(folder)),
        ...getDefaultWritePaths().filter((p) => !p.startsWith('/dev/') && existsSync(p)),
      ],
    }
    // The library sets TMPDIR to its own shared folder; each session gets its private one.
    const inner = `export TMPDIR=${shellQuote(tempDirectory)}; ${command}`
    const wrapped = await SandboxManager.wrapWithSandbox(inner, undefined, { filesystem }, options.signal, {
      commandId,
      commandText: command,
    })
    const allowed = options.network === undefined || options.network === false ? [] : options.network
    if (allowed.length > 0)
      SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: [...allowed] })
    let released = false
    return {
      command: wrapped,
      tempDirectory,
      explain: (output) =>
        explainRefusals(SandboxManager.annotateStderrWithSandboxFailures(commandId, output), {
          cwd,
          tempDirectory,
          networkOff: allowed.length === 0,
        }),
      release: () => {
        if (released) return
        released = true
        SandboxManager.unregisterCommandNetworkLists(commandId)
        SandboxManager.cleanupAfterCommand()
      },
    }
  }

  /** Stops the library's proxies when no other BashSandbox of this process uses them. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    if (this.#started === null) return
    await this.#started.catch(() => undefined)
    users -= 1
    if (users === 0) stopping = sandboxLibrary().then(({ SandboxManager }) => SandboxManager.reset())
    await stopping
  }

  #start(): Promise<void> {
    if (this.#disposed) return Promise.reject(new Error('This BashSandbox was disposed.'))
    this.#started ??= (async () => {
      users += 1
      await stopping
      const { SandboxManager } = await sandboxLibrary()
      await SandboxManager.initialize(baseConfig)
    })()
    return this.#started
  }

  async #runProbe(): Promise<SandboxProbe> {
    const kind = sandboxKindOf(process.platform)
    const { SandboxManager } = await sandboxLibrary()
    if (kind === undefined || !SandboxManager.isSupportedPlatform()) {
      return {
        available: false,
        reason: `no OS sandbox for ${process.platform} (Tangent uses bubblewrap on Linux, Seatbelt on macOS)`,
      }
    }
    const dependencies = await SandboxManager.checkDependenciesAsync()
    if (dependencies.errors.length > 0) {
      const hint = kind === 'bubblewrap' ? ' (install bubblewrap, socat and ripgrep)' : ''
      return { available: false, kind, reason: `${dependencies.errors.join('; ')}${hint}` }
    }
    const trialDirectory = await mkdtemp(path.join(os.tmpdir(), 'tangent-sandbox-probe-'))
    try {
      const failure = await this.#trial(trialDirectory)
      return failure === null ? { available: true, kind } : { available: false, kind, reason: failure }
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
      const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>(
        (resolve, reject) => {
          const child = spawn(sandboxed.command, { shell: true, cwd, stdio: ['ignore', 'ignore', 'pipe'] })
          let stderr = ''
          child.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk.toString()
          })
          child.on('error', reject)
          child.on('close', (code) => resolve({ code, stderr }))
        },
      )
      if (code === 0) return null
      return `a sandboxed command fails here (exit ${code}): ${stderr.trim().split('\n').slice(0, 3).join(' ') || 'no message'}`
    } finally {
      sandboxed.release()
    }
  }
}

function sandboxKindOf(platform: NodeJS.Platform): SandboxKind | undefined {
  if (platform === 'linux') return 'bubblewrap'
  if (platform === 'darwin') return 'seatbelt'
  return undefined
}

/** Single-quoted for sh. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
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
      `[sandbox: commands may write only inside ${scope.cwd} and $TMPDIR (${scope.tempDirectory}); everything else, and the repository's hooks and config, is read-only]`,
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
