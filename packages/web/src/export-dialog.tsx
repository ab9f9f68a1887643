// "Export…" in a session's menu: download the session as a Tangent bundle (importable into any data
// directory, ids and lineage kept), Markdown, one offline HTML file (with its whole tree, if asked),
// or a session file Claude Code, Codex or pi resumes — with where that agent looks for it. The Host
// writes the export in pages; the page joins them and hands the browser a file (a Blob download).
import { useState } from 'react'
import { ChoiceOption } from './choice-option.js'
import type { ExportedFile } from './import-export-store.js'
import { Modal } from './modal.js'
import { titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'
import type { ExportFormat } from './wire.js'

const choices: readonly { format: ExportFormat; title: string; text: string }[] = [
  {
    format: 'jsonl',
    title: 'Tangent bundle (.jsonl)',
    text: 'The session and the history it inherits; Import it into any Tangent, ids and branches kept.',
  },
  { format: 'md', title: 'Markdown', text: 'The transcript, to read or paste.' },
  { format: 'html', title: 'HTML page', text: 'One file that opens offline in any browser.' },
  { format: 'claude', title: 'Claude Code session', text: 'Continue this branch with claude --resume.' },
  { format: 'codex', title: 'Codex rollout', text: 'Continue this branch with codex resume.' },
  { format: 'pi', title: 'pi session', text: 'Continue this branch with pi --session FILE.' },
]

/** Where each agent looks for the file it resumes (`path` is relative to that agent's home folder), and how. */
type ResumeHint = { agent: string; where: string; variable: string; command: string }
const resumeHint: Record<'claude' | 'codex' | 'pi', (file: NonNullable<ExportedFile['tool']>) => ResumeHint> =
  {
    claude: (file) => ({
      agent: 'Claude Code',
      where: `~/.claude/${file.path}`,
      variable: '$CLAUDE_CONFIG_DIR',
      command: `claude --resume ${file.sessionId}`,
    }),
    codex: (file) => ({
      agent: 'Codex',
      where: `~/.codex/${file.path}`,
      variable: '$CODEX_HOME',
      command: `codex resume ${file.sessionId}`,
    }),
    pi: (file) => ({
      agent: 'pi',
      where: `~/.pi/agent/${file.path}`,
      variable: '$PI_CODING_AGENT_DIR',
      command: 'pi --session FILE',
    }),
  }

export function ExportDialog({ sessionId }: { sessionId: string }) {
  const store = useStore()
  const session = useHost((state) => state.sessions.get(sessionId))
  const [format, setFormat] = useState<ExportFormat>('jsonl')
  const [tree, setTree] = useState(false)
  const [busy, setBusy] = useState(false)
  const [status, setStatus] = useState<{ text: string; hint?: ResumeHint; error?: boolean } | null>(null)
  const close = () => store.openDialog(null)

  async function download() {
    setBusy(true)
    setStatus(null)
    try {
      const file = await store.exportSession(sessionId, format, tree)
      const url = URL.createObjectURL(new Blob([file.content], { type: file.mediaType }))
      // A link that is never shown: clicked, it hands the browser the file.
      const anchor = document.createElement('a')
      anchor.href = url
      anchor.download = file.fileName
      anchor.hidden = true
      document.body.append(anchor)
      anchor.click()
      anchor.remove()
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
      setStatus({
        text: `Downloaded ${file.fileName} (${formatSize(file.content.length)}).`,
        ...(file.tool ? { hint: resumeHint[file.tool.tool](file.tool) } : {}),
      })
    } catch (error) {
      setStatus({
        text: `Not exported: ${error instanceof Error ? error.message : String(error)}`,
        error: true,
      })
    } finally {
      setBusy(false)
    }
  }

  return (
    <Modal title={`Export “${titleOf(session)}”`} testId="export-dialog" onClose={close}>
      <fieldset className="choice">
        <legend>Format</legend>
        {choices.map((choice) => (
          <ChoiceOption
            key={choice.format}
            name="export-format"
            value={choice.format}
            selected={format}
            onSelect={setFormat}
            testId={`export-format-${choice.format}`}
            title={choice.title}
          >
            {choice.text}
          </ChoiceOption>
        ))}
      </fieldset>
      {format === 'html' ? (
        <label className="export-tree">
          <input
            type="checkbox"
            data-testid="export-tree"
            checked={tree}
            onChange={(event) => setTree(event.target.checked)}
          />
          Every session of its tree, with navigation between branches
        </label>
      ) : null}
      <div aria-live="polite" data-testid="export-status">
        {status ? (
          <p className={status.error ? 'error-text' : undefined}>
            {status.text}
            {status.hint ? (
              <span className="muted export-hint">
                {status.hint.agent} looks for it at <code>{status.hint.where}</code> (or under{' '}
                <code>{status.hint.variable}</code>): put it there, then run{' '}
                <code>{status.hint.command}</code>
              </span>
            ) : null}
          </p>
        ) : null}
      </div>
      <div className="form-actions">
        <button type="button" className="button" onClick={close}>
          Close
        </button>
        <button
          type="button"
          className="button primary"
          data-testid="export-download"
          disabled={busy}
          onClick={download}
        >
          {busy ? 'Exporting…' : 'Download'}
        </button>
      </div>
    </Modal>
  )
}

function formatSize(chars: number): string {
  if (chars < 1024) return `${chars} characters`
  if (chars < 1024 * 1024) return `${(chars / 1024).toFixed(1)} KB`
  return `${(chars / 1024 / 1024).toFixed(1)} MB`
}
