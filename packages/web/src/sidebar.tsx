// The left column: connection state, "open folder" (a path, `~`, the start folder and recent
// folders as suggestions, or Browse…), the lineage tree, Import…, the archive toggle.

import { type FormEvent, type Ref, useMemo, useState } from 'react'
import { BranchIcon } from './icon.js'
import { SandboxStatus } from './sandbox-status.js'
import { SessionTree } from './session-tree.js'
import { useHost, useStore } from './use-host.js'

/** The id of the sidebar, for the narrow window's toggle button (aria-controls). */
export const sidebarId = 'sidebar'

export function Sidebar({
  ref,
  onNavigate,
  onHide,
}: {
  ref: Ref<HTMLElement>
  onNavigate: () => void
  /** Folds the sidebar of a narrow window (its close button shows only there). */
  onHide: () => void
}) {
  const store = useStore()
  const connection = useHost((state) => state.connection)
  const showArchived = useHost((state) => state.showArchived)
  const [path, setPath] = useState('')
  const [opening, setOpening] = useState(false)
  const [filter, setFilter] = useState('')
  const startFolder = useHost((state) => state.info?.startFolder)
  const workspaces = useHost((state) => state.workspaces)
  const activePath = useHost(
    (state) => state.workspaces.find((workspace) => workspace.id === state.activeWorkspaceId)?.path,
  )
  const choices = useMemo(() => folderChoices(startFolder, workspaces), [startFolder, workspaces])

  async function openFolder(event: FormEvent) {
    event.preventDefault()
    const trimmed = path.trim()
    if (trimmed === '') return
    setOpening(true)
    // The button waits for the folder, not for the session remembered there to load. What was
    // typed meanwhile stays: only the path that was opened is cleared.
    const opened = () => {
      setPath((current) => (current.trim() === trimmed ? '' : current))
      setOpening(false)
    }
    await store.openWorkspace(trimmed, undefined, opened)
    setOpening(false)
  }

  return (
    <aside className="sidebar" id={sidebarId} ref={ref} data-testid="sidebar">
      <div className="sidebar-head">
        <span className="brand">
          <span className="brand-mark">
            <BranchIcon size={14} />
          </span>
          Tangent
        </span>
        <span
          className={`connection connection-${connection}`}
          data-testid="connection"
          title={connectionText(connection)}
        >
          {connection === 'open' ? 'connected' : connection === 'connecting' ? 'connecting…' : 'offline'}
        </span>
        <button
          type="button"
          className="icon-button sidebar-close"
          data-testid="sidebar-close"
          aria-label="Hide sessions"
          title="Hide sessions (Esc)"
          onClick={onHide}
        >
          ×
        </button>
      </div>
      <form className="open-folder" onSubmit={openFolder} aria-label="Open a folder">
        <input
          data-testid="workspace-path"
          placeholder="Open folder: ~/project or /path"
          aria-label="Folder path (~ is your home folder)"
          list="folder-choices"
          value={path}
          onChange={(event) => setPath(event.target.value)}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
        />
        <datalist id="folder-choices" data-testid="folder-choices">
          {choices.map((choice) => (
            <option key={choice.path} value={choice.path} label={choice.label} />
          ))}
        </datalist>
        <button type="submit" data-testid="workspace-open" disabled={opening || path.trim() === ''}>
          Open
        </button>
        <button
          type="button"
          data-testid="workspace-browse"
          disabled={connection !== 'open'}
          title="Pick a folder by browsing"
          onClick={() => {
            const typed = path.trim()
            store.openDialog({
              kind: 'browse',
              ...(typed ? { path: typed } : activePath ? { path: activePath } : {}),
            })
          }}
        >
          Browse…
        </button>
      </form>
      <div className="filter">
        <input
          type="search"
          data-testid="session-filter"
          placeholder="Filter sessions"
          aria-label="Filter sessions by title"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && filter !== '') {
              // This Esc clears the filter; the next one folds a narrow window's sidebar.
              event.preventDefault()
              setFilter('')
            } else if (event.key === 'ArrowDown') {
              // Down from the filter goes into the tree (onto its Tab stop: the first match).
              const tree = event.currentTarget.closest('aside')?.querySelector('[role="tree"]')
              const stop = tree?.querySelector<HTMLElement>('[role="treeitem"][tabindex="0"]')
              if (stop) {
                event.preventDefault()
                stop.focus()
              }
            }
          }}
        />
      </div>
      <SessionTree onNavigate={onNavigate} filter={filter} />
      <div className="sidebar-actions">
        <button
          type="button"
          className="button"
          data-testid="import-open"
          disabled={connection !== 'open'}
          title="Import session files, or another agent's sessions of this folder"
          onClick={() => store.openDialog({ kind: 'import' })}
        >
          Import…
        </button>
      </div>
      <label className="sidebar-foot">
        <input
          type="checkbox"
          data-testid="show-archived"
          checked={showArchived}
          onChange={(event) => store.setShowArchived(event.target.checked)}
        />
        Show archived
      </label>
      <SandboxStatus />
    </aside>
  )
}

function connectionText(connection: string): string {
  if (connection === 'open') return 'Connected to the Host'
  if (connection === 'connecting') return 'Connecting to the Host…'
  return 'Lost the connection to the Host; retrying'
}

/** The folder box's suggestions: the start folder, then the recently opened folders, each once. */
export function folderChoices(
  startFolder: string | undefined,
  workspaces: readonly { readonly path: string; readonly name: string }[],
): { path: string; label: string }[] {
  const choices: { path: string; label: string }[] = []
  if (startFolder) choices.push({ path: startFolder, label: 'Start folder' })
  for (const workspace of workspaces) {
    if (workspace.path === '' || choices.some((choice) => choice.path === workspace.path)) continue
    choices.push({ path: workspace.path, label: `Recent: ${workspace.name}` })
  }
  return choices
}
