// Syntax colours for the code blocks of `tangent tui`'s transcript (render/markdown.ts holds a
// block until it closes, then transcript-lines.ts asks `lookup`). Shiki (shiki-tokens.ts) runs in a
// worker thread (shiki-worker.ts) started with the first block in a language named here, never at
// start-up and never with colours off (NO_COLOR, a pipe); blocks are drawn plain until the worker
// has tokenized them, and `subscribe`'s listeners hear when to draw again. A language not named
// here, an info string that is no language (```../../etc), a block too large, a grammar that fails
// or a worker that cannot run: plain text, never an error.
import { Worker } from 'node:worker_threads'
import { type Style, safeText } from '../render/style.js'

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

/** A block sent to the worker thread (shiki-worker.ts): only what it needs to tokenize it. */
export interface HighlightRequest {
  readonly id: number
  readonly language: CodeLanguage
  readonly code: string
}

/** The worker's answer: the block's lines of tokens with their stand-in colours, or null (plain). */
export interface HighlightReply {
  readonly id: number
  readonly lines: TokenizedLine[] | null
}

/** What CodeHighlighter needs of a `node:worker_threads` Worker (tests give stand-ins). */
export type HighlightWorker = Pick<Worker, 'postMessage' | 'on' | 'unref' | 'terminate'>

/**
 * Starts shiki-worker.ts. Next to this module in both layouts: tsc's (dist/tui/) and the bundle's
 * (dist/chunks/, where scripts/postbuild.mjs writes the worker's own entry).
 */
export const startShikiWorker = (): HighlightWorker =>
  new Worker(new URL('./shiki-worker.js', import.meta.url), { workerData: { palette: terminalPalette } })

/** Blocks sent to the worker at once: enough to keep it busy, few enough that a block asked for later still goes first. */
const inFlightMax = 4
/** How often at most the screen hears of blocks coloured while a backlog is worked through. */
const notifyEveryMs = 100
/** Blocks kept coloured (by language and text): a session's worth; the oldest go first. */
const cacheSize = 1000

/**
 * Colours code blocks off the main thread: a block the transcript asks for is answered from a
 * cache, or queued and answered `pending` (drawn plain). Shiki loads and tokenizes in a worker
 * thread (shiki-worker.ts), started with the first block to colour, so keys echo while it compiles a
 * grammar; here the tokens only get painted (their text made safe), and listeners hear when blocks
 * are ready. Colour is never needed: a worker that cannot start or that dies leaves every block
 * plain, those it had included.
 */
export class CodeHighlighter {
  readonly #style: Style
  readonly #startWorker: () => HighlightWorker
  #worker: HighlightWorker | null = null
  /** The worker failed or the UI closed: no block is coloured from now on. */
  #stopped = false
  readonly #cache = new Map<string, readonly string[] | null>()
  readonly #queue = new Map<string, { language: CodeLanguage; code: string; lines: number }>()
  readonly #inFlight = new Map<number, { key: string; lines: number }>()
  #nextId = 0
  #sending = false
  readonly #listeners = new Set<() => void>()
  #version = 0
  #notified = 0
  #notifyTimer: NodeJS.Timeout | null = null

  constructor(style: Style, start: () => HighlightWorker = startShikiWorker) {
    this.#style = style
    this.#startWorker = start
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
    if (this.#stopped) return 'plain'
    if (!this.#queue.has(key) && ![...this.#inFlight.values()].some((block) => block.key === key))
      this.#queue.set(key, { language, code, lines: lines.length })
    this.#start()
    // A worker that could not start: plain now, not a redraw later.
    if (this.#stopped) return 'plain'
    // Sent once the render asking is done: it asks from the transcript's top, the screen shows its
    // end, and the block asked for last goes first.
    if (!this.#sending) {
      this.#sending = true
      queueMicrotask(() => {
        this.#sending = false
        this.#send()
      })
    }
    return 'pending'
  }

  /** Called when blocks that were pending are coloured (what was drawn plain can be drawn again). */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Changes each time listeners are called: a key for what was rendered with pending blocks. */
  readonly version = (): number => this.#version

  /** Resolves once no block is queued or with the worker (for tests). */
  async settled(): Promise<void> {
    while (this.#queue.size > 0 || this.#inFlight.size > 0)
      await new Promise((resolve) => setTimeout(resolve, 5))
  }

  /** Ends the worker (the UI exits); blocks still pending stay plain. */
  close(): void {
    const worker = this.#worker
    this.#stop()
    void worker?.terminate().catch(() => {})
  }

  #start(): void {
    if (this.#worker !== null || this.#stopped) return
    try {
      this.#worker = this.#listen(this.#startWorker())
    } catch {
      this.#stop()
    }
  }

  #send(): void {
    const worker = this.#worker
    if (worker === null) return
    while (this.#inFlight.size < inFlightMax && this.#queue.size > 0) {
      // The block asked for last first: the transcript asks from its top, and the screen shows its end.
      const key = [...this.#queue.keys()].at(-1)!
      const block = this.#queue.get(key)!
      this.#queue.delete(key)
      const id = this.#nextId++
      this.#inFlight.set(id, { key, lines: block.lines })
      worker.postMessage({ id, language: block.language, code: block.code } satisfies HighlightRequest)
    }
  }

  #listen(worker: HighlightWorker): HighlightWorker {
    // The UI's exit does not wait for it (close() ends it too).
    worker.unref()
    worker.on('message', (reply: HighlightReply) => this.#receive(reply))
    // Failed to load its module, threw, or ended: what it had, and all after, stays plain.
    const fail = () => {
      if (this.#worker === worker) this.#stop()
    }
    worker.on('error', fail)
    worker.on('messageerror', fail)
    worker.on('exit', fail)
    return worker
  }

  #receive(reply: HighlightReply): void {
    const block = this.#inFlight.get(reply.id)
    if (block === undefined) return
    this.#inFlight.delete(reply.id)
    let styled: readonly string[] | null = null
    try {
      if (Array.isArray(reply.lines) && reply.lines.length === block.lines)
        styled = tokenLines(reply.lines, this.#style)
    } catch {
      // Tokens not in the shape expected: the block stays plain.
    }
    this.#remember(block.key, styled)
    this.#send()
    this.#schedule()
  }

  #stop(): void {
    this.#stopped = true
    this.#worker = null
    for (const key of this.#queue.keys()) this.#remember(key, null)
    for (const block of this.#inFlight.values()) this.#remember(block.key, null)
    this.#queue.clear()
    this.#inFlight.clear()
    this.#schedule()
  }

  #remember(key: string, styled: readonly string[] | null): void {
    this.#cache.set(key, styled)
    if (this.#cache.size > cacheSize) this.#cache.delete(this.#cache.keys().next().value!)
  }

  /** Tells listeners now when the work is done, else at most every notifyEveryMs. */
  #schedule(): void {
    if (this.#notifyTimer !== null) return
    const wait =
      this.#queue.size + this.#inFlight.size === 0 ? 0 : notifyEveryMs - (performance.now() - this.#notified)
    if (wait <= 0) {
      this.#notify()
      return
    }
    this.#notifyTimer = setTimeout(() => {
      this.#notifyTimer = null
      this.#notify()
    }, wait)
    this.#notifyTimer.unref()
  }

  #notify(): void {
    this.#notified = performance.now()
    this.#version++
    for (const listener of this.#listeners) listener()
  }
}
