// Syntax colours for the code blocks of `tangent tui`'s transcript (render/markdown.ts holds a
// block until it closes, then transcript-lines.ts asks `lookup`). Shiki (shiki-tokens.ts) is
// imported with the first block in a language named here, never at start-up and never with colours
// off (NO_COLOR, a pipe); blocks are tokenized off the rendering path, drawn plain until they are
// ready, and `subscribe`'s listeners hear when to draw again. A language not named here, an info
// string that is no language (```../../etc), a block too large or a grammar that fails: plain
// text, never an error.
import { type Style, safeText } from '../render/style.js'
import type { Tokenizer } from './shiki-tokens.js'

/** The languages highlighted (shiki's names), by every name a fence may give them. */
const aliases: Record<string, CodeLanguage> = {
  ts: 'typescript',
  typescript: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  javascript: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'tsx',
  tsx: 'tsx',
  json: 'json',
  jsonc: 'json',
  bash: 'bash',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  python: 'python',
  py: 'python',
  diff: 'diff',
  patch: 'diff',
  md: 'markdown',
  markdown: 'markdown',
  yaml: 'yaml',
  yml: 'yaml',
  rust: 'rust',
  rs: 'rust',
  go: 'go',
  golang: 'go',
}

export type CodeLanguage =
  | 'typescript'
  | 'javascript'
  | 'tsx'
  | 'json'
  | 'bash'
  | 'python'
  | 'diff'
  | 'markdown'
  | 'yaml'
  | 'rust'
  | 'go'

/** The language a fence's info string names, when it is one highlighted here; else null. */
export function codeLanguage(info: string): CodeLanguage | null {
  const name = info.trim().toLowerCase()
  return Object.hasOwn(aliases, name) ? aliases[name]! : null
}

/**
 * The theme's (shiki-tokens.ts) stand-in colours, one per colour of the terminal's own palette:
 * what a token is drawn in is the user's red or green, not a fixed RGB that may not read on their
 * background.
 */
export const terminalPalette = {
  plain: '#000000',
  dim: '#000001',
  red: '#000002',
  green: '#000003',
  yellow: '#000004',
  blue: '#000005',
  magenta: '#000006',
  cyan: '#000007',
} as const

export interface TokenizedLine extends ReadonlyArray<{ content: string; color?: string | undefined }> {}

/** A block larger than this shows plain: tokenizing it would hold up the screen. */
const maxLines = 500
const maxChars = 40_000

/**
 * Tokens as terminal lines: each token painted in its palette colour with `style` (so colours
 * off give plain text), its text made safe for the terminal first — whatever the tokenizer got,
 * nothing but the styles' own escape sequences reaches the screen.
 */
export function tokenLines(lines: readonly TokenizedLine[], style: Style): string[] {
  const paints: Record<string, (text: string) => string> = {
    [terminalPalette.dim]: style.dim,
    [terminalPalette.red]: style.red,
    [terminalPalette.green]: style.green,
    [terminalPalette.yellow]: style.yellow,
    [terminalPalette.blue]: style.blue,
    [terminalPalette.magenta]: style.magenta,
    [terminalPalette.cyan]: style.cyan,
  }
  return lines.map((tokens) =>
    tokens
      .map((token) => {
        const text = safeText(token.content)
        const color = token.color?.toLowerCase()
        const paint = color !== undefined && Object.hasOwn(paints, color) ? paints[color]! : null
        return paint === null || text.trim() === '' ? text : paint(text)
      })
      .join(''),
  )
}

/** What the highlighter has for a block: its lines coloured, not yet (it is being worked on), or never. */
export type Lookup = readonly string[] | 'pending' | 'plain'

/** The most tokenizing done in one turn of the event loop before keys and output get theirs. */
const sliceMs = 12
/** How often at most the screen hears of blocks coloured while a backlog is worked through. */
const notifyEveryMs = 100
/** Blocks kept coloured (by language and text): a session's worth; the oldest go first. */
const cacheSize = 1000

