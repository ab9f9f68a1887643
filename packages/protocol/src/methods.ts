// Every method of docs/protocol.md ("Methods"): a params schema and a result schema each,
// and the `methods` map the Host routes by and the client types its calls with.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { AttachedMcpServer } from './attached-mcp-server.js'
import { FilePath, Seq, SessionId, WorkspaceId } from './ids.js'
import {
  maxAttachedMcpServers,
  maxImportChars,
  maxLastEvents,
  maxMessageBytes,
  maxModelIdChars,
  maxPromptChars,
  maxPromptImageBase64Chars,
  maxPromptImages,
  maxRequestIdChars,
  maxTitleChars,
} from './limits.js'
import {
  FileDiff,
  FileMode,
  FolderEntry,
  SessionEvent,
  SessionMode,
  SessionSummary,
  SessionUsage,
  SnapshotEntry,
  TurnEndReason,
  UsageSplit,
  Workspace,
} from './types.js'

/** A session's title: what the tree shows, so at least one visible character. */
const Title = lazySchema((z) =>
  z.string().max(maxTitleChars).regex(/\S/, 'a title needs a visible character'),
)
/** `provider:model`, e.g. `demo:scripted` or `openai:gpt-4.1`. */
export const ModelId = lazySchema((z) => z.string().min(1).max(maxModelIdChars))
export type ModelId = z.infer<typeof ModelId>
const ReasoningEffort = lazySchema((z) => z.string().min(1).max(50))
const Empty = lazySchema((z) => z.object({}))

export const HostInfoParams = Empty
export type HostInfoParams = z.infer<typeof HostInfoParams>
/**
 * Extension: how the bash tool runs on the Host (docs/architecture.md §12.2). `sandboxed`;
 * `unsandboxed` (mode `off`, or `auto` where no sandbox is available); `refused` (mode
 * `required` where none is: bash refuses every command). `reason` says why it is not sandboxed.
 */
export const BashSandboxInfo = lazySchema((z) =>
  z.object({
    bash: z.enum(['sandboxed', 'unsandboxed', 'refused']),
    mode: z.enum(['off', 'auto', 'required']),
    kind: z.enum(['bubblewrap', 'seatbelt']).optional(),
    reason: z.string().optional(),
  }),
)
export type BashSandboxInfo = z.infer<typeof BashSandboxInfo>
export const HostInfoResult = lazySchema((z) =>
  z.object({
    version: z.string(),
    dataDir: z.string(),
    defaultModel: z.string(),
    models: z.array(
      z.object({
        id: z.string(),
        available: z.boolean(),
        reason: z.string().optional(),
        /** Extension: whether the model takes images in a prompt (`session.prompt` `images`). */
        images: z.boolean().optional(),
      }),
    ),
    /** Extension: the folder the Host was started in (its workspace is opened at start). */
    startFolder: z.string().optional(),
    /** Extension: the user's home directory (what `~` means in folder paths). */
    homeDir: z.string().optional(),
    /** Extension: whether the bash tool runs in an OS sandbox, and why not. */
    sandbox: BashSandboxInfo.optional(),
    /** Extension: this Host's machine name (`TANGENT_MACHINE`, else the host name). */
    machine: z.string().optional(),
    /** Extension: whether sessions are shared with Hosts on other machines (a PostgreSQL store). */
    shared: z.boolean().optional(),
  }),
)
export type HostInfoResult = z.infer<typeof HostInfoResult>

export const WorkspaceListParams = Empty
export type WorkspaceListParams = z.infer<typeof WorkspaceListParams>
export const WorkspaceListResult = lazySchema((z) => z.array(Workspace))
export type WorkspaceListResult = z.infer<typeof WorkspaceListResult>

/** `path`: absolute, `~` or `~/…` (the Host user's home), or relative to the Host's start folder. */
export const WorkspaceOpenParams = lazySchema((z) => z.object({ path: FilePath }))
export type WorkspaceOpenParams = z.infer<typeof WorkspaceOpenParams>
export const WorkspaceOpenResult = Workspace
export type WorkspaceOpenResult = z.infer<typeof WorkspaceOpenResult>

