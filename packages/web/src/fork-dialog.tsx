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
import type { SessionSummary, Workspace } from './wire.js'

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
  // A session from another machine (shared store): continuing it here is a worktree fork.
  const elsewhere = session?.files.elsewhere === true
  const machine = session?.files.machine ?? 'another machine'
  const workspaces = useHost((state) => state.workspaces)
  const [folder, setFolder] = useState(() => (session ? localFolderFor(session, workspaces) : ''))
  const folderId = useId()
  const [files, setFiles] = useState<ForkFilesMode>(() => (elsewhere ? 'worktree' : forkFilesDefault(events)))
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
        ...(elsewhere && files === 'worktree' && folder.trim() !== '' ? { folder: folder.trim() } : {}),
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
        {elsewhere ? (
          <p className="muted" data-testid="fork-elsewhere">
            Its files are on <strong>{machine}</strong>, in {session?.files.path}: its turns run there. To
            continue it on this machine, fork it with its own worktree: the files as they were at the fork
            point come from the shared store.
          </p>
        ) : null}
        <fieldset className="choice" ref={choice} aria-describedby={events && !elsewhere ? whyId : undefined}>
          <legend>Files</legend>
          {events && !elsewhere ? (
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
            title={elsewhere ? `Stay on ${machine}` : 'Shared'}
          >
            {elsewhere
              ? `Works in its parent's folder on ${machine}: run it from a Host there.`
              : "Works in the same folder as its parent: both see and overwrite each other's edits."}
          </ChoiceOption>
          <ChoiceOption
            name="files"
            value="worktree"
            selected={files}
            onSelect={setFiles}
            testId="fork-files-worktree"
            title={elsewhere ? 'Continue on this machine' : 'Worktree'}
          >
            {elsewhere
              ? 'Gets its own folder here with the files as they were at the fork point (a git worktree on a new branch when this machine’s folder of the project is a git repository), and runs here.'
              : 'Gets its own copy of the files as they were at the fork point (a git worktree on a new branch in a git project), so its edits stay apart.'}
          </ChoiceOption>
        </fieldset>
        {elsewhere && files === 'worktree' ? (
          <label className="field">
            <span>This machine’s folder of the project</span>
            <input
              data-testid="fork-folder"
              list="fork-folder-choices"
              placeholder="None: a plain copy of its files"
              aria-describedby={folderId}
              value={folder}
              spellCheck={false}
              onChange={(event) => setFolder(event.target.value)}
            />
            <datalist id="fork-folder-choices">
              {workspaces.map((workspace) => (
                <option key={workspace.id} value={workspace.path} label={workspace.name} />
              ))}
            </datalist>
            <span className="muted" id={folderId}>
              {folder.trim() === ''
                ? 'Name your checkout of the project to make the worktree a branch of its git repository; left empty, the fork gets a plain copy.'
                : 'The worktree is a new branch of this folder’s git repository (a copy if it is not one); the fork joins its workspace.'}
            </span>
          </label>
        ) : null}
        <div className="form-actions">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button primary" data-testid="fork-confirm" disabled={busy}>
            {busy
              ? 'Forking…'
              : files === 'worktree'
                ? elsewhere
                  ? 'Continue on this machine'
                  : 'Fork with its own worktree'
                : elsewhere
                  ? `Fork on ${machine}`
                  : 'Fork sharing the folder'}
          </button>
        </div>
      </form>
    </Modal>
  )
}

/**
 * This machine's folder of a session from another: an open workspace at the same path (the same
 * layout on both machines), else one of the same folder name (the same repository, most likely),
 * else none — the person names it, or the fork gets a plain copy.
 */
export function localFolderFor(
  session: Pick<SessionSummary, 'cwd' | 'files'>,
  workspaces: readonly Pick<Workspace, 'path' | 'name'>[],
): string {
  if (!session.files.elsewhere) return ''
  const folder = session.files.mode === 'worktree' ? session.files.path : session.cwd
  const name = folder.split('/').filter(Boolean).at(-1)
  const same = workspaces.find((workspace) => workspace.path === folder)
  const named = workspaces.find((workspace) => workspace.path.split('/').filter(Boolean).at(-1) === name)
  return (same ?? named)?.path ?? ''
}
