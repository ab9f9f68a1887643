// The one closed list of error codes: every `TangentError.code`, every `error.data.code` the
// Host sends and every `error[<code>]` the CLI prints is a key here. No imports, so a browser
// bundle can take it alone (`@tangent/core/error-codes`). docs/protocol.md lists them all.

/** Error code → when it is raised (one line, for the docs). */
export const errorCodes = {
  // JSON-RPC and transport
  'parse-error': 'the request body or WebSocket message is not valid JSON',
  'invalid-request':
    'not a JSON-RPC 2.0 request, an empty or oversized batch, or a subscription or MCP servers attached over HTTP',
  'method-not-found': 'the method is not in the protocol',
  'invalid-params': 'params fail the method schema, or name a path or requestId the method cannot use',
  'payload-too-large': 'the HTTP body or WebSocket message exceeds the size limit',
  unauthorized: 'the bearer token is missing or wrong (HTTP 401)',
  'foreign-origin':
    'the request names another Host (DNS rebinding) or comes from a foreign web page Origin (HTTP 403)',
  internal: 'an unexpected failure; the Host keeps running and logs it',
  'connection-closed':
    'client side: the connection closed before the answer came; `sent: false` when the call was never sent (safe to make again)',
  'host-unreachable': 'no Host answers at the URL (or with the token) a client was given',
  'host-running': 'tangent serve: a Host already serves this data directory',
  'port-in-use': 'the Host cannot listen: the port is taken by another process',

  // Sessions and the event log
  'session-not-found': 'an unknown session id',
  'ambiguous-id': 'a session id prefix that more than one session starts with (data.candidates)',
  'session-busy': 'the session is running a turn, or a restore, undo or delete, and the call needs it idle',
  'session-elsewhere':
    'the session\'s files live on another machine (shared PostgreSQL store): read, compare or fork it here (a `files: "worktree"` fork continues it on this machine, its files from the store), prompt it there',
  'session-exists': 'a session with this id already exists (in memory or on disk)',
  'invalid-bundle':
    'session.import / tangent import: a bundle line that is not JSON, breaks the bundle grammar or the event grammar, an id outside the pattern, a parent cycle or a line too long (data.line: its 1-based number); nothing written',
  'import-conflict':
    'session.import: a session of the bundle exists here with other events or another lineage (data.sessionId); nothing written',
  'import-unsupported':
    'tangent import: a file whose format is not known, or known but not read yet (data.source); nothing written',
  'export-conflict':
    'tangent export to an agent (claude, codex or pi): the file there holds lines this export does not (the agent continued the session); nothing written',
  'upload-not-found':
    'session.import / session.importChunk: an upload id this connection did not begin, or that ended or expired (data.uploadId)',
  'session-stale': 'a Session object that its store no longer holds',
  'invalid-session-id': 'a session id outside the pattern: 1-128 of A-Z a-z 0-9 _ -, starting alphanumeric',
  'invalid-boundary':
    'a fork boundary or anchor seq that is not in the log (past its end: never forked at an earlier point)',
  'open-turn': 'a fork boundary that falls inside a turn',
  'fork-unavailable': 'no completed turn at or after the anchor (a running turn, or none yet)',
  'grammar-violation': 'an append that breaks the turn grammar of the log',
  'invalid-event':
    'an event whose type is not noun/verb, whose data fails its schema, whose seq is not dense, or that is over 64 MiB as a log line',

  // Persistence
  'store-locked': 'another process holds the writer lock of the data directory',
  'store-read-only': 'a write on a store opened read-only',
  'store-closed': 'a call on a store that was closed',
  'store-write-failed': 'writing or closing a session log failed (disk full, permissions)',
  'store-unreachable':
    'the PostgreSQL database of TANGENT_STORE cannot be reached, refuses the login, or has no (or a newer) Tangent schema',
  'invalid-import':
    'an imported session that cannot become sessions: no entries, every entry in a loop of parents, too many branches, or events that break the turn grammar',
  'corrupt-log': 'a session log has a malformed line that is not a torn tail',
  'parent-log-missing': 'a fork reads its prefix from a parent log that is missing',
  'home-not-directory': 'the data directory (TANGENT_HOME) exists but is not a directory',

  // Workspaces and folders
  'workspace-not-found': 'an unknown workspace id',
  'workspace-attach-failed':
    'a fork was published but could not join the workspace (data.sessionId is the child)',
  'corrupt-workspaces': 'the workspaces file of the data directory is not valid',
  'folder-not-found':
    'a folder path (workspace.open, workspace.browse, a cwd) that does not exist or is not a directory',

  // File state
  'files-conflict': 'a restore or undo would overwrite files changed since by another writer (data.paths)',
  'not-a-restore': 'snapshot.undoRestore of a seq that is not a files/restored event, or nothing to undo',
  'snapshot-unavailable': 'the snapshot tree needed is missing, or no snapshot exists at or before the seq',
  'snapshot-failed': 'a snapshot of the working directory could not be taken',
  'git-failed': 'a git command of the shadow repository failed, or git is not installed',
  'worktree-exists': 'the directory for a worktree fork already exists',
  'not-a-worktree': 'removing a directory that is not a worktree Tangent created',
  'worktree-dirty':
    "session.delete: the session's worktree has uncommitted changes removing it would lose; nothing was deleted (data.paths)",
  'not-a-directory': 'a working directory that does not exist or is not a directory',
  'invalid-path': 'a file path that is empty, absolute or climbs out with ..',
  'disk-full': 'a file operation stopped because the disk or quota is full; what it made is removed',

  // The agent and its tools
  'model-unavailable': 'the model provider is not configured (no API key or base URL)',
  'invalid-model':
    'a model id that is not provider:model of a known provider, or a model its provider does not have (demo has only demo:scripted)',
  'images-unsupported':
    'a prompt with images to a model that does not take them, or that Tangent does not know takes them (TANGENT_IMAGE_MODELS declares one)',
  'path-outside-cwd': 'a tool path that leads outside the session working directory',
  'cwd-missing': 'the session working directory is unset or no longer exists',
  'tool-failed': 'a tool could not do what was asked (reported to the model as an error result)',
  aborted: 'the turn was aborted (the reason of the abort signal)',
  'permission-not-pending':
    'session.answerPermission for a call that is not waiting (answered already, or its turn ended)',
  'invalid-config':
    'a Tangent config file (user or project) is not valid JSON or breaks its schema (data.path)',
  'nothing-to-compact': 'session.compact of a session with no completed turn since its last compaction',
  'already-kept': 'session.keep of a branch kept into its parent already, with nothing new since',
  'compaction-failed': 'session.compact: the model could not summarise the history (nothing was recorded)',

  // Imports from other agents' session files
  'not-a-session-file':
    'a file given to import that is not a session file of the tool named (or of any tool Tangent reads)',
  'unsupported-version':
    'an imported session file of a format version its reader was not written and tested for (data.version, data.tested)',

  // The CLI
  'cwd-not-found': 'tangent run --cwd names something that is not a directory',
  'turn-error': 'tangent run: the turn ended with reason error',
  usage: 'a command line that does not parse (exit code 2)',
  'doctor-problems': 'tangent doctor found a problem that stops Tangent from working here (listed above it)',
} as const

/** A stable, kebab-case error code. */
export type ErrorCode = keyof typeof errorCodes

/** Every error code, in declaration order. */
export const errorCodeList = Object.keys(errorCodes) as ErrorCode[]

/** True when `value` is one of the declared error codes. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(errorCodes, value)
}