/** Extension: the subfolders of a folder, for a folder picker. */
export const WorkspaceBrowseParams = lazySchema((z) =>
  z.object({
    /** Absolute, `~`, `~/…` or relative to the Host's start folder; default: the start folder. */
    path: FilePath.optional(),
    /** Include folders whose name starts with a dot (default false). */
    hidden: z.boolean().optional(),
  }),
)
export type WorkspaceBrowseParams = z.infer<typeof WorkspaceBrowseParams>
export const WorkspaceBrowseResult = lazySchema((z) =>
  z.object({
    /** The real path listed. */
    path: z.string(),
    /** Its parent, null at the root. */
    parent: z.string().nullable(),
    /** Subfolders sorted by name (symlinks to folders included); at most 1,000. */
    folders: z.array(FolderEntry),
    /** True when more than 1,000 subfolders exist. */
    truncated: z.boolean(),
  }),
)
export type WorkspaceBrowseResult = z.infer<typeof WorkspaceBrowseResult>

export const SessionListParams = lazySchema((z) =>
  z.object({
    workspaceId: WorkspaceId.optional(),
    /** Default false. */
    includeArchived: z.boolean().optional(),
  }),
)
export type SessionListParams = z.infer<typeof SessionListParams>
export const SessionListResult = lazySchema((z) => z.array(SessionSummary))
export type SessionListResult = z.infer<typeof SessionListResult>

export const SessionCreateParams = lazySchema((z) =>
  z.object({
    workspaceId: WorkspaceId.optional(),
    /** Default: the workspace's path, else the Host's working directory. */
    cwd: FilePath.optional(),
    title: Title.optional(),
    model: ModelId.optional(),
  }),
)
export type SessionCreateParams = z.infer<typeof SessionCreateParams>
export const SessionCreateResult = SessionSummary
export type SessionCreateResult = z.infer<typeof SessionCreateResult>

export const SessionGetParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /** Only events with `seq >= fromSeq` (default 0). */
    fromSeq: Seq.optional(),
    /** Only events with `seq < beforeSeq` (default: the end of the log). */
    beforeSeq: Seq.optional(),
    /**
     * Only the last `last` of the events the range selects: `{last: 2000}` is the log's tail,
     * `{beforeSeq: s, last: 2000}` the page just before `s` (a long session loaded tail first).
     */
    last: z.number().int().min(1).max(maxLastEvents).optional(),
    /**
     * Extension: `false` leaves `usage` out of the answer; a session only on disk is then not
     * loaded when its store can read the range alone (a log's tail, for a listing's status).
     */
    usage: z.boolean().optional(),
  }),
)
export type SessionGetParams = z.infer<typeof SessionGetParams>
export const SessionGetResult = lazySchema((z) =>
  z.object({
    session: SessionSummary,
    events: z.array(SessionEvent),
    /** Extension: tokens and cost per turn and in all (own vs inherited), and the context meter. */
    usage: SessionUsage.optional(),
  }),
)
export type SessionGetResult = z.infer<typeof SessionGetResult>

/**
 * Extension: a session id from a person — the whole id or a unique prefix of it, in any case
 * (at least 4 characters) — to the full id. Archived sessions resolve; deleted ones do not.
 */
export const SessionResolveParams = lazySchema((z) => z.object({ id: SessionId }))
export type SessionResolveParams = z.infer<typeof SessionResolveParams>
export const SessionResolveResult = lazySchema((z) => z.object({ sessionId: z.string() }))
export type SessionResolveResult = z.infer<typeof SessionResolveResult>

export const SessionSubscribeParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /**
     * Extension: first send (as `session.event`) every event with `seq >= fromSeq`, then the
     * live ones — no gap, no duplicate. Typical: `session.get` then subscribe with
     * `fromSeq = events.length`. Omitted: only events appended after this call.
     */
    fromSeq: Seq.optional(),
  }),
)
export type SessionSubscribeParams = z.infer<typeof SessionSubscribeParams>
export const SessionSubscribeResult = Empty
export type SessionSubscribeResult = z.infer<typeof SessionSubscribeResult>

export const SessionUnsubscribeParams = lazySchema((z) => z.object({ sessionId: SessionId }))
export type SessionUnsubscribeParams = z.infer<typeof SessionUnsubscribeParams>
export const SessionUnsubscribeResult = Empty
export type SessionUnsubscribeResult = z.infer<typeof SessionUnsubscribeResult>

/**
 * Extension: this connection answers the session's file reads (docs/protocol.md
 * `session.attachFileSource`): the Host sends it `session.readFile` and it answers with
 * `session.answerReadFile`. WebSocket only; ends with `session.detachFileSource` or the socket.
 */
