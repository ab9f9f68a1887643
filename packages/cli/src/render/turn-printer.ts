// Prints a running turn as it streams: answer text as it arrives, tool calls and
// their results, changed files, and how the turn ended when it did not complete. On a terminal
// the answer's Markdown is rendered for it (markdown.ts); into a pipe or file it stays as written.
import type { SessionEvent, TurnDelta, TurnObserver } from '../backend.js'
import type { OutputStream } from '../context.js'
import { assistantContent, describeContextEvent, describeToolCall, outputText } from './event-text.js'
import { MarkdownStream } from './markdown.js'
import { parseRetryLine } from './retry-line.js'
import { Spinner } from './spinner.js'
import { clip, type Style, safeLine, safeText } from './style.js'

export class TurnPrinter implements TurnObserver {
  readonly #out: OutputStream
  readonly #err: OutputStream
  readonly #style: Style
  readonly #spinner: Spinner
  /** The answer's Markdown rendered as it streams, on a terminal; null: written as it is. */
  readonly #markdown: MarkdownStream | null
  /** Text streamed in the current step (deltas), so the final message is not printed twice. */
  #streamed = ''
  #atLineStart = true
  /** A partial `retry` delta line (deltas may split or join lines). */
  #retryText = ''
  /** The `turn/end` error message, when the turn failed. */
  error: string | null = null

  constructor(out: OutputStream, err: OutputStream, style: Style) {
    this.#out = out
    this.#err = err
    this.#style = style
    this.#spinner = new Spinner(err)
    this.#markdown = out.isTTY === true ? new MarkdownStream(style) : null
  }

  onDelta(delta: TurnDelta): void {
    if (delta.kind === 'retry') {
      this.#onRetry(delta.text)
      return
    }
    if (delta.kind !== 'text' || delta.text === '') return
    this.#spinner.stop()
    this.#streamed += delta.text
    this.#writeText(safeText(delta.text))
  }

