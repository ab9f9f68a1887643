// The row menu of a session: Fork…, Rename, Compare, Archive/Unarchive, Export…, Delete….
// A small popover at the button; Esc, Tab or a click elsewhere closes it. Arrow keys, Home
// and End move through it. Focus goes back to the button that opened it, so a dialog opened
// from the menu (Fork…, Delete…) gives focus back to that button too.
import { type KeyboardEvent, useEffect, useLayoutEffect, useRef } from 'react'
import { afterRender, type OpenerPlace, openerPlace, returnFocus } from './focus-return.js'
import { titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'

/** The id of the open row menu, for its button's aria-controls (one menu is open at a time). */
export const rowMenuId = 'row-menu'

export function RowMenu(props: { sessionId: string; x: number; y: number; onClose: () => void }) {
  const store = useStore()
  const session = useHost((state) => state.sessions.get(props.sessionId))
  const openSessionId = useHost((state) => state.openSessionId)
  const menu = useRef<HTMLDivElement>(null)
  /** The tree the menu was opened from: focus goes to its Tab stop when the row goes. */
  const place = useRef<OpenerPlace>({ tree: null })
  const { onClose } = props

  // A layout effect: its cleanup runs before a dialog opened from the menu mounts, so the
  // dialog finds focus on the button and gives it back there when it closes.
  useLayoutEffect(() => {
    const opener = document.activeElement
    place.current = openerPlace(opener)
    menu.current?.querySelector('button')?.focus()
    return () => {
      const focus = document.activeElement
      const lost = focus === null || focus === document.body || menu.current?.contains(focus)
      if (lost && opener instanceof HTMLElement && opener.isConnected) opener.focus()
    }
  }, [])

  useEffect(() => {
    function onPointer(event: PointerEvent) {
      if (!menu.current?.contains(event.target as Node)) onClose()
    }
    document.addEventListener('pointerdown', onPointer, true)
    return () => document.removeEventListener('pointerdown', onPointer, true)
  }, [onClose])

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === 'Escape') {
      // Handled here: Esc closes the menu, not the narrow window's sidebar around it.
      event.preventDefault()
      event.stopPropagation()
      onClose()
      return
    }
    if (event.key === 'Tab') {
      // Tab leaves the menu: it closes, and focus moves on from its button.
      onClose()
      return
    }
    const items = [...(menu.current?.querySelectorAll('button') ?? [])]
    const at = items.indexOf(document.activeElement as HTMLButtonElement)
    const next =
      event.key === 'ArrowDown'
        ? (at + 1) % items.length
        : event.key === 'ArrowUp'
          ? (at - 1 + items.length) % items.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? items.length - 1
              : null
    if (next === null) return
    event.preventDefault()
    items[next]?.focus()
  }

  if (!session) return null
  const act = (action: () => void) => () => {
    onClose()
    action()
  }
  const left = Math.max(8, Math.min(props.x - 190, window.innerWidth - 200))
  const top = Math.min(props.y + 4, window.innerHeight - 260)
  const canCompareOpen = openSessionId !== null && openSessionId !== session.id

  return (
    <div
      className="menu"
      role="menu"
      id={rowMenuId}
      aria-label={`Actions for ${titleOf(session)}`}
      ref={menu}
      style={{ left, top }}
      data-testid="row-menu"
      onKeyDown={onKeyDown}
    >
      <button
        type="button"
        role="menuitem"
        data-testid="menu-fork"
        onClick={act(() => store.openDialog({ kind: 'fork', sessionId: session.id }))}
      >
        Fork…
      </button>
      <button
        type="button"
        role="menuitem"
        data-testid="menu-rename"
        onClick={act(() => store.startRename(session.id))}
      >
        Rename
      </button>
      {session.parentSession !== null ? (
        <button
          type="button"
          role="menuitem"
          data-testid="menu-compare-parent"
          onClick={act(() => void store.openCompare(session.parentSession!, session.id))}
        >
          Compare with parent
        </button>
      ) : null}
      {session.parentSession !== null && session.forkedAt !== null && session.forkedAt >= 0 ? (
        // The tree's "from #N": that event in the parent's transcript (docs/architecture.md §8, jump to a seq).
        <button
          type="button"
          role="menuitem"
          data-testid="menu-show-fork-point"
          onClick={act(() => void store.jumpTo(session.parentSession!, session.forkedAt!))}
        >
          Show fork point #{session.forkedAt} in parent
        </button>
      ) : null}
      {canCompareOpen ? (
        <button
          type="button"
          role="menuitem"
          data-testid="menu-compare-open"
          onClick={act(() => void store.openCompare(openSessionId, session.id))}
        >
          Compare with open session
        </button>
      ) : null}
      <button
        type="button"
        role="menuitem"
        data-testid="menu-archive"
        onClick={act(() => {
          const from = place.current
          // Archiving takes the row out of the tree (unless archived ones are shown): focus, back
          // on the row's menu button, would fall to <body> with it. It goes to the tree instead.
          void store
            .archive(session.id, !session.archived)
            .then(() => afterRender(() => returnFocus(null, from)))
        })}
      >
        {session.archived ? 'Unarchive' : 'Archive'}
      </button>
      <button
        type="button"
        role="menuitem"
        data-testid="menu-export"
        onClick={act(() => store.openDialog({ kind: 'export', sessionId: session.id }))}
      >
        Export…
      </button>
      <hr />
      <button
        type="button"
        role="menuitem"
        className="danger"
        data-testid="menu-delete"
        onClick={act(() => store.openDialog({ kind: 'delete', sessionId: session.id }))}
      >
        Delete…
      </button>
    </div>
  )
}
