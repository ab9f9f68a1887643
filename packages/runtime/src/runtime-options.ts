// What a runtime is opened with (`Runtime.open`), and the settings it reads from its environment:
// the bash sandbox's mode, the variables bash commands still get, the data directory's real path
// and what in it no tool may write (docs/architecture.md §12.2).
import { readdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import type { Agent, AgentOptions, FileSource, TaskDelegate, ToolCallHooks, ToolSource } from '@tangent/agent'
import { type ModelRegistry, parseSandboxMode, type SandboxMode } from '@tangent/agent/light'
import type { Session } from '@tangent/core'
import type { SubagentLimits } from './subagents.js'

export interface RuntimeOptions {
  /** TANGENT_HOME: sessions (JSONL engine), catalog, snapshots, workspaces.json. */
  home: string
  /**
   * Where sessions live (docs/architecture.md §4): a `postgres://` URL for the PostgreSQL engine;
   * unset or empty: JSONL under `home`. Default TANGENT_STORE of `env`.
   */
  store?: string | undefined
  /** The largest event a session log takes, as its JSON line (default 64 MiB, docs/architecture.md §4); for tests. */
  maxEventBytes?: number | undefined
  /** Environment for provider keys, TANGENT_MODEL and TANGENT_DEMO_DELAY_MS (default process.env). */
  env?: Record<string, string | undefined>
  /** Model of new sessions and of logs without a selection (default TANGENT_MODEL, else `demo:scripted`). */
  defaultModel?: string
  /** Delay between demo model deltas (default TANGENT_DEMO_DELAY_MS of `env`). */
  demoDelayMs?: number
  /** The folder the user started in: cwd of sessions made without one, base of relative folder paths. */
  startFolder?: string
  /** Open `startFolder` as a workspace (what `tangent serve` does). */
  openStartFolder?: boolean
  /** What `~` means in folder paths (default os.homedir()). */
  homeDir?: string
  /** No writer lock, no writes: for commands that only read beside another writer. */
  readOnly?: boolean
  /** Where unexpected errors are logged (default console.error). */
  report?: (error: unknown) => void
  /**
   * The OS sandbox of the bash tool (docs/architecture.md §12.2): `off`, `auto` (sandboxed where
   * the OS can) or `required` (bash refuses to run unconfined). Default TANGENT_SANDBOX of `env`,
   * else `auto`.
   */
  sandbox?: SandboxMode
  /**
   * Limits of the `task` tool's subagents (docs/architecture.md §14.1); default
   * TANGENT_SUBAGENT_MAX_DEPTH (2) and TANGENT_SUBAGENT_MAX_PER_TURN (4) of `env`.
   */
  subagents?: Partial<SubagentLimits>
  /**
   * How long a client's file source (an editor's buffers, docs/architecture.md §6.1) may take to
   * answer a read before the disk is read instead (default 3000 ms).
   */
  fileSourceTimeoutMs?: number
  /**
   * Watch the folders of sessions between snapshots (@tangent/files FileStateOptions.watch), so
   * a turn's start reads only what changed since the previous turn (docs/architecture.md §5,
   * "Folders watched between turns"): for a process that lives across turns — `tangent serve`,
   * chat, the terminal UI, `tangent acp`. Default false (`tangent run` and other one-shot commands).
   */
  watchFiles?: boolean
  /** The agent of a session (tests, embedders); default: the standard agent with file snapshots. */
  createAgent?: (
    session: Session,
    runtime: {
      flush: () => Promise<void>
      models: ModelRegistry
      bashSandbox?: AgentOptions['bashSandbox']
      /** Runs a subagent for this session (the `task` tool's delegate). */
      delegate: TaskDelegate
      /** The MCP servers' tools: the config servers' and those clients attached (docs/architecture.md §14.3). */
      toolSource: ToolSource
      /** The text of files a client holds open for this session (docs/architecture.md §6.1). */
      fileSource: FileSource
      /** The config's hooks around each tool call (docs/architecture.md §12.7). */
      hooks: ToolCallHooks
    },
  ) => Agent
}

/** TANGENT_SANDBOX: unset or empty is `auto`; a value that is not a mode fails safe to `required`. */
export function sandboxModeOf(value: string | undefined, report: (error: unknown) => void): SandboxMode {
  if (value === undefined || value.trim() === '') return 'auto'
  const mode = parseSandboxMode(value)
  if (mode !== undefined) return mode
  report(
    `warning: TANGENT_SANDBOX=${value} is not off, auto or required; bash runs only sandboxed (required)`,
  )
  return 'required'
}

/** `home` as a real path; `home` itself while it does not exist (a reader on an empty data dir). */
export function realHomeOf(home: string): string {
  try {
    return realpathSync(home)
  } catch {
    return home
  }
}

/** TANGENT_BASH_PASS_ENV: names of secret-looking variables bash commands still get (§12.2). */
export function passEnvOf(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((name) => name !== '')
}

/**
 * What in the data directory no tool may write (§12.2): everything but `worktrees/`, where a
 * worktree fork's session works. The names the data directory holds, and any other entry in it now.
 */
export function dataFilesOf(home: string): string[] {
  const names = new Set(['sessions', 'snapshots', 'catalog.json', 'catalog.journal', 'catalog.clean'])
  for (const name of ['workspaces.json', 'host.json', 'lock']) names.add(name)
  try {
    for (const name of readdirSync(home)) names.add(name)
  } catch {
    // Not there yet: the names above still cover what it will hold.
  }
  names.delete('worktrees')
  return [...names].sort().map((name) => path.join(home, name))
}
