// The HTML export's renderer (html-export.ts): hostile text from every source stays text, links
// and images cannot reach out, forks link to where they forked, huge outputs are capped, and a
// long session renders whole with its outputs capped (its speed: bench/export.bench.ts).
import { type Session, SessionStore } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { exportHtml, type HtmlExportInput, htmlExportPolicy } from './html-export.js'
import { isPlainProse, loadMarkdownRenderer, maxMarkdownChars, safeMarkdownHtml } from './html-markdown.js'
import { escapeHtml, OutputBudget } from './html-text.js'

const context = { now: Date.UTC(2026, 11, 4, 6, 0, 0), version: '0.1.0' }

/** A completed turn: the user's text, the assistant's parts, a tool result per call, usage. */
function turn(
  session: Session,
  user: string,
  assistant: unknown[],
  results: { callId: string; toolName: string; output: unknown; isError?: boolean }[] = [],
  after: unknown[] = [],
): void {
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text: user }] })
  session.append('step/start', {})
  session.append('assistant/message', { content: assistant })
  for (const result of results) session.append('tool/result', { isError: false, ...result })
  session.append('step/end', { finishReason: 'stop', usage: { inputTokens: 1200, outputTokens: 34 } })
  if (after.length > 0) {
    session.append('step/start', {})
    session.append('assistant/message', { content: after })
    session.append('step/end', { finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } })
  }
  session.append('turn/end', { reason: 'completed' })
}

function one(session: Session): HtmlExportInput {
  return { exported: { session, throughSeq: session.events.length - 1, model: 'demo:scripted' } }
}

/** The document's body markup: what the session put there (the head's stylesheet aside). */
function bodyOf(html: string): string {
  return html.slice(html.indexOf('<body>'))
}

