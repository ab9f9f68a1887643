// `tangent show`: a session's transcript with the seq of every meaningful event, grouped
// by turn, so a user can pick a fork point (`tangent fork ID --at SEQ`).
import { formatUsage } from '@tangent/protocol'
import type { SessionEvent, SessionSummary, SessionUsage } from '../backend.js'
import {
  assistantContent,
  describeContextEvent,
  describeToolCall,
  outputText,
  userText,
} from './event-text.js'
import { renderMarkdown } from './markdown.js'
import { clip, type Style, safeLine, safeText, titleOf } from './style.js'
import { usageLines } from './usage-lines.js'

export function renderTranscript(
  session: SessionSummary,
  events: readonly SessionEvent[],
  style: Style,
  usage?: SessionUsage,
  /** Render the assistant's Markdown for a terminal (else its text as written). */
  options: { markdown?: boolean } = {},
): string[] {
  const lines: string[] = [
    `${style.bold(titleOf(session))}  ${style.cyan(session.id)}`,
    style.dim(
      `  cwd ${safeLine(session.cwd)} · files ${describeFiles(session)}${session.model ? ` · model ${safeLine(`${session.model.provider}:${session.model.model}`)}` : ''}`,
    ),
  ]
  if (session.parentSession !== null) {
    lines.push(style.dim(`  forked from ${session.parentSession} at seq ${session.forkedAt ?? '?'}`))
  }
  if (session.files.elsewhere) {
    const machine = safeLine(session.files.machine ?? 'another machine')
    lines.push(
      style.yellow(
        `  its files are on ${machine}, in ${safeLine(session.files.path)}: continue it here with tangent fork ${session.id} --files worktree`,
      ),
    )
  }
  if (session.archived) lines.push(style.magenta('  archived'))
  if (usage) lines.push(...usageLines(usage, style))
  lines.push('')
  const turnUsage = new Map(usage?.turns.map((turn) => [turn.seq, turn]))
  let turnStart = -1
  const seqWidth = String(Math.max(events.length - 1, 0)).length
  const seq = (value: number) => style.dim(String(value).padStart(seqWidth))
  let turn = 0
  const nextTurn = () => ++turn
  // Indexed loops over the events (here and in what a load runs per event): a cold process runs
  // them interpreted at first, where for-of allocates an iterator result per element.
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (session.inheritedEventCount > 0 && event.seq === session.inheritedEventCount) {
      lines.push(
        style.dim(`── ${session.parentSession ?? 'parent'}'s history above · this session's own below ──`),
      )
    }
    if (event.type === 'turn/start') turnStart = event.seq
    const shown = eventLines(event, seq, style, nextTurn, options.markdown === true ? seqWidth : null)
    const spent = event.type === 'turn/end' ? turnUsage.get(turnStart) : undefined
    // The turn's usage goes under its end, before the blank line that closes it.
    if (spent) shown.splice(1, 0, `${' '.repeat(seqWidth)}  ${style.dim(`usage      ${formatUsage(spent)}`)}`)
    // One by one: spreading each event's few lines into push costs more than the loop.
    for (let j = 0; j < shown.length; j++) lines.push(shown[j]!)
  }
  if (events.length === 0) lines.push(style.dim('(no events yet)'))
  return lines
}

/** What an event that shows nothing returns (never changed: a turn's usage goes under a turn end). */
const noLines: string[] = []