export const SessionAttachFileSourceParams = lazySchema((z) => z.object({ sessionId: SessionId }))
export type SessionAttachFileSourceParams = z.infer<typeof SessionAttachFileSourceParams>
export const SessionAttachFileSourceResult = Empty
export type SessionAttachFileSourceResult = z.infer<typeof SessionAttachFileSourceResult>
export const SessionDetachFileSourceParams = lazySchema((z) => z.object({ sessionId: SessionId }))
export type SessionDetachFileSourceParams = z.infer<typeof SessionDetachFileSourceParams>
export const SessionDetachFileSourceResult = Empty
export type SessionDetachFileSourceResult = z.infer<typeof SessionDetachFileSourceResult>
/** The answer to one `session.readFile`: the text the client holds, or null (the Host reads the disk). */
export const SessionAnswerReadFileParams = lazySchema((z) =>
  z.object({
    requestId: z.string().min(1).max(maxRequestIdChars),
    text: z.string().max(maxMessageBytes).nullable(),
    /** Why the client has no text to give (it failed): the Host reads the disk and notes this. */
    error: z.string().max(1000).optional(),
  }),
)
export type SessionAnswerReadFileParams = z.infer<typeof SessionAnswerReadFileParams>
/** `answered: false`: no such request waits on this connection (answered, timed out, or another's). */
export const SessionAnswerReadFileResult = lazySchema((z) => z.object({ answered: z.boolean() }))
export type SessionAnswerReadFileResult = z.infer<typeof SessionAnswerReadFileResult>

/**
 * Extension: the caller's MCP servers join the session's tools (docs/architecture.md §14.3) for as
 * long as its connection lasts. Attaching again replaces the caller's set; `servers: []` detaches.
 * Held in memory only: nothing of it is written to the log or any file.
 */
export const SessionAttachMcpServersParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    servers: z
      .array(AttachedMcpServer)
      .max(maxAttachedMcpServers)
      .refine(
        (servers) => new Set(servers.map((server) => server.name)).size === servers.length,
        'two servers have the same name',
      ),
  }),
)
export type SessionAttachMcpServersParams = z.infer<typeof SessionAttachMcpServersParams>
export const SessionAttachMcpServersResult = lazySchema((z) =>
  z.object({
    /** The names now attached by this caller (started on the first turn that asks for tools). */
    attached: z.array(z.string()),
    /** Config-file servers of the session's directory that an attached one of the same name hides. */
    shadowed: z.array(z.object({ name: z.string(), source: z.string() })),
  }),
)
export type SessionAttachMcpServersResult = z.infer<typeof SessionAttachMcpServersResult>

/**
 * An image of a prompt: its media type and bytes as standard padded base64. The schema bounds
 * sizes; the runtime checks the type, the base64 and the magic number (docs/protocol.md).
 */
export const PromptImage = lazySchema((z) =>
  z.object({
    mediaType: z.string().min(1).max(100),
    data: z.string().min(1).max(maxPromptImageBase64Chars),
  }),
)
export type PromptImage = z.infer<typeof PromptImage>
export const SessionPromptParams = lazySchema((z) =>
  z
    .object({
      sessionId: SessionId,
      /** May be empty only when the prompt carries images. */
      text: z.string().max(maxPromptChars),
      images: z.array(PromptImage).max(maxPromptImages).optional(),
    })
    .refine((params) => params.text.length > 0 || (params.images?.length ?? 0) > 0, {
      message: 'a prompt needs text, or at least one image',
      path: ['text'],
    }),
)
export type SessionPromptParams = z.infer<typeof SessionPromptParams>
export const SessionPromptResult = lazySchema((z) =>
  z.object({ turnStartSeq: Seq, turnEndSeq: Seq, reason: TurnEndReason }),
)
export type SessionPromptResult = z.infer<typeof SessionPromptResult>

export const SessionAbortParams = lazySchema((z) => z.object({ sessionId: SessionId }))
export type SessionAbortParams = z.infer<typeof SessionAbortParams>
export const SessionAbortResult = lazySchema((z) => z.object({ aborted: z.boolean() }))
export type SessionAbortResult = z.infer<typeof SessionAbortResult>

/** Extension: answers a tool call the permission policy asked about (`permission/requested`). */
export const SessionAnswerPermissionParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    callId: z.string().min(1).max(200),
    decision: z.enum(['once', 'always', 'deny']),
    /** Shown to the model with a denial (and kept in the log). */
    reason: z.string().max(2000).optional(),
    /**
     * Who answers: a person (default), a flag of a non-interactive run (`tangent run --allow`), or
     * a command with nobody to ask (`no-terminal`: it denies, saying what to pass).
     */
    by: z.enum(['user', 'flag', 'no-terminal']).optional(),
  }),
)
export type SessionAnswerPermissionParams = z.infer<typeof SessionAnswerPermissionParams>
export const SessionAnswerPermissionResult = lazySchema((z) => z.object({ answered: z.literal(true) }))
export type SessionAnswerPermissionResult = z.infer<typeof SessionAnswerPermissionResult>

