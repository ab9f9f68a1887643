// A live agent over one session: prompt() runs one turn of the loop (docs/architecture.md §6) and
// writes exactly the log grammar of §2; abort() stops it; deltas go to subscribers only.
import {
  type CompactionData,
  closingEventsForOpenTurn,
  currentModel,
  type PromptImage,
  promptImageParts,
  type Session,
  TangentError,
  type TurnEndReason,
  type UserPart,
} from '@tangent/core'
import { SessionContext } from './context/session-context.js'
import type { HookToolCall, ToolCallHooks } from './hooks/tool-call-hooks.js'
import { defaultModelId, ModelRegistry } from './model-registry.js'
import { type AgentDelta, errorMessage, type ModelStepOutcome, runModelStep } from './model-step.js'
import './providers.js'
import {
  PendingApprovals,
  type PermissionAnswer,
  type PermissionDecider,
  sessionPermissionRules,
} from './permissions/approvals.js'
import { type PathGuard, realPathCheck } from './permissions/real-path-check.js'
import { replayMessages } from './replay-messages.js'
import type { AgentToolSet, FileDiff, FileSource, ToolSource } from './tools/agent-tool.js'
import type { BashSandboxSetting } from './tools/bash.js'
import { capToolOutput } from './tools/cap-tool-output.js'
import { createDefaultTools } from './tools/default-tools.js'
import { createTaskTool, type TaskDelegate } from './tools/task.js'

export interface SnapshotResult {
  tree: string
  changed: string[]
  skipped?: string[]
  /** Paths changed between turns, not by the agent (a turn-start snapshot's, docs/architecture.md §5). */
  outside?: string[]
}

export interface AgentOptions {
  /** A live session of a SessionStore (persistence listens to the store). */
  session: Session
  /** Durability: called before each model call, before each tool, at turn/end. */
  flush: () => Promise<void>
  models: ModelRegistry
  /** Used when the log has no model/selection (default 'demo:scripted'). */
  defaultModel?: string
  /** Model calls per turn before it ends with `max-steps` (default 25). */
  maxSteps?: number
  /**
   * Called after each step that ran a tool; the agent appends `snapshot/taken`. `written`: every
   * file the step's calls changed, when each said so (`AgentTool.writes`) and no hook ran beside
   * them; absent, anything may have changed.
   */
  snapshot?: (session: Session, written?: readonly string[]) => Promise<SnapshotResult | null>
  /**
   * Called at the start of each turn: the directory when it differs from the session's latest
   * tree (what changed meanwhile in `outside`), or null; appended as `snapshot/taken` with an
   * empty `changed`. Without it the agent takes one baseline through `snapshot` in a session's
   * first turn when it has no tree yet.
   */
  turnStartSnapshot?: (session: Session) => Promise<SnapshotResult | null>
  /** Default: read, write, edit, list, grep, bash confined to `session.header.cwd`. */
  tools?: AgentToolSet
  /** More tools, asked at the start of each turn (MCP servers, docs/architecture.md §14.3). */
  toolSource?: ToolSource
  /** The text of files a client holds open (an editor's buffers), for `read` (docs/architecture.md §6.1). */
  fileSource?: FileSource
  /** Default timeout of the bash tool (120 s). */
  bashTimeoutMs?: number
  /** The OS sandbox of the default bash tool (docs/architecture.md §12.2); none: bash runs unconfined. */
  bashSandbox?: Omit<BashSandboxSetting, 'tempKey'>
  /** Secret-looking environment variables the default bash tool still passes to commands (§12.2). */
  bashPassEnv?: readonly string[]
  /** Folders no tool may write, even inside the session's folder: Tangent's data directory (real paths). */
  protectedPaths?: readonly string[]
  /** Retries of a failed model call (AI SDK default 2; tests use 0). */
  maxRetries?: number
  /** System prompt (default: a short one naming the working directory); the recorded instructions follow it. */
  system?: string
  /**
   * The permission policy (docs/architecture.md §12.1): each tool call is allowed, denied, or
   * asked about (the turn waits for `answerPermission`). Default: every call runs.
   */
  permissions?: PermissionDecider
  /**
   * Checks the real path a file tool is about to open (deny rules, protected folders), at open
   * time: a link changed since the decision cannot carry the call past them (§12.1).
   */
  checkRealPath?: PathGuard
  /**
   * The user-level instructions file (default `$XDG_CONFIG_HOME/tangent/AGENTS.md`, else
   * `~/.config/tangent/AGENTS.md`); null reads none. docs/architecture.md §12.3.
   */
  userInstructionsPath?: string | null
  /**
   * Subagents (docs/architecture.md §14.1): given, the agent has a `task` tool that runs one
   * through this delegate; consecutive `task` calls of a step run in parallel.
   */
  delegate?: TaskDelegate
  /**
   * Hooks around each tool call (docs/architecture.md §12.7): `preToolUse` before the policy (a
   * refusal is recorded as `permission/answered` by `hook`), `postToolUse` after the call ran.
   */
  hooks?: ToolCallHooks
  /** Fraction of the model's context window past which a turn compacts the history first (default 0.8). */
  compactThreshold?: number
}

