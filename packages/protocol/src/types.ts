// The shared value types of docs/protocol.md ("Types"): what the Host says about sessions,
// events, workspaces and file diffs.
import { lazySchema } from '@tangent/core/lazy-zod'
import { sessionModeIds } from '@tangent/core/session-modes'
import type { z } from 'zod'
import { Seq } from './ids.js'

export const SessionEvent = lazySchema((z) =>
  z.object({
    seq: Seq,
    time: z.number(),
    type: z.string(),
    data: z.unknown(),
  }),
)
export type SessionEvent = z.infer<typeof SessionEvent>

export const ModelSelection = lazySchema((z) =>
  z.object({
    provider: z.string(),
    model: z.string(),
    reasoningEffort: z.string().optional(),
  }),
)
export type ModelSelection = z.infer<typeof ModelSelection>

export const FileMode = lazySchema((z) => z.enum(['shared', 'worktree']))
export type FileMode = z.infer<typeof FileMode>

export const SessionFiles = lazySchema((z) =>
  z.object({
    mode: FileMode,
    path: z.string(),
    baseTree: z.string().nullable(),
    /**
     * Extension, shared store (PostgreSQL) only: the machine whose disk holds `path`
     * (`TANGENT_MACHINE` of the Host that made it), and `elsewhere: true` when that is not the
     * machine of the Host answering — its turns and restores run there; fork it with
     * `files: 'worktree'` to continue here.
     */
    machine: z.string().optional(),
    elsewhere: z.boolean().optional(),
  }),
)
export type SessionFiles = z.infer<typeof SessionFiles>

export const SessionStatus = lazySchema((z) => z.enum(['idle', 'running']))
export type SessionStatus = z.infer<typeof SessionStatus>

export const SessionOrigin = lazySchema((z) => z.enum(['user', 'fork', 'subagent']))
export type SessionOrigin = z.infer<typeof SessionOrigin>

/** A session mode's id (`ask`, `edit`, `plan`): how much the agent may do unasked (docs/architecture.md §12.1). */
export const SessionMode = lazySchema((z) => z.enum(sessionModeIds))
export type SessionMode = z.infer<typeof SessionMode>

export const SessionSummary = lazySchema((z) =>
  z.object({
    id: z.string(),
    /** The latest title; '' when the session has none yet (clients show a placeholder). */
    title: z.string(),
    cwd: z.string(),
    workspaceId: z.string().nullable(),
    /** Lineage (forks only). `forkedAt` is the parent's seq the fork copied through (-1: empty prefix). */
    parentSession: z.string().nullable(),
    forkedAt: z.number().int().nullable(),
    origin: SessionOrigin,
    createdAt: z.number(),
    updatedAt: z.number(),
    eventCount: z.number().int().min(0),
    inheritedEventCount: z.number().int().min(0),
    status: SessionStatus,
    archived: z.boolean(),
    model: ModelSelection.nullable(),
    /** The mode in force (the latest `session/mode` event, inherited ones count); `edit` without one. */
    mode: SessionMode,
    files: SessionFiles,
    /**
     * Extension: set when damaged headers make this session's parents a loop (A's parent is B,
     * B's is A), or its lineage runs through one: the sessions of the loop, in order. Such a
     * session is listed at the top of its tree (`parentSession` null) and cannot be loaded.
     */
    parentLoop: z.array(z.string()).optional(),
    /** Extension: the exploration this session is a branch of (`session.explore`), and its label (A, B, …). */
    exploration: z.object({ id: z.string(), label: z.string() }).optional(),
    /** Extension: a subagent (origin `subagent`): the parent's `task` tool call that spawned it, and its depth. */
    subagentOf: z.object({ callId: z.string(), depth: z.number().int() }).optional(),
    /** Extension: made by an import of another agent's session file: that tool, its session id, the entry a branch left at. */
    imported: z
      .object({ source: z.string(), sourceId: z.string(), branchOf: z.string().optional() })
      .optional(),
  }),
)
export type SessionSummary = z.infer<typeof SessionSummary>

export const Workspace = lazySchema((z) =>
  z.object({
    id: z.string(),
    path: z.string(),
    name: z.string(),
    /** When the folder was last opened (epoch ms); workspace.list is most recent first. */
    openedAt: z.number().optional(),
  }),
)
export type Workspace = z.infer<typeof Workspace>

