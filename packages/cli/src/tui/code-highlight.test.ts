import picocolors from 'picocolors'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../backend.js'
import { renderMarkdown } from '../render/markdown.js'
import { CodeHighlighter, codeLanguage, terminalPalette, tokenLines } from './code-highlight.js'
import { createTokenizer } from './shiki-tokens.js'
import { transcriptLines } from './transcript-lines.js'

const plain = picocolors.createColors(false)
const colours = picocolors.createColors(true)
const ESC = '\u001b'
/** Text without the styles' own sequences (SGR: ESC [ digits ; m). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the styles' escape sequences
const withoutStyles = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '')

/** A highlighter whose loads are counted (shiki itself, from source). */
function counted(style = colours) {
  const loads = { count: 0 }
  const highlighter = new CodeHighlighter(style, () => {
    loads.count++
    return createTokenizer(terminalPalette)
  })
  return { highlighter, loads }
}

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

  it('a shiki that fails to load leaves blocks plain', async () => {
    const highlighter = new CodeHighlighter(colours, () => Promise.reject(new Error('no shiki here')))
    expect(highlighter.lookup(['let a = 1'], 'js')).toBe('pending')
    await highlighter.settled()
    expect(highlighter.lookup(['let a = 1'], 'js')).toBe('plain')
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
