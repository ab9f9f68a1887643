// The shape of a tool the agent runs itself: a zod input schema and a run function.
// Failures are thrown; the agent turns them into `tool/result` events with `isError: true`.
import type { z } from 'zod'
import type { PathAccess } from '../confine-path.js'

export interface ToolContext {
  /** The session's working directory; every path is confined to it. */
  readonly cwd: string
  /** Aborted when the user aborts the turn: long work must stop. */
  readonly signal: AbortSignal
  /** The id of the tool call being answered (the `tool/result.callId`). */
  readonly callId?: string
  /**
   * Folders no tool may write, even inside `cwd`: Tangent's data directory, when it lies in the
   * project (docs/architecture.md §12.2). Real paths.
   */
  readonly protectedPaths?: readonly string[]
  /**
   * The file tools call it with the real path they are about to open (relative to `cwd`,
   * `/`-separated, after links inside it), before anything is created or opened; it throws to
   * refuse. The agent refuses a path other than the one the permission decision saw (a link
   * changed since) and asks the runtime's guard (deny rules, protected folders): docs/architecture.md §12.1.
   * `walked`: a file or folder `list` or `grep` found beneath the path they were given (it must lie
   * beneath the decided path; a deny rule on it leaves it out).
   */
  readonly checkRealPath?: (relativeRealPath: string, access: PathAccess, walked?: boolean) => Promise<void>
  /**
   * The text a client holds for a file (an editor's unsaved buffer, docs/architecture.md §6.1),
   * asked by `read` only after the path was confined and checked like any read.
   */
  readonly fileSource?: FileSource
}

/** What a file source answered: the file's text, or none (read the disk), with why when it failed. */
export type FileSourceAnswer = { readonly text: string } | { readonly text: null; readonly note?: string }

/**
 * Asks the client attached to the session for the text of the file at `absolutePath`.
 * Contract: never throws; honours `signal`; a failure or a silence answers `{text: null, note}`.
 */
export type FileSource = (absolutePath: string, signal: AbortSignal) => Promise<FileSourceAnswer>

export interface ToolOutcome {
  /** Text for the model (and the log). */
  readonly output: string
  /** True when the tool ran but failed (e.g. a command exited non-zero). */
  readonly isError?: boolean
  /**
   * `write` and `edit`: the file before and after (`oldText` null for a new file), for clients to
   * show the change (ACP `diff` content). Logged in `tool/result.diff`; never shown to the model.
   */
  readonly diff?: FileDiff
  /**
   * With `AgentTool.writes: 'reported'`: every file the call created, replaced or removed,
   * relative to the cwd, '/'-separated (real paths, after links inside it). The step's snapshot
   * then stages only these (docs/architecture.md §5); absent, the whole tree is walked.
   */
  readonly wrote?: readonly string[]
}

/** A file's whole text before and after a tool changed it; `path` relative to the cwd. */
export interface FileDiff {
  readonly path: string
  readonly oldText: string | null
  readonly newText: string
}

/** The largest diff (both texts, in UTF-16 units) a `tool/result` keeps: a bigger one is left out. */
export const maxLoggedDiffChars = 256 * 1024

/** The diff to log, or undefined when it would be too large (or is not text). */
export function loggedDiff(path: string, oldText: string | null, newText: string): FileDiff | undefined {
  if ((oldText?.length ?? 0) + newText.length > maxLoggedDiffChars) return undefined
  if (oldText?.includes('\u0000') || newText.includes('\u0000')) return undefined
  return { path, oldText, newText }
}

export interface AgentTool<Input = unknown> {
  readonly description: string
  /** Validates the input before `run`; the model is shown its JSON Schema unless `inputJsonSchema` is given. */
  readonly inputSchema: z.ZodType<Input>
  /** The JSON Schema the model is shown instead (tools defined elsewhere, e.g. MCP servers, which validate too). */
  readonly inputJsonSchema?: Record<string, unknown>
  /**
   * What a call may change on disk, for the step's snapshot: 'nothing' (it only reads),
   * 'reported' (exactly the files its outcome's `wrote` names, when it returns; a call that
   * throws may have written anything), absent: anything (bash, MCP tools, subagents).
   */
  readonly writes?: 'nothing' | 'reported'
  /** Throws (any error) on failure; the message is shown to the model. */
  run(input: Input, context: ToolContext): Promise<ToolOutcome>
}

export type AgentToolSet = Record<string, AgentTool>

/**
 * Tools that come and go (MCP servers, docs/architecture.md §14.3): asked once at the start of
 * each turn, merged after the built-in tools. Contract: `tools` never throws and honours `signal`
 * (a source that cannot start reports that itself and offers no tools).
 */
export interface ToolSource {
  tools(cwd: string, signal: AbortSignal): Promise<AgentToolSet>
  /** Why a tool the model named is not offered, when the source knows (its server did not start). */
  explainMissing?(toolName: string, cwd: string): string | undefined
}

/** Keeps a tool's input type while returning the erased shape an AgentToolSet holds. */
export function defineTool<Input>(tool: AgentTool<Input>): AgentTool {
  return tool as AgentTool
}
