// The N-way compare board (docs/architecture.md §13.3): per branch its status, own turns, time,
// files changed since its fork point with a diffstat, its latest check and its own tokens; and
// one file as every branch has it, for a side-by-side diff. Read-only, from logs and snapshots.
import type { Session, SessionEvent, SessionPersistence } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type {
  BoardBranch,
  BoardFile,
  CheckResult,
  FileDiff,
  SessionBoardParams,
  SessionBoardResult,
  SessionFileAcrossParams,
  SessionFileAcrossResult,
  SessionSummary,
} from '@tangent/protocol'
import type { CheckRanData } from './check.js'
import { latestTree } from './fork-point.js'
import { headerMetaOf } from './header-meta.js'
import { lineageOf } from './lineage.js'
import { restoreUndone } from './restore-events.js'
import { sessionUsageOf } from './session-usage.js'
import type { Sessions } from './sessions.js'

export interface BoardSource {
  session: Session
  summary: SessionSummary
  /** The files' tree now (its latest snapshot), null when none was taken. */
  latestTree: string | null
  /** Its own usage (after its fork point), as session.get reports it (docs/architecture.md §12.5). */
  tokens: { inputTokens: number; outputTokens: number; cachedInputTokens: number }
  /** The session it was forked from (whether the branch is kept there), when given. */
  parent?: Session | null
}

/** The board's operations over the runtime's sessions and file state. */
export class Board {
  readonly #store: SessionPersistence
  readonly #sessions: Sessions
  readonly #fileState: () => Promise<FileState>

  constructor(deps: { store: SessionPersistence; sessions: Sessions; fileState: () => Promise<FileState> }) {
    this.#store = deps.store
    this.#sessions = deps.sessions
    this.#fileState = deps.fileState
  }

