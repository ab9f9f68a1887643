// Hooks on the session's life (docs/architecture.md §12.7): the commands the config files name for
// an event, run in the session's folder with the event as JSON on stdin, a minimal environment and,
// when bash is sandboxed, in the bash tool's sandbox. The user's hooks run everywhere; a project's
// only where the user config trusts that project (`trustProjectHooks`), as its MCP servers. A
// `preToolUse` hook may refuse a call (exit 2) and fails closed; every other failure is one
// reported line and never breaks the turn, the fork or the keep it ran for.
import type {
  CommandSandbox,
  HookCommandOutcome,
  runHookCommand,
  ToolCallHooks,
  ToolCallRefusal,
} from '@tangent/agent'
import {
  defaultHookTimeoutMs,
  type HookEntry,
  type HookEventName,
  hookEventNames,
  hookMatchesTool,
} from '@tangent/agent/light'
import { type ConfigFiles, type LoadedConfig, projectFolder, trustsProjectFolder } from './config.js'

/** How hooks run here: the runner, and the bash tool's sandbox when bash runs sandboxed. */
export interface HookRunner {
  run: typeof runHookCommand
  sandbox: CommandSandbox | null
  /** Why no hook may run (the sandbox is required and there is none); null when they may. */
  refused: string | null
}

export interface SessionHooksDeps {
  config: ConfigFiles
  /** Where a hook's failure is told, one line each. */
  report: (line: string) => void
  /** The whole environment of a hook (hookEnvironment). */
  environment: Record<string, string>
  /** Made on first need: the agent's module (with the sandbox) loads then. */
  runner: () => Promise<HookRunner>
  /** Paths no hook may write even inside the session's folder (Tangent's data files). */
  protectedPaths: readonly string[]
  /**
   * Whether the runtime began to close: no hook starts then — a turn the close interrupted runs
   * no turnEnd, and no sandbox is made for a first hook then (agents.ts).
   */
  closing: () => boolean
}

/** What every event's JSON holds; each event adds its own fields (docs/architecture.md §12.7). */
export interface HookEventBase {
  sessionId: string
  /** The session's folder, where the hook runs. */
  cwd: string
}

interface ConfiguredHook {
  entry: HookEntry
  /** The config file naming it. */
  source: string
}

/** The variables a hook gets from Tangent's environment: nothing that may hold a secret. */
const passedVariables = [
  'PATH',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
]

/**
 * A hook's environment: a few of Tangent's variables (never a token or a provider key), HOME,
 * and PATH even when Tangent's environment has none.
 */
export function hookEnvironment(
  env: Record<string, string | undefined>,
  homeDir: string,
): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const name of passedVariables) {
    const value = env[name]
    if (value !== undefined) kept[name] = value
  }
  return { PATH: '/usr/local/bin:/usr/bin:/bin', ...kept, HOME: homeDir }
}

export class SessionHooks {
  readonly #deps: SessionHooksDeps
  /** Lines already reported that would otherwise repeat at every event (untrusted projects). */
  readonly #reported = new Set<string>()
  /**
   * Aborted by close(): every hook still running is killed, and none starts after. Made with the
   * first hook that runs: aborting one at close loads Node's AbortSignal and EventTarget modules,
   * which a command that runs no hook (`tangent show`) would pay for nothing.
   */
  #stop: AbortController | null = null
  #closed = false
  /** The hooks running now, for close() to wait for. */
  readonly #running = new Set<Promise<HookCommandOutcome>>()

  constructor(deps: SessionHooksDeps) {
    this.#deps = deps
  }

