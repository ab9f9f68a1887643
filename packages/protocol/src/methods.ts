// Every method of docs/protocol.md ("Methods"): a params schema and a result schema each,
// and the `methods` map the Host routes by and the client types its calls with.
import { z } from 'zod'
import { FilePath, Seq, SessionId, WorkspaceId } from './ids.js'
import { maxModelIdChars, maxPromptChars, maxRequestIdChars, maxTitleChars } from './limits.js'
import {
  FileDiff,
  FileMode,
  FolderEntry,
  SessionEvent,
  SessionSummary,
  SnapshotEntry,
  TurnEndReason,
  Workspace,
} from './types.js'

const Title = z.string().max(maxTitleChars)
/** `provider:model`, e.g. `demo:scripted` or `openai:gpt-4.1`. */
export const ModelId = z.string().min(1).max(maxModelIdChars)
export type ModelId = z.infer<typeof ModelId>
const ReasoningEffort = z.string().min(1).max(50)
const Empty = z.object({})

export const HostInfoParams = Empty
export type HostInfoParams = z.infer<typeof HostInfoParams>
export const HostInfoResult = z.object({
  version: z.string(),
  dataDir: z.string(),
  defaultModel: z.string(),
  models: z.array(z.object({ id: z.string(), available: z.boolean(), reason: z.string().optional() })),
  /** Extension: the folder the Host was started in (its workspace is opened at start). */
  startFolder: z.string().optional(),
  /** Extension: the user's home directory (what `~` means in folder paths). */
  homeDir: z.string().optional(),
})
export type HostInfoResult = z.infer<typeof HostInfoResult>

export const WorkspaceListParams = Empty
export type WorkspaceListParams = z.infer<typeof WorkspaceListParams>
export const WorkspaceListResult = z.array(Workspace)
export type WorkspaceListResult = z.infer<typeof WorkspaceListResult>

/** `path`: absolute, `~` or `~/…` (the Host user's home), or relative to the Host's start folder. */
export const WorkspaceOpenParams = z.object({ path: FilePath })
export type WorkspaceOpenParams = z.infer<typeof WorkspaceOpenParams>
export const WorkspaceOpenResult = Workspace
export type WorkspaceOpenResult = z.infer<typeof WorkspaceOpenResult>

/** Extension: the subfolders of a folder, for a folder picker. */
export const WorkspaceBrowseParams = z.object({
  /** Absolute, `~`, `~/…` or relative to the Host's start folder; default: the start folder. */
  path: FilePath.optional(),
  /** Include folders whose name starts with a dot (default false). */
  hidden: z.boolean().optional(),
})
export type WorkspaceBrowseParams = z.infer<typeof WorkspaceBrowseParams>
export const WorkspaceBrowseResult = z.object({
  /** The real path listed. */
  path: z.string(),
  /** Its parent, null at the root. */
  parent: z.string().nullable(),
  /** Subfolders sorted by name (symlinks to folders included); at most 1,000. */
  folders: z.array(FolderEntry),
  /** True when more than 1,000 subfolders exist. */
  truncated: z.boolean(),
})
export type WorkspaceBrowseResult = z.infer<typeof WorkspaceBrowseResult>

export const SessionListParams = z.object({
  workspaceId: WorkspaceId.optional(),
  /** Default false. */
  includeArchived: z.boolean().optional(),
})
export type SessionListParams = z.infer<typeof SessionListParams>
export const SessionListResult = z.array(SessionSummary)
export type SessionListResult = z.infer<typeof SessionListResult>

export const SessionCreateParams = z.object({
  workspaceId: WorkspaceId.optional(),
  /** Default: the workspace's path, else the Host's working directory. */
  cwd: FilePath.optional(),
  title: Title.optional(),
  model: ModelId.optional(),
})
export type SessionCreateParams = z.infer<typeof SessionCreateParams>
export const SessionCreateResult = SessionSummary
export type SessionCreateResult = z.infer<typeof SessionCreateResult>

export const SessionGetParams = z.object({
  sessionId: SessionId,
  /** Only events with `seq >= fromSeq` (default 0). */
  fromSeq: Seq.optional(),
})
export type SessionGetParams = z.infer<typeof SessionGetParams>
export const SessionGetResult = z.object({ session: SessionSummary, events: z.array(SessionEvent) })
export type SessionGetResult = z.infer<typeof SessionGetResult>

