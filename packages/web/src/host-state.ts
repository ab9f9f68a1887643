// The shape of the UI's state (see HostStore) and its starting value: what the Host said
// plus view state. Plain data, so components can select slices of it cheaply.
import { awaitsApproval } from './transcript-model.js'
import type {
  BoardResult,
  CompareResult,
  HostInfo,
  SessionEvent,
  SessionModeId,
  SessionSummary,
  SessionUsage,
  Workspace,
} from './wire.js'

export interface Notice {
  readonly id: number
  readonly tone: 'error' | 'info'
  readonly code: string
  readonly message: string
  /**
   * The session it was raised in (shown only while that session is open), or null for the page
   * as a whole (a deleted session's outcome, a workspace that would not open).
   */
  readonly sessionId: string | null
  /** The answer it asks for (it stays until given or dismissed); without one it goes by itself. */
  readonly action?: NoticeAction | undefined
}

/** A notice's button: plain data, carried out by the store (`HostStore.noticeAction`). */
export interface NoticeAction {
  readonly kind: 'undo-restore'
  readonly label: string
  readonly sessionId: string
  readonly seq: number
}

export interface TranscriptState {
  readonly sessionId: string
  /**
   * The loaded window of the log: `events[i].seq === firstSeq + i`, up to the log's end. A long
   * log is loaded tail first (`firstSeq` > 0) and older pages are put before it on demand.
   */
  readonly events: readonly SessionEvent[]
  readonly firstSeq: number
  /** An older page is being read. */
  readonly loadingOlder?: boolean | undefined
  readonly loading: boolean
  /** Text streamed by the current step, dropped when its `assistant/message` lands. */
  readonly streaming: { readonly text: string; readonly reasoning: string; readonly toolInput: string }
  /** Tokens, cost and the context meter (session.get's usage), re-read when a step ends. */
  readonly usage?: SessionUsage | undefined
}

export interface CompareState {
  readonly a: string
  readonly b: string
  readonly result: CompareResult | null
}

/**
 * The N-way board of one exploration's branches (docs/architecture.md §8): which sessions, the
 * check they run (when known), and the latest `session.board` answer (null while loading).
 */
export interface BoardState {
  readonly exploration: string
  readonly parentId: string | null
  readonly sessionIds: readonly string[]
  readonly check: string | null
  readonly result: BoardResult | null
}

/** A restore (to the turn ending at `seq`) or the undo of one (the `files/restored` at `seq`) refused with `files-conflict`. */
export interface RestoreConflict {
  readonly kind: 'restore' | 'undo'
  readonly sessionId: string
  readonly seq: number
  readonly paths: readonly string[]
}

export type DialogState =
  /** `draft`: the text the child's composer starts with ("Edit in new branch"). */
  | {
      readonly kind: 'fork'
      readonly sessionId: string
      readonly atSeq?: number
      readonly before?: boolean
      readonly draft?: string
    }
  | { readonly kind: 'delete'; readonly sessionId: string }
  /** "Try N ways" from the completed turn ending at `atSeq`. */
  | { readonly kind: 'explore'; readonly sessionId: string; readonly atSeq: number }
  /** The folder browser, starting at `path` (default: the Host's start folder). */
  | { readonly kind: 'browse'; readonly path?: string }
  /** Import session files, or a tool's sessions of the open folder. */
  | { readonly kind: 'import' }
  /** Download the session as a bundle, Markdown, HTML or a file another agent resumes. */
  | { readonly kind: 'export'; readonly sessionId: string }

