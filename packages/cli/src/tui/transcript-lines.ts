// The open session's transcript as terminal lines for `tangent tui`: the assistant's Markdown
// rendered (render/markdown.ts), each tool run folded to one line (its call, ✓ or ✗ and the
// first line of its output, a failure in red), a write's or an edit's change as a short coloured
// diff, code blocks coloured (code-highlight.ts) and every turn's end marked with the seq a fork at
// it copies through. Display only.
import type { SessionEvent } from '../backend.js'
import {
  assistantContent,
  describeContextEvent,
  describeToolCall,
  outputText,
  userText,
} from '../render/event-text.js'
import { type CodeHighlight, renderMarkdown } from '../render/markdown.js'
import { clip, type Style, safeLine, safeText } from '../render/style.js'
import type { CodeHighlighter } from './code-highlight.js'

export interface TranscriptLine {
  /** The line, styled (ANSI unless colours are off), not yet wrapped to the pane. */
  text: string
  /** On a turn's last line: the seq of its `turn/end`, where a fork from this turn copies through. */
  turnEndSeq?: number
}

/** What is streaming now (deltas are not in the log): the step's text so far, and tool calls starting. */
export interface LiveText {
  text: string
  reasoning: string
}

/** The most changed lines a tool's diff shows before "… N more". */
const diffLinesShown = 12

/**
 * Lines for `events` (any window of the log: a turn cut at its start shows from where it is),
 * with `live` text after them while a step streams. `cache` keeps each assistant message's
 * rendered Markdown between calls, keyed by seq (a log never changes what it holds).
 */
export function transcriptLines(
  events: readonly SessionEvent[],
  style: Style,
  live: LiveText | null,
  cache: Map<number, string[]> = new Map(),
  /** Tool runs unfolded: up to `expandedOutputLines` of each one's output under its line (`o`). */
  expanded = false,
  /** Colours the code blocks of messages in the log (not of the text streaming now: it changes). */
  highlighter?: Pick<CodeHighlighter, 'lookup'>,
): TranscriptLine[] {
  const results = new Map<string, Record<string, unknown>>()
  const answered = new Set<string>()
  const waiting: string[] = []
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    const data = event.data as Record<string, unknown> | null
    if (event.type === 'tool/result' && typeof data?.callId === 'string') results.set(data.callId, data)
    if (event.type === 'permission/answered' && typeof data?.callId === 'string') answered.add(data.callId)
    // A turn that ended (aborted, interrupted) waits for no answer any more.
    if (event.type === 'permission/requested' && typeof data?.callId === 'string') waiting.push(data.callId)
    if (event.type === 'turn/end') for (const callId of waiting.splice(0)) answered.add(callId)
  }
  const lines: TranscriptLine[] = []
  const push = (text: string) => lines.push({ text })
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    const data = event.data as Record<string, unknown> | null
    switch (event.type) {
      case 'user/message': {
        const text = safeText(userText(event.data)).split('\n')
        push(`${style.green(style.bold('you ›'))} ${text[0] ?? ''}`)
        for (const line of text.slice(1)) push(`      ${line}`)
        break
      }
      case 'assistant/message': {
        const { text, calls } = assistantContent(event.data)
        if (text.trim() !== '') {
          let rendered = cache.get(event.seq)
          if (rendered === undefined) {
            // A message with a block still being coloured is rendered again next time, not kept.
            let pending = false
            const highlight: CodeHighlight | undefined =
              highlighter &&
              ((lines, language) => {
                const found = highlighter.lookup(lines, language)
                if (found === 'pending') pending = true
                return typeof found === 'string' ? null : found
              })
            rendered = renderMarkdown(safeText(text), style, highlight).replace(/\n+$/, '').split('\n')
            if (!pending) cache.set(event.seq, rendered)
          }
          for (const line of rendered) push(line)
        }
        for (const call of calls) {
          const result = results.get(call.toolCallId)
          for (const line of toolLines(call.toolName, call.input, result, style)) push(line)
          if (expanded && result !== undefined) for (const line of outputLines(result, style)) push(line)
        }
        break
      }
      case 'permission/requested': {
        const callId = String(data?.callId ?? '')
        if (!answered.has(callId))
          push(
            style.yellow(
              `? ${clip(describeToolCall(String(data?.toolName), data?.input), 100)} waits for your answer`,
            ),
          )
        break
      }
      case 'permission/answered': {
        if (data?.decision === 'deny')
          push(style.red(`  denied${typeof data.reason === 'string' ? `: ${clip(data.reason, 80)}` : ''}`))
        break
      }
      case 'turn/end': {
        const reason = String(data?.reason ?? '?')
        const error = typeof data?.error === 'string' ? `: ${clip(data.error, 100)}` : ''
        const mark =
          reason === 'completed'
            ? style.dim(`─ turn ends · seq ${event.seq}`)
            : style.red(`─ turn ${safeLine(reason)}${error} · seq ${event.seq}`)
        lines.push({ text: mark, turnEndSeq: event.seq })
        push('')
        break
      }
      case 'files/restored': {
        const restored = Array.isArray(data?.restored) ? (data.restored as unknown[]).map(String) : []
        push(
          style.dim(
            `↺ files restored${typeof data?.toSeq === 'number' ? ` to seq ${data.toSeq}` : ''}: ${clip(restored.join(', ') || 'nothing to write back', 80)}`,
          ),
        )
        break
      }
      case 'branch/kept':
        push(
          style.magenta(
            `✔ kept branch ${safeLine(String(data?.label ?? data?.sessionId ?? '?'))}: ${clip(String(data?.title ?? ''), 60)}`,
          ),
        )
        break
      case 'exploration/started': {
        const branches = Array.isArray(data?.branches)
          ? (data.branches as { label?: unknown; prompt?: unknown }[])
          : []
        push(style.magenta(`⋔ exploring ${branches.length} ways:`))
        for (const branch of branches)
          push(style.magenta(`  ${safeLine(String(branch.label))} ${clip(String(branch.prompt ?? ''), 70)}`))
        break
      }
      case 'check/ran':
        push(
          data?.ok === true
            ? style.green(`✓ check ${clip(String(data.command), 60)}`)
            : style.red(`✗ check ${clip(String(data?.command), 60)} (exit ${String(data?.exitCode)})`),
        )
        break
      default: {
        const context = describeContextEvent(event.type, event.data)
        if (context !== null) push(style.dim(`· ${clip(context, 110)}`))
      }
    }
  }
  if (live !== null) {
    if (live.reasoning !== '')
      push(style.dim(style.italic(`thinking… ${clip(live.reasoning.split('\n').at(-1) ?? '', 90)}`)))
    if (live.text !== '')
      for (const line of renderMarkdown(safeText(live.text), style).replace(/\n+$/, '').split('\n'))
        push(line)
  }
  return lines
}

