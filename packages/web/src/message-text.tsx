// The assistant's Markdown (GFM: headings, emphasis, lists, task lists, tables, strikethrough,
// code blocks with highlighting and a copy button), rendered by react-markdown + remark-gfm.
// Made for text that streams in (docs/architecture.md §8):
// - the text is cut into top-level blocks, each rendered by a memoised component, so while a
//   reply grows only its last block is parsed again;
// - that last block is completed by `remend` while it streams (an unterminated `**`, `` ` ``,
//   link or fence is closed for the render), so no marker flashes as text and then vanishes;
// - the streaming reply and the finished one render the same element tree (no jump when the
//   `assistant/message` lands), and highlighting only recolours a block, never resizes it.
// Safety: HTML from the model is never rendered — it shows as text; links go out only to http(s)
// and mailto, open in a new tab with rel="noopener noreferrer"; other links (javascript:, data:,
// relative) show as their text; images are not fetched (a link to them instead: an image URL
// would tell a server what the page read). rehype-sanitize runs last, as a second fence.
import { memo, useEffect, useState } from 'react'
import Markdown, { type Components, type ExtraProps } from 'react-markdown'
import rehypeSanitize from 'rehype-sanitize'
import remarkGfm from 'remark-gfm'
import remend from 'remend'
import type { Token } from './highlight.js'
import { useScrollRegion } from './scroll-region.js'

