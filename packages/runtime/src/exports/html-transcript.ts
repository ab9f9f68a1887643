// One session's events as HTML for the export (html-export.ts puts the document around it): each
// turn a section with the user's and the assistant's texts in order, every tool call folded in a
// <details> with its input, its permission and its result, the turn's usage at its end. Built as
// strings in one pass (a 50,000-event session renders in well under a second without its Markdown).
import type { Session, SessionEvent } from '@tangent/core'
import type { MarkdownToHtml } from './html-markdown.js'
import { count, escapeHtml, type OutputBudget, oneLine, preBlock, timeElement } from './html-text.js'

/** Tokens and model calls, of a turn or of all the turns shown. */
export interface TokenTotals {
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  reasoningTokens: number
  steps: number
}

export function emptyTotals(): TokenTotals {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, steps: 0 }
}

/** A link to another part of the file (a branch, a subagent's session). */
export interface FileLink {
  href: string
  text: string
}

export interface TranscriptOptions {
  session: Session
  /** The events shown: `[from, through]`. */
  from: number
  through: number
  /** Unique in the file: every id this transcript writes starts with it. */
  idPrefix: string
  markdown: MarkdownToHtml
  budget: OutputBudget
  /** The model of a log that names none (the store's entry). */
  fallbackModel: string | null
  /** Branches that fork after turn N (0: before any turn), shown at the end of that turn. */
  branchesAfterTurn?: ReadonlyMap<number, readonly FileLink[]>
  /** Subagent sessions by the tool call that spawned them. */
  subagentsByCall?: ReadonlyMap<string, FileLink>
  /** A line shown before event `seq` (where a fork's own events start, in a whole-history export). */
  divider?: { beforeSeq: number; html: string }
}

export interface TranscriptResult {
  html: string
  turns: number
  totals: TokenTotals
  models: string[]
}

interface ToolResultData {
  callId?: unknown
  toolName?: unknown
  output?: unknown
  isError?: unknown
  diff?: { path?: unknown }
}

interface PermissionTrail {
  requested?: { pattern?: unknown }
  answered?: { decision?: unknown; reason?: unknown; by?: unknown }
}

/** The id of the section of turn `turn` (1-based) in a transcript written with `idPrefix`. */
export function turnId(idPrefix: string, turn: number): string {
  return `${idPrefix}t${turn}`
}

/** How many turns start at or before `seq`: the turn a fork at `seq` comes after. */
export function turnsThrough(session: Session, seq: number): number {
  let turns = 0
  for (const start of session.seqsOfType('turn/start')) if (start <= seq) turns++
  return turns
}