/**
 * Colours code blocks off the rendering path: a block the transcript asks for is answered from a
 * cache, or queued and answered `pending` (drawn plain). The queue is worked through a slice at a
 * time between the event loop's other work (typing echoes between two blocks), and listeners hear
 * when blocks are ready. The first block of a language also waits for shiki and its grammar, loaded
 * once. Colour is never needed: any failure leaves the block plain.
 */
export class CodeHighlighter {
  readonly #style: Style
  readonly #load: () => Promise<Tokenizer>
  #tokenizer: Promise<Tokenizer> | null = null
  readonly #cache = new Map<string, readonly string[] | null>()
  readonly #queue = new Map<string, { language: CodeLanguage; code: string; lines: number }>()
  #working = false
  readonly #listeners = new Set<() => void>()
  #version = 0
  #notified = 0

  constructor(
    style: Style,
    load: () => Promise<Tokenizer> = async () =>
      (await import('./shiki-tokens.js')).createTokenizer(terminalPalette),
  ) {
    this.#style = style
    this.#load = load
  }

  /** A block's colours, if it has them yet (queued when not). */
  lookup(lines: readonly string[], info: string): Lookup {
    if (!this.#style.isColorSupported) return 'plain'
    const language = codeLanguage(info)
    if (language === null || lines.length > maxLines) return 'plain'
    const code = lines.join('\n')
    if (code.length > maxChars) return 'plain'
    const key = `${language}\0${code}`
    const cached = this.#cache.get(key)
    if (cached !== undefined) return cached ?? 'plain'
    if (!this.#queue.has(key)) this.#queue.set(key, { language, code, lines: lines.length })
    this.#work()
    return 'pending'
  }

  /** Called when blocks that were pending are coloured (what was drawn plain can be drawn again). */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Changes each time listeners are called: a key for what was rendered with pending blocks. */
  readonly version = (): number => this.#version

  /** Resolves once the queue is empty (for tests). */
  async settled(): Promise<void> {
    while (this.#working || this.#queue.size > 0) await new Promise((resolve) => setTimeout(resolve, 5))
  }

  #work(): void {
    if (this.#working) return
    this.#working = true
    void this.#drain()
      .catch(() => {
        // shiki did not load: every block stays plain.
        for (const key of this.#queue.keys()) this.#remember(key, null)
        this.#queue.clear()
      })
      .finally(() => {
        this.#working = false
        this.#notify()
        // A block asked for between the last slice and here.
        if (this.#queue.size > 0) this.#work()
      })
  }

  async #drain(): Promise<void> {
    this.#tokenizer ??= this.#load()
    const tokenizer = await this.#tokenizer
    while (this.#queue.size > 0) {
      const sliceEnd = performance.now() + sliceMs
      do {
        // The block asked for last first: the transcript asks from its top, and the screen shows
        // its end.
        const key = [...this.#queue.keys()].at(-1)!
        const block = this.#queue.get(key)!
        let styled: readonly string[] | null = null
        try {
          await tokenizer.load(block.language)
          const tokens = tokenizer.tokens(block.code, block.language)
          if (tokens.length === block.lines) styled = tokenLines(tokens, this.#style)
        } catch {
          // A grammar that fails on this text: the block stays plain.
        }
        this.#queue.delete(key)
        this.#remember(key, styled)
      } while (this.#queue.size > 0 && performance.now() < sliceEnd)
      if (performance.now() - this.#notified >= notifyEveryMs) this.#notify()
      // Keys, output and the store's events get the event loop before the next slice.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  #remember(key: string, styled: readonly string[] | null): void {
    this.#cache.set(key, styled)
    if (this.#cache.size > cacheSize) this.#cache.delete(this.#cache.keys().next().value!)
  }

  #notify(): void {
    this.#notified = performance.now()
    this.#version++
    for (const listener of this.#listeners) listener()
  }
}