export const SessionForkParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /** An anchor inside the wanted turn; omitted: the last completed turn; past the end: `invalid-boundary` {lastSeq}. */
    atSeq: Seq.optional(),
    /** Fork just before the turn that holds `atSeq` (default false). */
    before: z.boolean().optional(),
    /** Default 'shared'. */
    files: FileMode.optional(),
    title: Title.optional(),
    /** The same requestId twice returns the same child. */
    requestId: z.string().min(1).max(maxRequestIdChars).optional(),
    /**
     * Extension, for `files: 'worktree'` of a session from another machine (shared store): the
     * project's folder on this machine. Its git repository (when it is one) holds the child's
     * worktree, and its workspace the child. Default: an open workspace of the same path as the
     * source's project folder, else none (a plain copy of the fork point's files).
     */
    folder: FilePath.optional(),
  }),
)
export type SessionForkParams = z.infer<typeof SessionForkParams>
export const SessionForkResult = lazySchema((z) =>
  z.object({
    session: SessionSummary,
    boundary: z.number().int().min(-1),
    /**
     * Extension, for `files: 'worktree'`: the child's directory and the paths (relative to it)
     * the fork could not bring from the fork point — over the snapshot size limit, special files
     * such as FIFOs and sockets, nested repositories.
     */
    worktree: z.object({ path: z.string(), leftOut: z.array(z.string()) }).optional(),
  }),
)
export type SessionForkResult = z.infer<typeof SessionForkResult>

export const SessionRenameParams = lazySchema((z) => z.object({ sessionId: SessionId, title: Title }))
export type SessionRenameParams = z.infer<typeof SessionRenameParams>
export const SessionRenameResult = SessionSummary
export type SessionRenameResult = z.infer<typeof SessionRenameResult>

export const SessionArchiveParams = lazySchema((z) =>
  z.object({ sessionId: SessionId, archived: z.boolean() }),
)
export type SessionArchiveParams = z.infer<typeof SessionArchiveParams>
export const SessionArchiveResult = SessionSummary
export type SessionArchiveResult = z.infer<typeof SessionArchiveResult>

export const SessionDeleteParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /**
     * Extension, for a session forked with `files: 'worktree'`: `remove` (default) removes its
     * directory when it has no uncommitted changes, and refuses the delete (`worktree-dirty`,
     * nothing deleted) when it has; `keep` leaves it; `force` removes it anyway.
     */
    worktree: z.enum(['remove', 'keep', 'force']).optional(),
    /**
     * Extension, with `worktree: 'keep'`: the new folder (absolute, `~/…`, or relative to the start
     * folder; it must not exist) the kept worktree is moved to. Default: a plain copy is moved
     * beside its project as `<project>-tangent-<session>`, a git worktree stays where it is.
     */
    keepTo: FilePath.optional(),
  }),
)
export type SessionDeleteParams = z.infer<typeof SessionDeleteParams>
export const SessionDeleteResult = lazySchema((z) =>
  z.object({
    deleted: z.literal(true),
    /** Children that got their inherited prefix written inline. */
    materialized: z.array(z.string()),
    /** Extension: what happened to a worktree the session owned (absent when it had none). */
    worktree: z
      .object({
        path: z.string(),
        removed: z.boolean(),
        reason: z.string().optional(),
        /** Kept as asked: where the folder is now (moved out of the data directory, or left in place). */
        keptAt: z.string().optional(),
      })
      .optional(),
  }),
)
export type SessionDeleteResult = z.infer<typeof SessionDeleteResult>

/**
 * Extension: a session as a Tangent bundle (`jsonl`: its events and its ancestors', importable
 * elsewhere) or as Markdown (`md`), a page at a time: pass `nextCursor` back until it is absent.
 */
/** The formats `session.export` writes. */
export const exportFormats = ['jsonl', 'md', 'html', 'claude', 'codex', 'pi'] as const
export type ExportFormat = (typeof exportFormats)[number]

export const SessionExportParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /** `jsonl` (a bundle), `md`, `html` (one offline file), or a file `claude` / `codex` / `pi` resumes. */
    format: z.enum(exportFormats).default('jsonl'),
    /** `html` only: every session of the exported one's tree, with navigation between branches. */
    tree: z.boolean().optional(),
    cursor: z.string().max(64).optional(),
  }),
)
export type SessionExportParams = z.infer<typeof SessionExportParams>
export const SessionExportResult = lazySchema((z) =>
  z.object({
    format: z.enum(exportFormats),
    content: z.string(),
    nextCursor: z.string().optional(),
    /** `claude` / `codex` / `pi`: where that agent looks for the file (under its home) and the id it resumes. */
    file: z
      .object({ tool: z.enum(['claude', 'codex', 'pi']), sessionId: z.string(), path: z.string() })
      .optional(),
  }),
)
export type SessionExportResult = z.infer<typeof SessionExportResult>