export function renderTranscript(options: TranscriptOptions): TranscriptResult {
  const { session, from, through, idPrefix } = options
  const events = session.events
  const out: string[] = []
  // A call's result and permission are shown with the call: found first, in one pass.
  const results = new Map<string, SessionEvent>()
  const permissions = new Map<string, PermissionTrail>()
  for (let seq = from; seq <= through; seq++) {
    const event = events[seq]!
    const data = (event.data ?? {}) as Record<string, unknown>
    if (event.type === 'tool/result' && typeof data.callId === 'string') results.set(data.callId, event)
    else if (event.type === 'permission/requested' && typeof data.callId === 'string')
      trail(permissions, data.callId).requested = data
    else if (event.type === 'permission/answered' && typeof data.callId === 'string')
      trail(permissions, data.callId).answered = data
  }
  const shownCalls = new Set<string>()
  let turn = turnsThrough(session, from - 1)
  let turnOpen = false
  let turnTotals = emptyTotals()
  const totals = emptyTotals()
  const models = new Set<string>()
  let model = modelAt(session, from - 1) ?? options.fallbackModel
  let turnModel = model
  let titled =
    session.header.title !== undefined ||
    (from > 0 && session.latestOfType('session/title', from - 1) !== undefined)

  const branchesAfter = (number: number) => {
    const links = options.branchesAfterTurn?.get(number)
    if (!links || links.length === 0) return
    out.push(
      `<nav class="branches-here" aria-label="Branches after turn ${number}"><p>Branches from here: ${links
        .map((link) => `<a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a>`)
        .join(', ')}</p></nav>`,
    )
  }
  const closeTurn = (footer: string) => {
    out.push(footer, '</section>')
    turnOpen = false
    branchesAfter(turn)
  }

  if (from === 0) branchesAfter(0)
  for (let seq = from; seq <= through; seq++) {
    const event = events[seq]!
    const data = (event.data ?? {}) as Record<string, unknown>
    if (options.divider?.beforeSeq === seq) out.push(options.divider.html)
    switch (event.type) {
      case 'turn/start': {
        if (turnOpen) closeTurn('')
        turn++
        turnOpen = true
        turnTotals = emptyTotals()
        turnModel = model
        const id = turnId(idPrefix, turn)
        out.push(
          `<section class="turn" id="${id}" aria-labelledby="${id}-h">`,
          `<h3 id="${id}-h">Turn ${turn}</h3><p class="turn-meta">${timeElement(event.time)}</p>`,
        )
        break
      }
      case 'user/message':
        out.push(userMessage(data.content))
        break
      case 'assistant/message':
        out.push(
          assistantMessage(data.content, seq, {
            ...options,
            results,
            permissions,
            shownCalls,
          }),
        )
        break
      case 'tool/result': {
        // A result whose call is not in the range (never, in a log that replays): shown alone.
        const callId = typeof data.callId === 'string' ? data.callId : ''
        if (!shownCalls.has(callId))
          out.push(toolCall(callId, String(data.toolName ?? 'tool'), undefined, event, undefined, options))
        break
      }
      case 'step/end': {
        const usage = (data.usage ?? {}) as Record<string, unknown>
        for (const target of [turnTotals, totals]) {
          target.steps++
          target.inputTokens += number(usage.inputTokens)
          target.outputTokens += number(usage.outputTokens)
          target.cachedInputTokens += number(usage.cachedInputTokens)
          target.reasoningTokens += number(usage.reasoningTokens)
        }
        if (turnModel) models.add(turnModel)
        break
      }
      case 'turn/end': {
        const reason = String(data.reason ?? 'ended')
        const error = typeof data.error === 'string' ? data.error : ''
        const footer =
          `<p class="turn-end${reason === 'completed' ? '' : ' turn-failed'}">` +
          `${escapeHtml(reasonText(reason))}${usageText(turnTotals)}${turnModel ? ` · ${escapeHtml(turnModel)}` : ''}</p>` +
          (error ? `<p class="turn-error">Error: ${escapeHtml(oneLine(error, 2000))}</p>` : '')
        if (turnOpen) closeTurn(footer)
        else out.push(footer)
        break
      }
      case 'model/selection': {
        const next = modelName(data)
        if (next && next !== model)
          out.push(`<p class="note">Model: <span class="mono">${escapeHtml(next)}</span></p>`)
        model = next ?? model
        if (!turnOpen) turnModel = model
        break
      }
      case 'session/title':
        // The first title is the section's heading already; a later one is a rename.
        if (typeof data.title === 'string' && titled)
          out.push(`<p class="note">Renamed “${escapeHtml(oneLine(data.title))}”</p>`)
        titled = true
        break
      case 'context/compacted':
        out.push(
          `<details class="block"><summary>The history before this point was summarised${typeof data.model === 'string' ? ` by ${escapeHtml(data.model)}` : ''}</summary>`,
          `<div class="markdown">${options.markdown(String(data.summary ?? ''), `${idPrefix}e${seq}-`)}</div></details>`,
        )
        break
      case 'snapshot/taken': {
        const changed = Array.isArray(data.changed)
          ? data.changed.filter((path) => typeof path === 'string')
          : []
        if (changed.length > 0) out.push(filesNote('Files changed', changed))
        const outside = Array.isArray(data.outside)
          ? data.outside.filter((path) => typeof path === 'string')
          : []
        if (outside.length > 0) out.push(filesNote('Changed outside the session', outside))
        break
      }
      case 'check/ran':
        out.push(checkRan(data, options))
        break
      default:
        break
    }
  }
  // A range that ends inside a turn (never: exports stop at a completed turn) still closes its markup.
  if (turnOpen) closeTurn('')
  return { html: out.join('\n'), turns: turn - turnsThrough(session, from - 1), totals, models: [...models] }
}

function trail(permissions: Map<string, PermissionTrail>, callId: string): PermissionTrail {
  let found = permissions.get(callId)
  if (!found) {
    found = {}
    permissions.set(callId, found)
  }
  return found
}

function number(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0
}

function modelName(data: Record<string, unknown>): string | null {
  return typeof data.provider === 'string' && typeof data.model === 'string'
    ? `${data.provider}:${data.model}`
    : null
}

