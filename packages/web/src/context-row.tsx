// What the model is sent besides the messages, as quiet transcript rows (docs/architecture.md
// §12): the instruction files recorded from here on, and a compaction with its summary
// (expandable). Forks before a compaction keep the full history; the fork dialog says so.
import { memo } from 'react'
import type { ContextModel } from './transcript-model.js'

export const ContextRow = memo(function ContextRow(props: { context: ContextModel }) {
  const { context } = props
  if (context.kind === 'instructions') {
    return (
      <div className="context-row" data-testid="context-instructions" data-seq={context.seq}>
        {context.paths.length === 0
          ? 'Instructions: none (the files are gone)'
          : `Instructions: ${context.paths.join(', ')}`}
      </div>
    )
  }
  if (context.kind === 'compaction-failed') {
    return (
      <div className="context-row" data-testid="context-compaction-failed" data-seq={context.seq}>
        Compaction failed; the turn went on with the whole history: {context.message}
      </div>
    )
  }
  const tokens =
    context.tokensBefore !== null && context.tokensAfter !== null
      ? ` · ~${context.tokensBefore.toLocaleString()} → ~${context.tokensAfter.toLocaleString()} tokens`
      : ''
  return (
    <details
      className="context-row context-compaction"
      data-testid="context-compaction"
      data-seq={context.seq}
    >
      <summary>
        Conversation compacted: {context.throughSeq + 1} events summarised ({context.trigger}
        {tokens}) at #{context.seq}
      </summary>
      <p className="context-summary" data-testid="context-summary">
        {context.summary}
      </p>
    </details>
  )
})
