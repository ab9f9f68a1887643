// "Import…": session files (a Tangent bundle from Export, or a Claude Code, Codex or pi session
// file: the Host detects which) or a tool's sessions of the open folder, read by the Host where
// that tool keeps them. The results stay in the dialog — sessions created or already here, lines
// and files that could not be read — and are read out (a polite live region); each session opens
// from its row. Keyboard: Tab through the file field, Import and the tool buttons; Esc closes.
import { type FormEvent, useRef, useState } from 'react'
import { type ImportOutcome, type ImportTool, toolNames } from './import-export-store.js'
import { Modal } from './modal.js'
import { useHost, useStore } from './use-host.js'

const tools: readonly ImportTool[] = ['claude', 'codex', 'pi']

export function ImportDialog() {
  const store = useStore()
  const folder = useHost(
    (state) => state.workspaces.find((workspace) => workspace.id === state.activeWorkspaceId)?.path,
  )
  const [busy, setBusy] = useState<string | null>(null)
  const [outcomes, setOutcomes] = useState<readonly ImportOutcome[] | null>(null)
  const [chosen, setChosen] = useState(0)
  const input = useRef<HTMLInputElement>(null)
  const results = useRef<HTMLElement>(null)
  const close = () => store.openDialog(null)

  async function run(label: string, work: () => Promise<readonly ImportOutcome[]>) {
    setBusy(label)
    setOutcomes(null)
    try {
      setOutcomes(await work())
    } finally {
      setBusy(null)
      // The results are what comes next: focus goes to them (their heading), so Tab continues there.
      requestAnimationFrame(() => results.current?.focus())
    }
  }

  async function importFiles(event: FormEvent) {
    event.preventDefault()
    const files = [...(input.current?.files ?? [])]
    if (files.length === 0) return
    await run('files', () =>
      store.importFiles(files.map((file) => ({ name: file.name, text: () => file.text() }))),
    )
    if (input.current) input.current.value = ''
    setChosen(0)
  }

  async function open(sessionId: string) {
    close()
    await store.openSession(sessionId)
  }

  return (
    <Modal title="Import sessions" testId="import-dialog" onClose={close} className="import-dialog">
      <form onSubmit={importFiles} className="import-files">
        <label htmlFor="import-file-input">
          Session files: a Tangent bundle (from Export), or a Claude Code, Codex or pi session file
        </label>
        <div className="import-row">
          <input
            id="import-file-input"
            ref={input}
            type="file"
            multiple
            accept=".jsonl,.json,application/jsonl,application/json,text/plain"
            data-testid="import-file-input"
            onChange={(event) => setChosen(event.target.files?.length ?? 0)}
          />
          <button
            type="submit"
            className="button primary"
            data-testid="import-files"
            disabled={chosen === 0 || busy !== null}
          >
            {busy === 'files' ? 'Importing…' : chosen > 1 ? `Import ${chosen} files` : 'Import'}
          </button>
        </div>
      </form>
      <fieldset className="import-from">
        <legend>From another agent, this folder's sessions</legend>
        {folder ? (
          <p className="muted">
            <code>{folder}</code> — read where each agent keeps them on the Host's machine.
          </p>
        ) : (
          <p className="muted">Open a folder first: its sessions are the ones imported.</p>
        )}
        <div className="import-row">
          {tools.map((tool) => (
            <button
              key={tool}
              type="button"
              className="button"
              data-testid={`import-from-${tool}`}
              disabled={!folder || busy !== null}
              onClick={() => folder && void run(tool, async () => [await store.importFrom(tool, folder)])}
            >
              {busy === tool ? 'Importing…' : `From ${toolNames[tool]}`}
            </button>
          ))}
        </div>
      </fieldset>
      <div className="import-results" aria-live="polite" data-testid="import-results">
        {busy !== null ? <p>Importing…</p> : null}
        {outcomes !== null ? (
          <section ref={results} tabIndex={-1} className="import-results-body" aria-label="Import results">
            <p className="import-summary" data-testid="import-summary">
              {summaryOf(outcomes)}
            </p>
            {outcomes.map((outcome, at) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: one entry per file chosen, in order
              <section key={at} className="import-outcome">
                <h3>{outcome.name}</h3>
                {outcome.error ? (
                  <p className="error-text" data-testid="import-error">
                    Not imported: {outcome.error}
                  </p>
                ) : null}
                {outcome.files === 0 ? <p className="muted">No sessions of this folder.</p> : null}
                {outcome.sessions.length > 0 ? (
                  <ul>
                    {outcome.sessions.map((session) => (
                      <li key={session.id} data-testid="imported-session">
                        <button type="button" className="link-button" onClick={() => void open(session.id)}>
                          {session.title || session.id}
                        </button>{' '}
                        <span className="muted">
                          {session.status === 'created'
                            ? 'imported'
                            : session.status === 'appended'
                              ? 'updated'
                              : 'already here'}
                          {session.parentSession ? ' · a branch' : ''} · {session.events} events
                        </span>
                      </li>
                    ))}
                  </ul>
                ) : null}
                {outcome.problems.length > 0 ? (
                  <details>
                    <summary>
                      {outcome.problems.length} problem{outcome.problems.length === 1 ? '' : 's'} (the rest
                      was imported)
                    </summary>
                    <ul className="import-problems">
                      {outcome.problems.slice(0, 50).map((problem, index) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: problems are shown in order and never change
                        <li key={index}>{problem}</li>
                      ))}
                    </ul>
                  </details>
                ) : null}
              </section>
            ))}
          </section>
        ) : null}
      </div>
      <div className="form-actions">
        <button type="button" className="button" onClick={close} data-testid="import-close">
          Close
        </button>
      </div>
    </Modal>
  )
}

/** One sentence for the whole import (what a screen reader hears first). */
export function summaryOf(outcomes: readonly ImportOutcome[]): string {
  const sessions = outcomes.flatMap((outcome) => outcome.sessions)
  const created = sessions.filter((session) => session.status !== 'existing').length
  const existing = sessions.length - created
  const refused = outcomes.filter((outcome) => outcome.error !== undefined).length
  const problems = outcomes.reduce((sum, outcome) => sum + outcome.problems.length, 0)
  const parts = [
    created > 0 ? `${created} session${created === 1 ? '' : 's'} imported` : 'No new sessions',
    existing > 0 ? `${existing} already here` : null,
    refused > 0 ? `${refused} file${refused === 1 ? '' : 's'} not imported` : null,
    problems > 0 ? `${problems} problem${problems === 1 ? '' : 's'}` : null,
  ]
  return `${parts.filter((part) => part !== null).join(', ')}.`
}