function modelAt(session: Session, seq: number): string | null {
  if (seq < 0) return null
  const event = session.latestOfType('model/selection', seq)
  return event ? modelName((event.data ?? {}) as Record<string, unknown>) : null
}

function reasonText(reason: string): string {
  switch (reason) {
    case 'completed':
      return 'Completed'
    case 'aborted':
      return 'Stopped'
    case 'error':
      return 'Failed'
    case 'max-steps':
      return 'Stopped at the step limit'
    case 'interrupted':
      return 'Interrupted'
    default:
      return reason
  }
}

export function usageText(totals: TokenTotals): string {
  const parts = [`${count(totals.steps)} model call${totals.steps === 1 ? '' : 's'}`]
  if (totals.inputTokens + totals.outputTokens > 0) {
    const cached = totals.cachedInputTokens > 0 ? ` (${count(totals.cachedInputTokens)} cached)` : ''
    const reasoning = totals.reasoningTokens > 0 ? ` (${count(totals.reasoningTokens)} reasoning)` : ''
    parts.push(
      `${count(totals.inputTokens)} tokens in${cached}`,
      `${count(totals.outputTokens)} out${reasoning}`,
    )
  }
  return ` · ${parts.join(' · ')}`
}

interface Part {
  type?: unknown
  text?: unknown
  mediaType?: unknown
  data?: unknown
  toolCallId?: unknown
  toolName?: unknown
  input?: unknown
}

const inlineImageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

function userMessage(content: unknown): string {
  const parts = Array.isArray(content) ? (content as Part[]) : []
  const body = parts.map((part) => {
    if (part.type === 'text') return `<div class="plain">${escapeHtml(String(part.text ?? ''))}</div>`
    const mediaType = typeof part.mediaType === 'string' ? part.mediaType : 'a file'
    // An image the user attached goes in as a data: URL (the only images the file shows).
    if (
      part.type === 'file' &&
      inlineImageTypes.has(mediaType) &&
      typeof part.data === 'string' &&
      base64Pattern.test(part.data)
    )
      // In lines of 4 KiB: a URL's parser drops line breaks, and the export's pages are cut at lines.
      return `<img class="attached" src="data:${mediaType};base64,${part.data.replace(/.{4096}(?=.)/g, '$&\n')}" alt="An image the user attached (${mediaType})">`
    return `<p class="note">Attached ${escapeHtml(oneLine(mediaType, 100))}</p>`
  })
  return `<div class="message user"><p class="who">User</p>${body.join('\n')}</div>`
}

function assistantMessage(
  content: unknown,
  seq: number,
  options: TranscriptOptions & {
    results: ReadonlyMap<string, SessionEvent>
    permissions: ReadonlyMap<string, PermissionTrail>
    shownCalls: Set<string>
  },
): string {
  const parts = Array.isArray(content) ? (content as Part[]) : []
  const out: string[] = []
  let texts: string[] = []
  const flushTexts = () => {
    if (texts.length === 0) return
    out.push(
      `<div class="markdown">${options.markdown(texts.join('\n\n'), `${options.idPrefix}e${seq}p${out.length}-`)}</div>`,
    )
    texts = []
  }
  for (const part of parts) {
    if (part.type === 'text') {
      if (typeof part.text === 'string' && part.text !== '') texts.push(part.text)
      continue
    }
    flushTexts()
    if (part.type === 'reasoning' && typeof part.text === 'string' && part.text !== '') {
      out.push(
        `<details class="block reasoning"><summary>Reasoning</summary>${preBlock(part.text, options.budget, 'reasoning')}</details>`,
      )
    } else if (part.type === 'tool-call' && typeof part.toolCallId === 'string') {
      options.shownCalls.add(part.toolCallId)
      out.push(
        toolCall(
          part.toolCallId,
          typeof part.toolName === 'string' ? part.toolName : 'tool',
          { input: part.input },
          options.results.get(part.toolCallId),
          options.permissions.get(part.toolCallId),
          options,
        ),
      )
    }
  }
  flushTexts()
  if (out.length === 0) return ''
  return `<div class="message assistant"><p class="who">Assistant</p>${out.join('\n')}</div>`
}

/** The input fields that say best what a call does, for its one-line summary. */
const summaryFields = ['command', 'path', 'pattern', 'prompt', 'url', 'query']

