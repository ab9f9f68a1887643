import { EventEmitter } from 'node:events'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import picocolors from 'picocolors'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../backend.js'
import { renderMarkdown } from '../render/markdown.js'
import {
  CodeHighlighter,
  codeLanguage,
  type HighlightWorker,
  terminalPalette,
  tokenLines,
} from './code-highlight.js'
import { transcriptLines } from './transcript-lines.js'

const plain = picocolors.createColors(false)
const colours = picocolors.createColors(true)
const ESC = '\u001b'
/** Text without the styles' own sequences (SGR: ESC [ digits ; m). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the styles' escape sequences
const withoutStyles = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '')

/**
 * The worker's entry as tsc builds it (a worker thread runs JavaScript, not the sources vitest
 * transforms; the bundle's copy is tested by test/e2e/cli-tui.e2e.ts).
 */
const workerFile = fileURLToPath(new URL('../../dist/tui/shiki-worker.js', import.meta.url))

const started: CodeHighlighter[] = []
afterAll(() => {
  for (const highlighter of started) highlighter.close()
})

/** A highlighter whose worker starts are counted (shiki in shiki-worker.ts, as tsc built it). */
function counted(style = colours) {
  if (!existsSync(workerFile)) throw new Error(`${workerFile} is missing: run npm run build first`)
  const loads = { count: 0 }
  const highlighter = new CodeHighlighter(style, () => {
    loads.count++
    return new Worker(workerFile, { workerData: { palette: terminalPalette } })
  })
  started.push(highlighter)
  return { highlighter, loads }
}

/** A worker thread running `source` (CommonJS) instead of shiki. */
const evalWorker = (source: string) => () =>
  new Worker(`const { parentPort } = require('node:worker_threads');\n${source}`, { eval: true })

describe('tokenLines', () => {
  it('paints each token in its palette colour, leaves plain ones and whitespace alone', () => {
    const lines = tokenLines(
      [
        [
          { content: 'const', color: terminalPalette.magenta },
          { content: ' x = ', color: terminalPalette.plain },
          { content: '1', color: terminalPalette.yellow.toUpperCase() },
        ],
        [{ content: '  ', color: terminalPalette.green }, { content: 'y' }],
      ],
      colours,
    )
    expect(lines).toEqual([`${colours.magenta('const')} x = ${colours.yellow('1')}`, '  y'])
  })

  it('gives plain text with colours off (NO_COLOR)', () => {
    const lines = tokenLines([[{ content: 'const', color: terminalPalette.magenta }]], plain)
    expect(lines).toEqual(['const'])
  })

  it('never passes a control character through: a token holding ESC is shown escaped', () => {
    const [line] = tokenLines(
      [[{ content: `"${ESC}[2J${ESC}]0;title\u0007"`, color: terminalPalette.green }]],
      colours,
    )
    expect(withoutStyles(line!)).toBe('"\\x1b[2J\\x1b]0;title\\x07"')
    expect(withoutStyles(line!)).not.toContain(ESC)
  })
})

describe('codeLanguage', () => {
  it('knows the fixed set by their usual names, and nothing else', () => {
    expect(codeLanguage('ts')).toBe('typescript')
    expect(codeLanguage('TSX')).toBe('tsx')
    expect(codeLanguage('sh')).toBe('bash')
    expect(codeLanguage('yml')).toBe('yaml')
    for (const info of ['', 'cobol', '../../etc', '__proto__', 'constructor', 'toString', `ts${ESC}[2J`])
      expect(codeLanguage(info)).toBeNull()
  })
})

