// The macOS sandbox (Seatbelt, through @anthropic-ai/sandbox-runtime), and the library's network
// proxies where a session allows domains (docs/architecture.md §12.2). On Linux Tangent runs
// bubblewrap itself (bubblewrap-arguments.ts); this path is macOS only. Its proxies run inside this
// process (no helper processes), so nothing of them outlives it.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime'
import type { ProtectedPath } from './git-write-rules.js'

type SandboxLibrary = typeof import('@anthropic-ai/sandbox-runtime')

/** The process-wide configuration; every command narrows it with its own (per-call) rules. */
const baseConfig: SandboxRuntimeConfig = {
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
}

export interface SeatbeltWrapOptions {
  readonly cwd: string
  readonly tempDirectory: string
  readonly allowWrite: readonly string[]
  /** Existing paths only: Seatbelt denies by path, so an absent one needs no stand-in. */
  readonly protect: readonly ProtectedPath[]
  readonly hidden: readonly string[]
  readonly allowedDomains: readonly string[]
  readonly signal?: AbortSignal
}

export interface SeatbeltCommand {
  readonly shellCommand: string
  annotate(output: string): string
  release(): void
}

/**
 * The library is one per process (its proxies, its bookkeeping); this counts its users, so the
 * last one stops its proxies — which otherwise keep the process alive — and a later one starts
 * them again. The library is loaded on first use: it is ~100 modules.
 */
class SeatbeltLibrary {
  #library: Promise<SandboxLibrary> | null = null
  #users = 0
  #stopping: Promise<void> = Promise.resolve()

  load(): Promise<SandboxLibrary> {
    this.#library ??= import('@anthropic-ai/sandbox-runtime')
    return this.#library
  }

  async start(): Promise<void> {
    this.#users += 1
    await this.#stopping
    const { SandboxManager } = await this.load()
    await SandboxManager.initialize(baseConfig)
  }

  async stop(): Promise<void> {
    this.#users -= 1
    if (this.#users === 0) this.#stopping = this.load().then(({ SandboxManager }) => SandboxManager.reset())
    await this.#stopping
  }

  async wrap(command: string, options: SeatbeltWrapOptions): Promise<SeatbeltCommand> {
    const { getDefaultWritePaths, SandboxManager } = await this.load()
    const commandId = randomBytes(16).toString('base64url')
    const filesystem = {
      // Seatbelt denies by path: whatever is protected is denied whether it exists or not.
      denyRead: [...options.hidden],
      allowWrite: [options.cwd, options.tempDirectory, ...options.allowWrite],
      denyWrite: [
        ...options.protect.map((entry) => entry.path),
        // The library's own conveniences (a shared /tmp/claude, ~/.npm/_logs) would let sessions
        // write outside their directory: where they exist, they are read-only here.
        ...getDefaultWritePaths().filter((p) => !p.startsWith('/dev/') && existsSync(p)),
      ],
    }
    const inner = `export TMPDIR=${shellQuote(options.tempDirectory)}; ${command}`
    const shellCommand = await SandboxManager.wrapWithSandbox(
      inner,
      undefined,
      { filesystem },
      options.signal,
      {
        commandId,
        commandText: command,
      },
    )
    if (options.allowedDomains.length > 0)
      SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: [...options.allowedDomains] })
    let released = false
    return {
      shellCommand,
      annotate: (output) => SandboxManager.annotateStderrWithSandboxFailures(commandId, output),
      release: () => {
        if (released) return
        released = true
        SandboxManager.unregisterCommandNetworkLists(commandId)
        SandboxManager.cleanupAfterCommand()
      },
    }
  }
}

/** The process's one library: it mirrors the library's own process-wide state. */
export const seatbeltLibrary = new SeatbeltLibrary()

/** Single-quoted for sh. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

/** The library's check of its own dependencies (sandbox-exec on macOS). */
export async function seatbeltDependencyErrors(): Promise<string[]> {
  const { SandboxManager } = await seatbeltLibrary.load()
  if (!SandboxManager.isSupportedPlatform())
    return [`the sandbox library does not support ${process.platform}`]
  return (await SandboxManager.checkDependenciesAsync()).errors
}
