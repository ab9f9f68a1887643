// One session in the lineage tree, a treeitem of the session tree (tree-item.ts): expand
// toggle, live status, title (or inline rename), fork point, child count, file mode, "needs
// approval" (the open session only) and the row menu button. What the eye gets from the
// indent, the status dot and the tags (a fork of which session, running or not) is in the
// row's accessible name too (its content, with visually hidden words where the eye reads a
// dot, an indent or a tag). The row is the one focusable part: its menu button is for the
// mouse, and the keyboard has Enter, the arrows, Shift+F10 (menu) and F2 (rename).
import { useEffect, useRef, useState } from 'react'
import { openSessionAwaitsApproval } from './host-state.js'
import type { SessionRowModel } from './lineage.js'
import { rowMenuId } from './row-menu.js'
import { forkPointLabel, rowHeight, titleOf } from './session-display.js'
import { type TreeItemPlace, treeItemAttributes } from './tree-item.js'
import { useHost, useStore } from './use-host.js'

const indentPx = 14

export function SessionRow(props: {
  top: number
  place: TreeItemPlace
  row: SessionRowModel
  isOpen: boolean
  /** This row's menu is open. */
  menuOpen: boolean
  onOpen: () => void
  onMenu: (x: number, y: number) => void
}) {
  const store = useStore()
  const { depth, childCount, expanded, detachedFrom } = props.row
  // The row model fixes the place in the tree; status and title are read live.
  const session = useHost((state) => state.sessions.get(props.row.session.id)) ?? props.row.session
  const parentId = detachedFrom ?? (depth > 0 ? props.row.session.parentSession : null)
  const parentTitle = useHost((state) => (parentId === null ? '' : titleOf(state.sessions.get(parentId))))
  const renaming = useHost((state) => state.renaming === session.id)
  const loopTitles = useHost((state) =>
    (props.row.parentLoop ?? []).map((id) => titleOf(state.sessions.get(id)) || id).join(' → '),
  )
  // When a rename ends (Enter, Esc) its input goes away: focus goes back to the row, unless
  // the rename ended because focus moved somewhere else.
  const item = useRef<HTMLDivElement>(null)
  const wasRenaming = useRef(false)
  useEffect(() => {
    const focus = document.activeElement
    if (wasRenaming.current && !renaming && (focus === null || focus === document.body)) {
      item.current?.focus()
    }
    wasRenaming.current = renaming
  }, [renaming])
  const running = session.status === 'running'
  // Only the open session's log is at hand: other sessions' waits are not marked (their summary does not say).
  const needsApproval = useHost((state) => props.isOpen && openSessionAwaitsApproval(state))
  const forkPoint = forkPointLabel(session.parentSession, session.forkedAt)
  const title = titleOf(session)
  const forkOf = parentTitle || 'a session not shown here'
  const className = [
    'tree-row',
    'session-row',
    props.isOpen ? 'selected' : '',
    session.archived ? 'archived' : '',
  ]
    .filter(Boolean)
    .join(' ')

  return (
    <div
      {...treeItemAttributes(props.place)}
      role="treeitem"
      tabIndex={props.place.tabbable ? 0 : -1}
      ref={item}
      className={className}
      style={{ top: props.top, height: rowHeight, paddingLeft: 8 + depth * indentPx }}
      data-testid="session-row"
      data-session-id={session.id}
      data-parent-id={session.parentSession ?? ''}
      data-depth={depth}
      data-status={session.status}
      data-archived={session.archived}
      aria-expanded={childCount > 0 ? expanded : undefined}
      aria-selected={props.isOpen}
      aria-current={props.isOpen ? 'true' : undefined}
      aria-keyshortcuts="Shift+F10 F2 +"
      onKeyDown={props.place.onKeyDown}
      onClick={(event) => {
        if (renaming) return
        // The chevron shows or hides the forks; anywhere else opens the session.
        if ((event.target as Element).closest('[data-testid="row-toggle"]')) store.toggleExpanded(session.id)
        else props.onOpen()
      }}
      onDoubleClick={(event) => {
        if (!(event.target as Element).closest('[data-testid="row-toggle"]')) store.startRename(session.id)
      }}
    >
      {childCount > 0 ? (
        <span
          className="toggle"
          data-testid="row-toggle"
          aria-hidden="true"
          title={`${expanded ? 'Hide' : 'Show'} ${childCount} fork${childCount === 1 ? '' : 's'}`}
        >
          <span className={expanded ? 'chevron open' : 'chevron'}>›</span>
        </span>
      ) : (
        <span className="toggle" aria-hidden="true" />
      )}
      <span
        className={running ? 'status-dot running' : 'status-dot'}
        data-testid="status-dot"
        aria-hidden="true"
        title={running ? 'Running a turn' : 'Idle'}
      />
      {renaming ? (
        <RenameInput
          initial={session.title}
          onDone={(title) =>
            title === null ? store.startRename(null) : void store.rename(session.id, title)
          }
        />
      ) : (
        // Hovering shows the whole title, however narrow the sidebar.
        <span
          className="row-title"
          data-testid="row-title"
          title={detachedFrom ? `${title} — forked from ${forkOf}` : title}
        >
          {session.exploration ? (
            <span className="branch-label" data-testid="row-branch-label" aria-hidden="true">
              {session.exploration.label}
            </span>
          ) : null}
          <span className="title-text">{title}</span>
          {session.origin === 'subagent' ? (
            <span className="subagent-tag" data-testid="row-subagent" title="Spawned by a task tool call">
              subagent
            </span>
          ) : null}
          {session.exploration ? (
            <span className="visually-hidden">, branch {session.exploration.label} of an exploration</span>
          ) : null}
          {forkPoint ? (
            <span className="fork-point" data-testid="fork-point">
              {forkPoint}
            </span>
          ) : null}
          {parentId !== null ? <span className="visually-hidden">, fork of {forkOf}</span> : null}
          {running ? (
            <span className="visually-hidden">{needsApproval ? ', needs approval' : ', running'}</span>
          ) : null}
          {session.files.mode === 'worktree' ? <span className="visually-hidden">, own worktree</span> : null}
          {session.files.elsewhere ? (
            <span className="visually-hidden">, files on {session.files.machine ?? 'another machine'}</span>
          ) : null}
          {session.archived ? <span className="visually-hidden">, archived</span> : null}
        </span>
      )}
      {needsApproval ? (
        <span className="tag tag-approval" data-testid="row-needs-approval" aria-hidden="true">
          needs approval
        </span>
      ) : null}
      {props.row.parentLoop ? (
        // Damaged headers make its parents a loop: it is listed at the top and cannot be opened.
        // The tag's words are in the row's name, followed by the loop's titles.
        <>
          <span
            className="tag tag-loop"
            data-testid="row-parent-loop"
            title={`Its parents form a loop (damaged logs): ${props.row.parentLoop.join(' → ')}`}
          >
            parent loop
          </span>
          <span className="visually-hidden">{`: its parents form a loop (damaged logs), ${loopTitles}`}</span>
        </>
      ) : null}
      {session.files.elsewhere ? (
        // Another machine's session (shared store): its turns run there; a worktree fork continues it here.
        <span
          className="tag tag-elsewhere"
          data-testid="row-machine"
          aria-hidden="true"
          title={`Its files are on ${session.files.machine ?? 'another machine'}, in ${session.files.path}`}
        >
          {session.files.machine ?? 'elsewhere'}
        </span>
      ) : null}
      {session.files.mode === 'worktree' ? (
        <span
          className="tag tag-worktree"
          data-testid="row-file-badge"
          aria-hidden="true"
          title={`Own worktree: ${session.files.path}`}
        >
          wt
        </span>
      ) : null}
      {childCount > 0 ? (
        <span
          className="child-count"
          data-testid="child-count"
          aria-hidden="true"
          title={`${childCount} fork${childCount === 1 ? '' : 's'}`}
        >
          {childCount}
        </span>
      ) : null}
      <button
        type="button"
        className="icon-button row-menu-button"
        data-testid="row-menu-button"
        tabIndex={-1}
        // For the mouse: the row itself is the keyboard's stop (Shift+F10 opens this menu), and its
        // name is the row's content, which this button would only repeat.
        aria-hidden="true"
        aria-label={`Actions for ${title}`}
        aria-haspopup="menu"
        aria-expanded={props.menuOpen}
        aria-controls={props.menuOpen ? rowMenuId : undefined}
        title="Session actions (Shift+F10)"
        onClick={(event) => {
          event.stopPropagation()
          const rect = event.currentTarget.getBoundingClientRect()
          props.onMenu(rect.right, rect.bottom)
        }}
        onDoubleClick={(event) => event.stopPropagation()}
      >
        ⋯
      </button>
    </div>
  )
}

function RenameInput({ initial, onDone }: { initial: string; onDone: (title: string | null) => void }) {
  const [value, setValue] = useState(initial)
  const input = useRef<HTMLInputElement>(null)
  const done = useRef(false)
  useEffect(() => {
    input.current?.focus()
    input.current?.select()
  }, [])
  function finish(title: string | null) {
    if (done.current) return
    done.current = true
    onDone(title === null || title.trim() === '' || title === initial ? null : title.trim())
  }
  return (
    <input
      ref={input}
      className="rename-input"
      data-testid="rename-input"
      aria-label="Session title"
      value={value}
      maxLength={200}
      onChange={(event) => setValue(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') finish(value)
        else if (event.key === 'Escape') {
          // Esc cancels the rename only (not the narrow window's sidebar around it).
          event.preventDefault()
          event.stopPropagation()
          finish(null)
        }
      }}
      onBlur={() => finish(value)}
    />
  )
}
