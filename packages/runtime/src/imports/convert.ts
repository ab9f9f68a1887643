// An imported tree (imported-tree.ts) as a plan of Tangent sessions (docs/architecture.md, "Moving
// in and out"), pure: each root-to-leaf path becomes one session's events in the turn grammar; the
// first path is the main session, every other path a fork of the path it branched from, cut at the
// last point both logs agree on that lies between turns (a branch between turns forks after the
// turn before it; one inside a turn forks before that turn and replays it); subtrees become
// subagent forks. Nothing is written here, and every event is checked against its schema and the
// grammar first, so a tree that cannot be imported fails before any session exists.
import {
  eventDataSchemas,
  GrammarState,
  isCoreEventType,
  type ModelSelectionData,
  TangentError,
  type Usage,
} from '@tangent/core'
import type { ImportedEntry, ImportedTree, ImportSource } from './imported-tree.js'
import { sameJson } from './same-json.js'

/** At most this many sessions (branches and subagents) from one import. */
export const maxImportedSessions = 1000
/** At most this many entries in one tree (subtrees counted apart). */
export const maxImportedEntries = 1_000_000

export interface PlannedEvent {
  type: string
  data: unknown
  time: number
}

export interface ImportProblem {
  /** The 1-based line of the source file, when known. */
  line?: number
  message: string
}

export interface PlannedSession {
  /** Stable across imports of the same (or a grown) tree: `<sourceId>#<first own entry id>`. */
  key: string
  source: ImportSource
  sourceId: string
  /** The last entry of its path: the same key with another leaf is a tree that grew since. */
  leafId: string
  /** The session it forks (planned before it), and the last seq it inherits (-1: none). */
  parent: { key: string; boundary: number } | null
  /** The entry its path branches from its parent's path at (none for a second root). */
  branchOf?: string
  /** A subtree's root: the call (or entry) that started it, and its depth under a user session. */
  subagentOf?: { callId: string; depth: number }
  title: string
  createdAt: number
  /** Its own events, after the inherited ones. */
  own: PlannedEvent[]
}

export interface ImportPlan {
  source: ImportSource
  sourceId: string
  cwd: string | null
  sessions: PlannedSession[]
  problems: ImportProblem[]
}

interface PlanContext {
  defaultModel: string
  now: number
  sessions: PlannedSession[]
  /** The full events of each planned session, by key (inherited ones first). */
  full: Map<string, PlannedEvent[]>
  problems: ImportProblem[]
}

/**
 * The sessions a tree becomes. Throws `invalid-import` for a tree with nothing to import (no
 * entries, every entry in a loop of parents) or too many branches; problems of single entries
 * (a duplicate id, a missing parent, a loop) are reported in `problems` and the rest imported.
 */
export function planImport(tree: ImportedTree, options: { defaultModel: string; now: number }): ImportPlan {
  const context: PlanContext = {
    defaultModel: options.defaultModel,
    now: options.now,
    sessions: [],
    full: new Map(),
    problems: tree.problems.map((problem) => ({ line: problem.line, message: problem.message })),
  }
  planTree(tree, context, null)
  return {
    source: tree.source,
    sourceId: tree.sourceId,
    cwd: tree.cwd,
    sessions: context.sessions,
    problems: context.problems,
  }
}

/** The full events of a planned session: its parent's through the boundary, then its own. */
export function fullEventsOf(plan: ImportPlan, key: string): PlannedEvent[] {
  const byKey = new Map(plan.sessions.map((session) => [session.key, session]))
  const chain: PlannedSession[] = []
  for (
    let session = byKey.get(key);
    session;
    session = session.parent ? byKey.get(session.parent.key) : undefined
  )
    chain.unshift(session)
  let events: PlannedEvent[] = []
  for (const session of chain) {
    events = session.parent ? events.slice(0, session.parent.boundary + 1) : []
    events.push(...session.own)
  }
  return events
}

/**
 * The last seq both logs agree on (type, time and data) after which no turn is open: where a log
 * holding `planned` forks from one holding `existing`. -1 when they agree on nothing.
 */
export function agreedBoundary(
  existing: readonly { type: string; time: number; data: unknown }[],
  planned: readonly PlannedEvent[],
): number {
  const grammar = new GrammarState()
  let boundary = -1
  const length = Math.min(existing.length, planned.length)
  for (let seq = 0; seq < length; seq++) {
    const a = existing[seq]!
    const b = planned[seq]!
    if (!sameEvent(a, b)) break
    grammar.accept(seq, b.type, b.data)
    if (grammar.phase === 'idle') boundary = seq
  }
  return boundary
}

