// Text into the HTML export: escaping (every string from a session is untrusted — model and tool
// output, file names, titles) and the cap on what one block shows, so a huge output cannot make
// the file unreadable.

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text as HTML text or a quoted attribute value: nothing in it can open or close markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char]!)
}

/** A title or name on one line, at most `max` characters. */
export function oneLine(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Thousands separated, as people read counts. */
export function count(value: number): string {
  // toLocaleString is slow enough to show in a 50,000-event export.
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** A time as ISO for `datetime` and as UTC text for people (the file runs no script to localise it). */
export function timeElement(ms: number): string {
  if (!Number.isFinite(ms)) return ''
  const date = new Date(ms)
  if (Number.isNaN(date.getTime())) return ''
  const iso = date.toISOString()
  return `<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`
}

/**
 * How much tool output the file shows: `perBlock` characters of each, and once `total` have been
 * shown, only `afterTotal` of each one after (a session with thousands of large outputs still
 * makes a file a browser opens).
 */
export class OutputBudget {
  #shown = 0
  constructor(
    readonly perBlock = 64 * 1024,
    readonly total = 32 * 1024 * 1024,
    readonly afterTotal = 4 * 1024,
  ) {}

  /** The part of `text` to show, and how many characters were left out. */
  take(text: string): { shown: string; omitted: number } {
    const limit = this.#shown >= this.total ? this.afterTotal : this.perBlock
    let end = Math.min(text.length, limit)
    // Never cut a surrogate pair in two.
    if (end < text.length && end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--
    this.#shown += end
    return { shown: text.slice(0, end), omitted: text.length - end }
  }
}

/** A `<pre>` of text, cut by the budget, with a note of what was left out. */
export function preBlock(text: string, budget: OutputBudget, label: string): string {
  const { shown, omitted } = budget.take(text)
  const note =
    omitted > 0
      ? `<p class="clipped">${count(omitted)} more characters of this ${escapeHtml(label)} are not shown (the session's log has them all).</p>`
      : ''
  return `<pre>${escapeHtml(shown)}</pre>${note}`
}
