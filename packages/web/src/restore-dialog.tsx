// Shown when "Restore files to here" or a restore's "Undo" refuses (`files-conflict`): lists
// the files someone else changed since, and offers to overwrite them anyway.
import type { RestoreConflict } from './host-state.js'
import { Modal } from './modal.js'
import { useScrollRegion } from './scroll-region.js'
import { useStore } from './use-host.js'

export function RestoreDialog({ conflict }: { conflict: RestoreConflict }) {
  const store = useStore()
  const undo = conflict.kind === 'undo'
  // A long list scrolls; then the keyboard can scroll it too.
  const list = useScrollRegion<HTMLDivElement>('Files that would be overwritten')
  return (
    <Modal
      title={undo ? 'Undo would overwrite other changes' : 'Restore would overwrite other changes'}
      testId="restore-conflict"
      onClose={() => store.dismissConflict()}
    >
      <p>
        {undo
          ? 'These files were changed after the restore — by you, another session, or another tool. Undoing it would overwrite those changes:'
          : 'These files were changed after this session last touched them — by you, another session, or another tool. Restoring would overwrite those changes:'}
      </p>
      <div className="conflict-scroll" {...list}>
        <ul className="conflict-paths" data-testid="conflict-paths">
          {conflict.paths.map((path) => (
            <li key={path}>
              <code>{path}</code>
            </li>
          ))}
        </ul>
      </div>
      <p className="muted">
        {undo
          ? 'The files as they are now are kept in a snapshot first either way.'
          : 'An undo snapshot is taken first either way.'}
      </p>
      <div className="form-actions">
        <button type="button" className="button" onClick={() => store.dismissConflict()}>
          Cancel
        </button>
        {undo ? (
          <button
            type="button"
            className="button danger"
            data-testid="undo-force"
            onClick={() => void store.undoRestore(conflict.sessionId, conflict.seq, true)}
          >
            Undo anyway
          </button>
        ) : (
          <button
            type="button"
            className="button danger"
            data-testid="restore-force"
            onClick={() => void store.restore(conflict.sessionId, conflict.seq, true)}
          >
            Restore anyway
          </button>
        )}
      </div>
    </Modal>
  )
}
