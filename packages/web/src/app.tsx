// The page layout: sidebar (workspaces and the lineage tree) beside the open session
// (header, banners, transcript or compare view, composer), plus the modal dialogs.
import { useState } from 'react'
import { CompareView } from './compare-view.js'
import { Composer } from './composer.js'
import { DeleteDialog } from './delete-dialog.js'
import { ErrorBanner } from './error-banner.js'
import { FolderBrowser } from './folder-browser.js'
import { ForkDialog } from './fork-dialog.js'
import { RestoreDialog } from './restore-dialog.js'
import { SessionHeader } from './session-header.js'
import { Sidebar } from './sidebar.js'
import { Transcript } from './transcript.js'
import { useHost } from './use-host.js'

export function App() {
  const [sidebarOpen, setSidebarOpen] = useState(false)
  const comparing = useHost((state) => state.compare !== null)
  const dialog = useHost((state) => state.dialog)
  const conflict = useHost((state) => state.restoreConflict)
  const openSessionId = useHost((state) => state.openSessionId)

  return (
    <div className={sidebarOpen ? 'app sidebar-open' : 'app'} data-testid="app">
      <Sidebar onNavigate={() => setSidebarOpen(false)} />
      <button
        type="button"
        className="scrim"
        aria-label="Close the sidebar"
        tabIndex={-1}
        onClick={() => setSidebarOpen(false)}
      />
      <main className="main">
        <SessionHeader onToggleSidebar={() => setSidebarOpen((open) => !open)} />
        <ErrorBanner />
        {/* Keyed by session: each one starts scrolled to its end. */}
        {comparing ? <CompareView /> : <Transcript key={openSessionId ?? ''} />}
        {comparing ? null : <Composer />}
      </main>
      {dialog?.kind === 'fork' ? <ForkDialog dialog={dialog} /> : null}
      {dialog?.kind === 'delete' ? <DeleteDialog sessionId={dialog.sessionId} /> : null}
      {dialog?.kind === 'browse' ? <FolderBrowser dialog={dialog} /> : null}
      {conflict ? <RestoreDialog conflict={conflict} /> : null}
    </div>
  )
}
