// The row menu of a session: Fork…, Rename, Compare, Archive/Unarchive, Delete….
// A small popover at the button; Esc or a click elsewhere closes it.
import { useEffect, useRef } from 'react'
import { useHost, useStore } from './use-host.js'

export function RowMenu(props: { sessionId: string; x: number; y: number; onClose: () => void }) {
  const store = useStore()
  const session = useHost((state) => state.sessions.get(props.sessionId))
  const openSessionId = useHost((state) => state.openSessionId)
  const menu = useRef<HTMLDivElement>(null)
  const { onClose } = props

  useEffect(() => {
    menu.current?.querySelector('button')?.focus()
    function onPointer(event: PointerEvent) {
      if (!menu.current?.contains(event.target as Node)) onClose()
    }
    function onKey(event: KeyboardEvent) {
      if (event.key === 'Escape') onClose()
      if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return
      event.preventDefault()
      const items = [...(menu.current?.querySelectorAll('button') ?? [])]
      const at = items.indexOf(document.activeElement as HTMLButtonElement)
      const step = event.key === 'ArrowDown' ? 1 : -1
      items[(at + step + items.length) % items.length]?.focus()
    }
    document.addEventListener('pointerdown', onPointer, true)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('pointerdown', onPointer, true)
      document.removeEventListener('keydown', onKey)
    }
  }, [onClose])

  if (!session) return null
  const act = (action: () => void) => () => {
    onClose()
    action()
  }
  const left = Math.max(8, Math.min(props.x - 190, window.innerWidth - 200))
  const top = Math.min(props.y + 4, window.innerHeight - 230)
  const canCompareOpen = openSessionId !== null && openSessionId !== session.id

  return (
    <div className="menu" role="menu" ref={menu} style={{ left, top }} data-testid="row-menu">
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
        onClick={act(() => void store.archive(session.id, !session.archived))}
      >
        {session.archived ? 'Unarchive' : 'Archive'}
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
