// The lineage tree of every workspace as one windowed list: only the rows in view are
// rendered, and only expanded sessions contribute their children, so thousands of
// sessions stay cheap. Rows have one fixed height, which makes the windowing exact.
import { useLayoutEffect, useMemo, useRef, useState } from 'react'
import { ExplorationRow } from './exploration-row.js'
import { buildLineage, type ExplorationRowModel, flattenWorkspace, type SessionRowModel } from './lineage.js'
import { RowMenu } from './row-menu.js'
import { rowHeight, titleOf } from './session-display.js'
import { SessionRow } from './session-row.js'
import { useHost, useStore } from './use-host.js'
import type { Workspace } from './wire.js'

const overscan = 8

type Row =
  | {
      readonly kind: 'workspace'
      readonly workspace: Workspace
      readonly count: number
      readonly collapsed: boolean
    }
  | SessionRowModel
  | ExplorationRowModel

export function SessionTree({ onNavigate, filter }: { onNavigate: () => void; filter: string }) {
  const store = useStore()
  const treeVersion = useHost((state) => state.treeVersion)
  const workspaces = useHost((state) => state.workspaces)
  const expanded = useHost((state) => state.expanded)
  const collapsed = useHost((state) => state.collapsedWorkspaces)
  const showArchived = useHost((state) => state.showArchived)
  const openSessionId = useHost((state) => state.openSessionId)
  const activeWorkspaceId = useHost((state) => state.activeWorkspaceId)
  const [menu, setMenu] = useState<{ sessionId: string; x: number; y: number } | null>(null)

  const lineage = useMemo(() => {
    // Rebuilt only when the shape changed (treeVersion); rows read status and title live.
    void treeVersion
    const sessions = store.getState().sessions.values()
    return buildLineage(sessions, showArchived, new Set(workspaces.map((workspace) => workspace.id)))
  }, [store, treeVersion, showArchived, workspaces])
  const query = filter.trim().toLowerCase()
  // While filtering, titles matter, so the list follows every session change.
  const filtering = useHost((state) => (query === '' ? null : state.sessions))
  const rows = useMemo(() => {
    const list: Row[] = []
    if (filtering !== null) {
      for (const session of filtering.values()) {
        if (!showArchived && session.archived) continue
        if (!titleOf(session).toLowerCase().includes(query)) continue
        list.push({ kind: 'session', session, depth: 0, childCount: 0, expanded: false, detachedFrom: null })
      }
      return list.sort((a, b) =>
        a.kind === 'session' && b.kind === 'session' ? b.session.updatedAt - a.session.updatedAt : 0,
      )
    }
    const groups: Workspace[] = [...workspaces]
    if ((lineage.roots.get('') ?? []).length > 0) groups.push({ id: '', name: 'Other sessions', path: '' })
    for (const workspace of groups) {
      const isCollapsed = collapsed.has(workspace.id)
      // Every session of the workspace, forks included (not only the roots of its tree).
      const count = lineage.totals.get(workspace.id) ?? 0
      list.push({ kind: 'workspace', workspace, count, collapsed: isCollapsed })
      if (!isCollapsed) list.push(...flattenWorkspace(lineage, workspace.id, expanded))
    }
    return list
  }, [lineage, workspaces, collapsed, expanded, filtering, query, showArchived])

  const viewport = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(600)
  useLayoutEffect(() => {
    const element = viewport.current
    if (!element) return
    const observer = new ResizeObserver(() => setHeight(element.clientHeight))
    observer.observe(element)
    setHeight(element.clientHeight)
    return () => observer.disconnect()
  }, [])

  // Bring the open session into view when it changes (a fork, a link, another tab).
  const openIndex = useMemo(
    () => rows.findIndex((row) => row.kind === 'session' && row.session.id === openSessionId),
    [rows, openSessionId],
  )
  useLayoutEffect(() => {
    const element = viewport.current
    if (!element || openIndex < 0) return
    const top = openIndex * rowHeight
    if (top < element.scrollTop) element.scrollTop = top
    else if (top + rowHeight > element.scrollTop + element.clientHeight) {
      element.scrollTop = top + rowHeight - element.clientHeight
    }
  }, [openIndex])

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan)
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / rowHeight) + overscan)
  const visible = rows.slice(first, last)

  return (
    <nav className="tree" aria-label="Sessions">
      <div
        className="tree-viewport"
        ref={viewport}
        data-testid="session-tree"
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
      >
        <div className="tree-canvas" style={{ height: rows.length * rowHeight }}>
          {visible.map((row, offset) => {
            const top = (first + offset) * rowHeight
            if (row.kind === 'workspace') {
              return (
                <WorkspaceRow
                  key={`w:${row.workspace.id}`}
                  top={top}
                  workspace={row.workspace}
                  count={row.count}
                  collapsed={row.collapsed}
                  active={row.workspace.id === activeWorkspaceId}
                  onToggle={() => store.toggleWorkspace(row.workspace.id)}
                  onNew={() => {
                    onNavigate()
                    void store.createSession(row.workspace.id === '' ? null : row.workspace.id)
                  }}
                />
              )
            }
            if (row.kind === 'exploration') {
              return (
                <ExplorationRow
                  key={`x:${row.exploration}`}
                  top={top}
                  row={row}
                  onOpen={() => {
                    onNavigate()
                    store.openBoard(row.exploration)
                  }}
                />
              )
            }
            return (
              <SessionRow
                key={row.session.id}
                top={top}
                row={row}
                isOpen={row.session.id === openSessionId}
                menuOpen={menu?.sessionId === row.session.id}
                onOpen={() => {
                  onNavigate()
                  void store.openSession(row.session.id)
                }}
                onMenu={(x, y) => setMenu({ sessionId: row.session.id, x, y })}
              />
            )
          })}
        </div>
        {rows.length === 0 && query !== '' ? (
          <p className="tree-empty" data-testid="filter-empty">
            No session title contains “{filter.trim()}”.
          </p>
        ) : null}
        {rows.length === 0 && query === '' ? (
          <p className="tree-empty">
            Open a folder to start. Each folder is a workspace with its own sessions.
          </p>
        ) : null}
      </div>
      {menu ? <RowMenu {...menu} onClose={() => setMenu(null)} /> : null}
    </nav>
  )
}

function WorkspaceRow(props: {
  top: number
  workspace: Workspace
  count: number
  collapsed: boolean
  /** The selected workspace: where a new session starts. */
  active: boolean
  onToggle: () => void
  onNew: () => void
}) {
  const { workspace } = props
  return (
    <div
      className={props.active ? 'tree-row workspace-row active' : 'tree-row workspace-row'}
      data-active={props.active}
      style={{ top: props.top, height: rowHeight }}
      data-testid="workspace-row"
      data-workspace-id={workspace.id}
    >
      <button
        type="button"
        className="workspace-name"
        aria-expanded={!props.collapsed}
        aria-current={props.active ? 'true' : undefined}
        title={
          workspace.path
            ? `${workspace.path}${props.active ? ' (selected: new sessions start here)' : ''}`
            : 'Sessions without a workspace'
        }
        onClick={props.onToggle}
      >
        <span className={props.collapsed ? 'chevron' : 'chevron open'} aria-hidden="true">
          ›
        </span>
        {workspace.name}
        <span className="muted count">{props.count}</span>
      </button>
      <button
        type="button"
        className="icon-button"
        data-testid="new-session"
        title={`New session in ${workspace.name}`}
        aria-label={`New session in ${workspace.name}`}
        onClick={props.onNew}
      >
        +
      </button>
    </div>
  )
}
