// The N-way board of one exploration (docs/architecture.md §8): a labelled region per branch
// — status in words, turns, time, changed files with a diffstat, the check's result (its
// output's tail expandable), tokens — and "Keep A/B/C"; below, one file side by side across
// the branches and the fork point. Live while the branches run (the store re-reads it).
// Opening it moves focus to its heading, like the compare view.
import { useEffect, useRef, useState } from 'react'
import { BoardFileDiff } from './board-file-diff.js'
import {
  boardSettled,
  branchPhase,
  changedPaths,
  phaseEnded,
  phaseText,
  settledText,
  tokensText,
} from './board-model.js'
import { formatDuration } from './exploration-rows.js'
import type { KeepOutcome } from './host-store.js'
import { KeepDialog } from './keep-dialog.js'
import { useScrollRegion } from './scroll-region.js'
import { titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'
import type { BoardBranch } from './wire.js'

export function ExplorationBoard() {
  const store = useStore()
  const board = useHost((state) => state.board)
  const parent = useHost((state) =>
    state.board?.parentId ? state.sessions.get(state.board.parentId) : undefined,
  )
  const heading = useRef<HTMLHeadingElement>(null)
  const outcomeHeading = useRef<HTMLHeadingElement>(null)
  const body = useScrollRegion<HTMLDivElement>('Exploration board')
  const [path, setPath] = useState<string | null>(null)
  const [keeping, setKeeping] = useState<BoardBranch | null>(null)
  const [outcome, setOutcome] = useState<{ label: string; outcome: KeepOutcome } | null>(null)
  useEffect(() => heading.current?.focus(), [])
  useEffect(() => {
    if (outcome) outcomeHeading.current?.focus()
  }, [outcome])
  if (!board) return null
  const result = board.result
  const paths = result ? changedPaths(result) : []
  const selected = path ?? paths[0]?.path ?? null
  // Known from the explore call or the source's log; else from a check some branch recorded.
  const check =
    board.check ?? result?.branches.find((branch) => branch.check !== null)?.check?.command ?? null
  const settled = result ? boardSettled(result, check) : false
  const running = result ? result.branches.filter((branch) => !phaseEnded(branchPhase(branch, check))) : []

  async function keep(branch: BoardBranch) {
    const label = branch.session.exploration?.label ?? titleOf(branch.session)
    const kept = await store.keep(branch.session.id)
    setKeeping(null)
    if (kept.kind !== 'failed') setOutcome({ label, outcome: kept })
  }

  return (
    <div className="board" data-testid="board" data-settled={settled}>
      <div className="compare-head">
        <h2 ref={heading} tabIndex={-1} data-testid="board-heading">
          Tried {board.sessionIds.length} ways from <strong>{parent ? titleOf(parent) : 'its parent'}</strong>
        </h2>
        <span className="muted" role="status" data-testid="board-progress">
          {result === null
            ? 'Loading…'
            : settled
              ? settledText(result, check)
              : `${running.length} of ${result.branches.length} still working`}
          {check !== null ? ` · check: ${check}` : ''}
        </span>
        <button type="button" className="button" data-testid="board-close" onClick={() => store.closeBoard()}>
          Close
        </button>
      </div>
      <div className="board-body" {...body}>
        {outcome ? (
          <KeepOutcomePanel
            label={outcome.label}
            outcome={outcome.outcome}
            headingRef={outcomeHeading}
            onDismiss={() => {
              setOutcome(null)
              heading.current?.focus()
            }}
          />
        ) : null}
        {result ? (
          <div
            className="board-columns"
            style={{ gridTemplateColumns: `repeat(${result.branches.length}, minmax(200px, 1fr))` }}
          >
            {result.branches.map((branch) => (
              <BranchColumn
                key={branch.session.id}
                branch={branch}
                check={check}
                canKeep={board.parentId !== null}
                parentTitle={parent ? titleOf(parent) : 'its parent'}
                onKeep={() => setKeeping(branch)}
                onUndoKeep={(restoreSeq) => {
                  if (board.parentId !== null) void store.undoKeep(board.parentId, restoreSeq)
                }}
                onUnarchive={() => void store.unarchiveBranch(branch.session.id)}
                onPickFile={setPath}
              />
            ))}
          </div>
        ) : null}
        {result && paths.length > 0 && selected !== null ? (
          <BoardFileDiff
            paths={paths}
            path={selected}
            onPath={setPath}
            branches={result.branches}
            version={result}
          />
        ) : result ? (
          <p className="muted board-no-files">No branch has changed a file yet.</p>
        ) : null}
      </div>
      {keeping ? (
        <KeepDialog
          branch={keeping}
          parentTitle={parent ? titleOf(parent) : 'its parent'}
          others={(result?.branches ?? []).filter(
            (other) => other.session.id !== keeping.session.id && !other.session.archived,
          )}
          onCancel={() => setKeeping(null)}
          onKeep={() => keep(keeping)}
        />
      ) : null}
    </div>
  )
}

function BranchColumn(props: {
  branch: BoardBranch
  check: string | null
  canKeep: boolean
  parentTitle: string
  onKeep: () => void
  onUndoKeep: (restoreSeq: number) => void
  onUnarchive: () => void
  onPickFile: (path: string) => void
}) {
  const { branch } = props
  const session = branch.session
  const label = session.exploration?.label ?? '?'
  const phase = branchPhase(branch, props.check)
  const headingId = `board-branch-${session.id}`
  const kept = branch.kept ?? null
  const keepBlocked =
    phase === 'running' || phase === 'checking'
      ? 'It is still running: keep it once it is done.'
      : kept !== null
        ? `It is kept in ${props.parentTitle} and has not changed since: nothing new to keep.`
        : session.archived
          ? 'It is archived.'
          : !props.canKeep
            ? 'Its parent is not known here.'
            : null
  return (
    <section
      className="board-column"
      aria-labelledby={headingId}
      data-testid="board-branch"
      data-label={label}
      data-session-id={session.id}
      data-phase={phase}
      data-kept={kept !== null}
    >
      <h3 id={headingId} className="board-branch-title">
        <span className="branch-label">{label}</span> <span className="title-text">{titleOf(session)}</span>
      </h3>
      <p className={`board-phase phase-${phase}`} data-testid="board-phase">
        {phaseText[phase]}
        {kept !== null ? (
          <span className="tag tag-kept" data-testid="board-kept">
            Kept
          </span>
        ) : null}
      </p>
      <dl className="board-facts">
        <dt>Turns</dt>
        <dd data-testid="board-turns">
          {branch.completedTurns} of {branch.turns} done
        </dd>
        <dt>Time</dt>
        <dd>{branch.durationMs === null ? '—' : formatDuration(branch.durationMs)}</dd>
        <dt>Tokens</dt>
        <dd data-testid="board-tokens">{tokensText(branch.tokens)}</dd>
      </dl>
      <h4>Files</h4>
      {branch.files.length === 0 ? (
        <p className="muted" data-testid="board-no-files">
          No changes
        </p>
      ) : (
        <ul className="board-files">
          {branch.files.map((file) => (
            <li key={file.path}>
              <button
                type="button"
                className="link board-file"
                data-testid="board-file"
                data-path={file.path}
                title={`Show ${file.path} across the branches`}
                onClick={() => props.onPickFile(file.path)}
              >
                <code>{file.path}</code>
              </button>{' '}
              <span className="diffstat">
                {file.binary ? (
                  'binary'
                ) : (
                  <>
                    <span className="diffstat-add">+{file.added}</span>{' '}
                    <span className="diffstat-del">−{file.removed}</span>
                  </>
                )}
              </span>{' '}
              <span className="muted">{file.status}</span>
            </li>
          ))}
        </ul>
      )}
      <h4>Check</h4>
      {branch.check === null ? (
        <p className="muted" data-testid="board-check" data-state="none">
          {phase === 'checking' ? 'Running…' : props.check === null ? 'None recorded' : 'Not run yet'}
        </p>
      ) : (
        <details
          className={branch.check.ok ? 'board-check' : 'board-check check-failed'}
          data-testid="board-check"
          data-state={branch.check.ok ? 'passed' : 'failed'}
        >
          <summary>
            {branch.check.timedOut ? 'Timed out' : branch.check.ok ? 'Passed' : 'Failed'}
            {branch.check.exitCode !== null ? ` (exit ${branch.check.exitCode})` : ''} ·{' '}
            {formatDuration(branch.check.durationMs)}
          </summary>
          <pre className="check-output">
            {branch.check.output === '' ? '(no output)' : branch.check.output}
          </pre>
        </details>
      )}
      <div className="board-keep">
        <button
          type="button"
          className="button primary"
          data-testid="board-keep"
          disabled={keepBlocked !== null}
          title={keepBlocked ?? `Bring branch ${label}'s changes into its parent and archive the others`}
          onClick={props.onKeep}
        >
          Keep {label}
        </button>
        {kept !== null && kept.restoreSeq !== undefined ? (
          <button
            type="button"
            className="button"
            data-testid="board-undo-keep"
            title={`Put back ${props.parentTitle}'s files as they were before branch ${label} was kept`}
            onClick={() => props.onUndoKeep(kept.restoreSeq!)}
          >
            Undo keep {label}
          </button>
        ) : null}
        {session.archived ? (
          <button
            type="button"
            className="button"
            data-testid="board-unarchive"
            title={`Bring branch ${label} back into the session list`}
            onClick={props.onUnarchive}
          >
            Unarchive {label}
          </button>
        ) : null}
        {keepBlocked !== null ? (
          <span className="muted board-keep-why" data-testid="board-keep-why">
            {keepBlocked}
            {kept !== null && kept.restoreSeq === undefined
              ? ' It worked in the shared folder, so no file was written: there is nothing to undo.'
              : ''}
          </span>
        ) : null}
      </div>
    </section>
  )
}

function KeepOutcomePanel(props: {
  label: string
  outcome: KeepOutcome
  headingRef: React.Ref<HTMLHeadingElement>
  onDismiss: () => void
}) {
  const { outcome } = props
  if (outcome.kind === 'conflict') {
    return (
      <section
        className="board-outcome board-conflict"
        data-testid="keep-conflict"
        aria-labelledby="keep-outcome"
      >
        <h3 id="keep-outcome" ref={props.headingRef} tabIndex={-1}>
          Branch {props.label} was not kept: its parent changed the same lines since the fork
        </h3>
        <p>Nothing was written. Resolve these in one of the sessions, then keep again:</p>
        <ul className="conflict-paths" data-testid="keep-conflict-paths">
          {outcome.paths.map((path) => (
            <li key={path}>
              <code>{path}</code>
            </li>
          ))}
        </ul>
        <button type="button" className="button" onClick={props.onDismiss}>
          Dismiss
        </button>
      </section>
    )
  }
  if (outcome.kind !== 'kept') return null
  const { result } = outcome
  return (
    <section className="board-outcome" data-testid="keep-outcome" aria-labelledby="keep-outcome">
      <h3 id="keep-outcome" ref={props.headingRef} tabIndex={-1}>
        Kept branch {props.label}
      </h3>
      <p data-testid="keep-applied">
        {result.files.mode === 'shared'
          ? 'It worked in the shared folder: its files were already there.'
          : result.files.applied.length === 0
            ? 'No file needed writing into the parent.'
            : `Written into the parent: ${result.files.applied.join(', ')} (undo it from the parent's transcript).`}
      </p>
      {result.archived.length > 0 ? (
        <p data-testid="keep-archived">
          Archived {result.archived.length} other branch{result.archived.length === 1 ? '' : 'es'}.
        </p>
      ) : null}
      {result.worktrees.length > 0 ? (
        <ul data-testid="keep-worktrees">
          {result.worktrees.map((worktree) => (
            <li key={worktree.sessionId}>
              {worktree.removed ? 'Removed' : 'Kept'} worktree <code>{worktree.path}</code>
              {worktree.reason ? `: ${worktree.reason}` : ''}
            </li>
          ))}
        </ul>
      ) : null}
      <button type="button" className="button" onClick={props.onDismiss}>
        Dismiss
      </button>
    </section>
  )
}
