import { describe, expect, it } from 'vitest'
import { clip, clipUnescaped, safeLine, safeText, styleFor, titleOf } from './style.js'

// What clip promised before its fast path: whitespace runs as one space, trimmed, cut at `max`.
function reference(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** A seeded generator (mulberry32), so a failure names a text that can be made again. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pieces = [
  'word',
  'a',
  ' ',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u2003',
  '\u3000',
  'é',
  '→',
  'x\u200by',
]

describe('clip', () => {
  it('keeps a one-line text as it is and cuts it at max', () => {
    expect(clip('one line of words', 40)).toBe('one line of words')
    expect(clip('one line of words', 8)).toBe('one lin…')
  })

  it('collapses every kind of whitespace, at the ends too', () => {
    expect(clip('  two\n\nlines\there ', 40)).toBe('two lines here')
    expect(clip('a\u00a0b\u2003c', 40)).toBe('a b c')
    expect(clip(' ', 10)).toBe('')
    expect(clip('x ', 10)).toBe('x')
  })

  it('answers what the plain collapse-and-cut answers, on 3,000 generated texts', () => {
    const next = random(16)
    for (let i = 0; i < 3000; i++) {
      const count = Math.floor(next() * 120)
      let text = ''
      for (let j = 0; j < count; j++) text += pieces[Math.floor(next() * pieces.length)]
      const max = 2 + Math.floor(next() * 100)
      expect(clip(text, max), JSON.stringify({ text, max })).toBe(reference(text, max))
    }
  })
})

/** Every code point in [from, to]. */
function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, index) => String.fromCharCode(from + index))
}

const hex = (character: string) => character.charCodeAt(0).toString(16).padStart(2, '0')
const c0 = range(0x00, 0x1f)
const c1 = range(0x80, 0x9f)
const bidi = [...range(0x202a, 0x202e), ...range(0x2066, 0x2069)]
/** The C0 controls, DEL and C1 controls in `text` but those `allowed`, as U+ codes ([] when none). */
function controlsIn(text: string, allowed = ''): string[] {
  const found: string[] = []
  for (const character of text) {
    const code = character.charCodeAt(0)
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f)
    if (control && !allowed.includes(character)) found.push(`U+${code.toString(16).padStart(4, '0')}`)
  }
  return found
}

describe('safeText', () => {
  it('escapes every C0 control but newline and tab, DEL and every C1 control', () => {
    for (const character of [...c0, '\x7f', ...c1]) {
      const expected =
        character === '\n' || character === '\t'
          ? character
          : character === '\r'
            ? '\\r'
            : `\\x${hex(character)}`
      expect(safeText(`a${character}b`), `U+${hex(character)}`).toBe(`a${expected}b`)
    }
  })

  it('shows the sequences QA found as text: a window title, a screen clear, the 8-bit CSI', () => {
    const evil = 'hello \x1b]0;PWNED-TITLE\x07 \x1b[2J world \x9b31mred\r\nnext'
    const shown = safeText(evil)
    expect(shown).toBe('hello \\x1b]0;PWNED-TITLE\\x07 \\x1b[2J world \\x9b31mred\\r\nnext')
    expect(controlsIn(shown, '\n\t')).toEqual([])
  })

  it('keeps newlines, tabs, bidi controls and ordinary Unicode as they are', () => {
    const text =
      'line 1\n\tindented — 日本語のテキスト, 한국어, עברית \u200f, العربية, emoji 👩‍💻🚀, é (e\u0301)'
    expect(safeText(text)).toBe(text)
    expect(safeText(bidi.join(''))).toBe(bidi.join(''))
  })
})

describe('safeLine', () => {
  it('escapes newline, tab, every other control and the bidi overrides and isolates', () => {
    expect(safeLine('a\nb\tc\rd')).toBe('a\\nb\\tc\\rd')
    for (const character of [...c0, '\x7f', ...c1]) expect(controlsIn(safeLine(character))).toEqual([])
    for (const character of bidi)
      expect(safeLine(`x${character}y`)).toBe(`x\\u${character.charCodeAt(0).toString(16)}y`)
  })

  it('keeps ordinary Unicode (CJK, RTL letters, emoji with joiners, combining marks) as it is', () => {
    const text = '日本語 한국어 עברית العربية 👩‍💻🚀 e\u0301 \u200e\u200f ©'
    expect(safeLine(text)).toBe(text)
  })

  it("leaves Tangent's own colours working: styling goes around the escaped text", () => {
    const colours = styleFor({ write: () => true, isTTY: true }, {})
    const shown = colours.red(safeLine('\x1b[2Jtitle\x1b]0;X\x07'))
    expect(shown).toBe('\x1b[31m\\x1b[2Jtitle\\x1b]0;X\\x07\x1b[39m')
    // The only escape sequences left are picocolors' own: red on, default colour back.
    expect(controlsIn(shown.slice('\x1b[31m'.length, -'\x1b[39m'.length))).toEqual([])
  })
})

describe('clip, clipUnescaped and titleOf', () => {
  it('clip collapses whitespace, then escapes what is left, and cuts what is shown', () => {
    expect(clip('a\n\x1b[2J\tb\u202e', 40)).toBe('a \\x1b[2J b\\u202e')
    expect(clip('\x1b'.repeat(10), 10)).toBe('\\x1b\\x1b\\…')
    // A long text takes the prefix path: the same answer.
    const long = `${'\x07'.repeat(500)}${' '.repeat(500)}`
    expect(clip(long, 20)).toBe(`${'\\x07'.repeat(4)}\\x0…`)
  })

  it('clipUnescaped keeps the text as typed (a title stored from a first message)', () => {
    expect(clipUnescaped('read \x1b]0;T\x07\n evil.txt', 40)).toBe('read \x1b]0;T\x07 evil.txt')
  })

  it('titleOf shows a title on one line, escaped', () => {
    expect(titleOf({ title: 'a\nb \x1b[31mRED' })).toBe('a\\nb \\x1b[31mRED')
    expect(titleOf({ title: '' })).toBe('(untitled)')
  })
})
