// Confirms "Keep B" on the exploration board (docs/architecture.md §8): says what keeping does
// — the branch's file changes into its parent, the other branches archived and their clean
// worktrees removed — before `session.keep` runs.
import { useState } from 'react'
import { Modal } from './modal.js'
import { titleOf } from './session-display.js'
import type { BoardBranch } from './wire.js'

export function KeepDialog(props: {
  branch: BoardBranch
  parentTitle: string
  /** The branches that would be archived. */
  others: readonly BoardBranch[]
  onCancel: () => void
  onKeep: () => Promise<void>
}) {
  const [busy, setBusy] = useState(false)
  const { branch } = props
  const label = branch.session.exploration?.label ?? titleOf(branch.session)
  const files = branch.files.map((file) => file.path)
  return (
    <Modal title={`Keep branch ${label}?`} testId="keep-dialog" onClose={props.onCancel}>
      <p>
        {branch.session.files.mode === 'shared'
          ? `It worked in the shared folder, so its files are already in ${props.parentTitle}; keeping it records it there.`
          : files.length === 0
            ? `It changed no files; keeping it records it in ${props.parentTitle}.`
            : `Its changes to ${files.join(', ')} go into ${props.parentTitle}'s folder (merged with what changed there since; a conflict writes nothing).`}
      </p>
      {props.others.length > 0 ? (
        <p>
          The other branches (
          {props.others.map((other) => other.session.exploration?.label ?? titleOf(other.session)).join(', ')}
          ) are archived, and their worktrees removed unless they hold changes.
        </p>
      ) : null}
      <div className="form-actions">
        <button type="button" className="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="button primary"
          data-testid="keep-confirm"
          disabled={busy}
          onClick={() => {
            setBusy(true)
            void props.onKeep()
          }}
        >
          {busy ? 'Keeping…' : `Keep ${label}`}
        </button>
      </div>
    </Modal>
  )
}