describe('exportHtml: one session', () => {
  it('is one document with a strict policy, a language, the texts, the usage and the folder', async () => {
    const store = new SessionStore()
    const session = store.create('s1', { meta: { cwd: '/work/project', title: 'My session' } })
    session.append('model/selection', { provider: 'demo', model: 'scripted' })
    turn(session, 'hello there', [{ type: 'text', text: 'Hi **you**.' }])
    const html = await exportHtml(one(session), context)
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true)
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${htmlExportPolicy}">`)
    expect(htmlExportPolicy).toContain("default-src 'none'")
    expect(htmlExportPolicy).not.toContain('script-src')
    expect(html).toContain('<h1>My session</h1>')
    expect(html).toContain('hello there')
    expect(html).toContain('Hi <strong>you</strong>.')
    expect(html).toContain('/work/project')
    expect(html).toContain('1,200 tokens in')
    expect(html).toContain('demo:scripted')
    expect(html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">/)
    // No script, no external resource of any kind.
    expect(html).not.toMatch(/<script|<link|<iframe|<object|<embed|\bsrc="(?!data:)/i)
  })

  it('escapes <script> in a message, a tool output, a tool name, a title and a folder', async () => {
    const store = new SessionStore()
    const session = store.create('s1', {
      meta: { cwd: '/tmp/<script>alert("cwd")</script>', title: '<script>alert("title")</script>' },
    })
    turn(
      session,
      '<script>alert("user")</script>',
      [
        { type: 'text', text: 'look: <script>alert("assistant")</script>' },
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'bash',
          input: { command: '<img src=x onerror=alert(1)>' },
        },
        { type: 'tool-call', toolCallId: 'c2', toolName: '<b>evil</b>', input: {} },
      ],
      [
        { callId: 'c1', toolName: 'bash', output: '</pre></details><script>alert("tool")</script>' },
        { callId: 'c2', toolName: '<b>evil</b>', output: { html: '<iframe src="https://x">' } },
      ],
    )
    const html = bodyOf(await exportHtml(one(session), context))
    expect(html).not.toMatch(/<script|<img|<iframe|<b>evil/i)
    expect(html).toContain('&lt;script&gt;alert(&quot;user&quot;)&lt;/script&gt;')
    expect(html).toContain('&lt;script&gt;alert(&quot;assistant&quot;)&lt;/script&gt;')
    expect(html).toContain('&lt;/pre&gt;&lt;/details&gt;&lt;script&gt;alert(&quot;tool&quot;)')
    expect(html).toContain('&lt;b&gt;evil&lt;/b&gt;')
    expect(html).toContain('/tmp/&lt;script&gt;alert(&quot;cwd&quot;)&lt;/script&gt;')
    // The output's </details> did not close the fold: as many opened as closed, in the right order.
    expect(html.match(/<details/g)?.length).toBe(html.match(/<\/details>/g)?.length)
    expect(html.match(/<pre>/g)?.length).toBe(html.match(/<\/pre>/g)?.length)
    const full = await exportHtml(one(session), context)
    expect(full).toContain('<title>&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; · Tangent</title>')
  })

  it('folds each tool call with its input, permission and result; a huge output is capped with a note', async () => {
    const store = new SessionStore()
    const session = store.create('s1', { meta: { cwd: '/p' } })
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'go' }] })
    session.append('step/start', {})
    session.append('assistant/message', {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'yes | head' } }],
    })
    session.append('permission/requested', { callId: 'c1', toolName: 'bash', input: {}, pattern: 'yes *' })
    session.append('permission/answered', { callId: 'c1', decision: 'once', by: 'user' })
    session.append('tool/result', {
      callId: 'c1',
      toolName: 'bash',
      output: 'y\n'.repeat(100_000),
      isError: false,
    })
    session.append('step/end', { finishReason: 'tool-calls' })
    session.append('turn/end', { reason: 'completed' })
    const html = await exportHtml(one(session), context)
    expect(html).toMatch(
      /<details class="block tool"><summary><span class="tool-name">bash<\/span> <span class="mono">yes \| head<\/span>/,
    )
    expect(html).toContain('Permission asked for <span class="mono">yes *</span>; allowed once (user).')
    expect(html).toContain(
      `${(200_000 - 65_536).toLocaleString('en-US')} more characters of this result are not shown`,
    )
    expect(html.length).toBeLessThan(120_000)
  })

  it('says a preToolUse hook denied a call, without a question nobody asked', async () => {
    const store = new SessionStore()
    const session = store.create('s1', { meta: { cwd: '/p' } })
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'go' }] })
    session.append('step/start', {})
    session.append('assistant/message', {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'rm -rf x' } }],
    })
    session.append('permission/answered', {
      callId: 'c1',
      decision: 'deny',
      reason: 'no <rm> here',
      by: 'hook',
      hook: { command: './guard.sh', source: '/home/u/.config/tangent/config.json' },
    })
    session.append('tool/result', { callId: 'c1', toolName: 'bash', output: 'denied', isError: true })
    session.append('step/end', { finishReason: 'tool-calls' })
    session.append('turn/end', { reason: 'completed' })
    const html = await exportHtml(one(session), context)
    expect(html).toContain('Denied by a preToolUse hook: no &lt;rm&gt; here.')
    expect(html).not.toContain('Permission asked')
  })

  it('renders Markdown without raw HTML, javascript: links or remote images', async () => {
    const markdown = await loadMarkdownRenderer()
    const html = markdown(
      [
        '# Title',
        '',
        '<div onclick="alert(1)">raw block</div>',
        '',
        'inline <span style="x">tag</span> and [bad](javascript:alert(1)) and [Bad](JaVaScRiPt:alert(2))',
        '',
        '[ok](https://example.com/a?b=1&c=2) [mail](mailto:a@b.c) [rel](../etc/passwd) [data](data:text/html,<script>alert(1)</script>)',
        '',
        '![remote](https://tracker.example/pixel.png) [![in a link](https://i.example/i.png)](https://l.example)',
        '',
        '<details><summary>x</summary>',
        '',
        '- [x] done',
        '- [ ] open',
        '',
        'note[^1]',
        '',
        '[^1]: the footnote',
      ].join('\n'),
      'p1-',
    )
    expect(html).not.toMatch(/<div|<span style|<details|<img|<input|javascript:|data:text/i)
    expect(html).toContain('&lt;div onclick=&quot;alert(1)&quot;&gt;raw block&lt;/div&gt;')
    expect(html).toContain('<span class="link-text">bad</span>')
    expect(html).toContain('<span class="link-text">Bad</span>')
    expect(html).toContain('<span class="link-text">rel</span>')
    expect(html).toContain(
      '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">ok</a>',
    )
    expect(html).toContain('<a href="mailto:a@b.c" rel="noopener noreferrer" target="_blank">mail</a>')
    expect(html).toContain(
      '<a href="https://tracker.example/pixel.png" rel="noopener noreferrer" target="_blank"><span class="image-ref">[image: remote]</span></a>',
    )
    expect(html).toContain(
      '<a href="https://l.example" rel="noopener noreferrer" target="_blank"><span class="image-ref">[image: in a link]</span></a>',
    )
    expect(html).toContain('<h4>Title</h4>')
    expect(html).toContain('<span class="task">[x]</span> done')
    // Footnote ids carry the prefix, so two messages with footnotes never share an id.
    expect(html).toContain('id="p1-fn-1"')
    expect(html).toContain('id="p1-footnote-label"')
    expect(html).not.toContain('"footnote-label"')
    // Every <a> the renderer lets through is an outside http(s)/mailto link or a place in the file.
    for (const match of html.matchAll(/<a href="([^"]*)"/g))
      expect(match[1]).toMatch(/^(https?:|mailto:|#p1-)/)
  })

  it('the shortcut for plain prose writes what micromark writes; anything else goes to micromark', async () => {
    const { micromark } = await import('micromark')
    const markdown = await loadMarkdownRenderer()
    for (const text of [
      'Done with 3999.',
      'One line\nand another.\n\n\nNew paragraph!',
      '\nÉté, 50% (approx.) "quoted"',
      '',
    ])
      expect(isPlainProse(text), text).toBe(true)
    for (const text of [
      'Done with 3999.',
      'One line\nand another.\n\n\nNew paragraph!',
      '\nÉté, 50% (approx.) "quoted"',
    ])
      expect(markdown(text, 'p-').replaceAll('&#39;', "'")).toBe(micromark(text))
    for (const text of [
      '1. a list',
      'a  \nhard break',
      '    code',
      'a *b*',
      'x <y>',
      'Title\n===',
      'a & b',
      'see www.x.y',
    ])
      expect(isPlainProse(text), text).toBe(false)
  })

  it('a text past the Markdown limit, or past the time budget, is shown as written', async () => {
    const long = `- item\n`.repeat(maxMarkdownChars / 7 + 1)
    const markdown = await loadMarkdownRenderer()
    expect(markdown(long, 'p-')).toMatch(
      /^<p class="clipped">This text is too long to render as Markdown; it is shown as written.<\/p><pre>- item\n/,
    )
    const spent = await loadMarkdownRenderer(0)
    expect(spent('*a*', 'p-')).toBe('<p><em>a</em></p>')
    expect(spent('*b*', 'p-')).toContain('ran out of time to render Markdown')
  })

  it('the link rewriting keeps only micromark-made tags (a crafted string cannot smuggle an attribute)', () => {
    const crafted = safeMarkdownHtml(`<p>${escapeHtml('<a href="javascript:x" onclick="y">z</a>')}</p>`, 'p-')
    expect(crafted).not.toContain('<a')
  })

  it('shows an attached image as a data: URL only, and a non-image attachment as a note', async () => {
    const store = new SessionStore()
    const session = store.create('s1', { meta: { cwd: '/p' } })
    session.append('turn/start', {})
    session.append('user/message', {
      content: [
        { type: 'text', text: 'see' },
        { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'file', mediaType: 'image/svg+xml', data: 'PHN2Zz4=' },
        { type: 'file', mediaType: 'image/png', data: '" onerror="alert(1)' },
        { type: 'file', mediaType: 'image/gif', data: 'A'.repeat(8196) },
      ],
    })
    session.append('step/start', {})
    session.append('assistant/message', { content: [{ type: 'text', text: 'ok' }] })
    session.append('step/end', { finishReason: 'stop' })
    session.append('turn/end', { reason: 'completed' })
    const html = bodyOf(await exportHtml(one(session), context))
    expect(html).toContain('<img class="attached" src="data:image/png;base64,iVBORw0KGgo="')
    expect(html.match(/<img /g)?.length).toBe(2)
    // A large image's base64 goes in lines of 4 KiB (the export's pages are cut at lines).
    expect(html).toContain(`base64,${'A'.repeat(4096)}\n${'A'.repeat(4096)}\nAAAA"`)
    expect(html).toContain('Attached image/svg+xml')
    expect(html).not.toContain('onerror')
  })
})