function toolCall(
  callId: string,
  toolName: string,
  call: { input: unknown } | undefined,
  result: SessionEvent | undefined,
  permission: PermissionTrail | undefined,
  options: TranscriptOptions,
): string {
  const data = (result?.data ?? {}) as ToolResultData
  const input = call?.input
  let preview = ''
  if (input && typeof input === 'object') {
    const record = input as Record<string, unknown>
    const field = summaryFields.find((name) => typeof record[name] === 'string')
    if (field) preview = oneLine(String(record[field]), 80)
  }
  const denied = permission?.answered?.decision === 'deny'
  const state = !result ? ' (no result)' : data.isError === true ? ' (failed)' : ''
  const summary =
    `<summary><span class="tool-name">${escapeHtml(oneLine(toolName, 100))}</span>` +
    `${preview ? ` <span class="mono">${escapeHtml(preview)}</span>` : ''}` +
    `<span class="tool-state">${denied ? ' (denied)' : state}</span></summary>`
  const body: string[] = []
  if (call) body.push('<p class="label">Input</p>', preBlock(jsonText(input), options.budget, 'input'))
  if (permission) body.push(permissionText(permission))
  const subagent = options.subagentsByCall?.get(callId)
  if (subagent)
    body.push(
      `<p>Ran as a subagent: <a href="${escapeHtml(subagent.href)}">${escapeHtml(subagent.text)}</a></p>`,
    )
  if (result) {
    if (typeof data.diff?.path === 'string')
      body.push(`<p>File: <span class="mono">${escapeHtml(oneLine(data.diff.path, 500))}</span></p>`)
    body.push(
      `<p class="label">${data.isError === true ? 'Error' : 'Result'}</p>`,
      preBlock(
        typeof data.output === 'string' ? data.output : jsonText(data.output),
        options.budget,
        'result',
      ),
    )
  }
  return `<details class="block tool${data.isError === true || denied ? ' tool-error' : ''}">${summary}<div class="tool-body">${body.join('\n')}</div></details>`
}

function permissionText(permission: PermissionTrail): string {
  // A preToolUse hook's denial: nobody was asked (docs/architecture.md §12.7).
  if (!permission.requested && permission.answered?.by === 'hook') {
    const reason = permission.answered.reason
    return `<p>Denied by a preToolUse hook${typeof reason === 'string' ? `: ${escapeHtml(oneLine(reason, 500))}` : ''}.</p>`
  }
  const pattern = permission.requested?.pattern
  const asked =
    typeof pattern === 'string' && pattern !== ''
      ? `Permission asked for <span class="mono">${escapeHtml(oneLine(pattern, 200))}</span>`
      : 'Permission asked'
  const answer = permission.answered
  if (!answer) return `<p>${asked}.</p>`
  const decision = String(answer.decision ?? '')
  const by = typeof answer.by === 'string' ? ` (${escapeHtml(answer.by)})` : ''
  const reason = typeof answer.reason === 'string' ? `: ${escapeHtml(oneLine(answer.reason, 500))}` : ''
  const said = decision === 'deny' ? 'denied' : decision === 'always' ? 'allowed always' : 'allowed once'
  return `<p>${asked}; ${said}${by}${reason}.</p>`
}

function jsonText(value: unknown): string {
  if (value === undefined) return ''
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    // A value JSON cannot write (a cycle) never comes from a log; said rather than thrown.
    return String(value)
  }
}

/** At most 50 paths named; the rest counted. */
function filesNote(label: string, paths: readonly string[]): string {
  const named = paths
    .slice(0, 50)
    .map((path) => `<span class="mono">${escapeHtml(oneLine(path, 300))}</span>`)
    .join(', ')
  const more = paths.length > 50 ? ` and ${count(paths.length - 50)} more` : ''
  return `<p class="note">${label}: ${named}${more}</p>`
}

function checkRan(data: Record<string, unknown>, options: TranscriptOptions): string {
  const ok = data.ok === true
  const exit = typeof data.exitCode === 'number' ? `exit ${data.exitCode}` : 'did not finish'
  const command = typeof data.command === 'string' ? oneLine(data.command, 200) : ''
  return (
    `<details class="block${ok ? '' : ' tool-error'}"><summary>Check <span class="mono">${escapeHtml(command)}</span> ${ok ? 'passed' : 'failed'} (${exit})</summary>` +
    `<div class="tool-body">${preBlock(String(data.output ?? ''), options.budget, 'output')}</div></details>`
  )
}
