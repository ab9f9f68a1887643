import { describe, expect, it } from 'vitest'
import { clip } from './style.js'

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