describe('exportHtml: a tree', () => {
  function tree() {
    const store = new SessionStore()
    const root = store.create('root1', { meta: { cwd: '/p', title: 'Root' } })
    turn(root, 'first', [{ type: 'text', text: 'one' }])
    const firstEnd = root.events.length - 1
    turn(root, 'second on root', [{ type: 'text', text: 'two' }])
    const fork = store.fork(root, firstEnd, 'fork1', { meta: { title: 'Fork <A>' } })
    turn(fork, 'branch words', [{ type: 'text', text: 'three' }])
    const grand = store.fork(fork, fork.events.length - 1, 'grand1', { meta: { title: 'Grandchild' } })
    turn(grand, 'deeper', [{ type: 'text', text: 'four' }])
    const entry = (session: Session) => ({ session, throughSeq: session.events.length - 1, model: null })
    const input: HtmlExportInput = {
      exported: entry(fork),
      tree: {
        sessions: [entry(root), entry(fork), entry(grand)],
        unreadable: [{ id: 'gone1', message: 'Session gone1 is <damaged>.' }],
      },
    }
    return { input, firstEnd }
  }

  it('lists every branch, links each fork to the turn it forked after and back, shows own turns only', async () => {
    const { input } = tree()
    const html = await exportHtml(input, context)
    const nav = html.slice(html.indexOf('<nav class="tree-nav"'), html.indexOf('</nav>') + 6)
    expect(nav).toContain('<a href="#s-root1">Root</a>')
    expect(nav).toContain(
      '<a href="#s-fork1" aria-current="true">Fork &lt;A&gt;</a> <span class="badge">exported</span>',
    )
    expect(nav).toMatch(/<a href="#s-fork1"[\s\S]*<ul><li><a href="#s-grand1">Grandchild<\/a>/)
    expect(nav).toContain('forked after turn 1')
    expect(nav).toContain('<span class="mono">gone1</span> (Session gone1 is &lt;damaged&gt;.)')
    const section = (id: string) => {
      const start = html.indexOf(`<section class="session" id="s-${id}"`)
      return html.slice(start, html.indexOf('<p class="back">', start))
    }
    expect(section('fork1')).toContain('<a href="#s-root1-t1">Root</a>, after turn 1')
    expect(section('fork1')).toContain('<h3 id="s-fork1-t2-h">Turn 2</h3>')
    expect(section('fork1')).not.toContain('first')
    expect(section('root1')).toContain('second on root')
    expect(section('root1')).toMatch(
      /id="s-root1-t1"[\s\S]*Branches from here: <a href="#s-fork1">Fork &lt;A&gt;<\/a>[\s\S]*id="s-root1-t2"/,
    )
    expect(section('grand1')).toContain('<a href="#s-fork1-t2">Fork &lt;A&gt;</a>, after turn 2')
    // Every in-file link points at an id the file has.
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]))
    for (const match of html.matchAll(/href="#([^"]+)"/g)) expect(ids, match[1]).toContain(match[1])
  })
})

