// Markdown of a session (the assistant's texts, compaction summaries) as HTML for the export, by
// micromark with GFM, loaded only when an HTML export needs it. Safety, as in the web UI's
// message-text.tsx: HTML in the text is never passed through (micromark escapes it); links go
// out only to http(s) and mailto (with rel="noopener noreferrer"), or to a place in the file (a
// footnote); any other link (javascript:, data:, relative paths) shows as its text; images are
// never fetched: a link to one instead, or its description.
//
// The rewriting below reads micromark's own output, in which every `<`, `>` and `"` of the text
// is escaped: each tag it matches is one micromark wrote.
import { escapeHtml } from './html-text.js'

/** Markdown to safe HTML; `idPrefix` makes the ids it writes (footnotes) unique in the file. */
export type MarkdownToHtml = (markdown: string, idPrefix: string) => string

/**
 * Above this many characters a text is shown as written: micromark's time grows faster than
 * the text (a list of thousands of items takes seconds).
 */
export const maxMarkdownChars = 50_000
/** Milliseconds one export may spend rendering Markdown; the texts after that are shown as written. */
export const markdownTimeBudgetMs = 20_000

/** A renderer for one export (it counts the time it spent). */
export async function loadMarkdownRenderer(timeBudgetMs = markdownTimeBudgetMs): Promise<MarkdownToHtml> {
  const [{ micromark }, { gfm, gfmHtml }] = await Promise.all([
    import('micromark'),
    import('micromark-extension-gfm'),
  ])
  const extensions = [gfm()]
  // Only footnotes write ids: a text without `[^` shares one HTML extension (making one per text costs).
  const sharedHtml = [gfmHtml()]
  let spentMs = 0
  return (markdown, idPrefix) => {
    if (isPlainProse(markdown)) return plainParagraphs(markdown)
    if (markdown.length > maxMarkdownChars)
      return asWritten(markdown, 'This text is too long to render as Markdown; it is shown as written.')
    if (spentMs > timeBudgetMs)
      return asWritten(
        markdown,
        'The export ran out of time to render Markdown; this text is shown as written.',
      )
    const started = performance.now()
    const html = micromark(markdown, {
      extensions,
      htmlExtensions: markdown.includes('[^') ? [gfmHtml({ clobberPrefix: idPrefix })] : sharedHtml,
      allowDangerousHtml: false,
      allowDangerousProtocol: false,
    })
    spentMs += performance.now() - started
    return safeMarkdownHtml(html, idPrefix)
  }
}

function asWritten(text: string, note: string): string {
  return `<p class="clipped">${note}</p><pre>${escapeHtml(text)}</pre>`
}

/**
 * Text Markdown would leave as paragraphs: letters, digits, spaces and plain punctuation only, no
 * line indented or ending in spaces, none starting like an ordered list. Most short replies are
 * this, and rendering them needs no parser (micromark costs ~0.1 ms a call even for one word).
 */
export function isPlainProse(text: string): boolean {
  if (/www\./i.test(text)) return false
  if (!/^[\p{L}\p{N}\p{M} ,.;:'"?()!%$\n]*$/u.test(text)) return false
  return text
    .split('\n')
    .every((line) => line === '' || (line.trim() === line && !/^\d+[.)]( |$)/.test(line)))
}

/** Plain prose as micromark writes it: a paragraph per run of lines. */
function plainParagraphs(text: string): string {
  return text
    .split(/\n{2,}/)
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${escapeHtml(paragraph.replace(/^\n+|\n+$/g, ''))}</p>`)
    .join('\n')
}

const anchorPattern = /<a href="([^"]*)"([^>]*)>([\s\S]*?)<\/a>/g
const imagePattern = /<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? \/>/g
const headingPattern = /<(\/?)h([1-6])([ >])/g
const checkboxPattern = /<input type="checkbox" disabled=""( checked="")? \/>/g

/** micromark's HTML with links, images, headings, task boxes and footnote ids made fit for the file. */
export function safeMarkdownHtml(html: string, idPrefix: string): string {
  return (
    html
      // Links: nested links cannot be written in Markdown, so each `<a` closes at the next `</a>`.
      .replace(anchorPattern, (_whole, href: string, attributes: string, inner: string) => {
        const content = inner.replace(imagePattern, (_image, _src: string, alt: string) => imageText(alt))
        if (href.startsWith('#')) return `<a href="${href}"${keptAttributes(attributes)}>${content}</a>`
        if (/^(https?:|mailto:)/i.test(href))
          return `<a href="${href}" rel="noopener noreferrer" target="_blank">${content}</a>`
        return `<span class="link-text">${content}</span>`
      })
      .replace(imagePattern, (_image, src: string, alt: string) =>
        /^https?:/i.test(src)
          ? `<a href="${src}" rel="noopener noreferrer" target="_blank">${imageText(alt)}</a>`
          : imageText(alt),
      )
      // The file's headings go to h3 (a turn); the text's start below.
      .replace(headingPattern, (_heading, slash: string, level: string, after: string) => {
        return `<${slash}h${Math.min(6, Number(level) + 3)}${after}`
      })
      // A task list's boxes as text: a disabled, unlabelled input is a form control to no one.
      .replace(checkboxPattern, (_box, checked: string | undefined) =>
        checked ? '<span class="task">[x]</span>' : '<span class="task">[ ]</span>',
      )
      // The footnotes' label is the one id micromark does not prefix.
      .replaceAll('"footnote-label"', `"${idPrefix}footnote-label"`)
  )
}

/** Of a footnote link's attributes, those micromark writes for footnotes (ids are prefixed). */
function keptAttributes(attributes: string): string {
  return [...attributes.matchAll(/ (id|aria-label|aria-describedby|class)="[^"]*"/g)]
    .map((match) => match[0])
    .join('')
}

function imageText(alt: string): string {
  return `<span class="image-ref">[image${alt ? `: ${alt}` : ''}]</span>`
}