  onEvent(event: SessionEvent): void {
    const data = event.data as Record<string, unknown> | null
    switch (event.type) {
      case 'step/start':
        this.#streamed = ''
        this.#spinner.start('thinking…')
        break
      case 'assistant/message': {
        this.#spinner.stop()
        const { text, calls } = assistantContent(event.data)
        if (this.#streamed === '' && text !== '') this.#writeText(safeText(text))
        this.#endText()
        this.#endLine()
        for (const call of calls) {
          this.#line(this.#style.blue(`  ▸ ${clip(describeToolCall(call.toolName, call.input), 100)}`))
        }
        break
      }
      case 'tool/result': {
        const failed = data?.isError === true
        const mark = failed ? this.#style.red('✗') : this.#style.green('✓')
        this.#line(`    ${mark} ${this.#style.dim(clip(outputText(data?.output), 100))}`)
        break
      }
      case 'permission/requested': {
        this.#spinner.stop()
        const input = (data?.input ?? {}) as Record<string, unknown>
        const call = describeToolCall(String(data?.toolName ?? ''), input)
        this.#line(this.#style.yellow(`    ? approval needed: ${clip(call, 90)}`))
        break
      }
      case 'permission/answered': {
        const decision = String(data?.decision ?? '')
        const rule = data?.rule as { tool?: string; pattern?: string } | undefined
        const text =
          decision === 'deny'
            ? this.#style.red(
                `    ✗ denied${deniedBy(data?.by)}${typeof data?.reason === 'string' ? `: ${clip(data.reason, 80)}` : ''}`,
              )
            : this.#style.green(
                decision === 'always'
                  ? `    ✓ allowed always in this session: ${clip(`${rule?.tool ?? ''} ${rule?.pattern ?? ''}`, 90)}`
                  : `    ✓ allowed once${data?.by === 'flag' ? ' (by a flag)' : ''}`,
              )
        this.#line(text)
        break
      }
      case 'snapshot/taken': {
        const changed = Array.isArray(data?.changed) ? (data.changed as unknown[]).map(String) : []
        if (changed.length > 0)
          this.#line(this.#style.dim(`    files changed: ${clip(changed.join(', '), 90)}`))
        // Left out of the snapshot (too big, §5): a restore or a fork does not bring them back.
        const skipped = Array.isArray(data?.skipped) ? (data.skipped as unknown[]).map(String) : []
        if (skipped.length > 0)
          this.#line(
            this.#style.yellow(`    not snapshotted (too big to keep): ${clip(skipped.join(', '), 80)}`),
          )
        break
      }
      case 'turn/end': {
        this.#spinner.stop()
        this.#endText()
        this.#endLine()
        const reason = String(data?.reason ?? '')
        if (typeof data?.error === 'string') this.error = data.error
        if (reason !== 'completed') {
          const detail = typeof data?.error === 'string' ? `: ${data.error}` : ''
          this.#err.write(`${this.#style.yellow(safeText(`turn ended: ${reason}${detail}`))}\n`)
        }
        break
      }
      case 'context/compacted':
      case 'context/compaction-failed':
        this.#spinner.stop()
        this.#endLine()
        this.#line(this.#style.dim(`  ${safeLine(describeContextEvent(event.type, event.data) ?? '')}`))
        break
      default:
        break
    }
  }

  onSharedActivity(activity: { cwd: string; sessionIds: string[] }): void {
    this.#spinner.stop()
    this.#endLine()
    this.#err.write(`${sharedActivityWarning(activity, this.#style)}\n`)
  }

  /**
   * A model call failed and is retried: on a terminal, the status line says why and counts down
   * the wait (a pipe gets nothing: the turn's outcome says what happened).
   */
  #onRetry(text: string): void {
    if (this.#err.isTTY !== true) return
    this.#retryText += text
    const lines = this.#retryText.split('\n')
    this.#retryText = lines.pop() ?? ''
    const notice = lines.map(parseRetryLine).findLast((candidate) => candidate !== null)
    if (!notice) return
    this.#endLine()
    const until = Date.now() + notice.delayMs
    const reason = clip(notice.reason, 80)
    const counted = `${notice.attempt}/${notice.maxRetries}`
    this.#spinner.start(() => {
      const left = Math.ceil((until - Date.now()) / 1000)
      return left > 0
        ? `retrying in ${left}s (retry ${counted}): ${reason}`
        : `thinking… (retry ${counted} after ${reason})`
    })
  }

  /** Stops the spinner and ends the line, so a question can be asked on a line of its own. */
  pause(): void {
    this.#spinner.stop()
    this.#endLine()
  }

  /** Stops the spinner and ends a partial line (after an error or an abort). */
  finish(): void {
    this.#spinner.stop()
    this.#endText()
    this.#endLine()
  }

  /** The answer's text (already safe for a terminal), rendered when on one. */
  #writeText(text: string): void {
    this.#write(this.#markdown ? this.#markdown.push(text) : text)
  }

  /** The answer's text ended (its message landed, or the turn stopped): writes what was held. */
  #endText(): void {
    if (this.#markdown) this.#write(this.#markdown.end())
  }

  #write(text: string): void {
    if (text === '') return
    this.#out.write(text)
    this.#atLineStart = text.endsWith('\n')
  }

  #line(text: string): void {
    this.#endLine()
    this.#write(`${text}\n`)
  }

  #endLine(): void {
    if (!this.#atLineStart) this.#write('\n')
  }
}

/** The warning that other sessions run turns in the same folder now (another terminal, the web UI). */
export function sharedActivityWarning(activity: { cwd: string; sessionIds: string[] }, style: Style): string {
  return style.yellow(
    `warning: sessions ${activity.sessionIds.join(', ')} are running turns in ${safeLine(activity.cwd)} at the same time; they share its files.`,
  )
}

/** Who denied a call, as the printer says it: "by you" only when a person answered. */
function deniedBy(by: unknown): string {
  if (by === 'flag') return ' by a flag'
  // Its reason says so ("no terminal to ask: pass …").
  if (by === 'no-terminal') return ''
  if (by === 'interrupted') return ' (the Host stopped)'
  if (by === 'hook') return ' by a preToolUse hook'
  return ' by you'
}
