// Colours for one output stream: on for a terminal, off for pipes, files and NO_COLOR; and the
// one place untrusted text is made safe for a terminal before it is styled (docs/architecture.md §9).
import picocolors from 'picocolors'
import type { OutputStream } from '../context.js'

export type Style = ReturnType<typeof picocolors.createColors>

export function styleFor(stream: OutputStream, env: Record<string, string | undefined>): Style {
  const enabled = env.FORCE_COLOR ? env.FORCE_COLOR !== '0' : stream.isTTY === true && !env.NO_COLOR
  return picocolors.createColors(enabled)
}

/**
 * Text that did not come from Tangent (messages, tool input and output, titles, paths, error
 * messages), made safe to write to a terminal where it may span lines: every C0 control but
 * newline and tab, DEL and every C1 control (U+0080–U+009F, the 8-bit CSI U+009B among them) is
 * shown as an escape — `\x1b`, `\r`, `\x9b` — never emitted, so it cannot move the cursor,
 * clear the screen, set the window title or fake output. Per character, so a sequence split
 * across two streamed chunks is escaped too. Styling (picocolors) goes around the result.
 */
export function safeText(text: string): string {
  return text.replace(unsafeInText, escapeCharacter)
}

/**
 * `safeText` for a one-line place (a title in the tree, a table cell, a one-line summary):
 * newline and tab are escaped too (`\n`, `\t`), so one item stays one line, and so are the bidi
 * embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), which could reorder
 * the rest of the row around them (Trojan Source). A multi-line text keeps those: right-to-left
 * writing uses them, and a terminal's bidi algorithm ends their effect at the text's own line.
 */
export function safeLine(text: string): string {
  return text.replace(unsafeInLine, escapeCharacter)
}

/** C0 controls but tab and newline, DEL, C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
const unsafeInText = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g
/** Every C0 control, DEL, C1 controls, and the bidi embedding, override and isolate controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
const unsafeInLine = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** `\n`, `\t`, `\r` as in source code; other controls as `\xHH` (C0, DEL, C1) or `\uHHHH` (bidi). */
function escapeCharacter(character: string): string {
  if (character === '\n') return '\\n'
  if (character === '\t') return '\\t'
  if (character === '\r') return '\\r'
  const code = character.charCodeAt(0)
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`
}

/**
 * Cuts `text` to one line of at most `max` characters, made safe to show (`safeLine`, after runs
 * of whitespace are collapsed to one space): for a one-line summary of untrusted text.
 */
export function clip(text: string, max: number): string {
  return cutToLine(text, max, safeLine)
}

/** `clip` without the escaping, for text that is kept rather than shown (a new session's title). */
export function clipUnescaped(text: string, max: number): string {
  return cutToLine(text, max, unchanged)
}

const unchanged = (text: string) => text

function cutToLine(text: string, max: number, shown: (line: string) => string): string {
  // What `shown(oneLine(text))` would give, without collapsing the whitespace of a long text (a
  // tool's whole output) past what is shown: a prefix that is already longer than `max` + 1 once
  // collapsed (and escaped, which only ever lengthens) is the start of the whole, whose length is
  // then over `max` too (only a final space of the prefix could still be trimmed).
  for (let end = 2 * max + 2; end < text.length; end *= 4) {
    const start = shown(oneLine(text.slice(0, end), false))
    if (start.length > max + 1) return `${start.slice(0, max - 1)}…`
  }
  const line = shown(oneLine(text, true))
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

/** A session's title for display, on one line and safe to show ('' means none yet). */
export function titleOf(session: { title: string }): string {
  return session.title === '' ? '(untitled)' : safeLine(session.title)
}