/** The characters of one `session.importChunk` (its message stays within the Host's 1 MiB limit for text that is mostly ASCII). */
export const maxImportChunkChars = 512 * 1024

/**
 * Extension: imports a Tangent bundle or another tool's session file; a bundle all or nothing. The
 * text is `content` (within one message over a Host), an upload of this connection (`uploadId`,
 * `session.importBegin` / `session.importChunk`) or a file on the Host's machine (`path`): exactly
 * one of them.
 */
export const SessionImportParams = lazySchema((z) =>
  z
    .object({
      /** A Tangent bundle, or a Claude Code, Codex or pi session file (detected from its first line). */
      content: z.string().min(1).max(maxImportChars).optional(),
      /** An upload of this connection, complete (every chunk sent); it ends with this call. */
      uploadId: z.string().min(1).max(64).optional(),
      /** A file on the Host's machine (absolute; a regular file), read by the Host a chunk at a time. */
      path: FilePath.optional(),
      /** The file's name, for messages and Claude Code's (its session id). */
      fileName: z.string().max(4096).optional(),
      /** Another tool's session: the folder it works in here (default: the one it recorded, if it exists). */
      cwd: FilePath.optional(),
      /** A Claude Code session's subagent files (`<id>/subagents/agent-*.jsonl`). */
      subagents: z
        .array(z.object({ fileName: z.string().max(4096), content: z.string().max(maxImportChars) }))
        .max(1000)
        .optional(),
    })
    .refine(
      (params) =>
        [params.content, params.uploadId, params.path].filter((given) => given !== undefined).length === 1,
      {
        message:
          'give one of content, uploadId (an upload of this connection) or path (a file on the Host machine)',
      },
    ),
)
export type SessionImportParams = z.infer<typeof SessionImportParams>
export const ImportedSession = lazySchema((z) =>
  z.object({
    id: SessionId,
    source: z.enum(['tangent', 'claude', 'codex', 'pi']),
    parentSession: SessionId.optional(),
    /** `created`; `existing` (already here with these events); `appended` (here with fewer: the rest was added). */
    status: z.enum(['created', 'existing', 'appended']),
    title: z.string().optional(),
    /** Its events after the import, inherited ones included. */
    events: z.number().int(),
  }),
)
export type ImportedSession = z.infer<typeof ImportedSession>
export const SessionImportResult = lazySchema((z) =>
  z.object({
    sessions: z.array(ImportedSession),
    /** Another tool's file: lines that could not be read and entries left out (the rest was imported). */
    problems: z.array(z.object({ line: z.number().int().optional(), message: z.string() })).optional(),
  }),
)
export type SessionImportResult = z.infer<typeof SessionImportResult>

/** Extension: starts an upload of one file's text for `session.import {uploadId}` (a WebSocket connection's own). */
export const SessionImportBeginParams = lazySchema((z) =>
  z.object({
    /** The file's name, for messages. */
    fileName: z.string().max(4096).optional(),
    /** Its length in characters (UTF-16 code units, JavaScript's `length`): what the chunks add up to. */
    size: z.number().int().min(1).max(maxImportChars),
  }),
)
export type SessionImportBeginParams = z.infer<typeof SessionImportBeginParams>
export const SessionImportBeginResult = lazySchema((z) =>
  z.object({
    uploadId: z.string(),
    /** The most characters one chunk may carry. */
    maxChunkChars: z.number().int(),
  }),
)
export type SessionImportBeginResult = z.infer<typeof SessionImportBeginResult>

/** Extension: the next piece of an upload, in order (`index` 0, 1, 2…). */
export const SessionImportChunkParams = lazySchema((z) =>
  z.object({
    uploadId: z.string().min(1).max(64),
    index: z.number().int().min(0),
    data: z.string().min(1).max(maxImportChunkChars),
  }),
)
export type SessionImportChunkParams = z.infer<typeof SessionImportChunkParams>
export const SessionImportChunkResult = lazySchema((z) =>
  z.object({
    /** Characters received so far. */
    received: z.number().int(),
  }),
)
export type SessionImportChunkResult = z.infer<typeof SessionImportChunkResult>

