// The bar above the transcript: sidebar toggle (narrow windows), the open session's title,
// lineage, file mode, status, mode (when not the default), and its context meter and cost.

import { defaultSessionMode, sessionModes } from '@tangent/protocol'
import { type Ref, useState } from 'react'
import { ContextMeter } from './context-meter.js'
import { FileBadge } from './file-badge.js'
import { BranchIcon } from './icon.js'
import { forkPointLabel, titleOf } from './session-display.js'
import { sidebarId } from './sidebar.js'
import { useHost, useStore } from './use-host.js'

export function SessionHeader({
  toggleRef,
  sidebarOpen,
  onToggleSidebar,
}: {
  toggleRef: Ref<HTMLButtonElement>
  /** The narrow window's sidebar is unfolded. */
  sidebarOpen: boolean
  onToggleSidebar: () => void
}) {
  const store = useStore()
  const session = useHost((state) =>
    state.openSessionId === null ? undefined : state.sessions.get(state.openSessionId),
  )
  const parent = useHost((state) =>
    session?.parentSession ? state.sessions.get(session.parentSession) : undefined,
  )
  const usage = useHost((state) =>
    state.transcript?.sessionId === state.openSessionId ? state.transcript?.usage : undefined,
  )
  const boardOpen = useHost((state) => state.board !== null)
  const forkPoint = session ? forkPointLabel(session.parentSession, session.forkedAt) : null
  const [compacting, setCompacting] = useState(false)

  async function compact(sessionId: string) {
    setCompacting(true)
    await store.compact(sessionId)
    setCompacting(false)
  }

  return (
    <header className="main-header">
      <button
        ref={toggleRef}
        type="button"
        className="icon-button sidebar-toggle"
        data-testid="sidebar-toggle"
        aria-label="Show sessions"
        aria-expanded={sidebarOpen}
        aria-controls={sidebarId}
        title="Show sessions"
        onClick={onToggleSidebar}
      >
        ☰
      </button>
      {session ? (
        <div className="header-body">
          <h1 data-testid="session-title" title={titleOf(session)}>
            {titleOf(session)}
          </h1>
          <div className="header-meta">
            {session.parentSession !== null ? (
              <button
                type="button"
                className="link"
                data-testid="parent-link"
                disabled={!parent}
                onClick={() => void store.openSession(session.parentSession!)}
                title={parent ? 'Open the parent session' : 'The parent is not in the list'}
              >
                <BranchIcon size={12} /> {parent ? titleOf(parent) : 'parent'} {forkPoint}
              </button>
            ) : null}
            {session.parentSession !== null && parent ? (
              <button
                type="button"
                className="link"
                data-testid="header-compare"
                title="Show this branch and its parent side by side, with the file diff"
                onClick={() => void store.openCompare(session.parentSession!, session.id)}
              >
                Compare with parent
              </button>
            ) : null}
            <button
              type="button"
              className="link"
              data-testid="header-compact"
              disabled={compacting || session.status === 'running'}
              title="Summarise the conversation so far with the session's model; later turns send the summary. Forks before it keep the full history."
              onClick={() => void compact(session.id)}
            >
              {compacting ? 'Compacting…' : 'Compact'}
            </button>
            <FileBadge session={session} />
            <span
              className={session.status === 'running' ? 'status-pill running' : 'status-pill'}
              data-testid="session-status"
            >
              {session.status}
            </span>
            {session.mode !== defaultSessionMode ? (
              // Not the default: say it where the session's state is, as the picker below does.
              <span
                className="status-pill"
                data-testid="session-mode"
                title={sessionModes.find((mode) => mode.id === session.mode)?.description}
              >
                {sessionModes.find((mode) => mode.id === session.mode)?.name ?? session.mode}
              </span>
            ) : null}
            {session.archived ? (
              // Archived while open (or opened from the archive): still usable, and it says so.
              <span className="status-pill" data-testid="session-archived">
                archived
              </span>
            ) : null}
            {usage ? <ContextMeter usage={usage} /> : null}
          </div>
        </div>
      ) : (
        <div className="header-body">
          <h1 className={boardOpen ? undefined : 'muted'}>
            {boardOpen ? 'Exploration board' : 'No session open'}
          </h1>
        </div>
      )}
    </header>
  )
}
