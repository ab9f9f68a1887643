// Turns a session's event log into what the transcript shows: turns with their user
// message, assistant text, tool calls paired with their results (and their approvals),
// changed files and end;
// between turns, model changes and file restores (and their undos). Pure, so it is tested
// without a browser.
import type { SessionEvent } from './wire.js'

export interface ToolItem {
  readonly kind: 'tool'
  readonly seq: number
  readonly callId: string
  readonly toolName: string
  readonly input: unknown
  result: { readonly seq: number; readonly output: unknown; readonly isError: boolean } | null
  /** Set when the permission policy asked about this call (`permission/requested`). */
  permission: ToolPermission | null
}

/** An ask of the permission policy and its answer (docs/protocol.md `session.answerPermission`). */
export interface ToolPermission {
  readonly seq: number
  /** What an `always` answer allows from now on: a command prefix (bash) or a path glob. */
  readonly pattern: string
  answer: PermissionAnswer | null
}

export interface PermissionAnswer {
  readonly seq: number
  readonly decision: 'once' | 'always' | 'deny'
  readonly reason: string | null
  readonly rule: { readonly tool: string; readonly pattern: string } | null
  /** `user`, `flag` (a run's --allow/--yes) or `interrupted` (the Host closed the waiting turn). */
  readonly by: string | null
}

export type TurnItem =
  | { readonly kind: 'text'; readonly seq: number; readonly text: string }
  | { readonly kind: 'reasoning'; readonly seq: number; readonly text: string }
  | ToolItem

export interface TurnModel {
  readonly startSeq: number
  /** The person's message: its text, and the images it carried (shown as thumbnails). */
  user: { readonly seq: number; readonly text: string; readonly images: readonly UserImage[] } | null
  readonly items: TurnItem[]
  end: { readonly seq: number; readonly reason: string; readonly error: string | null } | null
  /** Paths changed by this turn's snapshots, in first-seen order. */
  readonly changed: string[]
  /** The turn's latest `snapshot/taken` seq, if any. */
  lastSnapshotSeq: number | null
  /** True when the whole turn came from the parent (a fork's prefix). */
  readonly inherited: boolean
}

/** A `files/restored` event: a restore of the session's files, or (with `undoOf`) its undo. */
export interface RestoreModel {
  readonly kind: 'restore'
  readonly seq: number
  /** The seq the files were restored to (a turn's end; -1 for the start); null when unknown. */
  readonly toSeq: number | null
  /** Set on an undo: the seq of the restore it undid. */
  readonly undoOf: number | null
  /** The paths written back. */
  readonly restored: readonly string[]
  /** Paths it left as they were (created later, or kept on purpose). */
  readonly kept: readonly string[]
  /** Paths it could not restore. */
  readonly skipped: readonly string[]
  /** Set when the files came from keeping a branch (`session.keep`), not from a rewind. */
  readonly keptFrom: { readonly sessionId: string; readonly label: string | null } | null
  /** The seq of the event that undid this restore, once it is undone. */
  undoneAt: number | null
  /** True when it came from the parent (a fork's prefix). */
  readonly inherited: boolean
}

/**
 * What the model is sent besides the messages (docs/architecture.md §12): the instruction
 * files recorded from here on, or a compaction (its summary stands for events 0…throughSeq).
 * One inside a turn is shown just before that turn.
 */
export type ContextModel =
  | { readonly kind: 'instructions'; readonly seq: number; readonly paths: readonly string[] }
  | {
      readonly kind: 'compaction'
      readonly seq: number
      readonly throughSeq: number
      readonly summary: string
      readonly trigger: string
      readonly tokensBefore: number | null
      readonly tokensAfter: number | null
    }
  | { readonly kind: 'compaction-failed'; readonly seq: number; readonly message: string }

/**
 * What "Try N ways" and keep leave in a log (docs/architecture.md §8, §13): the exploration
 * started from here (the source's log), a branch kept into here (the parent's), and a check
 * that ran after a turn (the branch's).
 */