  /** The hooks around the tool calls of every session's agent. */
  readonly toolCallHooks: ToolCallHooks = {
    beforeToolCall: async (call, signal) => {
      const base = { sessionId: call.sessionId, cwd: call.cwd }
      if (this.#stopped())
        return { reason: 'Tangent is closing: no tool call runs now.', hook: { command: '', source: '' } }
      let hooks: ConfiguredHook[]
      try {
        hooks = (await this.#configured(call.cwd, 'preToolUse')).filter((hook) =>
          hookMatchesTool(hook.entry.match, call.name),
        )
      } catch (error) {
        // The rules that would decide cannot be read: nothing runs unchecked (§12.1 fails closed too).
        const source = (error as { data?: { path?: unknown } }).data?.path
        return {
          reason: `the preToolUse hooks could not be read, so the call is denied: ${messageOf(error)}`,
          hook: { command: '', source: typeof source === 'string' ? source : this.#deps.config.userPath },
        }
      }
      const input = {
        event: 'preToolUse',
        ...base,
        toolCall: { id: call.id, name: call.name, input: call.input },
      }
      for (const hook of hooks) {
        const outcome = await this.#run(hook, input, base, signal)
        if (outcome.kind === 'exited' && outcome.exitCode === 0) continue
        const named = { command: hook.entry.command, source: hook.source }
        // Stopped with its turn (the agent then leaves the call unrun) or by close(): never a pass.
        if (outcome.kind === 'aborted')
          return { reason: 'the preToolUse hook was stopped before it decided.', hook: named }
        if (outcome.kind === 'exited' && outcome.exitCode === 2) return refusal(outcome.stderr, named)
        const why = this.#failure('preToolUse', hook, outcome)
        this.#deps.report(`warning: ${why}; the tool call was denied.`)
        return {
          reason: `${why}, so the call is denied (a preToolUse hook that fails refuses).`,
          hook: named,
        }
      }
      return null
    },
    toolHooksConfigured: async (cwd) =>
      (await this.#configured(cwd, 'preToolUse')).length > 0 ||
      (await this.#configured(cwd, 'postToolUse')).length > 0,
    afterToolCall: async (call, result, signal) => {
      await this.fire(
        'postToolUse',
        { sessionId: call.sessionId, cwd: call.cwd },
        { toolCall: { id: call.id, name: call.name, input: call.input }, result },
        { toolName: call.name, signal },
      )
    },
  }

  /**
   * Runs the hooks of an event that cannot refuse anything, in order; resolves when they are
   * done. Never throws: a failure, a timeout or a config that cannot be read is one reported line.
   */
  async fire(
    event: Exclude<HookEventName, 'preToolUse'>,
    base: HookEventBase,
    fields: Record<string, unknown>,
    options: { toolName?: string; signal?: AbortSignal } = {},
  ): Promise<void> {
    const { toolName, signal } = options
    // Closing (a turn the close interrupted runs no turnEnd), or the turn was aborted.
    if (this.#stopped() || signal?.aborted) return
    let hooks: ConfiguredHook[]
    try {
      hooks = await this.#configured(base.cwd, event)
    } catch (error) {
      this.#deps.report(`warning: ${event} hooks did not run: ${messageOf(error)}`)
      return
    }
    const input = { event, ...base, ...fields }
    for (const hook of hooks) {
      if (toolName !== undefined && !hookMatchesTool(hook.entry.match, toolName)) continue
      const outcome = await this.#run(hook, input, base, signal)
      // Stopped by an abort of its turn or by close(): nothing went wrong with the hook.
      if (outcome.kind === 'aborted') return
      if (outcome.kind === 'exited' && outcome.exitCode === 0) continue
      this.#deps.report(`warning: ${this.#failure(event, hook, outcome)}.`)
    }
  }

  #stopped(): boolean {
    return this.#closed || this.#deps.closing()
  }

  /** Kills every hook still running and resolves once they have ended; no hook starts after. */
  async close(): Promise<void> {
    this.#closed = true
    this.#stop?.abort()
    await Promise.all([...this.#running])
  }

  /** The user's hooks of `event`, then those of each trusted project file from `cwd` up. Throws `invalid-config`. */
  async #configured(cwd: string, event: HookEventName): Promise<ConfiguredHook[]> {
    const hooks: ConfiguredHook[] = []
    for (const hook of await listHooks(this.#deps.config, cwd)) {
      if (hook.event !== event) continue
      if (hook.enabled) hooks.push({ entry: hook, source: hook.source })
      else this.#reportOnce(`warning: ${hook.note}.`)
    }
    return hooks
  }

  #run(
    hook: ConfiguredHook,
    input: Record<string, unknown>,
    base: HookEventBase,
    signal?: AbortSignal,
  ): Promise<HookCommandOutcome> {
    if (this.#stop === null) {
      this.#stop = new AbortController()
      if (this.#closed) this.#stop.abort()
    }
    const stop = signal ? AbortSignal.any([signal, this.#stop.signal]) : this.#stop.signal
    const running = this.#start(hook, input, base, stop)
    this.#running.add(running)
    void running.finally(() => this.#running.delete(running))
    return running
  }

  async #start(
    hook: ConfiguredHook,
    input: Record<string, unknown>,
    base: HookEventBase,
    signal: AbortSignal,
  ): Promise<HookCommandOutcome> {
    if (this.#stopped()) return { kind: 'aborted', stderr: '' }
    let runner: HookRunner
    try {
      runner = await this.#deps.runner()
    } catch (error) {
      return { kind: 'failed', message: messageOf(error) }
    }
    if (runner.refused !== null) return { kind: 'failed', message: runner.refused }
    return runner.run({
      command: hook.entry.command,
      cwd: base.cwd,
      input: `${JSON.stringify(input)}\n`,
      env: {
        ...this.#deps.environment,
        TANGENT_HOOK_EVENT: String(input.event),
        TANGENT_SESSION_ID: base.sessionId,
      },
      timeoutMs: hook.entry.timeoutMs ?? defaultHookTimeoutMs,
      ...(runner.sandbox
        ? {
            sandbox: {
              sandbox: runner.sandbox,
              tempKey: base.sessionId,
              protectedPaths: this.#deps.protectedPaths,
            },
          }
        : {}),
      signal,
    })
  }

  /** One line: which hook, where from, and how it failed (its stderr's first words). */
  #failure(event: HookEventName, hook: ConfiguredHook, outcome: HookCommandOutcome): string {
    const name = `the ${event} hook \`${oneLine(hook.entry.command, 80)}\` (${hook.source})`
    const said =
      'stderr' in outcome && outcome.stderr.trim() !== '' ? `: ${oneLine(outcome.stderr, 200)}` : ''
    switch (outcome.kind) {
      case 'exited':
        return `${name} failed (exit ${outcome.exitCode})${said}`
      case 'killed':
        return `${name} was killed by ${outcome.signal}${said}`
      case 'timed-out':
        return `${name} timed out after ${hook.entry.timeoutMs ?? defaultHookTimeoutMs} ms and was killed${said}`
      case 'aborted':
        return `${name} was stopped: the turn was aborted`
      case 'failed':
        return `${name} could not run: ${outcome.message}`
    }
  }

  #reportOnce(line: string): void {
    if (this.#reported.has(line)) return
    this.#reported.add(line)
    this.#deps.report(line)
  }
}

/** A configured hook as `tangent doctor` lists it: nothing is run to list it. */
export interface HookListing extends HookEntry {
  event: HookEventName
  /** The config file naming it. */
  source: string
  scope: 'user' | 'project'
  /** False for a project's hook the user config does not trust. */
  enabled: boolean
  /** Why it does not run. */
  note?: string
}

/**
 * The hooks that apply in `cwd`: the user config's, then each project file's from `cwd` up
 * (enabled only when `trustProjectHooks` lists its folder), each file's in event and list order.
 * Throws `invalid-config`.
 */
export async function listHooks(config: ConfigFiles, cwd: string): Promise<HookListing[]> {
  const [user, projects] = await Promise.all([config.user(), config.projects(cwd)])
  const listed = hooksOf(user, 'user', true)
  for (const project of projects) {
    const folder = projectFolder(project.path)
    const trusted = trustsProjectFolder(user?.config.trustProjectHooks, folder)
    const note = `the hooks of ${project.path} do not run: a project's hooks run only where the user config trusts them — add "trustProjectHooks": [${JSON.stringify(folder)}] to ${config.userPath} to allow them`
    listed.push(...hooksOf(project, 'project', trusted, note))
  }
  return listed
}

function hooksOf(
  loaded: LoadedConfig | null,
  scope: HookListing['scope'],
  enabled: boolean,
  note?: string,
): HookListing[] {
  if (!loaded) return []
  const hooks = (loaded.config.hooks ?? {}) as Partial<Record<HookEventName, HookEntry[]>>
  return hookEventNames.flatMap((event) =>
    (hooks[event] ?? []).map((entry) => ({
      ...entry,
      event,
      source: loaded.path,
      scope,
      enabled,
      ...(enabled || note === undefined ? {} : { note }),
    })),
  )
}

/** A hook's exit 2: its stderr is the reason the model reads. */
function refusal(stderr: string, hook: ToolCallRefusal['hook']): ToolCallRefusal {
  const reason = stderr.trim()
  return {
    reason:
      reason === ''
        ? `the hook \`${oneLine(hook.command, 80)}\` refused it (exit 2, no reason given).`
        : clip(reason, 4000),
    hook,
  }
}

function oneLine(text: string, max: number): string {
  return clip(text.trim().replace(/\s+/g, ' '), max)
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