function sameEvent(a: { type: string; time: number; data: unknown }, b: PlannedEvent): boolean {
  return a.type === b.type && a.time === b.time && sameJson(a.data, b.data)
}

// --- the tree's shape -----------------------------------------------------------------

interface PathPlan {
  entries: ImportedEntry[]
  /** The path it branched from (an index into the paths), and the entry it branched at. */
  parent: number | null
  branchOf: string | null
  /** Index in `entries` of its first own entry. */
  ownFrom: number
}

function invalidImport(tree: ImportedTree, why: string, data: Record<string, unknown> = {}): TangentError {
  return new TangentError(
    'invalid-import',
    `Cannot import ${tree.source} session ${tree.sourceId}: ${why}.`,
    {
      source: tree.source,
      sourceId: tree.sourceId,
      ...data,
    },
  )
}

/** The tree's root-to-leaf paths, first children first; problems for duplicates, orphans and loops. */
function pathsOf(tree: ImportedTree, problems: ImportProblem[]): PathPlan[] {
  if (!Array.isArray(tree.entries) || tree.entries.length === 0)
    throw invalidImport(tree, 'it has no entries')
  if (tree.entries.length > maxImportedEntries)
    throw invalidImport(
      tree,
      `it has ${tree.entries.length} entries, over the ${maxImportedEntries} one import takes`,
    )
  const byId = new Map<string, ImportedEntry>()
  for (const entry of tree.entries) {
    if (typeof entry?.id !== 'string' || entry.id === '') {
      problems.push(located(entry, 'an entry without an id was left out'))
      continue
    }
    if (byId.has(entry.id)) {
      problems.push(
        located(entry, `entry ${entry.id} appears again: the first one was imported, this one left out`),
      )
      continue
    }
    byId.set(entry.id, entry)
  }
  const roots: ImportedEntry[] = []
  const children = new Map<string, ImportedEntry[]>()
  for (const entry of byId.values()) {
    const parentId = entry.parentId
    if (parentId === null || parentId === undefined) {
      roots.push(entry)
      continue
    }
    if (!byId.has(parentId)) {
      problems.push(
        located(
          entry,
          `entry ${entry.id} follows ${parentId}, which is not in the file: imported as a start`,
        ),
      )
      roots.push(entry)
      continue
    }
    const list = children.get(parentId)
    if (list) list.push(entry)
    else children.set(parentId, [entry])
  }
  if (roots.length === 0)
    throw invalidImport(tree, 'every entry is in a loop of parents (no entry starts the conversation)')

  const paths: PathPlan[] = []
  const reached = new Set<string>()
  // Work list of paths to walk (breadth-first over branches: a path is planned after its parent).
  const pending: {
    start: ImportedEntry
    prefix: ImportedEntry[]
    parent: number | null
    branchOf: string | null
  }[] = roots.map((root, index) => ({
    start: root,
    prefix: [],
    parent: index === 0 ? null : 0,
    branchOf: null,
  }))
  for (let next = 0; next < pending.length; next++) {
    const { start, prefix, parent, branchOf } = pending[next]!
    if (paths.length >= maxImportedSessions)
      throw invalidImport(
        tree,
        `it has more than ${maxImportedSessions} branches, the most one import makes`,
        {
          limit: maxImportedSessions,
        },
      )
    const entries = prefix.slice()
    const index = paths.length
    for (let entry: ImportedEntry | undefined = start; entry; ) {
      entries.push(entry)
      reached.add(entry.id)
      const kids: ImportedEntry[] = children.get(entry.id) ?? []
      for (let k = 1; k < kids.length; k++)
        pending.push({ start: kids[k]!, prefix: entries.slice(), parent: index, branchOf: entry.id })
      entry = kids[0]
    }
    paths.push({ entries, parent, branchOf, ownFrom: prefix.length })
  }
  if (reached.size < byId.size) {
    const lost = [...byId.keys()].filter((id) => !reached.has(id))
    problems.push({
      message: `${lost.length} entries are in a loop of parents and were left out (${lost.slice(0, 5).join(', ')}${lost.length > 5 ? ', …' : ''})`,
    })
  }
  return paths
}

function located(entry: { line?: number } | null | undefined, message: string): ImportProblem {
  return typeof entry?.line === 'number' ? { line: entry.line, message } : { message }
}

// --- planning --------------------------------------------------------------------------

