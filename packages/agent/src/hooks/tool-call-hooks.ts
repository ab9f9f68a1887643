// What the agent asks of hooks around a tool call (docs/architecture.md §12.7). The runtime
// implements it over the config files; the agent only records and obeys what it answers.

/** A tool call as hooks see it. */
export interface HookToolCall {
  sessionId: string
  /** The session's folder. */
  cwd: string
  id: string
  name: string
  input: unknown
}

/** A `preToolUse` hook's refusal: the model reads `reason`; the log records it with the hook. */
export interface ToolCallRefusal {
  reason: string
  /** The hook that refused: its command and the config file it is in. */
  hook: { command: string; source: string }
}

export interface ToolCallHooks {
  /**
   * Before the permission policy, for a call of a known tool with valid input: a refusal denies
   * it; null leaves it to the policy. Never throws: a hook that fails refuses (fails closed).
   * An abort of the turn stops the hooks still running.
   */
  beforeToolCall(call: HookToolCall, signal: AbortSignal): Promise<ToolCallRefusal | null>
  /**
   * After a call ran, with the result the log records. Never throws; failures are reported. An
   * abort of the turn stops the hooks still running.
   */
  afterToolCall(
    call: HookToolCall,
    result: { output: unknown; isError: boolean },
    signal: AbortSignal,
  ): Promise<void>
  /**
   * Whether a preToolUse or postToolUse hook is configured for `cwd` (its command may write
   * files, so the step's snapshot walks the tree). Absent: taken as yes.
   */
  toolHooksConfigured?(cwd: string): Promise<boolean>
}
