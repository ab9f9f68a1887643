// Two branches side by side: each side's tokens and cost, its turns after their common ancestor, then the
// unified diff between their latest files. Opening it moves focus to its heading, so the
// keyboard (and a screen reader) continue in the comparison, not where it was opened from.
import { formatUsage } from '@tangent/protocol'
import { useEffect, useMemo, useRef } from 'react'
import { useScrollRegion } from './scroll-region.js'
import { titleOf } from './session-display.js'
import { buildTranscript } from './transcript-model.js'
import { useHost, useStore } from './use-host.js'
import type { FileDiff, SessionEvent, UsageSplit } from './wire.js'

export function CompareView() {
  const store = useStore()
  const compare = useHost((state) => state.compare)
  const a = useHost((state) => (compare ? state.sessions.get(compare.a) : undefined))
  const b = useHost((state) => (compare ? state.sessions.get(compare.b) : undefined))
  // Turns and diffs can overflow with nothing focusable in them: then the body is a region to scroll.
  const body = useScrollRegion<HTMLDivElement>('Comparison')
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  if (!compare) return null
  const result = compare.result

  return (
    // Esc closes it, as it closes a dialog (a key inside a field of it is left to the field).
    // biome-ignore lint/a11y/noStaticElementInteractions: Esc from anywhere inside the view
    <div
      className="compare"
      data-testid="compare-view"
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || event.defaultPrevented) return
        event.preventDefault()
        store.closeCompare()
      }}
    >
      <div className="compare-head">
        <h2 ref={heading} tabIndex={-1} data-testid="compare-heading">
          Compare <strong>{titleOf(a)}</strong> ↔ <strong>{titleOf(b)}</strong>
        </h2>
        <span className="muted" data-testid="compare-fork">
          {result === null
            ? 'Loading…'
            : result.forkSeq === null
              ? 'No common history'
              : `Common history through #${result.forkSeq}`}
        </span>
        <button
          type="button"
          className="button"
          data-testid="compare-close"
          onClick={() => store.closeCompare()}
        >
          Close
        </button>
      </div>
      {result ? (
        <div className="compare-body" {...body}>
          <div className="compare-columns">
            <CompareSide
              testId="compare-a"
              sessionId={compare.a}
              title={titleOf(a)}
              events={result.a.events}
              usage={result.a.usage}
            />
            <CompareSide
              testId="compare-b"
              sessionId={compare.b}
              title={titleOf(b)}
              events={result.b.events}
              usage={result.b.usage}
            />
          </div>
          <section className="compare-files" data-testid="compare-files">
            <h3>
              Files <span className="muted">({result.files.length} changed)</span>
            </h3>
            {result.files.length === 0 ? <p className="muted">Both branches have the same files.</p> : null}
            {result.files.map((diff) => (
              <FilePatch key={diff.path} diff={diff} />
            ))}
          </section>
        </div>
      ) : null}
    </div>
  )
}

function CompareSide({
  testId,
  sessionId,
  title,
  events,
  usage,
}: {
  testId: string
  sessionId: string
  title: string
  events: SessionEvent[]
  usage: UsageSplit | undefined
}) {
  const store = useStore()
  const blocks = useMemo(() => buildTranscript(events, 0), [events])
  const turns = blocks.flatMap((block) => (block.kind === 'turn' ? [block.turn] : []))
  return (
    <section className="compare-side" data-testid={testId}>
      <h3>{title}</h3>
      {usage ? (
        <dl className="compare-usage" data-testid="compare-usage" title={`Prices: ${usage.priceSource}`}>
          <dt>Since the fork</dt>
          <dd data-testid="compare-usage-own">{formatUsage(usage.own)}</dd>
          <dt>In all</dt>
          <dd data-testid="compare-usage-total">{formatUsage(usage.total)}</dd>
        </dl>
      ) : null}
      {turns.length === 0 ? <p className="muted">No turns after the fork point.</p> : null}
      {turns.map((turn) => (
        <div className="compare-turn" key={turn.startSeq} data-testid="compare-turn">
          {turn.user ? <div className="message user-message compact">{turn.user.text}</div> : null}
          {turn.items.map((item) =>
            item.kind === 'text' ? (
              <div className="message-body" key={`t:${item.seq}:${item.text.length}`}>
                {item.text}
              </div>
            ) : item.kind === 'tool' ? (
              <div className="muted tool-line" key={`c:${item.callId}`}>
                ⚙ {item.toolName}
              </div>
            ) : null,
          )}
          {turn.end && turn.end.reason !== 'completed' ? (
            <div className="turn-end">Turn ended: {turn.end.reason}</div>
          ) : null}
          <button
            type="button"
            className="action subtle"
            data-testid="compare-show-turn"
            title={`Open ${title} at this turn (#${turn.startSeq})`}
            onClick={() => {
              store.closeCompare()
              void store.jumpTo(sessionId, turn.startSeq)
            }}
          >
            Show in transcript #{turn.startSeq}
          </button>
        </div>
      ))}
    </section>
  )
}

function FilePatch({ diff }: { diff: FileDiff }) {
  const lines = diff.patch.split('\n')
  // Wide lines scroll sideways: then the patch is a region the keyboard can scroll.
  const region = useScrollRegion<HTMLPreElement>(`Changes to ${diff.path}`)
  return (
    <details className="file-patch" open data-testid="compare-file" data-path={diff.path}>
      <summary>
        <span className={`diff-status diff-${diff.status}`}>{diff.status}</span> <code>{diff.path}</code>
      </summary>
      <pre className="patch" {...region}>
        {lines.map((line, index) => (
          // Lines of a patch have no identity beyond their position.
          // biome-ignore lint/suspicious/noArrayIndexKey: static list, never reordered
          <span key={index} className={lineClass(line)}>
            {line}
          </span>
        ))}
      </pre>
    </details>
  )
}

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'patch-meta'
  if (line.startsWith('+')) return 'patch-add'
  if (line.startsWith('-')) return 'patch-del'
  if (line.startsWith('@@')) return 'patch-hunk'
  return ''
}
