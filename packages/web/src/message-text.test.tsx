import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { MessageText } from './message-text.js'

describe('MessageText', () => {
  it('renders fenced code as a block and backticks as inline code, the rest as text', () => {
    const html = renderToStaticMarkup(
      <MessageText text={'Run `npm test`:\n```sh\nnpm test\n```\nthen <b>look</b>.'} />,
    )
    expect(html).toContain('<code class="inline-code">npm test</code>')
    expect(html).toContain('<pre class="code-block"><code>npm test</code></pre>')
    expect(html).toContain('then &lt;b&gt;look&lt;/b&gt;.')
  })

  it('keeps an unterminated fence (still streaming) as code', () => {
    const html = renderToStaticMarkup(<MessageText text={'Here:\n```\nconst a = 1'} />)
    expect(html).toContain('<pre class="code-block"><code>const a = 1</code></pre>')
  })
})
