// The lineage tree of every workspace as one windowed list: only the rows in view are
// rendered, and only expanded sessions contribute their children, so thousands of
// sessions stay cheap. Rows have one fixed height, which makes the windowing exact.
// It is a WAI-ARIA tree (docs/architecture.md §8, accessibility): one Tab stop (the
// focused row, always rendered even when scrolled away), arrows, Home/End and type-ahead
// move it, Enter opens; the keys are in tree-navigation.ts.
import { type KeyboardEvent, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { ExplorationRow } from './exploration-row.js'
import { PlusIcon } from './icon.js'
import {
  buildLineage,
  type ExplorationRowModel,
  explorationGroupKey,
  flattenWorkspace,
  type SessionRowModel,
} from './lineage.js'
import { RowMenu } from './row-menu.js'
import { rowHeight, titleOf } from './session-display.js'
import { SessionRow } from './session-row.js'
import { type TreeItemPlace, treeItemAttributes } from './tree-item.js'
import { type TreeNavItem, treeKeyAction, treePositions } from './tree-navigation.js'
import { useHost, useStore } from './use-host.js'
import type { SessionSummary, Workspace } from './wire.js'

const overscan = 8
/** Type-ahead: keys closer together than this make one word. */
const typeAheadPauseMs = 700

type WorkspaceRowModel = {
  readonly kind: 'workspace'
  readonly workspace: Workspace
  readonly count: number
  readonly collapsed: boolean
}
type Row = WorkspaceRowModel | SessionRowModel | ExplorationRowModel

function rowKeyOf(row: Row): string {
  if (row.kind === 'workspace') return `w:${row.workspace.id}`
  if (row.kind === 'exploration') return `x:${row.exploration}`
  return `s:${row.session.id}`
}

/** The index of the row with this key, or -1; allocates nothing per row (10,000 rows, every render). */
function indexOfKey(rows: readonly Row[], key: string | null): number {
  if (key === null) return -1
  const id = key.slice(2)
  if (key.startsWith('s:')) return rows.findIndex((row) => row.kind === 'session' && row.session.id === id)
  if (key.startsWith('w:'))
    return rows.findIndex((row) => row.kind === 'workspace' && row.workspace.id === id)
  return rows.findIndex((row) => row.kind === 'exploration' && row.exploration === id)
}

/** What the keyboard reads of a row; titles are read live (a rename does not rebuild the rows). */
function navItemOf(row: Row, level: number, sessions: ReadonlyMap<string, SessionSummary>): TreeNavItem {
  if (row.kind === 'workspace') {
    return { level, expandable: true, expanded: !row.collapsed, label: row.workspace.name }
  }
  if (row.kind === 'exploration') {
    return { level, expandable: true, expanded: row.expanded, label: `Tried ${row.size} ways` }
  }
  return {
    level,
    expandable: row.childCount > 0,
    expanded: row.expanded,
    label: titleOf(sessions.get(row.session.id) ?? row.session),
  }
}

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
  const { rows, levels } = useMemo(() => {
    const list: Row[] = []
    if (filtering !== null) {
      // Matches from every workspace as one flat list: every row is at level 1.
      for (const session of filtering.values()) {
        if (!showArchived && session.archived) continue
        if (!titleOf(session).toLowerCase().includes(query)) continue
        const parentLoop = lineage.parentLoops.get(session.id) ?? null
        list.push({
          kind: 'session',
          session,
          depth: 0,
          childCount: 0,
          expanded: false,
          detachedFrom: null,
          parentLoop,
        })
      }
      list.sort((a, b) =>
        a.kind === 'session' && b.kind === 'session' ? b.session.updatedAt - a.session.updatedAt : 0,
      )
      return { rows: list, levels: new Int32Array(list.length).fill(1) }
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
    // Workspaces are level 1; their sessions start at level 2.
    const levels = new Int32Array(list.length)
    for (let index = 0; index < list.length; index++) {
      const row = list[index]!
      levels[index] = row.kind === 'workspace' ? 1 : row.depth + 2
    }
    return { rows: list, levels }
  }, [lineage, workspaces, collapsed, expanded, filtering, query, showArchived])
  const positions = useMemo(() => treePositions(levels), [levels])

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

  function scrollIntoView(index: number) {
    const element = viewport.current
    if (!element || index < 0) return
    const top = index * rowHeight
    if (top < element.scrollTop) element.scrollTop = top
    else if (top + rowHeight > element.scrollTop + element.clientHeight) {
      element.scrollTop = top + rowHeight - element.clientHeight
    }
  }

  // Bring the open session into view when it changes (a fork, a link, another tab).
  const openIndex = useMemo(
    () => rows.findIndex((row) => row.kind === 'session' && row.session.id === openSessionId),
    [rows, openSessionId],
  )
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrollIntoView reads only the viewport ref.
  useLayoutEffect(() => scrollIntoView(openIndex), [openIndex])

  // The row that has (or last had) the keyboard: the tree's one Tab stop. Opening a session
  // makes it the open one (focus enters a tree on its selected row); without one, or when
  // it has gone (deleted, filtered out), the open session, else the first row.
  const [active, setActive] = useState<{ key: string; whileOpen: string | null } | null>(null)
  const activeKey = active !== null && active.whileOpen === openSessionId ? active.key : null
  const setActiveKey = (key: string) => setActive({ key, whileOpen: openSessionId })
  const tabIndexRow = useMemo(() => {
    const active = indexOfKey(rows, activeKey)
    return active >= 0 ? active : openIndex >= 0 ? openIndex : rows.length > 0 ? 0 : -1
  }, [rows, activeKey, openIndex])
  const tabKey = tabIndexRow >= 0 ? rowKeyOf(rows[tabIndexRow]!) : null
  // A row to focus once it is rendered (after a key moved the Tab stop onto it).
  const focusPending = useRef<string | null>(null)
  useLayoutEffect(() => {
    const key = focusPending.current
    if (key === null || key !== tabKey) return
    focusPending.current = null
    viewport.current?.querySelector<HTMLElement>(`[data-row-key="${CSS.escape(key)}"]`)?.focus()
  })
  const typed = useRef({ text: '', at: 0 })
  // The row that had focus: when it leaves the DOM (deleted, archived, filtered out) with
  // focus, focus moves to the new Tab stop instead of falling to <body>.
  const focusedRow = useRef<HTMLElement | null>(null)
  useLayoutEffect(() => {
    const lost = focusedRow.current
    if (lost === null || lost.isConnected) return
    const focus = document.activeElement
    if (focus !== null && focus !== document.body) return
    focusedRow.current = null
    viewport.current?.querySelector<HTMLElement>('[role="treeitem"][tabindex="0"]')?.focus()
  })

  function moveTo(index: number) {
    const row = rows[index]
    if (!row) return
    focusPending.current = rowKeyOf(row)
    setActiveKey(rowKeyOf(row))
    scrollIntoView(index)
  }

  function toggle(row: Row) {
    if (row.kind === 'workspace') store.toggleWorkspace(row.workspace.id)
    else if (row.kind === 'exploration') store.toggleExpanded(explorationGroupKey(row.exploration))
    else store.toggleExpanded(row.session.id)
  }

  function activate(row: Row) {
    if (row.kind === 'workspace') {
      toggle(row)
      return
    }
    onNavigate()
    if (row.kind === 'exploration') store.openBoard(row.exploration)
    else void store.openSession(row.session.id)
  }

  function newSessionIn(workspaceId: string | null) {
    onNavigate()
    void store.createSession(workspaceId === '' ? null : workspaceId)
  }

  function onItemKeyDown(event: KeyboardEvent<HTMLElement>) {
    // Keys typed inside a row (its rename box) are that control's own.
    if (event.target !== event.currentTarget) return
    const index = indexOfKey(rows, event.currentTarget.getAttribute('data-row-key'))
    const row = rows[index]
    if (!row) return
    let text = ''
    if (event.key.length === 1 && event.key !== ' ' && event.key !== '+') {
      const recent = event.timeStamp - typed.current.at < typeAheadPauseMs
      text = (recent ? typed.current.text : '') + event.key
      typed.current = { text, at: event.timeStamp }
    }
    const sessions = store.getState().sessions
    const items = rows.map((each, at) => navItemOf(each, levels[at]!, sessions))
    const action = treeKeyAction(items, index, event, text)
    if (action === null) return
    event.preventDefault()
    if (action.kind === 'move') moveTo(action.index)
    else if (action.kind === 'expand' || action.kind === 'collapse') toggle(row)
    else if (action.kind === 'activate') activate(row)
    else if (action.kind === 'menu' && row.kind === 'session') {
      const button = event.currentTarget.querySelector('[data-testid="row-menu-button"]')
      const rect = (button ?? event.currentTarget).getBoundingClientRect()
      setMenu({ sessionId: row.session.id, x: rect.right, y: rect.bottom })
    } else if (action.kind === 'rename' && row.kind === 'session') store.startRename(row.session.id)
    else if (action.kind === 'new-session') {
      newSessionIn(
        row.kind === 'workspace'
          ? row.workspace.id
          : row.kind === 'session'
            ? row.session.workspaceId
            : (row.branches[0]?.workspaceId ?? null),
      )
    }
  }

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan)
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / rowHeight) + overscan)
  const shown: number[] = []
  // The Tab stop stays in the DOM when it is scrolled away, so Tab still finds the tree.
  if (tabIndexRow >= 0 && tabIndexRow < first) shown.push(tabIndexRow)
  for (let index = first; index < last; index++) shown.push(index)
  if (tabIndexRow >= last) shown.push(tabIndexRow)

  const place = (index: number): TreeItemPlace => {
    const row = rows[index]!
    const rowKey = rowKeyOf(row)
    return {
      rowKey,
      level: levels[index]!,
      posinset: positions.posinset[index]!,
      setsize: positions.setsize[index]!,
      tabbable: rowKey === tabKey,
      onKeyDown: onItemKeyDown,
    }
  }

  return (
    <nav className="tree" aria-label="Sessions">
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
      <div
        className="tree-viewport"
        ref={viewport}
        data-testid="session-tree"
        role="tree"
        aria-label={query === '' ? 'Sessions by workspace' : 'Matching sessions'}
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
        onFocus={(event) => {
          // A click or Tab onto a row makes it the Tab stop.
          const item = (event.target as HTMLElement).closest<HTMLElement>('[data-row-key]')
          focusedRow.current = item
          const key = item?.getAttribute('data-row-key')
          if (key && key !== activeKey) setActiveKey(key)
        }}
        onBlur={(event) => {
          // Focus moved on, out of the tree (not lost with a removed row).
          const next = event.relatedTarget
          if (next !== null && !event.currentTarget.contains(next)) focusedRow.current = null
        }}
      >
        <div className="tree-canvas" style={{ height: rows.length * rowHeight }}>
          {shown.map((index) => {
            const row = rows[index]!
            const top = index * rowHeight
            if (row.kind === 'workspace') {
              return (
                <WorkspaceRow
                  key={`w:${row.workspace.id}`}
                  top={top}
                  place={place(index)}
                  workspace={row.workspace}
                  count={row.count}
                  collapsed={row.collapsed}
                  active={row.workspace.id === activeWorkspaceId}
                  onToggle={() => store.toggleWorkspace(row.workspace.id)}
                  onNew={() => newSessionIn(row.workspace.id)}
                />
              )
            }
            if (row.kind === 'exploration') {
              return (
                <ExplorationRow
                  key={`x:${row.exploration}`}
                  top={top}
                  place={place(index)}
                  row={row}
                  onOpen={() => activate(row)}
                />
              )
            }
            return (
              <SessionRow
                key={row.session.id}
                top={top}
                place={place(index)}
                row={row}
                isOpen={row.session.id === openSessionId}
                menuOpen={menu?.sessionId === row.session.id}
                onOpen={() => activate(row)}
                onMenu={(x, y) => setMenu({ sessionId: row.session.id, x, y })}
              />
            )
          })}
        </div>
      </div>
      {menu ? <RowMenu {...menu} onClose={() => setMenu(null)} /> : null}
    </nav>
  )
}