export type ExplorationModel =
  | {
      readonly kind: 'exploration'
      readonly seq: number
      readonly exploration: string
      readonly check: string | null
      readonly files: string
      readonly branches: readonly {
        readonly sessionId: string
        readonly label: string
        readonly prompt: string
      }[]
    }
  | {
      readonly kind: 'kept'
      readonly seq: number
      readonly sessionId: string
      readonly label: string | null
      readonly title: string
      readonly applied: readonly string[]
      readonly archived: readonly string[]
      readonly summary: string
      readonly files: string
    }
  | {
      readonly kind: 'check'
      readonly seq: number
      readonly command: string
      readonly exitCode: number | null
      readonly ok: boolean
      readonly timedOut: boolean
      readonly output: string
      readonly durationMs: number
    }

/**
 * What a turn-start snapshot found changed since the session's previous one (`snapshot/taken`
 * with `outside`, docs/architecture.md §5): by hand, or by another session in the folder —
 * never the turn's own change. Shown just before that turn.
 */
export interface OutsideChangeModel {
  readonly kind: 'outside'
  readonly seq: number
  readonly paths: readonly string[]
}

export type TranscriptBlock =
  | { readonly kind: 'turn'; readonly turn: TurnModel }
  | OutsideChangeModel
  | ExplorationModel
  | ContextModel
  | { readonly kind: 'model'; readonly seq: number; readonly model: string }
  /** The session's mode from here on (`session/mode`; inside a turn it counts from the next tool call). */
  | { readonly kind: 'mode'; readonly seq: number; readonly mode: string }
  | { readonly kind: 'fork-point'; readonly seq: number }
  | RestoreModel

/** The whole log at once (tests, compare): a builder fed every event. */
export function buildTranscript(
  events: readonly SessionEvent[],
  inheritedEventCount: number,
): TranscriptBlock[] {
  const builder = new TranscriptBuilder(inheritedEventCount, events[0]?.seq ?? 0)
  builder.append(events)
  return [...builder.blocks()]
}

/**
 * Builds the transcript one event at a time (docs/architecture.md §8): an event changes
 * only the block it belongs to (usually the last turn), and `blocks()` hands out a new array
 * in which every block the events since the last call did not touch is the same object as
 * before, so a memoised row re-renders only when its own block changed. Objects handed out
 * are never mutated again: a block (and a tool call in it) is copied the first time a later
 * event changes it.
 *
 * `firstSeq` is the seq of the first event fed: a log loaded tail first starts in the middle,
 * and its first turn may lack its start (it shows from where the window begins).
 */
export class TranscriptBuilder {
  readonly inheritedEventCount: number
  readonly firstSeq: number
  #blocks: TranscriptBlock[] = []
  #published: readonly TranscriptBlock[] = []
  #dirty = true
  /** Objects made or copied since the last `blocks()`: not handed out yet, so safe to change. */
  #fresh = new WeakSet<object>()
  readonly #tools = new Map<string, ToolItem>()
  readonly #restores = new Map<number, RestoreModel>()
  #turn: TurnModel | null = null
  #lastTurn: TurnModel | null = null
  /** The turn whose calls `#tools` holds (the open one, or the last one once it ended). */
  #toolTurn: TurnModel | null = null
  #forkMarked: boolean
  #nextSeq: number
  #hasSnapshots = false
  readonly #trailingForkPoint: TranscriptBlock

  constructor(inheritedEventCount: number, firstSeq = 0) {
    this.inheritedEventCount = inheritedEventCount
    this.firstSeq = firstSeq
    this.#nextSeq = firstSeq
    this.#forkMarked = inheritedEventCount <= 0 || firstSeq >= inheritedEventCount
    this.#trailingForkPoint = { kind: 'fork-point', seq: inheritedEventCount - 1 }
  }

