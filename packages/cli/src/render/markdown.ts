// The assistant's Markdown, made readable in a terminal (docs/architecture.md §9): no raw `**`,
// `__` or backticks — emphasis, code and strikethrough become styles (nothing, without colour),
// headings bold, list markers bullets (task lists ☐/☑), quotes a bar, rules a line, links their
// text with the address after, tables aligned in columns; code blocks verbatim between two dim
// rules. It works as the text streams: a line is written as soon as what it starts with is
// known, and only what could still change (a marker's second `*`, a link not yet closed, a table
// row) is held back. The text must already be safe for a terminal (`safeText`): this adds only
// the styles' own escape sequences. Given a highlighter (`tangent tui`), a code block is held
// until it closes and then written as the highlighter colours it.
import type { Style } from './style.js'

/**
 * Colours a fenced code block: its lines and the first word of its info string (the language, as
 * the model wrote it: untrusted) in, the same number of lines out (styled), or null to show the
 * block as it is.
 */
export type CodeHighlight = (lines: readonly string[], language: string) => readonly string[] | null

interface InlineState {
  bold: boolean
  italic: boolean
  strike: boolean
  /** The length of the backtick run that opened the code span we are in, or 0. */
  code: number
  /** The character before the next one (for whether a `*` or `_` opens or closes). */
  prev: string
}

const fresh = (): InlineState => ({ bold: false, italic: false, strike: false, code: 0, prev: ' ' })

type Paint = (text: string) => string

/** Renders a whole text at once (for `tangent show`). */
export function renderMarkdown(text: string, style: Style, highlight?: CodeHighlight): string {
  const stream = new MarkdownStream(style, highlight)
  return stream.push(text) + stream.end()
}

export class MarkdownStream {
  readonly #style: Style
  /** The current line as received so far. */
  #line = ''
  /** How much of `#line` has been written (0: its start is not classified yet). */
  #done = 0
  /** How the rest of the current line is painted, once its start is known. */
  #paint: Paint | null = null
  #inline = fresh()
  #fence: string | null = null
  /** Table rows held until the table ends (to align its columns). */
  #table: string[] = []
  readonly #highlight: CodeHighlight | undefined
  /** With a highlighter: the open code block's language and its lines so far (each with its line break). */
  #code: { language: string; lines: string[]; breaks: string[] } | null = null

  constructor(style: Style, highlight?: CodeHighlight) {
    this.#style = style
    this.#highlight = highlight
  }

  /** Takes the next piece of the text; returns what can be written now. */
  push(text: string): string {
    let out = ''
    let rest = text
    for (let newline = rest.indexOf('\n'); newline >= 0; newline = rest.indexOf('\n')) {
      this.#line += rest.slice(0, newline)
      rest = rest.slice(newline + 1)
      out += this.#finishLine(true)
    }
    this.#line += rest
    return out + this.#partial()
  }