describe('exportHtml: scale', () => {
  // Its speed at 50,000 events is measured in bench/export.bench.ts, not here.
  it('renders a long session whole, capped outputs keeping the file in bounds', async () => {
    const store = new SessionStore()
    const session = store.create('big', { meta: { cwd: '/p' } })
    // 5,000 events: turns of 10 (a text reply with some Markdown, a tool call, its result).
    for (let index = 0; session.events.length < 5_000; index++) {
      turn(
        session,
        `question ${index}: what about item ${index}?`,
        [
          {
            type: 'text',
            text: `Looking at **item ${index}**, see \`src/file-${index}.ts\`:\n\n- one\n- two`,
          },
          {
            type: 'tool-call',
            toolCallId: `c${index}`,
            toolName: 'read',
            input: { path: `src/file-${index}.ts` },
          },
        ],
        [{ callId: `c${index}`, toolName: 'read', output: `line\n`.repeat(index % 100 === 0 ? 50_000 : 40) }],
        [{ type: 'text', text: `Done with ${index}.` }],
      )
    }
    expect(session.events.length).toBeGreaterThanOrEqual(5_000)
    const html = await exportHtml(one(session), context)
    expect(html).toContain('Done with 0.')
    expect(html).toContain('Done with 399.')
    // Four outputs of 250 KB each are shown capped at 64 KiB: the file stays near the rest's size.
    expect(html.match(/more characters of this result are not shown/g)?.length ?? 0).toBeGreaterThanOrEqual(4)
    expect(html.length).toBeLessThan(4_000_000)
  }, 60_000)

  it('the budget caps each block, then, past the total, every block harder', () => {
    const budget = new OutputBudget(10, 25, 3)
    expect(budget.take('a'.repeat(30))).toEqual({ shown: 'a'.repeat(10), omitted: 20 })
    expect(budget.take('b'.repeat(30)).shown).toHaveLength(10)
    expect(budget.take('c'.repeat(30)).shown).toHaveLength(10)
    expect(budget.take('d'.repeat(30))).toEqual({ shown: 'ddd', omitted: 27 })
    // A surrogate pair is never cut in two.
    expect(new OutputBudget(3).take('ab😀c').shown).toBe('ab')
  })
})
