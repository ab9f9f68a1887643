import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { MessageText, splitBlocks } from './message-text.js'

const render = (text: string, streaming = false) =>
  renderToStaticMarkup(<MessageText text={text} streaming={streaming} />)

describe('MessageText', () => {
  it('renders fenced code as a block and backticks as inline code', () => {
    const html = render('Run `npm test`:\n\n```sh\nnpm test\n```\n')
    expect(html).toContain('<code class="inline-code">npm test</code>')
    expect(html).toMatch(/<pre class="code-block"><code>npm test<\/code><\/pre>/)
    expect(html).toContain('Copy sh code')
  })

  it('never renders HTML from the model: it shows as text', () => {
    const html = render('then <b>look</b>.\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>')
    expect(html).not.toContain('<b>')
    expect(html).not.toContain('<script')
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;b&gt;look&lt;/b&gt;')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })

  it('drops javascript: and other non-http(s)/mailto links, keeping their text; safe links open in a new tab', () => {
    const html = render(
      '[bad](javascript:alert(1)) [data](data:text/html,hi) [rel](../x) [ok](https://example.com) [mail](mailto:a@b.c)',
    )
    expect(html).not.toMatch(/javascript:|data:text|href="\.\.\/x"/)
    expect(html).toContain('bad')
    expect(html).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer">ok</a>')
    expect(html).toContain('href="mailto:a@b.c"')
  })

  it('does not fetch images: a link to them instead', () => {
    const html = render('![chart](https://example.com/c.png)')
    expect(html).not.toContain('<img')
    expect(html).toContain('[Image: chart]')
  })

  it('renders GFM: a table, a task list, strikethrough, headings, emphasis and lists', () => {
    const html = render(
      '# Plan\n\n**bold** _it_ ~~old~~\n\n- [x] done\n- [ ] todo\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
    )
    expect(html).toContain('<h1>Plan</h1>')
    expect(html).toContain('<strong>bold</strong>')
    expect(html).toContain('<em>it</em>')
    expect(html).toContain('<del>old</del>')
    expect(html).toContain('<input type="checkbox" disabled="" aria-label="Done" checked=""/> done')
    expect(html).toContain('<ol>')
    expect(html).toMatch(
      /<table><thead><tr><th>a<\/th><th>b<\/th><\/tr><\/thead><tbody><tr><td>1<\/td><td>2<\/td>/,
    )
  })

  it('keeps an unterminated fence (still streaming) as code', () => {
    const html = render('Here:\n\n```\nconst a = 1', true)
    expect(html).toMatch(/<pre class="code-block"><code>const a = 1<\/code><\/pre>/)
  })

  it('completes an unterminated ** while streaming, so no marker shows', () => {
    const html = render('Some **bold te', true)
    expect(html).toContain('<strong>bold te</strong>')
    expect(html).not.toContain('**')
  })

  it('leaves out a marker with nothing after it yet while streaming', () => {
    for (const tail of ['**', '*', '`', '``', '~~', '__'])
      expect(render(`Some ${tail}`, true), tail).toBe('<div class="message-body markdown"><p>Some</p></div>')
    expect(render('Intro\n\n``', true)).not.toContain('`')
  })

  it('cuts the text into blocks at blank lines outside fences, keeping lists and tables whole', () => {
    expect(splitBlocks('a\n\nb')).toEqual(['a\n', 'b'])
    expect(splitBlocks('```\nx\n\ny\n```\n\nz')).toEqual(['```\nx\n\ny\n```\n', 'z'])
    expect(splitBlocks('- a\n\n- b\n\n  more')).toEqual(['- a\n\n- b\n\n  more'])
  })
})