  async board(params: SessionBoardParams): Promise<SessionBoardResult> {
    const sources = await Promise.all(params.sessionIds.map((id) => this.#source(id, true)))
    const files = await this.#fileState()
    const now = Date.now()
    const branches = await Promise.all(sources.map((source) => boardBranch(files, source, now)))
    const lineages = await Promise.all(
      sources.map(async (source) =>
        (await lineageOf(source.session.id, this.#sessions.parentOf)).map((link) => link.sessionId),
      ),
    )
    // The nearest session every branch descends from (for one branch: its parent).
    const [first, ...others] = sources.length === 1 ? [lineages[0]!.slice(1)] : lineages
    const ancestor = first!.find((id) => others.every((lineage) => lineage.includes(id))) ?? null
    const trees = new Set(sources.map((source) => headerMetaOf(source.session.header).baseTree ?? null))
    return { ancestor, baseTree: trees.size === 1 ? [...trees][0]! : null, branches }
  }

  async fileAcross(params: SessionFileAcrossParams): Promise<SessionFileAcrossResult> {
    const sources = await Promise.all(params.sessionIds.map((id) => this.#source(id)))
    return fileAcross(await this.#fileState(), sources, params.path)
  }

  async #source(sessionId: string, withParent = false): Promise<BoardSource> {
    const session = await this.#sessions.load(sessionId)
    const entry = await this.#store.get(sessionId)
    const parentId = session.header.parentSession
    // A parent deleted since: the branch cannot be kept in it.
    const parent =
      withParent && typeof parentId === 'string'
        ? await this.#sessions.load(parentId).catch(() => null)
        : null
    return {
      session,
      parent,
      summary: this.#sessions.summaryOf(entry, session),
      latestTree: latestTree(session),
      tokens: sessionUsageOf(session, this.#sessions.usageOptions).own,
    }
  }
}

export async function boardBranch(files: FileState, source: BoardSource, now: number): Promise<BoardBranch> {
  const { session } = source
  const own = session.events.slice(session.inheritedEventCount)
  const baseTree = headerMetaOf(session.header).baseTree ?? null
  const diffs = source.latestTree === null ? [] : await files.diffTrees(baseTree, source.latestTree)
  let turns = 0
  let completedTurns = 0
  let firstStart: number | null = null
  let lastEnd: number | null = null
  for (const event of own) {
    if (event.type === 'turn/start') {
      turns++
      firstStart ??= event.time
    } else if (event.type === 'turn/end') {
      lastEnd = event.time
      if ((event.data as { reason?: string }).reason === 'completed') completedTurns++
    }
  }
  const running = source.summary.status === 'running'
  return {
    session: source.summary,
    turns,
    completedTurns,
    durationMs: firstStart === null ? null : (running ? now : (lastEnd ?? now)) - firstStart,
    files: diffs.map(diffstat),
    check: latestCheck(own),
    kept: source.parent ? keptIn(source.parent, session) : null,
    tokens: {
      input: source.tokens.inputTokens,
      output: source.tokens.outputTokens,
      cached: source.tokens.cachedInputTokens,
    },
  }
}

/**
 * Whether `branch` is kept in `parent` now: its latest `branch/kept` there holds all it has and
 * the restore that wrote its files was not undone (what `assertKeepable` refuses a second keep of).
 */
export function keptIn(parent: Session, branch: Session): { seq: number; restoreSeq?: number } | null {
  for (let i = parent.events.length - 1; i >= 0; i--) {
    const event = parent.events[i]!
    if (event.type !== 'branch/kept') continue
    const kept = event.data as { sessionId?: unknown; throughSeq?: unknown; restoreSeq?: unknown }
    if (kept.sessionId !== branch.id) continue
    if (kept.throughSeq !== branch.lastSeq) return null
    if (typeof kept.restoreSeq === 'number') {
      if (restoreUndone(parent, kept.restoreSeq, event.seq)) return null
      return { seq: event.seq, restoreSeq: kept.restoreSeq }
    }
    return { seq: event.seq }
  }
  return null
}

/** The latest `check/ran` among `events`, as the board shows it. */
export function latestCheck(events: readonly SessionEvent[]): CheckResult | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type !== 'check/ran') continue
    const data = event.data as Partial<CheckRanData>
    if (typeof data.command !== 'string') continue
    return {
      seq: event.seq,
      command: data.command,
      exitCode: typeof data.exitCode === 'number' ? data.exitCode : null,
      ok: data.ok === true,
      output: typeof data.output === 'string' ? data.output : '',
      durationMs: typeof data.durationMs === 'number' ? data.durationMs : 0,
      ...(data.timedOut ? { timedOut: true } : {}),
    }
  }
  return null
}

function diffstat(diff: FileDiff): BoardFile {
  let added = 0
  let removed = 0
  for (const line of diff.patch.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++
    else if (line.startsWith('-') && !line.startsWith('---')) removed++
  }
  const binary = /^Binary files /m.test(diff.patch)
  return { path: diff.path, status: diff.status, added, removed, ...(binary ? { binary: true } : {}) }
}

const maxTextBytes = 512 * 1024

/** `file` at the first branch's fork point and in each branch now. */
export async function fileAcross(
  files: FileState,
  sources: readonly BoardSource[],
  file: string,
): Promise<SessionFileAcrossResult> {
  const version = async (tree: string | null) => {
    const bytes = tree === null ? null : await files.readFile(tree, file)
    if (bytes === null) return { content: null, binary: false, truncated: false }
    const binary = bytes.subarray(0, 8192).includes(0)
    if (binary) return { content: null, binary: true, truncated: false }
    const truncated = bytes.length > maxTextBytes
    return { content: bytes.subarray(0, maxTextBytes).toString('utf8'), binary: false, truncated }
  }
  const baseTree = sources[0] ? (headerMetaOf(sources[0].session.header).baseTree ?? null) : null
  return {
    path: file,
    base: await version(baseTree),
    versions: await Promise.all(
      sources.map(async (source) => ({
        sessionId: source.session.id,
        ...(await version(source.latestTree)),
      })),
    ),
  }
}