/** The most lines of a tool's output shown unfolded (the rest is counted). */
const expandedOutputLines = 20

function outputLines(result: Record<string, unknown>, style: Style): string[] {
  const lines = safeText(outputText(result.output)).replace(/\n+$/, '').split('\n')
  const shown = lines.slice(0, expandedOutputLines).map((line) => style.dim(`    │ ${line}`))
  if (lines.length > expandedOutputLines)
    shown.push(style.dim(`    │ … ${lines.length - expandedOutputLines} more lines`))
  return shown
}

/** A tool run on one line — running (…), succeeded (✓) or failed (✗, red) — and its diff, if any. */
function toolLines(
  toolName: string,
  input: unknown,
  result: Record<string, unknown> | undefined,
  style: Style,
): string[] {
  const call = clip(describeToolCall(toolName, input), 70)
  if (result === undefined) return [style.yellow(`… ${call}`)]
  const output = outputText(result.output).trim().split('\n')[0] ?? ''
  if (result.isError === true) return [style.red(`✗ ${call} — ${clip(output, 60)}`)]
  const diff = result.diff as { path?: unknown; oldText?: unknown; newText?: unknown } | undefined
  if (diff && typeof diff.newText === 'string') {
    const { added, removed, shown } = changedLines(
      typeof diff.oldText === 'string' ? diff.oldText : '',
      diff.newText,
    )
    return [
      `${style.green('✓')} ${call} ${style.green(`+${added}`)} ${style.red(`−${removed}`)}`,
      ...shown.map((line) =>
        line.startsWith('+ ')
          ? style.green(`    ${line}`)
          : line.startsWith('- ')
            ? style.red(`    ${line}`)
            : style.dim(`    ${line}`),
      ),
    ]
  }
  return [`${style.green('✓')} ${call}${output !== '' ? style.dim(` — ${clip(output, 60)}`) : ''}`]
}

/** The most cells of the line-by-line table a diff is worked out with (beyond: one hunk). */
const diffCells = 250_000

/**
 * The lines a change removed and added, in order: a longest-common-subsequence diff of what lies
 * between the common first and last lines (a very large change is shown as one hunk), a few shown.
 */
export function changedLines(
  before: string,
  after: string,
): { added: number; removed: number; shown: string[] } {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n')
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n')
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const oldPart = a.slice(start, endA)
  const newPart = b.slice(start, endB)
  const all: string[] = []
  if (oldPart.length * newPart.length > diffCells) {
    for (const line of oldPart) all.push(`- ${safeLine(line)}`)
    for (const line of newPart) all.push(`+ ${safeLine(line)}`)
  } else {
    // lcs[i][j]: the longest common subsequence of oldPart[i:] and newPart[j:].
    const rows = oldPart.length + 1
    const cols = newPart.length + 1
    const lcs = new Uint32Array(rows * cols)
    for (let i = oldPart.length - 1; i >= 0; i--)
      for (let j = newPart.length - 1; j >= 0; j--)
        lcs[i * cols + j] =
          oldPart[i] === newPart[j]
            ? lcs[(i + 1) * cols + j + 1]! + 1
            : Math.max(lcs[(i + 1) * cols + j]!, lcs[i * cols + j + 1]!)
    let i = 0
    let j = 0
    while (i < oldPart.length || j < newPart.length) {
      if (i < oldPart.length && j < newPart.length && oldPart[i] === newPart[j]) {
        i++
        j++
      } else if (
        i < oldPart.length &&
        (j === newPart.length || lcs[(i + 1) * cols + j]! >= lcs[i * cols + j + 1]!)
      )
        all.push(`- ${safeLine(oldPart[i++]!)}`)
      else all.push(`+ ${safeLine(newPart[j++]!)}`)
    }
  }
  const added = all.filter((line) => line.startsWith('+')).length
  const shown = all.slice(0, diffLinesShown)
  if (all.length > diffLinesShown) shown.push(`… ${all.length - diffLinesShown} more`)
  return { added, removed: all.length - added, shown }
}
