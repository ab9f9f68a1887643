// "Fork…" (and "Branch from here"): title, fork point, and where the fork's files live (Shared
// or Worktree), with one sentence on what each means. The choice is made before the fork: it
// starts on a worktree when the session changed files (fork-files-default.ts), focus starts on
// it so an arrow key switches it, and the Fork button names it.

import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { ChoiceOption } from './choice-option.js'
import { type ForkFilesMode, forkFilesDefault } from './fork-files-default.js'
import { forkHistory } from './fork-history.js'
import type { DialogState } from './host-state.js'
import { Modal } from './modal.js'
import { titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'

type ForkDialogState = Extract<DialogState, { kind: 'fork' }>

export function ForkDialog({ dialog }: { dialog: ForkDialogState }) {
  const store = useStore()
  const session = useHost((state) => state.sessions.get(dialog.sessionId))
  // Known when the source is the open session (its log is loaded).
  const events = useHost((state) =>
    state.transcript?.sessionId === dialog.sessionId ? state.transcript.events : undefined,
  )
  const history = events ? forkHistory(events, { atSeq: dialog.atSeq, before: dialog.before }) : null
  const [title, setTitle] = useState('')
  const [files, setFiles] = useState<ForkFilesMode>(() => forkFilesDefault(events))
  const choice = useRef<HTMLFieldSetElement>(null)
  const whyId = useId()
  useEffect(() => choice.current?.querySelector<HTMLInputElement>('input:checked')?.focus(), [])
  const [busy, setBusy] = useState(false)
  const close = () => store.openDialog(null)

  async function submit(event: FormEvent) {
    event.preventDefault()
    setBusy(true)
    const child = await store.fork(
      {
        sessionId: dialog.sessionId,
        ...(dialog.atSeq !== undefined ? { atSeq: dialog.atSeq } : {}),
        ...(dialog.before ? { before: true } : {}),
        files,
        ...(title.trim() !== '' ? { title: title.trim() } : {}),
      },
      dialog.draft,
    )
    setBusy(false)
    if (child) close()
  }

  const point =
    dialog.atSeq === undefined
      ? 'after its latest completed turn'
      : dialog.before
        ? `just before the message at #${dialog.atSeq}`
        : `after the turn that ends at #${dialog.atSeq}`

  return (
    <Modal title="Fork session" testId="fork-dialog" onClose={close}>
      <form onSubmit={submit} className="form">
        <p className="muted">
          Branch <strong>{titleOf(session)}</strong> {point}. The original stays as it is.
        </p>
        {history ? (
          <p className="muted" data-testid="fork-history" data-kind={history.kind}>
            {history.kind === 'full'
              ? `This fork gets the full history: it starts before the compaction at #${history.compactionSeq}, so its model is sent every earlier message.`
              : `This fork starts from the summary of the compaction at #${history.compactionSeq}: its model is sent the summary and what follows it (the full history stays in the log).`}
          </p>
        ) : null}
        <label className="field">
          <span>Title</span>
          <input
            data-testid="fork-title"
            placeholder={`${titleOf(session)} (fork)`}
            value={title}
            maxLength={200}
            onChange={(event) => setTitle(event.target.value)}
          />
        </label>
        <fieldset className="choice" ref={choice} aria-describedby={events ? whyId : undefined}>
          <legend>Files</legend>
          {events ? (
            <p className="muted" id={whyId} data-testid="fork-files-why">
              {forkFilesDefault(events) === 'worktree'
                ? 'This session changed files: in a shared folder the branch would see and overwrite them.'
                : 'This session has not changed files yet.'}
            </p>
          ) : null}
          <ChoiceOption
            name="files"
            value="shared"
            selected={files}
            onSelect={setFiles}
            testId="fork-files-shared"
            title="Shared"
          >
            Works in the same folder as its parent: both see and overwrite each other's edits.
          </ChoiceOption>
          <ChoiceOption
            name="files"
            value="worktree"
            selected={files}
            onSelect={setFiles}
            testId="fork-files-worktree"
            title="Worktree"
          >
            Gets its own copy of the files as they were at the fork point (a git worktree on a new branch in a
            git project), so its edits stay apart.
          </ChoiceOption>
        </fieldset>
        <div className="form-actions">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button primary" data-testid="fork-confirm" disabled={busy}>
            {busy
              ? 'Forking…'
              : files === 'worktree'
                ? 'Fork with its own worktree'
                : 'Fork sharing the folder'}
          </button>
        </div>
      </form>
    </Modal>
  )
}