/** Extension: imports a tool's sessions from where it keeps them under the Host's home directory. */
export const SessionImportFromParams = lazySchema((z) =>
  z
    .object({
      tool: z.enum(['claude', 'codex', 'pi']),
      /** The folder whose sessions to import (absolute). */
      cwd: FilePath.optional(),
      /** Every folder's sessions (instead of `cwd`). */
      all: z.boolean().optional(),
    })
    .refine((params) => (params.all === true) !== (params.cwd !== undefined), {
      message: 'give cwd (a folder) or all: true, not both',
    })
    .refine((params) => params.cwd === undefined || params.cwd.startsWith('/'), {
      message: 'cwd must be an absolute path',
    }),
)
export type SessionImportFromParams = z.infer<typeof SessionImportFromParams>
export const SessionImportFromResult = lazySchema((z) =>
  z.object({
    sessions: z.array(ImportedSession),
    /** Per file (its path): lines that could not be read, and files that could not be imported at all. */
    problems: z.array(z.object({ file: z.string(), line: z.number().int().optional(), message: z.string() })),
    /** How many session files were found. */
    files: z.number().int(),
  }),
)
export type SessionImportFromResult = z.infer<typeof SessionImportFromResult>

export const SessionSetModelParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    model: ModelId,
    reasoningEffort: ReasoningEffort.optional(),
  }),
)
export type SessionSetModelParams = z.infer<typeof SessionSetModelParams>
export const SessionSetModelResult = SessionSummary
export type SessionSetModelResult = z.infer<typeof SessionSetModelResult>

/** Sets the session's mode (a `session/mode` event); allowed while a turn runs: its next tool call reads it. */
export const SessionSetModeParams = lazySchema((z) => z.object({ sessionId: SessionId, mode: SessionMode }))
export type SessionSetModeParams = z.infer<typeof SessionSetModeParams>
export const SessionSetModeResult = SessionSummary
export type SessionSetModeResult = z.infer<typeof SessionSetModeResult>

/**
 * Extension: summarise the session's history into a `context/compacted` event (docs/architecture.md
 * §12.4); later turns send the summary plus what follows it. Nothing is removed from the log.
 */
export const SessionCompactParams = lazySchema((z) => z.object({ sessionId: SessionId }))
export type SessionCompactParams = z.infer<typeof SessionCompactParams>
export const SessionCompactResult = lazySchema((z) =>
  z.object({
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
  }),
)
export type SessionCompactResult = z.infer<typeof SessionCompactResult>

export const SessionCompareParams = lazySchema((z) => z.object({ a: SessionId, b: SessionId }))
export type SessionCompareParams = z.infer<typeof SessionCompareParams>
export const SessionCompareResult = lazySchema((z) =>
  z.object({
    ancestor: z.string().nullable(),
    forkSeq: z.number().int().nullable(),
    /** Extension `usage`: `own` is what the side spent after `forkSeq`, `inherited` the shared prefix. */
    a: z.object({ events: z.array(SessionEvent), usage: UsageSplit.optional() }),
    b: z.object({ events: z.array(SessionEvent), usage: UsageSplit.optional() }),
    files: z.array(FileDiff),
  }),
)
export type SessionCompareResult = z.infer<typeof SessionCompareResult>

/** One way to try in `session.explore`: its prompt, and a model other than the source's if wanted. */
export const ExploreBranch = lazySchema((z) =>
  z.object({
    prompt: z.string().min(1).max(maxPromptChars),
    model: ModelId.optional(),
  }),
)
export type ExploreBranch = z.infer<typeof ExploreBranch>

/** Extension: N branches from one fork point, run in parallel (docs/architecture.md §13). */
export const SessionExploreParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /** The fork anchor, as in `session.fork` (default: the last completed turn). */
    atSeq: Seq.optional(),
    before: z.boolean().optional(),
    branches: z.array(ExploreBranch).min(1).max(8),
    /** Default `worktree`: each branch in its own directory. */
    files: FileMode.optional(),
    /** A command run in each branch's directory after each of its turns (e.g. `npm test`). */
    check: z.string().min(1).max(4000).optional(),
    /** Branches whose turns run at once (default 3). */
    concurrency: z.number().int().min(1).max(8).optional(),
    requestId: z.string().min(1).max(maxRequestIdChars).optional(),
    /**
     * Extension: answer only once every branch's first turn has ended and its check (with `check`)
     * is recorded, with the branches' summaries as they are then (default false).
     */
    wait: z.boolean().optional(),
  }),
)
export type SessionExploreParams = z.infer<typeof SessionExploreParams>
export const SessionExploreResult = lazySchema((z) =>
  z.object({
    exploration: z.string(),
    boundary: z.number().int(),
    sessions: z.array(SessionSummary),
    /** Branches in worktrees: the files none of them could be given (session.fork's `worktree.leftOut`). */
    leftOut: z.array(z.string()).optional(),
  }),
)
export type SessionExploreResult = z.infer<typeof SessionExploreResult>