/** A compaction made on request: the `context/compacted` event's seq and data. */
export type CompactResult = CompactionData & { seq: number }

export interface PromptResult {
  turnStartSeq: number
  turnEndSeq: number
  reason: TurnEndReason
}

export type DeltaListener = (delta: AgentDelta) => void

const abortedMessage = 'Aborted by the user.'

export class Agent {
  readonly session: Session
  readonly #options: AgentOptions
  readonly #tools: AgentToolSet
  /** The running turn's tools: the built-in ones and the tool source's. */
  #turnTools: AgentToolSet
  readonly #listeners = new Set<DeltaListener>()
  readonly #approvals = new PendingApprovals()
  /** The real path each permitted file-tool call was decided for, until it runs (by call id). */
  readonly #approvedRealPaths = new Map<string, string>()
  readonly #context: SessionContext
  #controller: AbortController | null = null
  #stopReason: 'aborted' | 'interrupted' = 'aborted'

  constructor(options: AgentOptions) {
    this.session = options.session
    this.#options = options
    const sandbox = options.bashSandbox && { ...options.bashSandbox, tempKey: options.session.id }
    const tools =
      options.tools ??
      createDefaultTools({
        bash: {
          timeoutMs: options.bashTimeoutMs,
          sandbox,
          ...(options.bashPassEnv ? { passEnv: options.bashPassEnv } : {}),
        },
      })
    this.#tools = options.delegate ? { ...tools, task: createTaskTool(options.delegate) } : tools
    this.#turnTools = this.#tools
    this.#context = new SessionContext({
      session: options.session,
      models: options.models,
      system: options.system ?? defaultSystemPrompt(options.session.header.cwd),
      ...(options.userInstructionsPath !== undefined
        ? { userInstructionsPath: options.userInstructionsPath }
        : {}),
      ...(options.compactThreshold !== undefined ? { compactThreshold: options.compactThreshold } : {}),
      maxRetries: options.maxRetries ?? 2,
      flush: options.flush,
    })
  }

  get running(): boolean {
    return this.#controller !== null
  }

  /** The model the next prompt uses: the log's latest model/selection, else the default. */
  get modelId(): string {
    const selection = currentModel(this.session.events)
    return selection
      ? `${selection.provider}:${selection.model}`
      : (this.#options.defaultModel ?? defaultModelId)
  }

  /**
   * Subscribes to live deltas of the running turn; returns the unsubscribe function.
   * A listener that throws ends the turn with reason `error`: guard your own I/O.
   */
  onDelta(listener: DeltaListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * Stops the running turn (the model stream, the running tool or a wait for approval). False
   * when idle. `interrupted`: the Host is stopping, and the turn ends with that reason.
   */
  abort(options: { interrupted?: boolean } = {}): boolean {
    if (!this.#controller) return false
    if (options.interrupted) this.#stopReason = 'interrupted'
    this.#controller.abort(new TangentError('aborted', this.#stopMessage()))
    return true
  }

  /** True while a tool call of the running turn waits for an answer. */
  get waitingForPermission(): boolean {
    return this.#approvals.size > 0
  }

  /**
   * Answers a call the policy asked about: appends `permission/answered` and lets the turn go on
   * (the call runs, or gets a denial result the model reads). Throws `permission-not-pending`.
   */
  answerPermission(callId: string, answer: PermissionAnswer): void {
    this.#approvals.answer(this.session.id, callId, answer)
  }

  /** Validates `id` (and that it is usable), then appends `model/selection`. */
  setModel(id: string, reasoningEffort?: string): void {
    this.#assertIdle()
    const { provider, model } = ModelRegistry.parse(id)
    this.#options.models.resolve(id)
    this.session.append('model/selection', {
      provider,
      model,
      ...(reasoningEffort ? { reasoningEffort } : {}),
    })
  }

  /**
   * Runs one turn. Throws before appending anything: `session-busy` when a turn is running,
   * `model-unavailable`, `invalid-params` for an image that is not one (promptImageParts) and
   * `images-unsupported` for images to a model that does not take them; every other failure
   * ends the turn with a reason. `text` may be empty when there are images.
   */
  async prompt(text: string, images: readonly PromptImage[] = []): Promise<PromptResult> {
    this.#assertIdle()
    const imageParts = promptImageParts(images)
    if (text === '' && imageParts.length === 0)
      throw new TangentError('invalid-params', 'A prompt needs text, or at least one image.')
    const selection = currentModel(this.session.events)
    const modelId = this.modelId
    const model = this.#options.models.resolve(modelId)
    this.#options.models.assertTakesImages(modelId, imageParts.length)
    const content: UserPart[] = [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...imageParts]
    const providerOptions = this.#options.models.providerOptions(modelId, selection?.reasoningEffort)
    const controller = new AbortController()
    this.#controller = controller
    try {
      const turnStart = this.session.append('turn/start', {})
      let reason: TurnEndReason
      try {
        // Inside the try: a message the store refuses (too large) ends the turn as an error.
        this.session.append('user/message', { content })
        await this.#context.beginTurn()
        const more = await this.#options.toolSource?.tools(this.session.header.cwd, controller.signal)
        this.#turnTools = more ? { ...more, ...this.#tools } : this.#tools
        // What changed since the session's latest tree is not this turn's doing: recorded
        // first, so the turn's first step books only the agent's changes.
        if (this.#options.turnStartSnapshot) await this.#snapshot('turn-start')
        // Without a first tree (no snapshot in the log, no fork-point tree), files
        // could not be restored to the start of this session: take one now.
        else if (!this.session.latestOfType('snapshot/taken') && !this.session.header.baseTree) {
          await this.#snapshot('baseline')
        }
        reason = await this.#loop({ model, modelId, providerOptions, signal: controller.signal })
      } catch (error) {
        // A failure outside the model call (flush, a listener): close the turn as an error.
        reason = this.#close(controller.signal.aborted ? 'aborted' : 'error', errorMessage(error))
      }
      const turnEndSeq = this.session.lastSeq
      // The turn ended with its turn/end, which clients already see: the next prompt may start
      // while this one waits for its events to be durable (they are flushed in order).
      this.#release(controller)
      await this.#options.flush()
      return { turnStartSeq: turnStart.seq, turnEndSeq, reason }
    } finally {
      this.#release(controller)
    }
  }

  /** Ends the run `controller` belongs to, unless a later run already replaced it. */
  #release(controller: AbortController): void {
    if (this.#controller !== controller) return
    this.#controller = null
    this.#stopReason = 'aborted'
  }

  async #loop(call: {
    model: ReturnType<ModelRegistry['resolve']>
    modelId: string
    providerOptions: ReturnType<ModelRegistry['providerOptions']>
    signal: AbortSignal
  }): Promise<TurnEndReason> {
    const maxSteps = this.#options.maxSteps ?? 25
    const cwd = this.session.header.cwd
    for (let step = 1; ; step++) {
      await this.#context.compactIfNeeded({ id: call.modelId, model: call.model }, call.signal)
      this.session.append('step/start', {})
      await this.#options.flush()
      if (call.signal.aborted) return this.#close('aborted', abortedMessage)
      const outcome = await runModelStep({
        model: call.model,
        system: this.#context.systemPrompt(),
        messages: replayMessages(this.session.events),
        tools: this.#turnTools,
        providerOptions: call.providerOptions,
        maxRetries: this.#options.maxRetries ?? 2,
        signal: call.signal,
        onDelta: (delta) => this.#emit(delta),
      })
      this.session.append('assistant/message', { content: outcome.content })
      if (outcome.aborted) return this.#close('aborted', abortedMessage)
      if (outcome.error !== undefined) return this.#close('error', errorMessage(outcome.error))
      if (outcome.toolCalls.length === 0) {
        this.#endStep(outcome)
        this.session.append('turn/end', { reason: 'completed' })
        return 'completed'
      }
      const { ran, written } = await this.#runTools(outcome, cwd, call.signal)
      if (ran > 0) await this.#snapshot('step', written)
      if (call.signal.aborted) return this.#close('aborted', abortedMessage)
      this.#endStep(outcome)
      if (step >= maxSteps) {
        this.session.append('turn/end', {
          reason: 'max-steps',
          error: `Stopped after ${maxSteps} steps (the model kept calling tools).`,
        })
        return 'max-steps'
      }
    }
  }

  /**
   * Summarises the history now, between turns (docs/architecture.md §12.4). Throws
   * `session-busy` during a turn, `nothing-to-compact`, and `compaction-failed` (appending
   * nothing) when the model call fails; abort() stops it.
   */
  async compact(): Promise<CompactResult> {
    this.#assertIdle()
    const modelId = this.modelId
    const model = this.#options.models.resolve(modelId)
    const controller = new AbortController()
    this.#controller = controller
    try {
      return await this.#context.compact({ id: modelId, model }, controller.signal)
    } finally {
      this.#release(controller)
    }
  }

  /**
   * Runs the step's calls in order, except that consecutive `task` calls run together (each
   * waits for its subagent); results are appended in call order. After an abort the rest get
   * error results. Returns how many ran.
   */
  /**
   * Runs a step's calls; `written` lists the files they changed when every call that ran said
   * exactly which (null: anything may have changed — bash, MCP, a subagent, a call that threw, a
   * tool hook that ran a command).
   */
  async #runTools(
    outcome: ModelStepOutcome,
    cwd: string,
    signal: AbortSignal,
  ): Promise<{ ran: number; written: string[] | null }> {
    let ran = 0
    let written: string[] | null = []
    const calls = outcome.toolCalls
    for (let i = 0; i < calls.length; ) {
      let end = i + 1
      if (calls[i]!.toolName === 'task') while (calls[end]?.toolName === 'task') end++
      const batch = calls.slice(i, end)
      const results = await Promise.all(batch.map((call) => this.#callResult(call, cwd, signal)))
      batch.forEach((call, index) => {
        const result = results[index]!
        if (result.ran) ran++
        if (result.ran)
          written = result.wrote === null || written === null ? null : [...written, ...result.wrote]
        this.session.append('tool/result', {
          callId: call.toolCallId,
          toolName: call.toolName,
          output: capToolOutput(result.output),
          isError: result.isError,
          ...(result.diff ? { diff: result.diff } : {}),
        })
      })
      i = end
    }
    if (ran > 0 && written !== null && (await this.#hooksMayWrite(cwd))) written = null
    return { ran, written }
  }

  /** A tool hook runs a command, which may write anything: the step's files then are walked. */
  async #hooksMayWrite(cwd: string): Promise<boolean> {
    const hooks = this.#options.hooks
    if (!hooks) return false
    return hooks.toolHooksConfigured ? await hooks.toolHooksConfigured(cwd).catch(() => true) : true
  }

  /** One call's result: permitted and run, denied, or unrun after an abort. */
  async #callResult(
    call: ModelStepOutcome['toolCalls'][number],
    cwd: string,
    signal: AbortSignal,
  ): Promise<{
    output: string
    isError: boolean
    ran: boolean
    diff?: FileDiff
    wrote: readonly string[] | null
  }> {
    // After an abort the rest are answered at once, so the snapshot follows every result.
    const unrun = { output: `${abortedMessage} The tool did not run.`, isError: true, ran: false, wrote: [] }
    if (signal.aborted) return unrun
    const denied = await this.#permit(call, cwd, signal)
    if (denied) return { ...denied, ran: false, wrote: [] }
    if (signal.aborted) {
      this.#approvedRealPaths.delete(call.toolCallId)
      return unrun
    }
    await this.#options.flush()
    const result = await this.#runTool(call, cwd, signal)
    const hooks = this.#options.hooks
    // As for preToolUse: calls of a known tool with valid input (not an unknown tool's error).
    if (hooks && !signal.aborted && this.#turnTools[call.toolName] && call.invalidReason === undefined)
      await hooks.afterToolCall(
        this.#hookCall(call, cwd),
        {
          output: capToolOutput(result.output),
          isError: result.isError,
        },
        signal,
      )
    return { ...result, ran: true }
  }

  #hookCall(call: ModelStepOutcome['toolCalls'][number], cwd: string): HookToolCall {
    return { sessionId: this.session.id, cwd, id: call.toolCallId, name: call.toolName, input: call.input }
  }

  /**
   * The `preToolUse` hooks' refusal of a call, recorded like any decision (`permission/answered`
   * by `hook`), as the result the model reads; null when they leave it to the policy.
   */
  async #hookRefusal(
    call: ModelStepOutcome['toolCalls'][number],
    cwd: string,
    signal: AbortSignal,
  ): Promise<{ output: string; isError: boolean } | null> {
    const hooks = this.#options.hooks
    if (!hooks) return null
    const refusal = await hooks.beforeToolCall(this.#hookCall(call, cwd), signal)
    if (signal.aborted) return { output: `${abortedMessage} The tool did not run.`, isError: true }
    if (!refusal) return null
    this.session.append('permission/answered', {
      callId: call.toolCallId,
      decision: 'deny',
      reason: refusal.reason,
      by: 'hook',
      hook: refusal.hook,
    })
    return {
      output: `Permission denied by a preToolUse hook: the tool did not run. Reason: ${refusal.reason}`,
      isError: true,
    }
  }

  /**
   * Null when the call may run; else the result the model gets instead. An `ask` is recorded
   * (`permission/requested`, flushed, so every client and a restarted Host see it) and waits for
   * its answer; an abort while waiting leaves it unanswered and the call unrun.
   */
  async #permit(
    call: ModelStepOutcome['toolCalls'][number],
    cwd: string,
    signal: AbortSignal,
  ): Promise<{ output: string; isError: boolean } | null> {
    if (!this.#turnTools[call.toolName] || call.invalidReason !== undefined) return null
    const refused = await this.#hookRefusal(call, cwd, signal)
    if (refused) return refused
    const decide = this.#options.permissions
    if (!decide) return null
    const verdict = await decide({
      modelId: this.modelId,
      toolName: call.toolName,
      input: call.input,
      sessionRules: sessionPermissionRules(this.session),
      mode: this.session.mode,
      cwd,
    })
    const approve = () => {
      if (verdict.realPath !== undefined) this.#approvedRealPaths.set(call.toolCallId, verdict.realPath)
      return null
    }
    if (verdict.action === 'allow') return approve()
    if (verdict.action === 'deny') {
      return { output: `Permission denied: ${verdict.reason}. The tool did not run.`, isError: true }
    }
    // Waiting starts before the request is visible, so an answer can never come too early.
    const answered = this.#approvals.wait(call.toolCallId, signal)
    answered.catch(() => {})
    this.session.append('permission/requested', {
      callId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      pattern: verdict.pattern,
    })
    let answer: PermissionAnswer
    try {
      await this.#options.flush()
      answer = await answered
    } catch (error) {
      if (!signal.aborted) throw error
      return {
        output: `${abortedMessage} The tool did not run (it was waiting for approval).`,
        isError: true,
      }
    }
    this.session.append('permission/answered', {
      callId: call.toolCallId,
      decision: answer.decision,
      ...(answer.reason ? { reason: answer.reason } : {}),
      ...(answer.decision === 'always' ? { rule: { tool: call.toolName, pattern: verdict.pattern } } : {}),
      by: answer.by ?? 'user',
    })
    if (answer.decision !== 'deny') return approve()
    const why = answer.reason ? ` Reason: ${answer.reason}` : ''
    // Who decided: "by the user" only when a person answered.
    const by =
      answer.by === 'flag'
        ? 'Permission denied by a flag of the command that runs this turn'
        : answer.by === 'no-terminal'
          ? 'Permission denied: nobody could be asked (the command that runs this turn has no terminal)'
          : 'Permission denied by the user'
    return { output: `${by}: the tool did not run.${why}`, isError: true }
  }

  async #runTool(
    call: ModelStepOutcome['toolCalls'][number],
    cwd: string,
    signal: AbortSignal,
  ): Promise<{ output: string; isError: boolean; diff?: FileDiff; wrote: readonly string[] | null }> {
    const agentTool = this.#turnTools[call.toolName]
    const approvedRealPath = this.#approvedRealPaths.get(call.toolCallId)
    this.#approvedRealPaths.delete(call.toolCallId)
    if (!agentTool) {
      const why = this.#options.toolSource?.explainMissing?.(call.toolName, cwd)
      if (why) return { output: why, isError: true, wrote: [] }
      const names = Object.keys(this.#turnTools).join(', ')
      return { output: `Unknown tool "${call.toolName}": use one of ${names}.`, isError: true, wrote: [] }
    }
    if (call.invalidReason !== undefined) {
      return { output: `Invalid input for ${call.toolName}: ${call.invalidReason}`, isError: true, wrote: [] }
    }
    const parsed = agentTool.inputSchema.safeParse(call.input)
    if (!parsed.success) {
      return {
        output: `Invalid input for ${call.toolName}: ${parsed.error.message}`,
        isError: true,
        wrote: [],
      }
    }
    // What the call may have changed: a call that throws may have written before it failed.
    const wroteOf = (outcome: { wrote?: readonly string[] } | null): readonly string[] | null =>
      agentTool.writes === 'nothing'
        ? []
        : agentTool.writes === 'reported' && outcome?.wrote !== undefined
          ? outcome.wrote
          : null
    try {
      const { protectedPaths, fileSource } = this.#options
      const checkRealPath = realPathCheck(call.toolName, cwd, approvedRealPath, this.#options.checkRealPath)
      // Clients show the call running (ACP's `in_progress`): it has passed the policy and any ask.
      this.#emit({
        kind: 'tool-start',
        text: call.toolName,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
      })
      const result = await agentTool.run(parsed.data, {
        cwd,
        signal,
        callId: call.toolCallId,
        ...(protectedPaths ? { protectedPaths } : {}),
        ...(checkRealPath ? { checkRealPath } : {}),
        ...(fileSource ? { fileSource } : {}),
      })
      const stopped = signal.aborted ? `\n[${abortedMessage}]` : ''
      return {
        output: `${result.output}${stopped}`,
        isError: (result.isError ?? false) || signal.aborted,
        ...(result.diff ? { diff: result.diff } : {}),
        wrote: wroteOf(result),
      }
    } catch (error) {
      if (signal.aborted)
        return { output: `${abortedMessage} (${errorMessage(error)})`, isError: true, wrote: wroteOf(null) }
      return { output: errorMessage(error), isError: true, wrote: wroteOf(null) }
    }
  }

  /** Snapshot failures are recorded (log-only `snapshot/failed`) and never end the turn. */
  async #snapshot(
    kind: 'step' | 'baseline' | 'turn-start' = 'step',
    written: string[] | null = null,
  ): Promise<void> {
    const snapshot = kind === 'turn-start' ? this.#options.turnStartSnapshot : this.#options.snapshot
    if (!snapshot) return
    try {
      const result = await (written === null ? snapshot(this.session) : snapshot(this.session, written))
      // A baseline or turn-start snapshot records the files as this turn found them: it
      // changed nothing yet (the directory's previous snapshot may be another writer's).
      if (result) this.session.append('snapshot/taken', kind === 'step' ? result : { ...result, changed: [] })
    } catch (error) {
      this.session.append('snapshot/failed', { message: errorMessage(error) })
    }
  }

  #endStep(outcome: ModelStepOutcome): void {
    this.session.append('step/end', {
      finishReason: outcome.finishReason,
      ...(outcome.usage ? { usage: outcome.usage } : {}),
    })
  }

  /** Appends the events that close the open turn (error results, step/end, turn/end). */
  #close(reason: 'aborted' | 'error', message: string): TurnEndReason {
    // An abort because the Host stops ends the turn as `interrupted`, as crash repair would.
    const ended = reason === 'aborted' ? this.#stopReason : reason
    const text = reason === 'aborted' ? this.#stopMessage() : message
    for (const event of closingEventsForOpenTurn(this.session.grammar, ended, text)) {
      this.session.append(event.type, event.data)
    }
    return ended
  }

  #stopMessage(): string {
    return this.#stopReason === 'interrupted'
      ? 'Interrupted: the Host stopped while the turn ran.'
      : abortedMessage
  }

  #emit(delta: AgentDelta): void {
    for (const listener of this.#listeners) listener(delta)
  }

  #assertIdle(): void {
    if (this.#controller || this.session.isTurnOpen) {
      throw new TangentError(
        'session-busy',
        `Session ${this.session.id} is running a turn: wait for it to end or abort it first.`,
        { sessionId: this.session.id },
      )
    }
  }
}

function defaultSystemPrompt(cwd: string): string {
  return [
    `You are Tangent, a coding agent working in the directory ${cwd}.`,
    'Use the tools to read and change files and to run commands; paths are relative to that directory.',
    'Be brief: say what you did and what you found.',
  ].join('\n')
}
