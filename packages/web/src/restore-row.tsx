// A restore of the session's files as its own transcript row, between turns: "Restored files
// to #N" (or "Files from branch B" when a keep wrote them) with the paths it wrote back and an
// Undo, or "Undid the restore at #M" for an undo.
// A restore that was undone says so and has no Undo; neither has an undo.
import { memo, useRef, useState } from 'react'
import type { RestoreModel } from './transcript-model.js'
import { useStore } from './use-host.js'

export const RestoreRow = memo(function RestoreRow(props: {
  sessionId: string
  restore: RestoreModel
  /** A turn is running: files cannot be rewritten under it. */
  running: boolean
}) {
  const store = useStore()
  const { restore, sessionId, running } = props
  const [busy, setBusy] = useState(false)
  const row = useRef<HTMLElement>(null)
  const heading = restoreHeading(restore)
  const canUndo = restore.undoOf === null && restore.undoneAt === null && !restore.inherited
  const headingId = `restore-${restore.seq}`

  async function undo() {
    setBusy(true)
    const done = await store.undoRestore(sessionId, restore.seq)
    setBusy(false)
    // The button goes away once the undo is recorded: keep keyboard focus on this row.
    if (done) row.current?.focus()
  }

  return (
    <article
      ref={row}
      tabIndex={-1}
      className={restore.undoOf === null ? 'restore-row' : 'restore-row restore-undo'}
      data-testid="restore-row"
      data-seq={restore.seq}
      data-to-seq={restore.toSeq ?? ''}
      data-undo-of={restore.undoOf ?? ''}
      data-undone={restore.undoneAt !== null}
      aria-labelledby={headingId}
    >
      <div className="restore-head">
        <span className="restore-icon" aria-hidden="true">
          ↺
        </span>
        <strong id={headingId} className="restore-title" data-testid="restore-title">
          {heading}
        </strong>
        {restore.undoneAt !== null ? (
          <span className="restore-note" data-testid="restore-undone">
            undone at #{restore.undoneAt}
          </span>
        ) : null}
        {canUndo ? (
          <button
            type="button"
            className="action restore-undo-button"
            data-testid="undo-restore"
            disabled={running || busy}
            aria-label={`Undo the restore at #${restore.seq}`}
            title={
              running
                ? 'A turn is running: undo the restore once it has finished.'
                : 'Put these files back to how they were just before this restore'
            }
            onClick={() => void undo()}
          >
            {busy ? 'Undoing…' : 'Undo'}
          </button>
        ) : null}
        <span className="seq" title="Seq of this restore">
          #{restore.seq}
        </span>
      </div>
      {restore.restored.length > 0 ? (
        <ul
          className="restore-paths"
          aria-label={restore.undoOf === null ? 'Restored files' : 'Files put back'}
        >
          {restore.restored.map((path) => (
            <li key={path}>
              <code className="changed-path" data-testid="restored-file">
                {path}
              </code>
            </li>
          ))}
        </ul>
      ) : (
        <p className="restore-detail muted">No file needed changing.</p>
      )}
      {restore.kept.length > 0 ? (
        <p className="restore-detail muted" data-testid="restore-kept">
          Left as they are: {restore.kept.join(', ')}
        </p>
      ) : null}
      {restore.skipped.length > 0 ? (
        <p className="restore-detail muted" data-testid="restore-skipped">
          Skipped: {restore.skipped.join(', ')}
        </p>
      ) : null}
    </article>
  )
})

/** "Restored files to #12", "Restored files to the start", "Undid the restore at #15", "Files from branch B". */
export function restoreHeading(restore: RestoreModel): string {
  if (restore.undoOf !== null) return `Undid the restore at #${restore.undoOf}`
  if (restore.keptFrom !== null) {
    return `Files from branch ${restore.keptFrom.label ?? restore.keptFrom.sessionId} (kept)`
  }
  if (restore.toSeq === null) return 'Restored files'
  return restore.toSeq < 0 ? 'Restored files to the start' : `Restored files to #${restore.toSeq}`
}
