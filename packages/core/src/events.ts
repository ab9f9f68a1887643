// The event vocabulary of a session log and the zod schemas of each core event's data (built
// on first use: lazy-zod.ts).
// Parts use the AI SDK's shapes so replay is a direct mapping.
import type { z } from 'zod'
import { lazySchema } from './lazy-zod.js'
import { sessionModeIds } from './session-modes.js'

export type SessionSeq = number & { readonly __brand: 'SessionSeq' }

/** Brands a plain number as a seq (no check: callers validate at boundaries). */
export function asSeq(value: number): SessionSeq {
  return value as SessionSeq
}

export interface SessionEvent<T extends string = string, D = unknown> {
  readonly seq: SessionSeq
  readonly time: number
  readonly type: T
  readonly data: D
}

export const TextPart = lazySchema((z) => z.object({ type: z.literal('text'), text: z.string() }))
export type TextPart = z.infer<typeof TextPart>
export const ReasoningPart = lazySchema((z) => z.object({ type: z.literal('reasoning'), text: z.string() }))
export type ReasoningPart = z.infer<typeof ReasoningPart>
export const ToolCallPart = lazySchema((z) =>
  z.object({
    type: z.literal('tool-call'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    input: z.unknown(),
  }),
)
export type ToolCallPart = z.infer<typeof ToolCallPart>
export const FilePart = lazySchema((z) =>
  z.object({ type: z.literal('file'), mediaType: z.string(), data: z.string() }),
)
export type FilePart = z.infer<typeof FilePart>

export const UserPart = lazySchema((z) => z.discriminatedUnion('type', [TextPart, FilePart]))
export type UserPart = z.infer<typeof UserPart>
export const AssistantPart = lazySchema((z) =>
  z.discriminatedUnion('type', [TextPart, ReasoningPart, ToolCallPart]),
)
export type AssistantPart = z.infer<typeof AssistantPart>

export const ModelSelectionData = lazySchema((z) =>
  z.object({
    provider: z.string().min(1),
    model: z.string().min(1),
    reasoningEffort: z.string().optional(),
  }),
)
export type ModelSelectionData = z.infer<typeof ModelSelectionData>
export const SessionTitleData = lazySchema((z) => z.object({ title: z.string() }))
export type SessionTitleData = z.infer<typeof SessionTitleData>
/** The session's mode from here on (session-modes.ts); it may change while a turn runs. */
export const SessionModeData = lazySchema((z) => z.object({ mode: z.enum(sessionModeIds) }))
export type SessionModeData = z.infer<typeof SessionModeData>
export const TurnStartData = lazySchema((z) => z.object({}).passthrough())
export type TurnStartData = z.infer<typeof TurnStartData>
export const UserMessageData = lazySchema((z) => z.object({ content: z.array(UserPart) }))
export type UserMessageData = z.infer<typeof UserMessageData>
export const StepStartData = lazySchema((z) => z.object({}).passthrough())
export type StepStartData = z.infer<typeof StepStartData>
export const AssistantMessageData = lazySchema((z) => z.object({ content: z.array(AssistantPart) }))
export type AssistantMessageData = z.infer<typeof AssistantMessageData>
export const ToolResultData = lazySchema((z) =>
  z.object({
    callId: z.string().min(1),
    toolName: z.string().min(1),
    output: z.unknown(),
    isError: z.boolean(),
    /** `write`/`edit`: the file's text before (null: created) and after, for clients; never replayed to the model. */
    diff: z
      .object({ path: z.string().min(1), oldText: z.string().nullable(), newText: z.string() })
      .optional(),
  }),
)
export type ToolResultData = z.infer<typeof ToolResultData>
export const Usage = lazySchema((z) =>
  z
    .object({
      inputTokens: z.number().optional(),
      outputTokens: z.number().optional(),
      totalTokens: z.number().optional(),
      /** Input tokens the provider read from its prompt cache (part of inputTokens). */
      cachedInputTokens: z.number().optional(),
      /** Output tokens spent on reasoning (part of outputTokens). */
      reasoningTokens: z.number().optional(),
    })
    .passthrough(),
)
export type Usage = z.infer<typeof Usage>
export const StepEndData = lazySchema((z) => z.object({ finishReason: z.string(), usage: Usage.optional() }))
export type StepEndData = z.infer<typeof StepEndData>
export const TurnEndReason = lazySchema((z) =>
  z.enum(['completed', 'aborted', 'error', 'max-steps', 'interrupted']),
)
export type TurnEndReason = z.infer<typeof TurnEndReason>
export const TurnEndData = lazySchema((z) =>
  z.object({ reason: TurnEndReason, error: z.string().optional() }),
)
export type TurnEndData = z.infer<typeof TurnEndData>
/**
 * The directory as a git tree. `changed`: what the agent's step changed (against the directory's
 * previous snapshot). `outside`: only on a turn-start snapshot — what changed since the session's
 * previous tree while none of its turns ran (by hand, or by another session in the folder); those
 * are never the agent's, so `changed` is empty there (docs/architecture.md §5).
 */
export const SnapshotTakenData = lazySchema((z) =>
  z
    .object({
      tree: z.string().min(1),
      changed: z.array(z.string()),
      skipped: z.array(z.string()).optional(),
      outside: z.array(z.string()).optional(),
    })
    .passthrough(),
)
export type SnapshotTakenData = z.infer<typeof SnapshotTakenData>

/** An `ask` of the permission policy: the turn waits for `permission/answered` of this callId. */
export const PermissionRequestedData = lazySchema((z) =>
  z.object({
    callId: z.string().min(1),
    toolName: z.string().min(1),
    input: z.unknown(),
    /** What an `always` answer would allow from now on in this session (a command prefix, a path glob). */
    pattern: z.string(),
  }),
)
export type PermissionRequestedData = z.infer<typeof PermissionRequestedData>
export const PermissionDecision = lazySchema((z) => z.enum(['once', 'always', 'deny']))
export type PermissionDecision = z.infer<typeof PermissionDecision>
export const PermissionAnsweredData = lazySchema((z) =>
  z.object({
    callId: z.string().min(1),
    decision: PermissionDecision,
    reason: z.string().optional(),
    /** For `always`: the rule the session keeps (a fork inherits those before its fork point). */
    rule: z.object({ tool: z.string().min(1), pattern: z.string() }).optional(),
    /**
     * Who answered: a person (`user`), a run flag (`flag`), a command that had nobody to ask
     * (`no-terminal`: a denial, its reason says what to pass), the Host closing a waiting turn
     * (`interrupted`), or a `preToolUse` hook (`hook`: a denial before the policy was asked, with
     * no `permission/requested` before it; docs/architecture.md §12.7).
     */
    by: z.enum(['user', 'flag', 'no-terminal', 'interrupted', 'hook']).optional(),
    /** With `by: hook`: the hook that decided, its command and the config file naming it. */
    hook: z.object({ command: z.string(), source: z.string() }).optional(),
  }),
)
export type PermissionAnsweredData = z.infer<typeof PermissionAnsweredData>
/** The project and user instruction files the model saw from here on (content, not just paths). */
export const InstructionsData = lazySchema((z) =>
  z.object({
    files: z.array(
      z.object({ path: z.string().min(1), scope: z.enum(['project', 'user']), content: z.string() }),
    ),
  }),
)
export type InstructionsData = z.infer<typeof InstructionsData>
/** A summary that stands for every event up to `throughSeq` when the history is replayed to a model. */
export const CompactionData = lazySchema((z) =>
  z.object({
    summary: z.string().min(1),
    throughSeq: z.number().int().min(0),
    /** The model that wrote the summary (`provider:model`). */
    model: z.string().min(1),
    trigger: z.enum(['auto', 'manual']),
    /** Context tokens before (the last step's input) and an estimate after, when known. */
    tokensBefore: z.number().optional(),
    tokensAfter: z.number().optional(),
    usage: Usage.optional(),
  }),
)
export type CompactionData = z.infer<typeof CompactionData>

/** Data schema of each core event type. Other types (`<plugin>/<name>`) carry any data. */
export const eventDataSchemas = {
  'model/selection': ModelSelectionData,
  'session/title': SessionTitleData,
  'session/mode': SessionModeData,
  'turn/start': TurnStartData,
  'user/message': UserMessageData,
  'step/start': StepStartData,
  'assistant/message': AssistantMessageData,
  'tool/result': ToolResultData,
  'step/end': StepEndData,
  'turn/end': TurnEndData,
  'snapshot/taken': SnapshotTakenData,
  'permission/requested': PermissionRequestedData,
  'permission/answered': PermissionAnsweredData,
  'context/instructions': InstructionsData,
  'context/compacted': CompactionData,
} as const

export type CoreEventType = keyof typeof eventDataSchemas
export type EventDataOf<T extends string> = T extends CoreEventType
  ? z.infer<(typeof eventDataSchemas)[T]>
  : unknown

/** Events that may stand between turns. */
export const standaloneEventTypes: ReadonlySet<string> = new Set(['model/selection', 'session/title'])
/** Core events that may stand anywhere, inside a turn too. */
export const logOnlyEventTypes: ReadonlySet<string> = new Set([
  'snapshot/taken',
  'permission/requested',
  'permission/answered',
  'context/instructions',
  'context/compacted',
  'session/mode',
])

export function isCoreEventType(type: string): type is CoreEventType {
  return Object.hasOwn(eventDataSchemas, type)
}

/** Log-only: `snapshot/taken` and any type outside the core vocabulary (`<plugin>/<name>`). */
export function isLogOnlyEventType(type: string): boolean {
  return logOnlyEventTypes.has(type) || !isCoreEventType(type)
}

export const eventTypePattern = /^[a-z0-9][a-z0-9-]*\/[a-z0-9][a-z0-9-]*$/