describe('CodeHighlighter', () => {
  it('colours a ts block once shiki has loaded (pending until then); never loads shiki for other blocks', async () => {
    const { highlighter, loads } = counted()
    for (const info of ['', 'cobol', '../../etc', '__proto__'])
      expect(highlighter.lookup(['const x = 1'], info)).toBe('plain')
    expect(loads.count).toBe(0)
    let heard = 0
    highlighter.subscribe(() => heard++)
    const code = ['const x: number = 1', '// done']
    expect(highlighter.lookup(code, 'ts')).toBe('pending')
    await highlighter.settled()
    expect(heard).toBeGreaterThan(0)
    const found = highlighter.lookup(code, 'ts')
    expect(Array.isArray(found)).toBe(true)
    const lines = found as readonly string[]
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain(colours.magenta('const'))
    expect(lines[1]).toBe(colours.dim('// done'))
    expect(lines.map(withoutStyles)).toEqual(code)
    expect(loads.count).toBe(1)
  })

  it('with colours off (NO_COLOR) every block is plain and shiki is never loaded', () => {
    const { highlighter, loads } = counted(plain)
    expect(highlighter.lookup(['const x = 1'], 'ts')).toBe('plain')
    expect(loads.count).toBe(0)
  })

  it('a worker that cannot start leaves blocks plain, and is not started again', async () => {
    let starts = 0
    const throwing = new CodeHighlighter(colours, () => {
      starts++
      throw new Error('no threads here')
    })
    expect(throwing.lookup(['let a = 1'], 'js')).toBe('plain')
    expect(throwing.lookup(['let b = 2'], 'js')).toBe('plain')
    expect(starts).toBe(1)
    // A file that is not there: the thread starts, then fails to load its module.
    const missing = new CodeHighlighter(colours, () => new Worker('/nonexistent/shiki-worker.js'))
    let heard = 0
    missing.subscribe(() => heard++)
    expect(missing.lookup(['let a = 1'], 'js')).toBe('pending')
    await missing.settled()
    expect(heard).toBeGreaterThan(0)
    expect(missing.lookup(['let a = 1'], 'js')).toBe('plain')
    expect(missing.lookup(['let c = 3'], 'js')).toBe('plain')
  })

  it('a worker that exits mid-request (or throws) resolves every pending block as plain', async () => {
    for (const source of [
      "parentPort.on('message', () => process.exit(3))",
      "parentPort.on('message', () => { throw new Error('grammar blew up') })",
    ]) {
      const highlighter = new CodeHighlighter(colours, evalWorker(source))
      const blocks = Array.from({ length: 6 }, (_, i) => [`const v${i} = ${i}`])
      for (const block of blocks) expect(highlighter.lookup(block, 'ts')).toBe('pending')
      await highlighter.settled()
      for (const block of blocks) expect(highlighter.lookup(block, 'ts')).toBe('plain')
    }
  })

  it("sends the block asked for last first (the screen shows the transcript's end)", async () => {
    const sent: string[] = []
    const fake = Object.assign(new EventEmitter(), {
      postMessage: (request: { code: string }) => sent.push(request.code),
      unref: () => {},
      terminate: async () => 0,
    }) as unknown as HighlightWorker
    const highlighter = new CodeHighlighter(colours, () => fake)
    for (const code of ['a', 'b', 'c', 'd', 'e', 'f']) highlighter.lookup([code], 'ts')
    await new Promise((resolve) => setImmediate(resolve))
    expect(sent).toEqual(['f', 'e', 'd', 'c'])
    highlighter.close()
  })

  it('is unref-ed when started and terminated on close; what was pending is plain', async () => {
    const calls: string[] = []
    const fake = Object.assign(new EventEmitter(), {
      postMessage: () => calls.push('post'),
      unref: () => calls.push('unref'),
      terminate: async () => {
        calls.push('terminate')
        return 0
      },
    }) as unknown as HighlightWorker
    const highlighter = new CodeHighlighter(colours, () => fake)
    expect(highlighter.lookup(['x = 1'], 'py')).toBe('pending')
    expect(calls).toEqual(['unref'])
    // Sent once the render that asked is done.
    await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toEqual(['unref', 'post'])
    highlighter.close()
    await highlighter.settled()
    expect(calls.at(-1)).toBe('terminate')
    expect(highlighter.lookup(['x = 1'], 'py')).toBe('plain')
  })

  it("neutralises escapes in the worker's tokens, and declines tokens that do not fit the block", async () => {
    const hostile = `"${ESC}[2J${ESC}]0;title\u0007"`
    const highlighter = new CodeHighlighter(
      colours,
      evalWorker(
        `parentPort.on('message', ({ id, code }) => parentPort.postMessage({ id, lines: code === 'two' ? [[], []] : [[{ content: ${JSON.stringify(hostile)}, color: '${terminalPalette.green}' }]] }))`,
      ),
    )
    expect(highlighter.lookup(['ok'], 'ts')).toBe('pending')
    expect(highlighter.lookup(['two'], 'ts')).toBe('pending')
    await highlighter.settled()
    const [line] = highlighter.lookup(['ok'], 'ts') as readonly string[]
    expect(line).toBe(colours.green('"\\x1b[2J\\x1b]0;title\\x07"'))
    expect(withoutStyles(line!)).not.toContain(ESC)
    expect(highlighter.lookup(['two'], 'ts')).toBe('plain')
    highlighter.close()
  })
})

