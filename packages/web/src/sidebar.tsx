// The left column: connection state, "open folder", the lineage tree, the archive toggle.

import { type FormEvent, useState } from 'react'
import { BranchIcon } from './icon.js'
import { SessionTree } from './session-tree.js'
import { useHost, useStore } from './use-host.js'

export function Sidebar({ onNavigate }: { onNavigate: () => void }) {
  const store = useStore()
  const connection = useHost((state) => state.connection)
  const showArchived = useHost((state) => state.showArchived)
  const [path, setPath] = useState('')
  const [opening, setOpening] = useState(false)
  const [filter, setFilter] = useState('')

  async function openFolder(event: FormEvent) {
    event.preventDefault()
    const trimmed = path.trim()
    if (trimmed === '') return
    setOpening(true)
    if (await store.openWorkspace(trimmed)) setPath('')
    setOpening(false)
  }

  return (
    <aside className="sidebar" data-testid="sidebar">
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
      </div>
      <form className="open-folder" onSubmit={openFolder}>
        <input
          data-testid="workspace-path"
          placeholder="Open folder: /path/to/project"
          aria-label="Folder path"
          value={path}
          onChange={(event) => setPath(event.target.value)}
          spellCheck={false}
        />
        <button type="submit" data-testid="workspace-open" disabled={opening || path.trim() === ''}>
          Open
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
            if (event.key === 'Escape') setFilter('')
          }}
        />
      </div>
      <SessionTree onNavigate={onNavigate} filter={filter} />
      <label className="sidebar-foot">
        <input
          type="checkbox"
          data-testid="show-archived"
          checked={showArchived}
          onChange={(event) => store.setShowArchived(event.target.checked)}
        />
        Show archived
      </label>
    </aside>
  )
}

function connectionText(connection: string): string {
  if (connection === 'open') return 'Connected to the Host'
  if (connection === 'connecting') return 'Connecting to the Host…'
  return 'Lost the connection to the Host; retrying'
}