export function MessageText({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const blocks = splitBlocks(text)
  return (
    <div className="message-body markdown">
      {blocks.map((block, index) => (
        <MarkdownBlock
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks of one growing text keep their place
          key={index}
          source={streaming && index === blocks.length - 1 ? completeStreamed(block) : block}
        />
      ))}
    </div>
  )
}

/**
 * The last block of a streaming reply as it will most likely read: markers that opened and
 * have not closed yet are closed (`remend`), and a run of them with nothing after it yet (`**`,
 * `` ` ``, the first backticks of a fence) is left out until its text arrives.
 */
export function completeStreamed(block: string): string {
  return remend(block.replace(/(^|\s)[*_~`]+$/, '$1'))
}

/**
 * The text cut at blank lines that end a top-level block: outside a code fence, and before a line
 * that starts at the margin and neither continues a list (a marker) nor a table. Every block but
 * the last is final once the next has begun. A link reference used in one block and defined in
 * another is the one thing this cut loses (models do not write them).
 */
export function splitBlocks(text: string): string[] {
  const lines = text.split('\n')
  const blocks: string[] = []
  let current: string[] = []
  let fence: string | null = null
  let blank = false
  for (const line of lines) {
    if (fence !== null) {
      current.push(line)
      if (closesFence(line, fence)) fence = null
      continue
    }
    if (blank && line.trim() !== '' && startsBlock(line) && current.some((kept) => kept.trim() !== '')) {
      blocks.push(current.join('\n'))
      current = []
    }
    current.push(line)
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (opening) fence = opening[1]!
    blank = line.trim() === ''
  }
  blocks.push(current.join('\n'))
  return blocks
}

/** A line at the margin that is not a list item or a table row (they may continue what came before). */
function startsBlock(line: string): boolean {
  return !/^\s/.test(line) && !/^([-*+]|\d{1,9}[.)])(\s|$)/.test(line) && !line.startsWith('|')
}

function closesFence(line: string, fence: string): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)
  return match !== null && match[1]![0] === fence[0] && match[1]!.length >= fence.length
}

/** The schemes a link may use; anything else is shown as its text. */
const safeLink = /^(https?:|mailto:)/i

export function safeUrl(url: string): string | null {
  return safeLink.test(url.trim()) ? url.trim() : null
}

/** Raw HTML in the Markdown becomes text: shown as the model wrote it, never parsed. */
function htmlAsText() {
  type Node = { type: string; value?: string; children?: Node[] }
  const flow = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition'])
  const walk = (node: Node) => {
    if (!node.children) return
    node.children = node.children.map((child) => {
      if (child.type !== 'html') {
        walk(child)
        return child
      }
      const text = { type: 'text', value: child.value ?? '' }
      return flow.has(node.type) ? { type: 'paragraph', children: [text] } : text
    })
  }
  return (tree: Node) => walk(tree)
}

const remarkPlugins = [remarkGfm, htmlAsText]
const rehypePlugins = [rehypeSanitize]

const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  return (
    <Markdown
      remarkPlugins={remarkPlugins}
      rehypePlugins={rehypePlugins}
      components={components}
      urlTransform={(url) => safeUrl(url)}
      skipHtml
    >
      {source}
    </Markdown>
  )
})

type HastNode = {
  type: string
  value?: string
  tagName?: string
  properties?: Record<string, unknown>
  children?: HastNode[]
}

function textOf(node: HastNode | undefined): string {
  if (!node) return ''
  if (node.type === 'text') return node.value ?? ''
  return (node.children ?? []).map(textOf).join('')
}

const components: Components = {
  a({ href, children }) {
    const url = typeof href === 'string' ? safeUrl(href) : null
    if (url === null) return <span className="link-dropped">{children}</span>
    return (
      <a href={url} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    )
  },
  img({ src, alt }) {
    const url = typeof src === 'string' ? safeUrl(src) : null
    const label = alt ? `Image: ${alt}` : 'Image'
    if (url === null) return <span>[{label}]</span>
    return (
      <a href={url} target="_blank" rel="noopener noreferrer">
        [{label}]
      </a>
    )
  },
  pre({ node }: ExtraProps) {
    const code = (node as HastNode | undefined)?.children?.find((child) => child.tagName === 'code')
    const classes = code?.properties?.className
    const language = (Array.isArray(classes) ? classes.map(String) : [])
      .find((name) => name.startsWith('language-'))
      ?.slice('language-'.length)
    return <CodeBlock code={textOf(code).replace(/\n$/, '')} language={language ?? ''} />
  },
  code({ children }) {
    return <code className="inline-code">{children}</code>
  },
  table({ children }) {
    return <ScrollingTable>{children}</ScrollingTable>
  },
  input({ checked }) {
    // GFM task list items: a read-only box, named so a screen reader says what it means.
    return (
      <input type="checkbox" checked={checked === true} disabled aria-label={checked ? 'Done' : 'Not done'} />
    )
  },
}

function ScrollingTable({ children }: { children: React.ReactNode }) {
  const region = useScrollRegion<HTMLDivElement>('Table')
  return (
    <div className="table-scroll" {...region}>
      <table>{children}</table>
    </div>
  )
}

/** A fenced block: its language and a copy button above, wide lines scroll sideways (by keyboard too). */
export function CodeBlock({ code, language }: { code: string; language: string }) {
  const region = useScrollRegion<HTMLPreElement>('Code')
  const tokens = useHighlight(code, language)
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), 1500)
    return () => clearTimeout(timer)
  }, [copied])
  return (
    <div className="code-block-frame">
      <div className="code-block-header">
        <span className="code-language">{language}</span>
        <button
          type="button"
          className="action subtle code-copy"
          data-testid="copy-code"
          aria-label={language ? `Copy ${language} code` : 'Copy code'}
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(
              () => setCopied(true),
              () => undefined,
            )
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre className="code-block" {...region}>
        <code>{tokens ? <Highlighted code={code} tokens={tokens} /> : code}</code>
      </pre>
    </div>
  )
}

/**
 * The tokens of `code`, or of the text it grew from while it streams (then the rest is plain):
 * highlighting is asynchronous, and a block must never blink back to plain between two renders.
 */
function useHighlight(code: string, language: string): { code: string; lines: Token[][] } | null {
  const [result, setResult] = useState<{ code: string; lines: Token[][] } | null>(null)
  useEffect(() => {
    if (language === '') return
    let cancelled = false
    // Coalesces a streaming block's many changes: one highlight once it pauses for 120 ms.
    const timer = setTimeout(() => {
      import('./highlight.js')
        .then(({ highlight }) => highlight(code, language))
        .then((lines) => {
          if (!cancelled && lines) setResult({ code, lines })
        })
        .catch(() => undefined)
    }, 120)
    return () => {
      cancelled = true
      clearTimeout(timer)
    }
  }, [code, language])
  return result && code.startsWith(result.code) ? result : null
}

function Highlighted({ code, tokens }: { code: string; tokens: { code: string; lines: Token[][] } }) {
  const rest = code.slice(tokens.code.length)
  return (
    <>
      {tokens.lines.map((line, lineIndex) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of one immutable text
        <span key={lineIndex}>
          {line.map((token, index) => (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: tokens of one immutable line
              key={index}
              className="token"
              style={{ '--token-light': token.light, '--token-dark': token.dark } as React.CSSProperties}
            >
              {token.content}
            </span>
          ))}
          {lineIndex < tokens.lines.length - 1 ? '\n' : null}
        </span>
      ))}
      {rest}
    </>
  )
}