/** A check's result, as recorded in the branch's log (`check/ran`). */
export const CheckResult = lazySchema((z) =>
  z.object({
    seq: z.number().int(),
    command: z.string(),
    exitCode: z.number().int().nullable(),
    ok: z.boolean(),
    /** The last lines of its output (at most 4 KB). */
    output: z.string(),
    durationMs: z.number(),
    timedOut: z.boolean().optional(),
  }),
)
export type CheckResult = z.infer<typeof CheckResult>

/** Extension: the N-way compare board of branches (docs/architecture.md §13.3). */
export const SessionBoardParams = lazySchema((z) =>
  z.object({ sessionIds: z.array(SessionId).min(1).max(8) }),
)
export type SessionBoardParams = z.infer<typeof SessionBoardParams>
export const BoardFile = lazySchema((z) =>
  z.object({
    path: z.string(),
    status: z.enum(['added', 'deleted', 'modified']),
    added: z.number().int(),
    removed: z.number().int(),
    binary: z.boolean().optional(),
  }),
)
export type BoardFile = z.infer<typeof BoardFile>
export const BoardBranch = lazySchema((z) =>
  z.object({
    session: SessionSummary,
    /** The session's own turns (after its fork point) and how many completed. */
    turns: z.number().int(),
    completedTurns: z.number().int(),
    /** From its first own turn's start to its last turn's end (running: to now); null before any turn. */
    durationMs: z.number().nullable(),
    /** Files changed since the common fork point, with a diffstat. */
    files: z.array(BoardFile),
    check: CheckResult.nullable(),
    /** Its own tokens (input, output, cached) summed over its steps. */
    tokens: z.object({ input: z.number(), output: z.number(), cached: z.number() }),
    /**
     * Extension: the branch is kept in its parent (its latest `branch/kept` holds all it has and
     * its files were not undone): that event's seq in the parent, and the parent's `files/restored`
     * seq that wrote its files (undo the keep with snapshot.undoRestore), when files were written.
     */
    kept: z.object({ seq: z.number().int(), restoreSeq: z.number().int().optional() }).nullable().optional(),
  }),
)
export type BoardBranch = z.infer<typeof BoardBranch>
export const SessionBoardResult = lazySchema((z) =>
  z.object({
    /** The session every branch descends from (their nearest common ancestor), null when none. */
    ancestor: z.string().nullable(),
    /** The files' tree the file columns compare against (the fork point's), null when unknown. */
    baseTree: z.string().nullable(),
    branches: z.array(BoardBranch),
  }),
)
export type SessionBoardResult = z.infer<typeof SessionBoardResult>

/** Extension: one file as each branch has it now, and at the fork point, for a side-by-side diff. */
export const SessionFileAcrossParams = lazySchema((z) =>
  z.object({
    sessionIds: z.array(SessionId).min(1).max(8),
    path: FilePath,
  }),
)
export type SessionFileAcrossParams = z.infer<typeof SessionFileAcrossParams>
export const FileVersion = lazySchema((z) =>
  z.object({
    /** UTF-8 text, null when the file does not exist there (or is binary). */
    content: z.string().nullable(),
    binary: z.boolean(),
    /** True when the text was cut at 512 KB. */
    truncated: z.boolean(),
  }),
)
export const SessionFileAcrossResult = lazySchema((z) =>
  z.object({
    path: z.string(),
    base: FileVersion,
    versions: z.array(FileVersion.extend({ sessionId: z.string() })),
  }),
)
export type SessionFileAcrossResult = z.infer<typeof SessionFileAcrossResult>