export const SessionSubscribeParams = z.object({
  sessionId: SessionId,
  /**
   * Extension: first send (as `session.event`) every event with `seq >= fromSeq`, then the
   * live ones — no gap, no duplicate. Typical: `session.get` then subscribe with
   * `fromSeq = events.length`. Omitted: only events appended after this call.
   */
  fromSeq: Seq.optional(),
})
export type SessionSubscribeParams = z.infer<typeof SessionSubscribeParams>
export const SessionSubscribeResult = Empty
export type SessionSubscribeResult = z.infer<typeof SessionSubscribeResult>

export const SessionUnsubscribeParams = z.object({ sessionId: SessionId })
export type SessionUnsubscribeParams = z.infer<typeof SessionUnsubscribeParams>
export const SessionUnsubscribeResult = Empty
export type SessionUnsubscribeResult = z.infer<typeof SessionUnsubscribeResult>

export const SessionPromptParams = z.object({
  sessionId: SessionId,
  text: z.string().min(1).max(maxPromptChars),
})
export type SessionPromptParams = z.infer<typeof SessionPromptParams>
export const SessionPromptResult = z.object({ turnStartSeq: Seq, turnEndSeq: Seq, reason: TurnEndReason })
export type SessionPromptResult = z.infer<typeof SessionPromptResult>

export const SessionAbortParams = z.object({ sessionId: SessionId })
export type SessionAbortParams = z.infer<typeof SessionAbortParams>
export const SessionAbortResult = z.object({ aborted: z.boolean() })
export type SessionAbortResult = z.infer<typeof SessionAbortResult>

export const SessionForkParams = z.object({
  sessionId: SessionId,
  /** An anchor inside the wanted turn; omitted or past the end: the last completed turn. */
  atSeq: Seq.optional(),
  /** Fork just before the turn that holds `atSeq` (default false). */
  before: z.boolean().optional(),
  /** Default 'shared'. */
  files: FileMode.optional(),
  title: Title.optional(),
  /** The same requestId twice returns the same child. */
  requestId: z.string().min(1).max(maxRequestIdChars).optional(),
})
export type SessionForkParams = z.infer<typeof SessionForkParams>
export const SessionForkResult = z.object({ session: SessionSummary, boundary: z.number().int().min(-1) })
export type SessionForkResult = z.infer<typeof SessionForkResult>

export const SessionRenameParams = z.object({ sessionId: SessionId, title: Title })
export type SessionRenameParams = z.infer<typeof SessionRenameParams>
export const SessionRenameResult = SessionSummary
export type SessionRenameResult = z.infer<typeof SessionRenameResult>

export const SessionArchiveParams = z.object({ sessionId: SessionId, archived: z.boolean() })
export type SessionArchiveParams = z.infer<typeof SessionArchiveParams>
export const SessionArchiveResult = SessionSummary
export type SessionArchiveResult = z.infer<typeof SessionArchiveResult>

export const SessionDeleteParams = z.object({
  sessionId: SessionId,
  /**
   * Extension, for a session forked with `files: 'worktree'`: `remove` (default) removes its
   * directory only when it has no uncommitted changes; `keep` leaves it; `force` removes it anyway.
   */
  worktree: z.enum(['remove', 'keep', 'force']).optional(),
})
export type SessionDeleteParams = z.infer<typeof SessionDeleteParams>
export const SessionDeleteResult = z.object({
  deleted: z.literal(true),
  /** Children that got their inherited prefix written inline. */
  materialized: z.array(z.string()),
  /** Extension: what happened to a worktree the session owned (absent when it had none). */
  worktree: z.object({ path: z.string(), removed: z.boolean(), reason: z.string().optional() }).optional(),
})
export type SessionDeleteResult = z.infer<typeof SessionDeleteResult>

export const SessionSetModelParams = z.object({
  sessionId: SessionId,
  model: ModelId,
  reasoningEffort: ReasoningEffort.optional(),
})
export type SessionSetModelParams = z.infer<typeof SessionSetModelParams>
export const SessionSetModelResult = SessionSummary
export type SessionSetModelResult = z.infer<typeof SessionSetModelResult>

/**
 * Extension: summarise the session's history into a `context/compacted` event (docs/architecture.md
 * §12.4); later turns send the summary plus what follows it. Nothing is removed from the log.
 */
export const SessionCompactParams = z.object({ sessionId: SessionId })
export type SessionCompactParams = z.infer<typeof SessionCompactParams>
export const SessionCompactResult = z.object({
  /** The seq of the `context/compacted` event. */
  seq: Seq,
  /** The last seq the summary stands for. */
  throughSeq: Seq,
  summary: z.string(),
  /** The model that wrote it (`provider:model`). */
  model: z.string(),
  /** Estimated context tokens before and after. */
  tokensBefore: z.number().optional(),
  tokensAfter: z.number().optional(),
})
export type SessionCompactResult = z.infer<typeof SessionCompactResult>