function eventLines(
  event: SessionEvent,
  seq: (value: number) => string,
  style: Style,
  nextTurn: () => number,
  /** With Markdown rendered: the seq column's width (its lines are indented under the text). */
  markdownIndent: number | null,
): string[] {
  const data = event.data as Record<string, unknown> | null
  switch (event.type) {
    case 'turn/start':
      return [style.bold(`turn ${nextTurn()}`) + style.dim(` (starts at seq ${event.seq})`)]
    case 'user/message':
      return [`${seq(event.seq)}  ${style.green('you')}        ${safeText(userText(event.data))}`]
    case 'assistant/message': {
      const { text, calls } = assistantContent(event.data)
      const lines = calls.map(
        (call) =>
          `${seq(event.seq)}  ${style.blue('tool call')}  ${clip(describeToolCall(call.toolName, call.input), 90)}`,
      )
      if (text !== '') {
        const shown =
          markdownIndent === null
            ? safeText(text)
            : renderMarkdown(safeText(text), style)
                .replace(/\n+$/, '')
                .split('\n')
                .map((line, at) =>
                  at === 0 || line === '' ? line : `${' '.repeat(markdownIndent + 13)}${line}`,
                )
                .join('\n')
        lines.push(`${seq(event.seq)}  ${style.blue('assistant')}  ${shown}`)
      }
      return lines
    }
    case 'tool/result': {
      const ok = data?.isError !== true
      const mark = ok ? style.green('✓') : style.red('✗')
      return [`${seq(event.seq)}  ${style.dim('result')}     ${mark} ${clip(outputText(data?.output), 90)}`]
    }
    case 'turn/end': {
      const reason = safeLine(String(data?.reason ?? '?'))
      const shown = reason === 'completed' ? style.green(reason) : style.red(reason)
      const error = typeof data?.error === 'string' ? style.red(`: ${clip(data.error, 80)}`) : ''
      return [
        `${seq(event.seq)}  ${style.dim('turn end')}   ${shown}${error}  ${style.dim('← fork point')}`,
        '',
      ]
    }
    case 'model/selection':
      return [
        `${seq(event.seq)}  ${style.dim('model')}      ${safeLine(`${String(data?.provider)}:${String(data?.model)}`)}`,
      ]
    case 'session/title':
      return [`${seq(event.seq)}  ${style.dim('title')}      ${safeLine(String(data?.title))}`]
    case 'session/mode':
      return [`${seq(event.seq)}  ${style.dim('mode')}       ${safeLine(String(data?.mode))}`]
    case 'snapshot/taken': {
      const changed = Array.isArray(data?.changed) ? (data.changed as unknown[]).map(String) : []
      const skipped = Array.isArray(data?.skipped) ? (data.skipped as unknown[]).map(String) : []
      // A turn-start snapshot's: changed between turns, by hand or another session (§5).
      const outside = Array.isArray(data?.outside) ? (data.outside as unknown[]).map(String) : []
      return [
        ...(outside.length > 0
          ? [
              `${seq(event.seq)}  ${style.dim('files')}      ${style.dim(`changed outside Tangent: ${clip(outside.join(', '), 70)}`)}`,
            ]
          : []),
        ...(changed.length > 0
          ? [`${seq(event.seq)}  ${style.dim('files')}      ${clip(changed.join(', '), 90)}`]
          : []),
        // Left out of the snapshot (too big, §5): a restore or a fork does not bring them back.
        ...(skipped.length > 0
          ? [
              `${seq(event.seq)}  ${style.dim('files')}      ${style.yellow(`not snapshotted: ${clip(skipped.join(', '), 70)}`)}`,
            ]
          : []),
      ]
    }
    case 'files/restored': {
      const restored = Array.isArray(data?.restored) ? (data.restored as unknown[]).map(String) : []
      const paths = restored.length > 0 ? `: ${clip(restored.join(', '), 80)}` : ': nothing to write back'
      const what =
        typeof data?.undoOf === 'number'
          ? `Undid the restore at #${data.undoOf}`
          : `Restored files to #${safeLine(String(data?.toSeq))}`
      return [`${seq(event.seq)}  ${style.dim('restore')}    ${what}${paths}`]
    }
    case 'step/start':
    case 'step/end':
      return noLines
    default: {
      const context = describeContextEvent(event.type, event.data)
      if (context !== null)
        return [`${seq(event.seq)}  ${style.dim('context')}    ${style.dim(clip(context, 100))}`]
      return [`${seq(event.seq)}  ${style.dim(safeLine(event.type))}`]
    }
  }
}

function describeFiles(session: SessionSummary): string {
  return session.files.mode === 'worktree' ? `worktree ${safeLine(session.files.path)}` : 'shared'
}
