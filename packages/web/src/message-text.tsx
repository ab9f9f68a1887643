// Message text with the two bits of Markdown that matter most in an agent's answers:
// fenced code blocks and `inline code`. Everything else stays plain text (pre-wrapped).
import { Fragment } from 'react'
import { useScrollRegion } from './scroll-region.js'

export function MessageText({ text }: { text: string }) {
  const pieces = text.split(/^```[^\n]*\n?/m)
  // Even pieces are prose, odd pieces sit between an opening and a closing fence.
  return (
    <div className="message-body">
      {pieces.map((piece, index) =>
        index % 2 === 1 ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one immutable text
          <CodeBlock key={index} code={piece.replace(/\n$/, '')} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one immutable text
          <Fragment key={index}>{inlineCode(piece)}</Fragment>
        ),
      )}
    </div>
  )
}

/** A fenced block: wide lines scroll sideways, by keyboard too. */
function CodeBlock({ code }: { code: string }) {
  const region = useScrollRegion<HTMLPreElement>('Code')
  return (
    <pre className="code-block" {...region}>
      <code>{code}</code>
    </pre>
  )
}

function inlineCode(text: string) {
  const parts = text.split(/(`[^`\n]+`)/)
  return parts.map((part, index) =>
    part.length > 2 && part.startsWith('`') && part.endsWith('`') ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one immutable text
      <code className="inline-code" key={index}>
        {part.slice(1, -1)}
      </code>
    ) : (
      part
    ),
  )
}