export const SessionCompareParams = z.object({ a: SessionId, b: SessionId })
export type SessionCompareParams = z.infer<typeof SessionCompareParams>
export const SessionCompareResult = z.object({
  ancestor: z.string().nullable(),
  forkSeq: z.number().int().nullable(),
  a: z.object({ events: z.array(SessionEvent) }),
  b: z.object({ events: z.array(SessionEvent) }),
  files: z.array(FileDiff),
})
export type SessionCompareResult = z.infer<typeof SessionCompareResult>

export const SnapshotListParams = z.object({ sessionId: SessionId })
export type SnapshotListParams = z.infer<typeof SnapshotListParams>
export const SnapshotListResult = z.array(SnapshotEntry)
export type SnapshotListResult = z.infer<typeof SnapshotListResult>

export const SnapshotRestoreParams = z.object({
  sessionId: SessionId,
  seq: Seq,
  force: z.boolean().optional(),
})
export type SnapshotRestoreParams = z.infer<typeof SnapshotRestoreParams>
export const SnapshotRestoreResult = z.object({
  restored: z.array(z.string()),
  /** Extension: paths to rewind that were left alone (a directory or a symlinked parent stands there now). */
  kept: z.array(z.string()).optional(),
  /** The tree taken before writing: the restore's undo. */
  undoTree: z.string(),
  /** Extension: the seq of the `files/restored` event that records it (undo it with snapshot.undoRestore). */
  seq: Seq.optional(),
})
export type SnapshotRestoreResult = z.infer<typeof SnapshotRestoreResult>

/**
 * Extension: undo a restore. Writes back, for the paths the restore at `seq` rewound, the
 * content they had before it; refuses with `files-conflict` when one of them changed since
 * the restore (unless `force`). Recorded as a `files/restored` event with `undoOf`.
 */
export const SnapshotUndoRestoreParams = z.object({
  sessionId: SessionId,
  /** The seq of the `files/restored` event to undo; default the latest restore not undone yet. */
  seq: Seq.optional(),
  force: z.boolean().optional(),
})
export type SnapshotUndoRestoreParams = z.infer<typeof SnapshotUndoRestoreParams>
export const SnapshotUndoRestoreResult = SnapshotRestoreResult
export type SnapshotUndoRestoreResult = z.infer<typeof SnapshotUndoRestoreResult>

/** Method name → its params and result schemas. */
export const methods = {
  'host.info': { params: HostInfoParams, result: HostInfoResult },
  'workspace.list': { params: WorkspaceListParams, result: WorkspaceListResult },
  'workspace.open': { params: WorkspaceOpenParams, result: WorkspaceOpenResult },
  'workspace.browse': { params: WorkspaceBrowseParams, result: WorkspaceBrowseResult },
  'session.list': { params: SessionListParams, result: SessionListResult },
  'session.create': { params: SessionCreateParams, result: SessionCreateResult },
  'session.get': { params: SessionGetParams, result: SessionGetResult },
  'session.subscribe': { params: SessionSubscribeParams, result: SessionSubscribeResult },
  'session.unsubscribe': { params: SessionUnsubscribeParams, result: SessionUnsubscribeResult },
  'session.prompt': { params: SessionPromptParams, result: SessionPromptResult },
  'session.abort': { params: SessionAbortParams, result: SessionAbortResult },
  'session.fork': { params: SessionForkParams, result: SessionForkResult },
  'session.rename': { params: SessionRenameParams, result: SessionRenameResult },
  'session.archive': { params: SessionArchiveParams, result: SessionArchiveResult },
  'session.delete': { params: SessionDeleteParams, result: SessionDeleteResult },
  'session.setModel': { params: SessionSetModelParams, result: SessionSetModelResult },
  'session.compare': { params: SessionCompareParams, result: SessionCompareResult },
  'session.compact': { params: SessionCompactParams, result: SessionCompactResult },
  'snapshot.list': { params: SnapshotListParams, result: SnapshotListResult },
  'snapshot.restore': { params: SnapshotRestoreParams, result: SnapshotRestoreResult },
  'snapshot.undoRestore': { params: SnapshotUndoRestoreParams, result: SnapshotUndoRestoreResult },
} as const

export type Methods = typeof methods
export type MethodName = keyof Methods
export type MethodParams<M extends MethodName> = z.input<Methods[M]['params']>
export type MethodResult<M extends MethodName> = z.output<Methods[M]['result']>

export function isMethodName(value: string): value is MethodName {
  return Object.hasOwn(methods, value)
}