describe('code blocks in the transcript', () => {
  let seq = 0
  const event = (type: string, data: unknown): SessionEvent => ({ seq: seq++, time: 0, type, data })
  const reply = (text: string): SessionEvent[] => [
    event('turn/start', {}),
    event('user/message', { content: [{ type: 'text', text: 'show me' }] }),
    event('assistant/message', { content: [{ type: 'text', text }] }),
    event('turn/end', { reason: 'completed' }),
  ]

  it('shows a ts block plain, then coloured once ready, with escapes in it shown escaped', async () => {
    const events = reply(`Here:\n\n\`\`\`ts\nconst s = "${ESC}[2J"\n\`\`\`\nDone.`)
    const { highlighter } = counted()
    const cache = new Map<number, string[]>()
    const first = transcriptLines(events, colours, null, cache, false, highlighter).map((line) => line.text)
    const code = first.find((line) => line.includes('const s'))!
    expect(code).toBe('const s = "\\x1b[2J"')
    await highlighter.settled()
    // Drawn again (the message with a pending block was not cached): now coloured.
    const second = transcriptLines(events, colours, null, cache, false, highlighter).map((line) => line.text)
    const coloured = second.find((line) => line.includes('const'))!
    expect(coloured).toContain(colours.magenta('const'))
    expect(withoutStyles(coloured)).toBe('const s = "\\x1b[2J"')
    for (const line of second) expect(withoutStyles(line)).not.toContain(ESC)
    // The rest of the Markdown is as without a highlighter.
    expect(second.map(withoutStyles)).toEqual(
      transcriptLines(events, colours, null).map((line) => withoutStyles(line.text)),
    )
  })

  it('a hostile or unknown info string renders plain, as without a highlighter', async () => {
    const { highlighter, loads } = counted()
    for (const info of ['../../etc', 'cobol', `ts${ESC}[31m`]) {
      const events = reply(`\`\`\`${info}\nrm -rf / ${ESC}[2J\n\`\`\``)
      const lines = transcriptLines(events, colours, null, new Map(), false, highlighter)
      expect(lines.map((line) => line.text)).toEqual(
        transcriptLines(events, colours, null).map((line) => line.text),
      )
      for (const line of lines) expect(withoutStyles(line.text)).not.toContain(ESC)
    }
    await highlighter.settled()
    expect(loads.count).toBe(0)
  })
})

describe('renderMarkdown with a highlighter', () => {
  it('gives the block whole to it and writes what it returns; plain when it declines, throws or miscounts', () => {
    const text = 'a\n\n```py\nx = 1\ny = 2\n```\nb'
    const seen: [readonly string[], string][] = []
    const upper = renderMarkdown(text, plain, (lines, language) => {
      seen.push([lines, language])
      return lines.map((line) => line.toUpperCase())
    })
    expect(seen).toEqual([[['x = 1', 'y = 2'], 'py']])
    expect(upper).toContain('X = 1\nY = 2\n')
    const without = renderMarkdown(text, plain)
    expect(renderMarkdown(text, plain, () => null)).toBe(without)
    expect(
      renderMarkdown(text, plain, () => {
        throw new Error('grammar failed')
      }),
    ).toBe(without)
    expect(renderMarkdown(text, plain, () => ['one line for two'])).toBe(without)
  })

  it('writes a block the text leaves open at its end', () => {
    const open = renderMarkdown('```ts\nlet a = 1', plain, (lines) => lines.map((line) => `[${line}]`))
    expect(open).toContain('[let a = 1]')
  })
})
