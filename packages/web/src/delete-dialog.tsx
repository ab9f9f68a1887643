// Confirms a delete and says what happens to the session's forks: they keep their full
// history (the shared part is copied into them), so nothing they show is lost.

import { useMemo, useState } from 'react'
import { ChoiceOption } from './choice-option.js'
import { Modal } from './modal.js'
import { forkPointLabel, titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'

export function DeleteDialog({ sessionId }: { sessionId: string }) {
  const store = useStore()
  const sessions = useHost((state) => state.sessions)
  const session = sessions.get(sessionId)
  const children = useMemo(
    () => [...sessions.values()].filter((other) => other.parentSession === sessionId),
    [sessions, sessionId],
  )
  const [busy, setBusy] = useState(false)
  const [worktree, setWorktree] = useState<'remove' | 'keep' | 'force'>('remove')
  /** Files a refused delete named: its worktree has uncommitted changes (nothing was deleted). */
  const [dirty, setDirty] = useState<string[] | null>(null)
  const close = () => store.openDialog(null)

  async function confirm() {
    setBusy(true)
    const outcome = await store.delete(sessionId, session?.files.mode === 'worktree' ? worktree : undefined)
    setBusy(false)
    // Refused: the dialog stays, says which files, and lets the user keep or remove the worktree.
    if (outcome.dirty) setDirty(outcome.dirty)
    else close()
  }

  return (
    <Modal title={`Delete “${titleOf(session)}”?`} testId="delete-dialog" onClose={close}>
      <p>This deletes the session's log. It cannot be undone (archive it instead to just hide it).</p>
      {children.length > 0 ? (
        <div className="keeps" data-testid="delete-keeps">
          <p>
            {children.length === 1 ? 'This fork keeps' : `These ${children.length} forks keep`} their full
            history — the part they share with this session is copied into them:
          </p>
          <ul>
            {children.map((child) => (
              <li key={child.id}>
                {titleOf(child)}{' '}
                <span className="muted">
                  {forkPointLabel(child.parentSession, child.forkedAt)} · {child.id.slice(-6)}
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {session?.files.mode === 'worktree' ? (
        <fieldset className="choice" data-testid="delete-worktree">
          <legend>
            Its worktree <code>{session.files.path}</code>
          </legend>
          <ChoiceOption
            name="worktree"
            value="remove"
            selected={worktree}
            onSelect={setWorktree}
            testId="delete-worktree-remove"
            title="Remove it"
          >
            Only if it has no uncommitted changes; otherwise nothing is deleted and you are told which.
          </ChoiceOption>
          <ChoiceOption
            name="worktree"
            value="keep"
            selected={worktree}
            onSelect={setWorktree}
            testId="delete-worktree-keep"
            title="Keep it"
          >
            The folder (and its git branch) stay for you to merge or delete.
          </ChoiceOption>
          <ChoiceOption
            name="worktree"
            value="force"
            selected={worktree}
            onSelect={setWorktree}
            testId="delete-worktree-force"
            title="Remove it anyway"
          >
            With its uncommitted changes: they are lost.
          </ChoiceOption>
        </fieldset>
      ) : null}
      {dirty !== null ? (
        <p className="error-text" role="alert" data-testid="delete-dirty">
          Not deleted: its worktree has {dirty.length} uncommitted change{dirty.length === 1 ? '' : 's'} (
          {dirty.slice(0, 10).join(', ')}
          {dirty.length > 10 ? ', …' : ''}). Keep it or remove it anyway, then delete again.
        </p>
      ) : null}
      <div className="form-actions">
        <button type="button" className="button" onClick={close}>
          Cancel
        </button>
        <button
          type="button"
          className="button danger"
          data-testid="confirm-delete"
          disabled={busy}
          onClick={confirm}
        >
          {busy ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </Modal>
  )
}
