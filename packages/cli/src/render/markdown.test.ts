import picocolors from 'picocolors'
import { describe, expect, it } from 'vitest'
import { MarkdownStream, renderMarkdown } from './markdown.js'

const plain = picocolors.createColors(false)
const colour = picocolors.createColors(true)

const sample = [
  '# Plan',
  '',
  'Some **bold**, __strong__, *it*, ~~old~~ and `code` with a [link](https://example.com).',
  '',
  '- one',
  '- [x] done',
  '- [ ] todo',
  '1. first',
  '> quoted',
  '',
  '| name | n |',
  '|------|--:|',
  '| a | 1 |',
  '| long name | 22 |',
  '',
  '```ts',
  'const a = **not bold** // `kept`',
  '```',
  'snake_case_name stays, 2 * 3 * 4 too.',
].join('\n')

const expected = [
  'Plan',
  '',
  'Some bold, strong, it, old and code with a link (https://example.com).',
  '',
  '• one',
  '☑ done',
  '☐ todo',
  '1. first',
  '│ quoted',
  '',
  'name      │  n',
  '──────────┼───',
  'a         │  1',
  'long name │ 22',
  '',
  '─── ts ────────────',
  'const a = **not bold** // `kept`',
  '────────────────────',
  'snake_case_name stays, 2 * 3 * 4 too.',
].join('\n')

describe('Markdown for a terminal', () => {
  it('leaves no raw markers: emphasis, code, links, lists, tasks, quotes, an aligned table; code verbatim', () => {
    expect(renderMarkdown(sample, plain)).toBe(expected)
  })

  it('gives the same text streamed in any pieces as at once', () => {
    for (const size of [1, 2, 3, 5, 7, 13]) {
      const stream = new MarkdownStream(plain)
      let out = ''
      for (let at = 0; at < sample.length; at += size) out += stream.push(sample.slice(at, at + size))
      out += stream.end()
      expect(out, `pieces of ${size}`).toBe(expected)
    }
  })

  it('writes a paragraph as it streams, holding back only what could still change', () => {
    const stream = new MarkdownStream(plain)
    expect(stream.push('Hello wor')).toBe('Hello wor')
    expect(stream.push('ld **bo')).toBe('ld bo')
    expect(stream.push('ld** and [a li')).toBe('ld and ')
    expect(stream.push('nk](https://x.y) ok')).toBe('a link (https://x.y) ok')
    expect(stream.end()).toBe('')
  })

  it('styles with colour on: bold, code in cyan, headings bold', () => {
    const out = renderMarkdown('## Title\n\n**b** `c`', colour)
    expect(out).toContain(colour.bold(colour.underline('Title')))
    expect(out).toContain(colour.bold('b'))
    expect(out).toContain(colour.cyan('c'))
    expect(out).not.toContain('**')
    expect(out).not.toContain('`')
  })
})
