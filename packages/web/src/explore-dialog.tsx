// "Try N ways…" on a completed turn (docs/architecture.md §8): N branches from that point, each
// with its own prompt, one prompt sent to several models, or one prompt N times; each in its
// own worktree (default) or all in the shared folder; an optional check run after each turn.
// Start forks them (`session.explore`) and opens their board.
import { type FormEvent, useState } from 'react'
import { ChoiceOption } from './choice-option.js'
import { type ExploreMode, explorePlan } from './explore-plan.js'
import type { DialogState } from './host-state.js'
import { Modal } from './modal.js'
import { titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'

type ExploreDialogState = Extract<DialogState, { kind: 'explore' }>

export function ExploreDialog({ dialog }: { dialog: ExploreDialogState }) {
  const store = useStore()
  const session = useHost((state) => state.sessions.get(dialog.sessionId))
  const models = useHost((state) => state.info?.models)
  const available = (models ?? []).filter((model) => model.available)
  const [mode, setMode] = useState<ExploreMode>('prompts')
  const [prompts, setPrompts] = useState<string[]>(['', ''])
  const [prompt, setPrompt] = useState('')
  const [chosenModels, setChosenModels] = useState<string[]>([])
  const [times, setTimes] = useState(3)
  const [files, setFiles] = useState<'shared' | 'worktree'>('worktree')
  const [check, setCheck] = useState('')
  const [busy, setBusy] = useState(false)
  const close = () => store.openDialog(null)
  const plan = explorePlan({ mode, prompts, prompt, models: chosenModels, times })

  async function submit(event: FormEvent) {
    event.preventDefault()
    if (!plan.ok) return
    setBusy(true)
    // On success the store closes this dialog as it opens the board.
    const started = await store.explore({
      sessionId: dialog.sessionId,
      atSeq: dialog.atSeq,
      branches: plan.branches,
      files,
      ...(check.trim() !== '' ? { check: check.trim() } : {}),
    })
    if (!started) setBusy(false)
  }

  return (
    <Modal title="Try several ways" testId="explore-dialog" className="explore-dialog" onClose={close}>
      <form onSubmit={submit} className="form">
        <p className="muted">
          Branch <strong>{titleOf(session)}</strong> several times after the turn that ends at #{dialog.atSeq}
          , run them side by side, then keep the best one. The original stays as it is.
        </p>
        <fieldset className="choice choice-row">
          <legend>Branches</legend>
          <ChoiceOption
            name="mode"
            value="prompts"
            selected={mode}
            onSelect={setMode}
            testId="explore-mode-prompts"
            title="Different prompts"
          >
            One prompt per branch.
          </ChoiceOption>
          <ChoiceOption
            name="mode"
            value="models"
            selected={mode}
            onSelect={setMode}
            testId="explore-mode-models"
            title="Several models"
          >
            One prompt, sent to each model you pick.
          </ChoiceOption>
          <ChoiceOption
            name="mode"
            value="repeat"
            selected={mode}
            onSelect={setMode}
            testId="explore-mode-repeat"
            title="Same prompt N times"
          >
            One prompt, tried several times.
          </ChoiceOption>
        </fieldset>
        {mode === 'prompts' ? (
          <fieldset className="choice">
            <legend>Prompts ({prompts.length} of 2–8)</legend>
            {prompts.map((text, index) => {
              const label = String.fromCharCode(65 + index)
              return (
                // Prompt fields have no identity beyond their position (A, B, C…).
                // biome-ignore lint/suspicious/noArrayIndexKey: positions are the labels
                <div className="prompt-field" key={index}>
                  <label className="field">
                    <span>Branch {label}</span>
                    <textarea
                      data-testid="explore-prompt"
                      rows={2}
                      value={text}
                      onChange={(event) =>
                        setPrompts(prompts.map((old, at) => (at === index ? event.target.value : old)))
                      }
                    />
                  </label>
                  {prompts.length > 2 ? (
                    <button
                      type="button"
                      className="action subtle"
                      data-testid="explore-remove-prompt"
                      aria-label={`Remove branch ${label}`}
                      onClick={() => setPrompts(prompts.filter((_, at) => at !== index))}
                    >
                      Remove
                    </button>
                  ) : null}
                </div>
              )
            })}
            {prompts.length < 8 ? (
              <button
                type="button"
                className="button"
                data-testid="explore-add-prompt"
                onClick={() => setPrompts([...prompts, ''])}
              >
                Add a branch
              </button>
            ) : null}
          </fieldset>
        ) : (
          <label className="field">
            <span>Prompt</span>
            <textarea
              data-testid="explore-one-prompt"
              rows={3}
              value={prompt}
              onChange={(event) => setPrompt(event.target.value)}
            />
          </label>
        )}
        {mode === 'models' ? (
          <fieldset className="choice">
            <legend>Models (2–8)</legend>
            {available.length === 0 ? <p className="muted">No model is available.</p> : null}
            {available.map((model) => (
              <label className="check-option" key={model.id}>
                <input
                  type="checkbox"
                  data-testid="explore-model"
                  value={model.id}
                  checked={chosenModels.includes(model.id)}
                  onChange={(event) =>
                    setChosenModels(
                      event.target.checked
                        ? [...chosenModels, model.id]
                        : chosenModels.filter((id) => id !== model.id),
                    )
                  }
                />
                <code>{model.id}</code>
              </label>
            ))}
          </fieldset>
        ) : null}
        {mode === 'repeat' ? (
          <label className="field">
            <span>How many times (2–8)</span>
            <input
              type="number"
              data-testid="explore-times"
              min={2}
              max={8}
              value={times}
              onChange={(event) => setTimes(Number(event.target.value))}
            />
          </label>
        ) : null}
        <fieldset className="choice">
          <legend>Files</legend>
          <ChoiceOption
            name="explore-files"
            value="worktree"
            selected={files}
            onSelect={setFiles}
            testId="explore-files-worktree"
            title="Own worktree each"
          >
            Each branch gets its own copy of the files as they were at this turn, so their edits stay apart.
          </ChoiceOption>
          <ChoiceOption
            name="explore-files"
            value="shared"
            selected={files}
            onSelect={setFiles}
            testId="explore-files-shared"
            title="Shared folder"
          >
            All branches work in this session's folder at once: they see and overwrite each other's edits, so
            their file changes cannot be told apart.
          </ChoiceOption>
        </fieldset>
        <label className="field">
          <span>Check (optional): a command run in each branch's folder after each of its turns</span>
          <input
            data-testid="explore-check"
            placeholder="npm test"
            value={check}
            maxLength={4000}
            onChange={(event) => setCheck(event.target.value)}
          />
        </label>
        {!plan.ok ? (
          <p className="muted" data-testid="explore-missing" id="explore-missing">
            {plan.missing}
          </p>
        ) : null}
        <div className="form-actions">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button
            type="submit"
            className="button primary"
            data-testid="explore-start"
            disabled={busy || !plan.ok}
            aria-describedby={plan.ok ? undefined : 'explore-missing'}
          >
            {busy ? 'Starting…' : plan.ok ? `Start ${plan.branches.length} branches` : 'Start'}
          </button>
        </div>
      </form>
    </Modal>
  )
}