export const FileDiff = lazySchema((z) =>
  z.object({
    path: z.string(),
    status: z.enum(['added', 'deleted', 'modified']),
    patch: z.string(),
  }),
)
export type FileDiff = z.infer<typeof FileDiff>

export const TurnEndReason = lazySchema((z) =>
  z.enum(['completed', 'aborted', 'error', 'max-steps', 'interrupted']),
)
export type TurnEndReason = z.infer<typeof TurnEndReason>

/** `retry`: the model call failed and is retried, one line per retry (`retry 1/2 in 2000 ms: REASON`). */
export const DeltaKind = lazySchema((z) => z.enum(['text', 'reasoning', 'tool-input', 'retry', 'tool-start']))
export type DeltaKind = z.infer<typeof DeltaKind>

export const SnapshotEntry = lazySchema((z) =>
  z.object({
    seq: Seq,
    tree: z.string(),
    changed: z.array(z.string()),
    /** A turn-start snapshot's paths changed between turns, not by the session (docs/architecture.md §5). */
    outside: z.array(z.string()).optional(),
  }),
)
export type SnapshotEntry = z.infer<typeof SnapshotEntry>

/** One folder `workspace.browse` lists. */
export const FolderEntry = lazySchema((z) => z.object({ name: z.string(), path: z.string() }))
export type FolderEntry = z.infer<typeof FolderEntry>

/**
 * Data of a `files/restored` event (log-only, between turns): a restore of the session's files
 * to the state at `toSeq`, or (with `undoOf`) the undo of the restore recorded at seq `undoOf`.
 * `tree`/`changed` are the directory after it (it counts as a snapshot of the session's timeline);
 * `undoTree` is the directory before it, which `snapshot.undoRestore` writes back.
 */
export const FilesRestoredData = lazySchema((z) =>
  z.object({
    toSeq: z.number().int().min(-1).optional(),
    undoOf: z.number().int().min(0).optional(),
    /** Extension: the files came from keeping this branch (`session.keep`), not from a rewind. */
    keptFrom: z.object({ sessionId: z.string(), label: z.string().optional() }).optional(),
    tree: z.string(),
    changed: z.array(z.string()),
    skipped: z.array(z.string()).optional(),
    restored: z.array(z.string()),
    kept: z.array(z.string()),
    undoTree: z.string(),
    /** The id of the restore's journal (its intent, docs/architecture.md §5) that this record completes. */
    journalId: z.string().optional(),
  }),
)
export type FilesRestoredData = z.infer<typeof FilesRestoredData>

/** Tokens and USD of some model calls (docs/protocol.md "Usage"). */
export const UsageTotals = lazySchema((z) =>
  z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    /** Part of inputTokens: read from the provider's prompt cache. */
    cachedInputTokens: z.number(),
    /** Part of outputTokens: spent on reasoning. */
    reasoningTokens: z.number(),
    steps: z.number().int().min(0),
    /** USD; null when a call ran on a model without a known price. */
    cost: z.number().nullable(),
  }),
)
export type UsageTotals = z.infer<typeof UsageTotals>

export const TurnUsage = lazySchema((z) => UsageTotals.extend({ seq: Seq, model: z.string() }))
export type TurnUsage = z.infer<typeof TurnUsage>

/** How full the context is: the last step's input + output against the current model's window. */
export const ContextUsage = lazySchema((z) =>
  z.object({
    used: z.number().nullable(),
    window: z.number().nullable(),
    percent: z.number().nullable(),
    model: z.string(),
  }),
)
export type ContextUsage = z.infer<typeof ContextUsage>

/** Extension: `own` is at or after the split (a fork's own events), `inherited` before it. */
export const UsageSplit = lazySchema((z) =>
  z.object({
    own: UsageTotals,
    inherited: UsageTotals,
    total: UsageTotals,
    context: ContextUsage,
    /** The catalog prices and windows come from, with its date. */
    priceSource: z.string(),
  }),
)
export type UsageSplit = z.infer<typeof UsageSplit>

export const SessionUsage = lazySchema((z) => UsageSplit.extend({ turns: z.array(TurnUsage) }))
export type SessionUsage = z.infer<typeof SessionUsage>
