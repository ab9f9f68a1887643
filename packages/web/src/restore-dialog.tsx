// Shown when "Restore files to here" refuses: lists the files someone else changed since
// this session's latest snapshot, and offers to overwrite them anyway.
import type { RestoreConflict } from './host-state.js'
import { Modal } from './modal.js'
import { useStore } from './use-host.js'

export function RestoreDialog({ conflict }: { conflict: RestoreConflict }) {
  const store = useStore()
  return (
    <Modal
      title="Restore would overwrite other changes"
      testId="restore-conflict"
      onClose={() => store.dismissConflict()}
    >
      <p>
        These files were changed after this session last touched them — by you, another session, or another
        tool. Restoring would overwrite those changes:
      </p>
      <ul className="conflict-paths" data-testid="conflict-paths">
        {conflict.paths.map((path) => (
          <li key={path}>
            <code>{path}</code>
          </li>
        ))}
      </ul>
      <p className="muted">An undo snapshot is taken first either way.</p>
      <div className="form-actions">
        <button type="button" className="button" onClick={() => store.dismissConflict()}>
          Cancel
        </button>
        <button
          type="button"
          className="button danger"
          data-testid="restore-force"
          onClick={() => void store.restore(conflict.sessionId, conflict.seq, true)}
        >
          Restore anyway
        </button>
      </div>
    </Modal>
  )
}