  /** The text has ended: writes what was held back. */
  end(): string {
    let out = ''
    if (this.#line !== '' || this.#done > 0) out += this.#finishLine(false)
    out += this.#flushTable()
    // A block the text left open is written as it stands.
    out += this.#flushCode()
    this.#fence = null
    return out
  }

  /** What of the current (unfinished) line can be written already. */
  #partial(): string {
    const line = this.#line
    if (this.#done === 0 && this.#paint === null) {
      // Only marker characters so far: what the line is cannot be told yet.
      if (/^[\s#>*+\-_=`~|\d.)[\]xX:]*$/.test(line)) return ''
      // A table row is held whole, and so is a fence's line (its info string).
      if (this.#fence === null && /^ {0,3}(\||`{3,}|~{3,})/.test(line)) return ''
      // A block to highlight is written whole, when it closes.
      if (this.#code !== null) return ''
      if (this.#fence !== null) {
        this.#paint = (text) => text
        return this.#verbatim()
      }
      const start = this.#start(line, false)
      if (start === null) return ''
      return this.#flushTable() + start + this.#inlineRest(false)
    }
    if (this.#fence !== null) return this.#verbatim()
    return this.#inlineRest(false)
  }

  #verbatim(): string {
    const text = this.#line.slice(this.#done)
    this.#done = this.#line.length
    return text
  }

  /** The line ended (`newline`: with a line break). */
  #finishLine(newline: boolean): string {
    const line = this.#line
    const eol = newline ? '\n' : ''
    let out = ''
    if (this.#done > 0 || this.#paint !== null) {
      out = this.#fence !== null ? this.#verbatim() : this.#inlineRest(true)
      out += eol
    } else if (this.#fence !== null) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)
      if (close && close[1]![0] === this.#fence[0] && close[1]!.length >= this.#fence.length) {
        this.#fence = null
        out = this.#flushCode() + this.#style.dim('─'.repeat(20)) + eol
      } else if (this.#code !== null) {
        this.#code.lines.push(line)
        this.#code.breaks.push(eol)
      } else out = line + eol
    } else if (/^ {0,3}\|/.test(line)) {
      this.#table.push(line)
      out = ''
    } else {
      out = this.#flushTable()
      const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/.exec(line)
      if (fence) {
        this.#fence = fence[1]!
        const language = fence[2] ?? ''
        if (this.#highlight) this.#code = { language, lines: [], breaks: [] }
        out +=
          this.#style.dim(
            `${'─'.repeat(3)}${language ? ` ${language} ` : ''}${'─'.repeat(language ? 14 - language.length : 17)}`,
          ) + eol
      } else if (/^ {0,3}([-*_])( *\1){2,} *$/.test(line) || /^ {0,3}=+ *$/.test(line)) {
        out += this.#style.dim('─'.repeat(40)) + eol
      } else {
        const start = this.#start(
          line.replace(/\s+#+\s*$/, (tail) => (/^ {0,3}#/.test(line) ? '' : tail)),
          true,
        )
        out += (start ?? '') + this.#inlineRest(true) + eol
      }
    }
    this.#line = ''
    this.#done = 0
    this.#paint = null
    this.#inline = fresh()
    return out
  }

  /**
   * Writes how the line starts (a heading, list item, quote or plain text) and sets how its rest is
   * painted; null when that cannot be told yet.
   */
  #start(line: string, final: boolean): string | null {
    const style = this.#style
    const heading = /^ {0,3}(#{1,6})(\s+|$)/.exec(line)
    if (heading) {
      if (final) this.#line = line
      this.#done = heading[0].length
      this.#paint = heading[1]!.length <= 2 ? (text) => style.bold(style.underline(text)) : style.bold
      return ''
    }
    const quote = /^ {0,3}((?:> ?)+)/.exec(line)
    if (quote) {
      const depth = (quote[1]!.match(/>/g) ?? []).length
      this.#done = quote[0].length
      this.#paint = style.dim
      return style.dim('│ '.repeat(depth))
    }
    const task = /^(\s*)[-*+]\s+\[([ xX])\]\s+/.exec(line)
    if (task) {
      this.#done = task[0].length
      this.#paint = identity
      return `${task[1]}${task[2] === ' ' ? '☐' : style.green('☑')} `
    }
    const bullet = /^(\s*)[-*+](\s+)/.exec(line)
    if (bullet) {
      // "- [" may still become a task box.
      if (!final && /^\s*[-*+]\s+\[?[ xX]?\]?$/.test(line)) return null
      this.#done = bullet[0].length
      this.#paint = identity
      return `${bullet[1]}• `
    }
    const ordered = /^(\s*)(\d{1,9}[.)])(\s+)/.exec(line)
    if (ordered) {
      this.#done = ordered[0].length
      this.#paint = identity
      return `${ordered[1]}${ordered[2]} `
    }
    this.#done = 0
    this.#paint = identity
    return ''
  }

  /** The line's rest through the inline renderer, holding back what could still change. */
  #inlineRest(final: boolean): string {
    const { out, used } = renderInline(
      this.#line.slice(this.#done),
      this.#inline,
      final,
      this.#paint ?? identity,
      this.#style,
    )
    this.#done += used
    // A line whose start was known but nothing of it written yet must still count as begun.
    if (this.#paint === null) this.#paint = identity
    return out
  }

  /** The held code block, coloured by the highlighter (as it is when it declines or fails). */
  #flushCode(): string {
    const code = this.#code
    if (code === null) return ''
    this.#code = null
    let styled: readonly string[] | null = null
    try {
      styled = code.lines.length > 0 ? this.#highlight!(code.lines, code.language) : null
    } catch {
      // Colour is a nicety: a grammar that throws leaves the block plain.
    }
    const lines = styled !== null && styled.length === code.lines.length ? styled : code.lines
    return lines.map((line, index) => line + code.breaks[index]).join('')
  }

  #flushTable(): string {
    const rows = this.#table
    if (rows.length === 0) return ''
    this.#table = []
    return renderTable(rows, this.#style)
  }
}

const identity: Paint = (text) => text

/**
 * Emphasis, strong, strikethrough, code spans, links and autolinks of `source`, painted with the
 * line's `base`; `used` is how much was consumed (the rest could still change unless `final`).
 */
function renderInline(
  source: string,
  state: InlineState,
  final: boolean,
  base: Paint,
  style: Style,
): { out: string; used: number } {
  let out = ''
  let plain = ''
  const paint = (text: string) => {
    let painted = text
    if (state.code > 0) painted = style.cyan(painted)
    if (state.strike) painted = style.strikethrough(painted)
    if (state.italic) painted = style.italic(painted)
    if (state.bold) painted = style.bold(painted)
    return base(painted)
  }
  const flush = () => {
    if (plain !== '') out += paint(plain)
    plain = ''
  }
  const runOf = (at: number, character: string) => {
    let end = at
    while (source[end] === character) end++
    return end - at
  }
  let at = 0
  while (at < source.length) {
    const character = source[at]!
    const prev = at > 0 ? source[at - 1]! : state.prev
    if (state.code > 0) {
      if (character === '`') {
        const run = runOf(at, '`')
        if (at + run === source.length && !final) break
        if (run === state.code) {
          flush()
          state.code = 0
        } else plain += '`'.repeat(run)
        at += run
        continue
      }
      plain += character
      at++
      continue
    }
    if (character === '\\') {
      if (at + 1 >= source.length) {
        if (!final) break
        plain += character
        at++
        continue
      }
      const next = source[at + 1]!
      if (/[!-/:-@[-`{-~]/.test(next)) {
        plain += next
        at += 2
      } else {
        plain += character
        at++
      }
      continue
    }
    if (character === '`') {
      const run = runOf(at, '`')
      if (at + run === source.length && !final) break
      // A code span only when it closes on this line; a lone backtick is a backtick.
      const closes = source.indexOf('`'.repeat(run), at + run)
      if (closes < 0 && final) {
        plain += '`'.repeat(run)
        at += run
        continue
      }
      flush()
      state.code = run
      at += run
      continue
    }
    if (character === '*' || character === '_' || character === '~') {
      const run = runOf(at, character)
      if (at + run === source.length && !final) break
      const next = source[at + run] ?? ' '
      if (character === '~') {
        if (run === 2 && (state.strike ? !/\s/.test(prev) : !/\s/.test(next))) {
          flush()
          state.strike = !state.strike
        } else plain += '~'.repeat(run)
        at += run
        continue
      }
      const opens = !/\s/.test(next) && !(character === '_' && /[\p{L}\p{N}]/u.test(prev))
      const closes = !/\s/.test(prev) && !(character === '_' && /[\p{L}\p{N}]/u.test(next))
      if (run >= 2 && ((state.bold && closes) || (!state.bold && opens))) {
        flush()
        state.bold = !state.bold
        if (run >= 3) state.italic = !state.italic
        at += run
        continue
      }
      if (run === 1 && ((state.italic && closes) || (!state.italic && opens))) {
        flush()
        state.italic = !state.italic
        at += 1
        continue
      }
      plain += character.repeat(run)
      at += run
      continue
    }
    if (character === '[' || (character === '!' && source[at + 1] === '[')) {
      const rest = source.slice(at)
      const link = /^(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/.exec(rest)
      if (link) {
        flush()
        const label = renderInline(link[2]!, { ...state }, true, base, style).out
        const url = link[3]!
        out += link[1] ? base(`[image: ${label || url}]`) : label
        if (url !== '' && url !== link[2]) out += style.dim(` (${url})`)
        at += link[0].length
        continue
      }
      if (!final && /^!?\[[^\]\n]*(\](\([^)\n]*)?)?$/.test(rest)) break
      plain += character
      at++
      continue
    }
    if (character === '<') {
      const rest = source.slice(at)
      const auto = /^<((?:https?:\/\/|mailto:)[^>\s]+)>/.exec(rest)
      if (auto) {
        flush()
        out += base(style.underline(auto[1]!))
        at += auto[0].length
        continue
      }
      if (!final && /^<[^>\s]*$/.test(rest)) break
    }
    plain += character
    at++
  }
  flush()
  if (at > 0) state.prev = source[at - 1]!
  return { out, used: at }
}

/** Visible width of styled text (its escape sequences take no room). */
function width(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the styles' own escape sequences
  return [...text.replace(/\x1b\[[0-9;]*m/g, '')].length
}

function cells(row: string): string[] {
  const inner = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'))
}

const delimiterRow = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/

/** A GFM table as aligned columns (header bold, a rule under it); other `|` lines as text. */
function renderTable(rows: string[], style: Style): string {
  if (rows.length < 2 || !delimiterRow.test(rows[1]!)) {
    return rows.map((row) => `${renderInline(row, fresh(), true, identity, style).out}\n`).join('')
  }
  const aligns = cells(rows[1]!).map((cell) =>
    cell.startsWith(':') && cell.endsWith(':') ? 'center' : cell.endsWith(':') ? 'right' : 'left',
  )
  const body = [rows[0]!, ...rows.slice(2)].map((row) =>
    cells(row).map((cell) => renderInline(cell, fresh(), true, identity, style).out),
  )
  const columns = Math.max(...body.map((row) => row.length))
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(1, ...body.map((row) => width(row[column] ?? ''))),
  )
  const pad = (text: string, column: number) => {
    const room = widths[column]! - width(text)
    const align = aligns[column] ?? 'left'
    if (align === 'right') return ' '.repeat(room) + text
    if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(Math.ceil(room / 2))
    return text + ' '.repeat(room)
  }
  const line = (row: string[], header: boolean) =>
    widths
      .map((_, column) => {
        const text = pad(row[column] ?? '', column)
        return header ? style.bold(text) : text
      })
      .join(style.dim(' │ '))
      .trimEnd()
  const rule = style.dim(widths.map((w) => '─'.repeat(w)).join('─┼─'))
  return [line(body[0]!, true), rule, ...body.slice(1).map((row) => line(row, false))]
    .map((text) => `${text}\n`)
    .join('')
}