/** Extension: keep a branch — bring its file changes into its parent, archive its siblings (§13.4). */
export const SessionKeepParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /** Archive the other branches of its exploration and remove their clean worktrees (default true). */
    archiveOthers: z.boolean().optional(),
  }),
)
export type SessionKeepParams = z.infer<typeof SessionKeepParams>
export const SessionKeepResult = lazySchema((z) =>
  z.object({
    kept: z.string(),
    parent: z.string(),
    /** Seq of the `branch/kept` event in the parent's log. */
    seq: z.number().int(),
    files: z.object({
      /** `shared`: the branch worked in the parent's directory, so keeping it is the conversation only. */
      mode: FileMode,
      /** Paths written into the parent's directory. */
      applied: z.array(z.string()),
      /** Seq of the parent's `files/restored` event (undo it with snapshot.undoRestore), when files were written. */
      restoreSeq: z.number().int().optional(),
    }),
    archived: z.array(z.string()),
    worktrees: z.array(
      z.object({
        sessionId: z.string(),
        path: z.string(),
        removed: z.boolean(),
        reason: z.string().optional(),
      }),
    ),
  }),
)
export type SessionKeepResult = z.infer<typeof SessionKeepResult>

export const SnapshotListParams = lazySchema((z) => z.object({ sessionId: SessionId }))
export type SnapshotListParams = z.infer<typeof SnapshotListParams>
export const SnapshotListResult = lazySchema((z) => z.array(SnapshotEntry))
export type SnapshotListResult = z.infer<typeof SnapshotListResult>

export const SnapshotRestoreParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    seq: Seq,
    force: z.boolean().optional(),
  }),
)
export type SnapshotRestoreParams = z.infer<typeof SnapshotRestoreParams>
export const SnapshotRestoreResult = lazySchema((z) =>
  z.object({
    restored: z.array(z.string()),
    /** Extension: paths to rewind that were left alone (a directory or a symlinked parent stands there now). */
    kept: z.array(z.string()).optional(),
    /** The tree taken before writing: the restore's undo. */
    undoTree: z.string(),
    /** Extension: the seq of the `files/restored` event that records it (undo it with snapshot.undoRestore). */
    seq: Seq.optional(),
  }),
)
export type SnapshotRestoreResult = z.infer<typeof SnapshotRestoreResult>

/**
 * Extension: undo a restore. Writes back, for the paths the restore at `seq` rewound, the
 * content they had before it; refuses with `files-conflict` when one of them changed since
 * the restore (unless `force`). Recorded as a `files/restored` event with `undoOf`.
 */
export const SnapshotUndoRestoreParams = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    /** The seq of the `files/restored` event to undo; default the latest restore not undone yet. */
    seq: Seq.optional(),
    force: z.boolean().optional(),
  }),
)
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
  'session.resolve': { params: SessionResolveParams, result: SessionResolveResult },
  'session.subscribe': { params: SessionSubscribeParams, result: SessionSubscribeResult },
  'session.unsubscribe': { params: SessionUnsubscribeParams, result: SessionUnsubscribeResult },
  'session.attachFileSource': {
    params: SessionAttachFileSourceParams,
    result: SessionAttachFileSourceResult,
  },
  'session.detachFileSource': {
    params: SessionDetachFileSourceParams,
    result: SessionDetachFileSourceResult,
  },
  'session.answerReadFile': { params: SessionAnswerReadFileParams, result: SessionAnswerReadFileResult },
  'session.attachMcpServers': {
    params: SessionAttachMcpServersParams,
    result: SessionAttachMcpServersResult,
  },
  'session.prompt': { params: SessionPromptParams, result: SessionPromptResult },
  'session.abort': { params: SessionAbortParams, result: SessionAbortResult },
  'session.answerPermission': {
    params: SessionAnswerPermissionParams,
    result: SessionAnswerPermissionResult,
  },
  'session.fork': { params: SessionForkParams, result: SessionForkResult },
  'session.rename': { params: SessionRenameParams, result: SessionRenameResult },
  'session.archive': { params: SessionArchiveParams, result: SessionArchiveResult },
  'session.delete': { params: SessionDeleteParams, result: SessionDeleteResult },
  'session.export': { params: SessionExportParams, result: SessionExportResult },
  'session.import': { params: SessionImportParams, result: SessionImportResult },
  'session.importBegin': { params: SessionImportBeginParams, result: SessionImportBeginResult },
  'session.importChunk': { params: SessionImportChunkParams, result: SessionImportChunkResult },
  'session.importFrom': { params: SessionImportFromParams, result: SessionImportFromResult },
  'session.setModel': { params: SessionSetModelParams, result: SessionSetModelResult },
  'session.setMode': { params: SessionSetModeParams, result: SessionSetModeResult },
  'session.compare': { params: SessionCompareParams, result: SessionCompareResult },
  'session.explore': { params: SessionExploreParams, result: SessionExploreResult },
  'session.board': { params: SessionBoardParams, result: SessionBoardResult },
  'session.fileAcross': { params: SessionFileAcrossParams, result: SessionFileAcrossResult },
  'session.keep': { params: SessionKeepParams, result: SessionKeepResult },
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