function planTree(
  tree: ImportedTree,
  context: PlanContext,
  under: { parentKey: string; boundary: number; callId: string; depth: number } | null,
): void {
  const paths = pathsOf(tree, context.problems)
  const firstUser = paths[0]!.entries.find((entry) => entry.kind === 'user')
  const firstText = firstUser?.kind === 'user' ? oneLine(firstUser.text) : ''
  const baseTitle = under
    ? `Task: ${firstText || tree.sourceId}`.slice(0, 200)
    : (tree.title?.trim() || firstText || `Imported ${tree.source} session`).slice(0, 200)
  const inherited = under ? context.full.get(under.parentKey)!.slice(0, under.boundary + 1) : []
  const keys: string[] = []
  const built: { events: PlannedEvent[]; turnOf: Map<string, number> }[] = []
  for (const [index, path] of paths.entries()) {
    if (context.sessions.length >= maxImportedSessions)
      throw invalidImport(
        tree,
        `it makes more than ${maxImportedSessions} sessions, the most one import makes`,
        {
          limit: maxImportedSessions,
        },
      )
    const title = index === 0 ? baseTitle : `${baseTitle} · branch ${index}`.slice(0, 200)
    const { events, turnOf } = eventsOfPath(tree, path.entries, inherited, baseTitle, context)
    const first = path.entries[path.ownFrom] ?? path.entries[0]!
    const key = `${tree.sourceId}#${first.id}`
    // Keys name sessions across imports: a subtree that repeats its parent's ids (or holds itself) is refused.
    if (context.full.has(key))
      throw invalidImport(
        tree,
        `two of its parts start at the same entry (${key}): a subtree repeats the session`,
      )
    let parent: PlannedSession['parent'] = null
    let own: PlannedEvent[]
    if (path.parent === null) {
      parent = under ? { key: under.parentKey, boundary: under.boundary } : null
      own = events.slice(inherited.length)
    } else {
      const parentKey = keys[path.parent]!
      const boundary = agreedBoundary(built[path.parent]!.events, events)
      parent = { key: parentKey, boundary }
      own = events.slice(boundary + 1)
      // A branch's own title comes last, so every seq before it is its path's (a branch of it cuts there).
      own.push({ type: 'session/title', data: { title }, time: events.at(-1)?.time ?? context.now })
    }
    const session: PlannedSession = {
      key,
      source: tree.source,
      sourceId: tree.sourceId,
      leafId: path.entries.at(-1)!.id,
      parent,
      ...(path.branchOf !== null ? { branchOf: path.branchOf } : {}),
      ...(under && path.parent === null ? { subagentOf: { callId: under.callId, depth: under.depth } } : {}),
      title,
      createdAt: first.time ?? context.now,
      own,
    }
    checkGrammar(tree, inheritedOf(session, context), own)
    context.sessions.push(session)
    keys.push(key)
    built.push({ events, turnOf })
    context.full.set(
      key,
      parent ? [...context.full.get(parent.key)!.slice(0, parent.boundary + 1), ...own] : own,
    )
  }
  const depth = under ? under.depth : 0
  for (const subtree of tree.subtrees ?? []) {
    // The first path holding the call (or entry) that started it: the subagent forks that session
    // just before the turn that delegated (docs/architecture.md §14.1).
    const at = built.findIndex((path) => path.turnOf.has(subtree.startedBy))
    if (at < 0)
      context.problems.push({
        message: `subtree ${subtree.tree.sourceId} was started by ${subtree.startedBy}, which is not in the session: imported under its first turn`,
      })
    const index = Math.max(at, 0)
    const turnStart = at < 0 ? 0 : built[index]!.turnOf.get(subtree.startedBy)!
    planTree(subtree.tree, context, {
      parentKey: keys[index]!,
      boundary: lastIdleBefore(context.full.get(keys[index]!)!, turnStart),
      callId: subtree.startedBy,
      depth: depth + 1,
    })
  }
}

function inheritedOf(session: PlannedSession, context: PlanContext): PlannedEvent[] {
  return session.parent ? context.full.get(session.parent.key)!.slice(0, session.parent.boundary + 1) : []
}

/** The last seq before `seq` after which no turn is open (-1 for none). */
function lastIdleBefore(events: readonly PlannedEvent[], seq: number): number {
  const grammar = new GrammarState()
  let boundary = -1
  for (let i = 0; i < Math.min(seq, events.length); i++) {
    grammar.accept(i, events[i]!.type, events[i]!.data)
    if (grammar.phase === 'idle') boundary = i
  }
  return boundary
}