  /** The seq the next event must have. */
  get nextSeq(): number {
    return this.#nextSeq
  }

  /** Whether the log fed so far records a snapshot or a restore ("Restore files to here" is offered). */
  get hasSnapshots(): boolean {
    return this.#hasSnapshots
  }

  /** The blocks so far; the same array until an event changes something. */
  blocks(): readonly TranscriptBlock[] {
    if (this.#dirty) {
      this.#published = this.#forkMarked ? [...this.#blocks] : [...this.#blocks, this.#trailingForkPoint]
      this.#dirty = false
      // Everything is handed out now: the next change copies.
      this.#fresh = new WeakSet()
    }
    return this.#published
  }

  append(events: Iterable<SessionEvent>): void {
    for (const event of events) this.#apply(event)
  }

  #apply(event: SessionEvent): void {
    this.#nextSeq = event.seq + 1
    this.#dirty = true
    if (!this.#forkMarked && event.seq >= this.inheritedEventCount) {
      this.#blocks.push(this.#trailingForkPoint)
      this.#forkMarked = true
    }
    const data = asRecord(event.data)
    // A window that starts inside a turn: the part of it that is loaded is a turn of its own.
    if (
      this.#turn === null &&
      this.#blocks.length === 0 &&
      event.seq === this.firstSeq &&
      this.firstSeq > 0
    ) {
      if (insideTurn.has(event.type)) this.#startTurn(event.seq)
    }
    switch (event.type) {
      case 'turn/start':
        this.#startTurn(event.seq)
        break
      case 'user/message':
        if (this.#turn)
          this.#ownTurn(this.#turn).user = {
            seq: event.seq,
            text: partsText(data.content),
            images: imagesOf(data.content),
          }
        break
      case 'assistant/message':
        if (this.#turn) this.#appendAssistant(this.#ownTurn(this.#turn), event.seq, data.content)
        break
      case 'tool/result': {
        const call = this.#tools.get(String(data.callId))
        const result = { seq: event.seq, output: data.output, isError: data.isError === true }
        if (call) this.#ownTool(call).result = result
        else if (this.#turn) {
          this.#ownTurn(this.#turn).items.push(
            this.#made<ToolItem>({
              kind: 'tool',
              seq: event.seq,
              callId: String(data.callId),
              toolName: String(data.toolName),
              input: undefined,
              result,
              permission: null,
            }),
          )
        }
        break
      }
      case 'permission/requested': {
        const call = this.#tools.get(String(data.callId))
        if (call)
          this.#ownTool(call).permission = {
            seq: event.seq,
            pattern: String(data.pattern ?? ''),
            answer: null,
          }
        break
      }
      case 'permission/answered': {
        const call = this.#tools.get(String(data.callId))
        if (call?.permission) {
          const owned = this.#ownTool(call)
          owned.permission = { ...owned.permission!, answer: answerOf(event.seq, data) }
        } else if (call && data.by === 'hook') {
          // A preToolUse hook's denial: decided without a question (docs/architecture.md §12.7).
          this.#ownTool(call).permission = { seq: event.seq, pattern: '', answer: answerOf(event.seq, data) }
        }
        break
      }
      case 'turn/end':
        if (this.#turn) {
          this.#ownTurn(this.#turn).end = {
            seq: event.seq,
            reason: String(data.reason ?? 'completed'),
            error: typeof data.error === 'string' ? data.error : null,
          }
          this.#lastTurn = this.#turn
          this.#turn = null
        }
        break
      case 'snapshot/taken': {
        this.#hasSnapshots = true
        const outside = strings(data.outside)
        if (outside.length > 0) {
          // Found at the turn's start, changed before it: shown above the turn.
          const block: OutsideChangeModel = { kind: 'outside', seq: event.seq, paths: outside }
          const at = this.#turn ? this.#blocks.findLastIndex((candidate) => candidate.kind === 'turn') : -1
          if (at >= 0) this.#blocks.splice(at, 0, block)
          else this.#blocks.push(block)
        }
        const target = this.#turn ?? this.#lastTurn
        if (target) {
          const owned = this.#ownTurn(target)
          for (const path of Array.isArray(data.changed) ? data.changed : []) {
            if (typeof path === 'string' && !owned.changed.includes(path)) owned.changed.push(path)
          }
          owned.lastSnapshotSeq = event.seq
        }
        break
      }
      case 'files/restored': {
        this.#hasSnapshots = true
        const restore: RestoreModel = this.#made({
          kind: 'restore',
          seq: event.seq,
          toSeq: typeof data.toSeq === 'number' ? data.toSeq : null,
          undoOf: typeof data.undoOf === 'number' ? data.undoOf : null,
          restored: strings(data.restored),
          kept: strings(data.kept),
          skipped: strings(data.skipped),
          keptFrom: keptFromOf(data.keptFrom),
          undoneAt: null,
          inherited: event.seq < this.inheritedEventCount,
        })
        if (restore.undoOf !== null) {
          const undone = this.#restores.get(restore.undoOf)
          if (undone) this.#ownRestore(undone).undoneAt = event.seq
        } else {
          this.#restores.set(event.seq, restore)
        }
        this.#blocks.push(restore)
        // A snapshot after a restore records the restore, not the turn before it.
        this.#lastTurn = null
        break
      }
      case 'context/instructions':
      case 'context/compacted':
      case 'context/compaction-failed': {
        const context = contextBlock(event.type, event.seq, data)
        // Inside a turn it happened before the turn's answer: show it above the turn.
        const at = this.#turn ? this.#blocks.findLastIndex((block) => block.kind === 'turn') : -1
        if (at >= 0) this.#blocks.splice(at, 0, context)
        else this.#blocks.push(context)
        break
      }
      case 'exploration/started':
      case 'branch/kept':
      case 'check/ran':
        this.#blocks.push(explorationBlock(event.type, event.seq, data))
        break
      case 'model/selection': {
        const block = {
          kind: 'model' as const,
          seq: event.seq,
          model: `${String(data.provider)}:${String(data.model)}`,
        }
        // A model chosen again before anything ran on the last one (changed before the first
        // message) replaces that divider: one line says which model the next turn runs on.
        const last = this.#blocks.at(-1)
        const sameSide = (seq: number) =>
          seq < this.inheritedEventCount === event.seq < this.inheritedEventCount
        if (last?.kind === 'model' && sameSide(last.seq)) this.#blocks[this.#blocks.length - 1] = block
        else this.#blocks.push(block)
        break
      }
      case 'session/mode':
        this.#blocks.push({ kind: 'mode', seq: event.seq, mode: String(data.mode) })
        break
      default:
        break
    }
  }

  #startTurn(seq: number): void {
    const turn = this.#made<TurnModel>({
      startSeq: seq,
      user: null,
      items: [],
      end: null,
      changed: [],
      lastSnapshotSeq: null,
      inherited: seq < this.inheritedEventCount,
    })
    this.#turn = turn
    this.#toolTurn = turn
    this.#tools.clear()
    this.#blocks.push({ kind: 'turn', turn })
  }

  #appendAssistant(turn: TurnModel, seq: number, content: unknown): void {
    for (const part of Array.isArray(content) ? content : []) {
      const p = asRecord(part)
      if (p.type === 'text' && typeof p.text === 'string' && p.text.length > 0) {
        turn.items.push({ kind: 'text', seq, text: p.text })
      } else if (p.type === 'reasoning' && typeof p.text === 'string' && p.text.length > 0) {
        turn.items.push({ kind: 'reasoning', seq, text: p.text })
      } else if (p.type === 'tool-call') {
        const item = this.#made<ToolItem>({
          kind: 'tool',
          seq,
          callId: String(p.toolCallId),
          toolName: String(p.toolName),
          input: p.input,
          result: null,
          permission: null,
        })
        this.#tools.set(item.callId, item)
        turn.items.push(item)
      }
    }
  }

  #made<T extends object>(value: T): T {
    this.#fresh.add(value)
    return value
  }

  /** `turn`, safe to change: itself when fresh, else a copy that replaces it everywhere. */
  #ownTurn(turn: TurnModel): TurnModel {
    if (this.#fresh.has(turn)) return turn
    const copy = this.#made<TurnModel>({ ...turn, items: [...turn.items], changed: [...turn.changed] })
    const at = this.#blocks.findLastIndex((block) => block.kind === 'turn' && block.turn === turn)
    if (at >= 0) this.#blocks[at] = { kind: 'turn', turn: copy }
    if (this.#turn === turn) this.#turn = copy
    if (this.#lastTurn === turn) this.#lastTurn = copy
    if (this.#toolTurn === turn) this.#toolTurn = copy
    return copy
  }

  /** A call of `#toolTurn`, safe to change (its turn is copied with it). */
  #ownTool(item: ToolItem): ToolItem {
    if (this.#fresh.has(item)) return item
    const copy = this.#made<ToolItem>({ ...item })
    this.#tools.set(copy.callId, copy)
    if (this.#toolTurn) {
      const turn = this.#ownTurn(this.#toolTurn)
      const at = turn.items.lastIndexOf(item)
      if (at >= 0) turn.items[at] = copy
    }
    return copy
  }

  #ownRestore(restore: RestoreModel): RestoreModel {
    if (this.#fresh.has(restore)) return restore
    const copy = this.#made<RestoreModel>({ ...restore })
    this.#restores.set(copy.seq, copy)
    const at = this.#blocks.lastIndexOf(restore)
    if (at >= 0) this.#blocks[at] = copy
    return copy
  }
}
function contextBlock(type: string, seq: number, data: Record<string, unknown>): ContextModel {
  if (type === 'context/instructions') {
    const files = Array.isArray(data.files) ? (data.files as unknown[]) : []
    return { kind: 'instructions', seq, paths: files.map((file) => String(asRecord(file).path)) }
  }
  if (type === 'context/compacted') {
    return {
      kind: 'compaction',
      seq,
      throughSeq: typeof data.throughSeq === 'number' ? data.throughSeq : -1,
      summary: typeof data.summary === 'string' ? data.summary : '',
      trigger: String(data.trigger ?? 'manual'),
      tokensBefore: typeof data.tokensBefore === 'number' ? data.tokensBefore : null,
      tokensAfter: typeof data.tokensAfter === 'number' ? data.tokensAfter : null,
    }
  }
  return { kind: 'compaction-failed', seq, message: String(data.message ?? '') }
}

function explorationBlock(type: string, seq: number, data: Record<string, unknown>): ExplorationModel {
  if (type === 'exploration/started') {
    const branches = Array.isArray(data.branches) ? (data.branches as unknown[]).map(asRecord) : []
    return {
      kind: 'exploration',
      seq,
      exploration: String(data.exploration ?? ''),
      check: typeof data.check === 'string' ? data.check : null,
      files: String(data.files ?? 'worktree'),
      branches: branches.map((branch) => ({
        sessionId: String(branch.sessionId),
        label: String(branch.label ?? '?'),
        prompt: String(branch.prompt ?? ''),
      })),
    }
  }
  if (type === 'branch/kept') {
    return {
      kind: 'kept',
      seq,
      sessionId: String(data.sessionId ?? ''),
      label: typeof data.label === 'string' ? data.label : null,
      title: String(data.title ?? ''),
      applied: strings(data.applied),
      archived: strings(data.archived),
      summary: String(data.summary ?? ''),
      files: String(data.files ?? 'worktree'),
    }
  }
  return {
    kind: 'check',
    seq,
    command: String(data.command ?? ''),
    exitCode: typeof data.exitCode === 'number' ? data.exitCode : null,
    ok: data.ok === true,
    timedOut: data.timedOut === true,
    output: String(data.output ?? ''),
    durationMs: typeof data.durationMs === 'number' ? data.durationMs : 0,
  }
}

function keptFromOf(value: unknown): RestoreModel['keptFrom'] {
  const kept = asRecord(value)
  if (typeof kept.sessionId !== 'string') return null
  return { sessionId: kept.sessionId, label: typeof kept.label === 'string' ? kept.label : null }
}

/** Events that only happen inside a turn (a window that starts with one starts mid-turn). */
const insideTurn: ReadonlySet<string> = new Set([
  'user/message',
  'step/start',
  'assistant/message',
  'tool/result',
  'step/end',
  'turn/end',
  'permission/requested',
  'permission/answered',
])

/** The turn that is still open (no `turn/end` yet), if any. */
export function openTurn(blocks: readonly TranscriptBlock[]): TurnModel | null {
  const last = blocks.findLast((block) => block.kind === 'turn')
  return last && last.kind === 'turn' && last.turn.end === null ? last.turn : null
}

/** Whether a call waits for an answer: asked, not answered, and its turn still open. */
export function isWaitingForApproval(turn: TurnModel, item: ToolItem): boolean {
  return turn.end === null && item.permission !== null && item.permission.answer === null
}

/** The open turn's calls waiting for an answer (an ended turn's unanswered ask waits no more). */
export function pendingApprovals(turn: TurnModel | null): ToolItem[] {
  if (!turn) return []
  return turn.items.filter(
    (item): item is ToolItem => item.kind === 'tool' && isWaitingForApproval(turn, item),
  )
}

/**
 * Whether a log ends inside a turn with an ask no answer followed: a cheap look from the end
 * back to the last `turn/start`, for the sidebar's "needs approval" on the open session.
 */
export function awaitsApproval(events: readonly SessionEvent[]): boolean {
  const answered = new Set<string>()
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!
    if (event.type === 'turn/end' || event.type === 'turn/start') return false
    const callId = String(asRecord(event.data).callId)
    if (event.type === 'permission/answered') answered.add(callId)
    else if (event.type === 'permission/requested' && !answered.has(callId)) return true
  }
  return false
}

function answerOf(seq: number, data: Record<string, unknown>): PermissionAnswer {
  const rule = asRecord(data.rule)
  const decision = data.decision === 'always' || data.decision === 'deny' ? data.decision : 'once'
  return {
    seq,
    decision,
    reason: typeof data.reason === 'string' && data.reason !== '' ? data.reason : null,
    rule: typeof rule.tool === 'string' ? { tool: rule.tool, pattern: String(rule.pattern ?? '') } : null,
    by: typeof data.by === 'string' ? data.by : null,
  }
}

function partsText(content: unknown): string {
  const texts: string[] = []
  for (const part of Array.isArray(content) ? content : []) {
    const p = asRecord(part)
    if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text)
    // Images are shown by imagesOf; any other file is named.
    else if (p.type === 'file' && !isShownImage(p)) texts.push(`[file ${String(p.mediaType)}]`)
  }
  return texts.join('\n')
}

/** An image of a user message: its media type (one a prompt takes) and base64 bytes. */
export interface UserImage {
  readonly mediaType: string
  readonly data: string
}

/** The formats shown as images: those a prompt takes (never SVG, which can hold scripts). */
const shownImageTypes: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

function isShownImage(part: Record<string, unknown>): boolean {
  return (
    typeof part.mediaType === 'string' && shownImageTypes.has(part.mediaType) && typeof part.data === 'string'
  )
}

function imagesOf(content: unknown): UserImage[] {
  return (Array.isArray(content) ? content : [])
    .map(asRecord)
    .filter((part) => part.type === 'file' && isShownImage(part))
    .map((part) => ({ mediaType: String(part.mediaType), data: String(part.data) }))
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}
