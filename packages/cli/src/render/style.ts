// Colours for one output stream: on for a terminal, off for pipes, files and NO_COLOR.
import picocolors from 'picocolors'
import type { OutputStream } from '../context.js'

export type Style = ReturnType<typeof picocolors.createColors>

export function styleFor(stream: OutputStream, env: Record<string, string | undefined>): Style {
  const enabled = env.FORCE_COLOR ? env.FORCE_COLOR !== '0' : stream.isTTY === true && !env.NO_COLOR
  return picocolors.createColors(enabled)
}

/** Cuts `text` to one line of at most `max` characters. */
export function clip(text: string, max: number): string {
  // What `oneLine(text)` would give, without collapsing the whitespace of a long text (a tool's
  // whole output) past what is shown: a prefix that is already longer than `max` + 1 once
  // collapsed is the start of the collapsed whole, whose length is then over `max` too (only a
  // final space of the prefix could still be trimmed).
  for (let end = 2 * max + 2; end < text.length; end *= 4) {
    const start = oneLine(text.slice(0, end), false)
    if (start.length > max + 1) return `${start.slice(0, max - 1)}…`
  }
  const line = oneLine(text, true)
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Runs of whitespace as one space, leading whitespace dropped (and trailing, for a whole text). */
function oneLine(text: string, whole: boolean): string {
  // Most texts are one line already: a search that finds nothing to change costs a fraction of a
  // replace that swaps every single space for itself (`tangent show` clips a line per tool call).
  if (!needsCollapsing.test(text)) return text
  const collapsed = text.replace(/\s+/g, ' ')
  return whole ? collapsed.trim() : collapsed.trimStart()
}

/** Whitespace other than a single space between words, or a space at either end. */
const needsCollapsing = /[^\S ]| {2}|^ | $/

/** A session's title for display ('' means none yet). */
export function titleOf(session: { title: string }): string {
  return session.title === '' ? '(untitled)' : session.title
}