/** Every event checked as an append would check it: nothing is written for a tree that would fail halfway. */
function checkGrammar(
  tree: ImportedTree,
  inherited: readonly PlannedEvent[],
  own: readonly PlannedEvent[],
): void {
  const grammar = new GrammarState()
  let seq = 0
  for (const event of inherited) grammar.accept(seq++, event.type, event.data)
  for (const event of own) {
    if (isCoreEventType(event.type)) {
      const parsed = eventDataSchemas[event.type].safeParse(event.data)
      if (!parsed.success)
        throw invalidImport(
          tree,
          `its ${event.type} event at seq ${seq} is not valid: ${parsed.error.message}`,
        )
    }
    try {
      grammar.accept(seq++, event.type, event.data)
    } catch (error) {
      throw invalidImport(
        tree,
        `it does not form valid turns: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }
}

// --- one path's events -------------------------------------------------------------------

/**
 * One path's events after `inherited` (a subagent's parent prefix): its model and title, then its
 * entries in the turn grammar. `turnOf` maps each entry id and tool call id to the seq of the
 * `turn/start` of the turn holding it.
 */
function eventsOfPath(
  tree: ImportedTree,
  entries: readonly ImportedEntry[],
  inherited: readonly PlannedEvent[],
  title: string,
  context: PlanContext,
): { events: PlannedEvent[]; turnOf: Map<string, number> } {
  const events: PlannedEvent[] = [...inherited]
  const turnOf = new Map<string, number>()
  let time = entries.find((entry) => typeof entry.time === 'number')?.time ?? context.now
  const push = (type: string, data: unknown) => events.push({ type, data, time })
  /** Events that close a step or turn take the time of what they close, not of what follows. */
  const pushClosing = (type: string, data: unknown) =>
    events.push({ type, data, time: events.at(-1)?.time ?? time })
  const firstModel = entries.find((entry) => entry.kind === 'assistant' && entry.model)
  let model = modelOf(
    (firstModel?.kind === 'assistant' ? firstModel.model : undefined) ?? tree.model ?? context.defaultModel,
    tree.source,
  )
  push('model/selection', model)
  push('session/title', { title })

  let phase: 'idle' | 'turn' | 'step' = 'idle'
  let turnStart = -1
  let pending: { toolCallId: string; toolName: string }[] = []
  let stepHadCalls = false
  let stepUsage: Usage | undefined
  /** Whether the turn's last step was a final answer (no tool calls): it ends `completed`. */
  let answered = false

  const closeStep = (finishReason?: string) => {
    if (phase !== 'step') return
    for (const call of pending)
      pushClosing('tool/result', {
        callId: call.toolCallId,
        toolName: call.toolName,
        output: 'No result for this call was recorded in the imported session.',
        isError: true,
      })
    pending = []
    pushClosing('step/end', {
      finishReason: finishReason ?? (stepHadCalls ? 'tool-calls' : 'stop'),
      ...(stepUsage ? { usage: stepUsage } : {}),
    })
    phase = 'turn'
  }
  const closeTurn = () => {
    if (phase === 'idle') return
    const complete = answered && (phase !== 'step' || pending.length === 0)
    closeStep(complete ? undefined : 'error')
    pushClosing(
      'turn/end',
      complete
        ? { reason: 'completed' }
        : { reason: 'interrupted', error: 'The imported session has no final answer for this turn.' },
    )
    phase = 'idle'
  }
  const openTurn = (index: number, content: unknown[]) => {
    // The model of the turn's first answer, selected before the turn (a selection stands between turns).
    for (let i = index; i < entries.length; i++) {
      const entry = entries[i]!
      if (i > index && entry.kind === 'user') break
      if (entry.kind === 'assistant' && entry.model) {
        const selected = modelOf(entry.model, tree.source)
        if (selected.provider !== model.provider || selected.model !== model.model) {
          model = selected
          push('model/selection', model)
        }
        break
      }
    }
    turnStart = events.length
    push('turn/start', {})
    push('user/message', { content })
    phase = 'turn'
    answered = false
  }

  for (const [index, entry] of entries.entries()) {
    if (typeof entry.time === 'number' && Number.isFinite(entry.time)) time = entry.time
    switch (entry.kind) {
      case 'user': {
        closeTurn()
        const content: unknown[] = []
        if (entry.text !== '') content.push({ type: 'text', text: String(entry.text) })
        for (const image of entry.images ?? [])
          content.push({ type: 'file', mediaType: image.mediaType, data: image.data })
        openTurn(index, content)
        break
      }
      case 'assistant': {
        // An answer with no question before it (a file that starts with one, after a summary): its turn's user message is empty.
        if (phase === 'idle') openTurn(index, [])
        closeStep()
        const content: unknown[] = []
        if (entry.reasoning) content.push({ type: 'reasoning', text: entry.reasoning })
        if (entry.text) content.push({ type: 'text', text: entry.text })
        const calls: { toolCallId: string; toolName: string }[] = []
        for (const [n, call] of (entry.toolCalls ?? []).entries()) {
          let toolCallId = typeof call.id === 'string' && call.id !== '' ? call.id : `${entry.id}-call-${n}`
          // Two calls of one id in a message: the grammar would refuse it, so the later one is renamed.
          if (calls.some((c) => c.toolCallId === toolCallId)) toolCallId = `${toolCallId}-${n}`
          const toolName = typeof call.name === 'string' && call.name !== '' ? call.name : 'unknown'
          content.push({ type: 'tool-call', toolCallId, toolName, input: call.input ?? null })
          calls.push({ toolCallId, toolName })
          turnOf.set(toolCallId, turnStart)
        }
        const stepData: Record<string, unknown> = {}
        // A model change inside a turn cannot be a selection (those stand between turns): the step records it.
        if (entry.model) {
          const stepModel = modelOf(entry.model, tree.source)
          if (stepModel.provider !== model.provider || stepModel.model !== model.model)
            stepData.model = `${stepModel.provider}:${stepModel.model}`
        }
        push('step/start', stepData)
        push('assistant/message', { content })
        phase = 'step'
        pending = calls
        stepHadCalls = calls.length > 0
        stepUsage = usageOf(entry.usage)
        answered = calls.length === 0
        break
      }
      case 'tool-result': {
        const at = phase === 'step' ? pending.findIndex((call) => call.toolCallId === entry.callId) : -1
        if (at < 0) {
          // A result whose call is not open here: kept whole, out of the turn's grammar.
          push('import/unknown', { entryId: entry.id, type: 'tool-result', raw: entry, ...lineOf(entry) })
          break
        }
        const call = pending[at]!
        pending.splice(at, 1)
        push('tool/result', {
          callId: call.toolCallId,
          toolName: call.toolName,
          output: entry.output,
          isError: entry.isError === true,
        })
        break
      }
      case 'summary': {
        if (entry.summaryOf === 'compaction') {
          // A compaction stands between turns and summarises everything before it.
          closeTurn()
          push('context/compacted', {
            summary: entry.text.trim() === '' ? '(empty summary)' : entry.text,
            throughSeq: events.length - 1,
            model: `${model.provider}:${model.model}`,
            trigger: 'auto',
            imported: true,
          })
        } else {
          // A summary of another branch (pi): kept for readers; not replayed to the model.
          push('import/branch-summary', { entryId: entry.id, text: entry.text, ...lineOf(entry) })
        }
        break
      }
      case 'unknown':
        push('import/unknown', {
          entryId: entry.id,
          type: entry.type,
          raw: entry.raw ?? null,
          ...lineOf(entry),
        })
        break
      default: {
        const other = entry as { id: string; kind?: unknown }
        push('import/unknown', { entryId: other.id, type: String(other.kind), raw: other })
      }
    }
    if (!turnOf.has(entry.id)) turnOf.set(entry.id, phase === 'idle' ? events.length : turnStart)
  }
  closeTurn()
  return { events, turnOf }
}

function lineOf(entry: { line?: number }): { line?: number } {
  return typeof entry.line === 'number' ? { line: entry.line } : {}
}

/** `provider:model`, or a bare model name of the source's provider. */
function modelOf(id: string, source: ImportSource): ModelSelectionData {
  const colon = id.indexOf(':')
  if (colon > 0 && colon < id.length - 1) return { provider: id.slice(0, colon), model: id.slice(colon + 1) }
  const provider = source === 'claude' ? 'anthropic' : source === 'codex' ? 'openai' : source
  return { provider, model: id || 'unknown' }
}

function usageOf(usage: unknown): Usage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined
  const out: Usage = {}
  for (const key of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'reasoningTokens'] as const) {
    const value = (usage as Record<string, unknown>)[key]
    if (typeof value === 'number' && Number.isFinite(value)) out[key] = value
  }
  if (out.inputTokens !== undefined || out.outputTokens !== undefined)
    out.totalTokens = (out.inputTokens ?? 0) + (out.outputTokens ?? 0)
  return Object.keys(out).length > 0 ? out : undefined
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 60 ? `${line.slice(0, 60)}…` : line
}
