// The page layout: sidebar (workspaces and the lineage tree) beside the open session
// (header, banners, transcript, compare view or exploration board, composer), plus the modal dialogs. In a narrow
// window the sidebar folds away behind a button; unfolded it covers the session like a
// drawer: focus moves into it, stays in it (the session view is inert), and Esc, its close
// button or choosing a session folds it again, focus going back to the button. In a wide
// window a separator resizes the sidebar, and the width is remembered.
import { type CSSProperties, useEffect, useRef, useState, useSyncExternalStore } from 'react'
import { CompareView } from './compare-view.js'
import { Composer } from './composer.js'
import { DeleteDialog } from './delete-dialog.js'
import { ErrorBanner } from './error-banner.js'
import { ExplorationBoard } from './exploration-board.js'
import { ExploreDialog } from './explore-dialog.js'
import { ExportDialog } from './export-dialog.js'
import { FolderBrowser } from './folder-browser.js'
import { ForkDialog } from './fork-dialog.js'
import { ImportDialog } from './import-dialog.js'
import { LiveAnnouncer } from './live-announcer.js'
import type { MemoryStorage } from './open-session-memory.js'
import { RestoreDialog } from './restore-dialog.js'
import { SessionHeader } from './session-header.js'
import { Sidebar } from './sidebar.js'
import { SidebarResizer } from './sidebar-resizer.js'
import { clampSidebarWidth, readSidebarWidth, writeSidebarWidth } from './sidebar-width.js'
import { Transcript } from './transcript.js'
import { useHost } from './use-host.js'

const narrowQuery = '(max-width: 720px)'

/** The window is narrow enough for the folding sidebar (the same width as in styles.css). */
function useNarrow(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = window.matchMedia(narrowQuery)
      query.addEventListener('change', onChange)
      return () => query.removeEventListener('change', onChange)
    },
    () => window.matchMedia(narrowQuery).matches,
  )
}

export function App({ storage = null }: { storage?: MemoryStorage | null }) {
  const [sidebarOpen, setSidebarOpen] = useState(false)
  const narrow = useNarrow()
  const [sidebarWidth, setSidebarWidth] = useState(() =>
    clampSidebarWidth(readSidebarWidth(storage), window.innerWidth),
  )
  function resizeSidebar(width: number, done: boolean) {
    const clamped = clampSidebarWidth(width, window.innerWidth)
    setSidebarWidth(clamped)
    if (done) writeSidebarWidth(storage, clamped)
  }
  // The unfolded sidebar of a narrow window, over the session view.
  const drawer = narrow && sidebarOpen
  const sidebar = useRef<HTMLElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)

  const wasDrawer = useRef(false)
  useEffect(() => {
    const aside = sidebar.current
    if (drawer && !wasDrawer.current) {
      // Into the sidebar: onto the open session, else its first control.
      const target =
        aside?.querySelector<HTMLElement>('[role="treeitem"][aria-current="true"]') ??
        aside?.querySelector<HTMLElement>('input, button:not(:disabled)')
      target?.focus()
    } else if (!drawer && wasDrawer.current && narrow) {
      // Folded: focus left behind in it (or lost) goes back to the button.
      const focus = document.activeElement
      if (focus === null || focus === document.body || aside?.contains(focus)) toggle.current?.focus()
    }
    wasDrawer.current = drawer
  }, [drawer, narrow])

  useEffect(() => {
    if (!drawer) return
    function onKey(event: KeyboardEvent) {
      // Esc folds it, unless something in it used the Esc (the row menu, a rename, the
      // filter) or a dialog is open over it.
      if (event.key !== 'Escape' || event.defaultPrevented) return
      if (event.target instanceof Element && event.target.closest('dialog')) return
      setSidebarOpen(false)
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [drawer])
  const comparing = useHost((state) => state.compare !== null)
  const boarding = useHost((state) => state.board !== null)
  const dialog = useHost((state) => state.dialog)
  const conflict = useHost((state) => state.restoreConflict)
  const openSessionId = useHost((state) => state.openSessionId)

  return (
    <div
      className={sidebarOpen ? 'app sidebar-open' : 'app'}
      data-testid="app"
      style={{ '--sidebar-width': `${sidebarWidth}px` } as CSSProperties}
    >
      <Sidebar ref={sidebar} onNavigate={() => setSidebarOpen(false)} onHide={() => setSidebarOpen(false)} />
      {narrow ? null : <SidebarResizer width={sidebarWidth} onResize={resizeSidebar} />}
      <button
        type="button"
        className="scrim"
        aria-label="Close the sidebar"
        tabIndex={-1}
        onClick={() => setSidebarOpen(false)}
      />
      <main className="main" inert={drawer}>
        <SessionHeader
          toggleRef={toggle}
          sidebarOpen={drawer}
          onToggleSidebar={() => setSidebarOpen((open) => !open)}
        />
        <ErrorBanner />
        {/* Keyed by session: each one starts scrolled to its end. */}
        {boarding ? (
          <ExplorationBoard />
        ) : comparing ? (
          <CompareView />
        ) : (
          <Transcript key={openSessionId ?? ''} />
        )}
        {comparing || boarding ? null : <Composer />}
      </main>
      {dialog?.kind === 'fork' ? <ForkDialog dialog={dialog} /> : null}
      {dialog?.kind === 'explore' ? <ExploreDialog dialog={dialog} /> : null}
      {dialog?.kind === 'delete' ? <DeleteDialog sessionId={dialog.sessionId} /> : null}
      {dialog?.kind === 'browse' ? <FolderBrowser dialog={dialog} /> : null}
      {dialog?.kind === 'import' ? <ImportDialog /> : null}
      {dialog?.kind === 'export' ? <ExportDialog sessionId={dialog.sessionId} /> : null}
      {conflict ? <RestoreDialog conflict={conflict} /> : null}
      <LiveAnnouncer />
    </div>
  )
}