function WorkspaceRow(props: {
  top: number
  place: TreeItemPlace
  workspace: Workspace
  count: number
  collapsed: boolean
  /** The selected workspace: where a new session starts. */
  active: boolean
  onToggle: () => void
  onNew: () => void
}) {
  const { workspace, count } = props
  const sessions = `${count} session${count === 1 ? '' : 's'}`
  return (
    <div
      {...treeItemAttributes(props.place)}
      role="treeitem"
      tabIndex={props.place.tabbable ? 0 : -1}
      className={props.active ? 'tree-row workspace-row active' : 'tree-row workspace-row'}
      data-active={props.active}
      style={{ top: props.top, height: rowHeight }}
      data-testid="workspace-row"
      data-workspace-id={workspace.id}
      aria-expanded={!props.collapsed}
      aria-keyshortcuts="+"
      onClick={props.onToggle}
      onKeyDown={props.place.onKeyDown}
    >
      <span
        className="workspace-name"
        title={
          workspace.path
            ? `${workspace.path}${props.active ? ' (selected: new sessions start here)' : ''}`
            : 'Sessions without a workspace'
        }
      >
        <span className={props.collapsed ? 'chevron' : 'chevron open'} aria-hidden="true">
          ›
        </span>
        <span className="workspace-label">{workspace.name}</span>
        <span className="muted count" title={sessions}>
          {count}
          <span className="visually-hidden"> session{count === 1 ? '' : 's'}</span>
        </span>
        {props.active ? <span className="visually-hidden">, new sessions start here</span> : null}
      </span>
      <button
        type="button"
        className="icon-button"
        data-testid="new-session"
        tabIndex={-1}
        // For the mouse, like a session row's menu button: the keyboard presses + on the row.
        aria-hidden="true"
        title={`New session in ${workspace.name} (+)`}
        aria-label={`New session in ${workspace.name}`}
        onClick={(event) => {
          event.stopPropagation()
          props.onNew()
        }}
      >
        <PlusIcon size={13} />
      </button>
    </div>
  )
}
