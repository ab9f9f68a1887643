// One file side by side across an exploration's branches and their fork point (docs/
// architecture.md §8): the fork point's text, then each branch's lines marked against it.
// Re-read whenever the board changes, so it follows the branches while they run.
import { useEffect, useState } from 'react'
import { type DiffLine, inlineChanges, lineDiff } from './board-model.js'
import { useScrollRegion } from './scroll-region.js'
import { useStore } from './use-host.js'
import type { BoardBranch, FileAcrossResult } from './wire.js'

export function BoardFileDiff(props: {
  paths: readonly { path: string; branches: number }[]
  path: string
  onPath: (path: string) => void
  branches: readonly BoardBranch[]
  /** Changes whenever the board is re-read. */
  version: unknown
}) {
  const store = useStore()
  const [across, setAcross] = useState<FileAcrossResult | null>(null)
  const [error, setError] = useState<string | null>(null)
  const ids = props.branches.map((branch) => branch.session.id)
  const key = ids.join(',')
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the re-read trigger; `key` stands for `ids`
  useEffect(() => {
    let live = true
    store
      .fileAcross(key.split(','), props.path)
      .then((result) => {
        if (!live) return
        setAcross(result)
        setError(null)
      })
      .catch((failure: unknown) => {
        if (live) setError(failure instanceof Error ? failure.message : String(failure))
      })
    return () => {
      live = false
    }
  }, [store, key, props.path, props.version])
  const shown = across?.path === props.path ? across : null

  return (
    <section className="board-diff" data-testid="board-diff" aria-labelledby="board-diff-heading">
      <div className="board-diff-head">
        <h3 id="board-diff-heading">Side by side</h3>
        <label className="field inline-field">
          <span>File</span>
          <select
            data-testid="board-file-picker"
            value={props.path}
            onChange={(event) => props.onPath(event.target.value)}
          >
            {props.paths.map((entry) => (
              <option key={entry.path} value={entry.path}>
                {entry.path} ({entry.branches} branch{entry.branches === 1 ? '' : 'es'})
              </option>
            ))}
          </select>
        </label>
      </div>
      {error !== null ? <p className="error-text">{error}</p> : null}
      {shown === null && error === null ? <p className="muted">Loading…</p> : null}
      {shown ? (
        <div
          className="board-diff-columns"
          style={{ gridTemplateColumns: `repeat(${shown.versions.length + 1}, minmax(160px, 1fr))` }}
        >
          <FileColumn title="Fork point" version={shown.base} lines={null} testId="board-diff-base" />
          {shown.versions.map((version) => {
            const branch = props.branches.find((candidate) => candidate.session.id === version.sessionId)
            const label = branch?.session.exploration?.label ?? '?'
            const diff =
              version.binary || shown.base.binary ? null : lineDiff(shown.base.content, version.content)
            return (
              <FileColumn
                key={version.sessionId}
                title={`Branch ${label}`}
                version={version}
                lines={diff}
                tooLarge={diff === null && !version.binary && !shown.base.binary}
                testId="board-diff-branch"
              />
            )
          })}
        </div>
      ) : null}
    </section>
  )
}

function FileColumn(props: {
  title: string
  version: { content: string | null; binary: boolean; truncated: boolean }
  /** Its lines against the fork point; null: show the text as it is. */
  lines: DiffLine[] | null
  tooLarge?: boolean
  testId: string
}) {
  const { version } = props
  const region = useScrollRegion<HTMLPreElement>(`${props.title}: file`)
  const note = version.binary
    ? 'Binary file: not shown.'
    : props.tooLarge
      ? 'Too large to compare line by line: shown as it is.'
      : version.content === null
        ? 'No such file here.'
        : version.truncated
          ? 'Large file: cut at 512 KB.'
          : null
  const added = props.lines?.filter((line) => line.kind === 'add').length ?? 0
  const removed = props.lines?.filter((line) => line.kind === 'del').length ?? 0
  return (
    <div className="board-diff-column" data-testid={props.testId}>
      <h4>
        {props.title}
        {props.lines !== null ? (
          <span className="muted">
            {' '}
            +{added} −{removed}
          </span>
        ) : null}
      </h4>
      {note !== null ? <p className="muted">{note}</p> : null}
      {version.content !== null || (props.lines?.length ?? 0) > 0 ? (
        <pre className="patch" {...region}>
          {props.lines !== null ? diffSpans(props.lines) : version.content}
        </pre>
      ) : null}
    </div>
  )
}

/**
 * One span per line, marked; keyed by position (lines of a diff have no other identity). Within
 * a changed line the characters that differ from its counterpart are a `<mark>`, so a one-character
 * change is seen; long lines wrap (docs/architecture.md §8).
 */
function diffSpans(lines: readonly DiffLine[]) {
  const marks = inlineChanges(lines)
  const spans = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    const mark = marks[index]
    spans.push(
      <span
        key={index}
        className={line.kind === 'add' ? 'patch-add' : line.kind === 'del' ? 'patch-del' : ''}
        data-kind={line.kind}
      >
        {line.kind === 'add' ? '+ ' : line.kind === 'del' ? '− ' : '  '}
        {mark ? (
          <>
            {line.text.slice(0, mark.start)}
            <mark className="patch-change" data-testid="board-diff-change">
              {line.text.slice(mark.start, mark.end)}
            </mark>
            {line.text.slice(mark.end)}
          </>
        ) : (
          line.text
        )}
      </span>,
    )
  }
  return spans
}
