// One session in the lineage tree: expand toggle, live status, title (or inline rename),
// fork point, child count, file mode and the row menu button.
import { useEffect, useRef, useState } from 'react'
import type { SessionRowModel } from './lineage.js'
import { forkPointLabel, rowHeight, titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'

const indentPx = 14

export function SessionRow(props: {
  top: number
  row: SessionRowModel
  isOpen: boolean
  onOpen: () => void
  onMenu: (x: number, y: number) => void
}) {
  const store = useStore()
  const { depth, childCount, expanded, detachedFrom } = props.row
  // The row model fixes the place in the tree; status and title are read live.
  const session = useHost((state) => state.sessions.get(props.row.session.id)) ?? props.row.session
  const parentTitle = useHost((state) =>
    detachedFrom === null ? '' : titleOf(state.sessions.get(detachedFrom)),
  )
  const renaming = useHost((state) => state.renaming === session.id)
  const running = session.status === 'running'
  const forkPoint = forkPointLabel(session.parentSession, session.forkedAt)
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
      className={className}
      style={{ top: props.top, height: rowHeight, paddingLeft: 8 + depth * indentPx }}
      data-testid="session-row"
      data-session-id={session.id}
      data-parent-id={session.parentSession ?? ''}
      data-depth={depth}
      data-status={session.status}
      data-archived={session.archived}
    >
      {childCount > 0 ? (
        <button
          type="button"
          className="toggle"
          data-testid="row-toggle"
          aria-expanded={expanded}
          aria-label={expanded ? 'Collapse forks' : 'Expand forks'}
          onClick={() => store.toggleExpanded(session.id)}
        >
          <span className={expanded ? 'chevron open' : 'chevron'} aria-hidden="true">
            ›
          </span>
        </button>
      ) : (
        <span className="toggle" aria-hidden="true" />
      )}
      <span
        className={running ? 'status-dot running' : 'status-dot'}
        data-testid="status-dot"
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
        <button
          type="button"
          className="row-title"
          data-testid="row-title"
          onClick={props.onOpen}
          onDoubleClick={() => store.startRename(session.id)}
          title={
            detachedFrom
              ? `${titleOf(session)} — forked from ${parentTitle || 'a session not shown here'}`
              : titleOf(session)
          }
        >
          <span className="title-text">{titleOf(session)}</span>
          {forkPoint ? (
            <span className="fork-point" data-testid="fork-point">
              {forkPoint}
            </span>
          ) : null}
        </button>
      )}
      {session.files.mode === 'worktree' ? (
        <span
          className="tag tag-worktree"
          data-testid="row-file-badge"
          title={`Own worktree: ${session.files.path}`}
        >
          wt
        </span>
      ) : null}
      {childCount > 0 ? (
        <span
          className="child-count"
          data-testid="child-count"
          title={`${childCount} fork${childCount === 1 ? '' : 's'}`}
        >
          {childCount}
        </span>
      ) : null}
      <button
        type="button"
        className="icon-button row-menu-button"
        data-testid="row-menu-button"
        aria-label="Session actions"
        title="Session actions"
        onClick={(event) => {
          const rect = event.currentTarget.getBoundingClientRect()
          props.onMenu(rect.right, rect.bottom)
        }}
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
        else if (event.key === 'Escape') finish(null)
      }}
      onBlur={() => finish(value)}
    />
  )
}