export interface HostState {
  readonly dialog: DialogState | null
  readonly renaming: string | null
  readonly connection: 'connecting' | 'open' | 'closed'
  /** The Host answers but refuses this page's token (it restarted with a new one, or the address had none). */
  readonly tokenRefused: boolean
  readonly info: HostInfo | null
  readonly workspaces: readonly Workspace[]
  readonly sessions: ReadonlyMap<string, SessionSummary>
  /**
   * Bumped when the tree's shape can change (a session added or removed, or its parent,
   * workspace, archived flag or creation time changed) — not for status, title or counts,
   * which each row reads live. Lets a 5,000-session tree skip rebuilding while text streams.
   */
  readonly treeVersion: number
  readonly activeWorkspaceId: string | null
  readonly openSessionId: string | null
  readonly transcript: TranscriptState | null
  readonly expanded: ReadonlySet<string>
  readonly collapsedWorkspaces: ReadonlySet<string>
  readonly showArchived: boolean
  readonly notices: readonly Notice[]
  /** Text to put in the composer (Edit in new branch); `nonce` makes a repeat visible. */
  /**
   * Text for the composer: "Edit in new branch" (replaces what the box holds), or a message the
   * Host refused before its turn started (`returned`: put back before what the box holds).
   */
  readonly draft: {
    readonly sessionId: string
    readonly text: string
    readonly nonce: number
    readonly returned?: boolean
  } | null
  /**
   * A message per session typed while its turn ran, sent when the turn ends (one at a time:
   * it can be edited or cancelled until then).
   */
  readonly queued: ReadonlyMap<string, string>
  readonly sharedActivity: { readonly cwd: string; readonly sessionIds: readonly string[] } | null
  readonly compare: CompareState | null
  readonly board: BoardState | null
  readonly restoreConflict: RestoreConflict | null
  /**
   * A seq of the open session to bring into view (the tree's "from #N", compare, a
   * `#session=<id>&seq=<n>` link); `nonce` makes a repeat visible.
   */
  readonly jump: { readonly sessionId: string; readonly seq: number; readonly nonce: number } | null
  /** Model for the next new session when none is open. */
  readonly nextModel: string | null
  /** Mode for the next new session when none is open (null: the default, `edit`). */
  readonly nextMode: SessionModeId | null
}

export function initialHostState(openSessionId: string | null): HostState {
  return {
    dialog: null,
    renaming: null,
    connection: 'connecting',
    tokenRefused: false,
    info: null,
    workspaces: [],
    sessions: new Map(),
    treeVersion: 0,
    activeWorkspaceId: null,
    openSessionId,
    transcript: null,
    expanded: new Set(),
    collapsedWorkspaces: new Set(),
    showArchived: false,
    notices: [],
    draft: null,
    queued: new Map(),
    sharedActivity: null,
    compare: null,
    board: null,
    restoreConflict: null,
    jump: null,
    nextModel: null,
    nextMode: null,
  }
}

/**
 * Whether the open session is running a turn. The log is the authority once it is loaded
 * (a `turn/start` without its `turn/end`): the summary's status may lag behind it by a
 * notification, and a composer that trusted it would swallow an Enter right after a turn.
 */
export function isOpenSessionRunning(state: HostState): boolean {
  const id = state.openSessionId
  if (id === null) return false
  const transcript = state.transcript
  if (!transcript || transcript.sessionId !== id || transcript.loading) {
    return state.sessions.get(id)?.status === 'running'
  }
  const last = transcript.events.findLast((event) => event.type === 'turn/start' || event.type === 'turn/end')
  // A window that starts inside a long turn holds neither: the summary says.
  if (!last) return transcript.firstSeq > 0 && state.sessions.get(id)?.status === 'running'
  return last.type === 'turn/start'
}

/** Whether a session is running a turn: the open one by its log (as above), another by its summary. */
export function isSessionRunning(state: HostState, sessionId: string): boolean {
  if (sessionId === state.openSessionId) return isOpenSessionRunning(state)
  return state.sessions.get(sessionId)?.status === 'running'
}

/** Whether the open session waits for an approval (the summary does not say; its log does). */
export function openSessionAwaitsApproval(state: HostState): boolean {
  const transcript = state.transcript
  if (!transcript || transcript.sessionId !== state.openSessionId || transcript.loading) return false
  return awaitsApproval(transcript.events)
}
