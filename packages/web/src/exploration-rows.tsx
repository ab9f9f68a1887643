// Quiet transcript rows for what "Try N ways" leaves in a log (docs/architecture.md §8): in the
// source, "Tried 3 ways: A, B, C" with a button to its board; in the parent, "Kept branch B"
// with the files it brought and the summary its next turn hears (expandable); in a branch, the
// check that ran after a turn, passed or failed in words, its output's tail expandable.
import { memo } from 'react'
import type { ExplorationModel } from './transcript-model.js'
import { useStore } from './use-host.js'

export const ExplorationRow = memo(function ExplorationRow(props: { block: ExplorationModel }) {
  const { block } = props
  if (block.kind === 'exploration') return <StartedRow block={block} />
  if (block.kind === 'kept') {
    const files =
      block.files === 'shared'
        ? 'shared directory: its files were already here'
        : block.applied.length === 0
          ? 'no files changed'
          : `files: ${block.applied.join(', ')}`
    return (
      <details className="context-row exploration-note" data-testid="kept-row" data-seq={block.seq}>
        <summary data-testid="kept-title">
          Kept branch {block.label ?? ''} “{block.title}” ({files})
          {block.archived.length > 0
            ? ` · archived ${block.archived.length} other branch${block.archived.length === 1 ? '' : 'es'}`
            : ''}{' '}
          at #{block.seq}
        </summary>
        <p className="context-summary" data-testid="kept-summary">
          {block.summary}
        </p>
      </details>
    )
  }
  const verdict = block.timedOut ? 'timed out' : block.ok ? 'passed' : 'failed'
  return (
    <details
      className={block.ok ? 'context-row check-row' : 'context-row check-row check-failed'}
      data-testid="check-row"
      data-ok={block.ok}
      data-seq={block.seq}
    >
      <summary>
        Check <code>{block.command}</code> {verdict}
        {block.exitCode !== null ? ` (exit ${block.exitCode})` : ''} in {formatDuration(block.durationMs)}
      </summary>
      <pre className="check-output" data-testid="check-output">
        {block.output === '' ? '(no output)' : block.output}
      </pre>
    </details>
  )
})

function StartedRow({ block }: { block: Extract<ExplorationModel, { kind: 'exploration' }> }) {
  const store = useStore()
  const n = block.branches.length
  return (
    <div className="context-row exploration-note" data-testid="exploration-started" data-seq={block.seq}>
      <span>
        Tried {n} way{n === 1 ? '' : 's'}: {block.branches.map((branch) => branch.label).join(', ')}
        {block.check !== null ? (
          <>
            {' '}
            · check <code>{block.check}</code>
          </>
        ) : null}
      </span>{' '}
      <button
        type="button"
        className="link"
        data-testid="open-board"
        onClick={() => store.openBoard(block.exploration, block.check)}
      >
        Open the board
      </button>
    </div>
  )
}

/** "850 ms", "3.2 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}
