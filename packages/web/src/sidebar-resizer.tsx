// The separator between the sidebar and the session (docs/architecture.md §8): drag it, or
// focus it and use the arrow keys (Shift for bigger steps), Home and End. A WAI-ARIA window
// splitter: role=separator with its value in pixels.
import { type KeyboardEvent, type PointerEvent, useRef } from 'react'
import { sidebarId } from './sidebar.js'
import { maxSidebarWidth, minSidebarWidth } from './sidebar-width.js'

const stepPx = 16
const bigStepPx = 64

export function SidebarResizer(props: {
  width: number
  /** A new width (clamped by the caller); `done` when a drag or key press ends (to remember it). */
  onResize: (width: number, done: boolean) => void
}) {
  const drag = useRef<{ startX: number; startWidth: number } | null>(null)
  const max = maxSidebarWidth(window.innerWidth)

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const step = event.shiftKey ? bigStepPx : stepPx
    const next =
      event.key === 'ArrowLeft'
        ? props.width - step
        : event.key === 'ArrowRight'
          ? props.width + step
          : event.key === 'Home'
            ? minSidebarWidth
            : event.key === 'End'
              ? max
              : null
    if (next === null) return
    event.preventDefault()
    props.onResize(next, true)
  }

  function onPointerDown(event: PointerEvent<HTMLDivElement>) {
    if (event.button !== 0) return
    event.currentTarget.setPointerCapture(event.pointerId)
    drag.current = { startX: event.clientX, startWidth: props.width }
  }
  function onPointerMove(event: PointerEvent<HTMLDivElement>) {
    if (!drag.current) return
    props.onResize(drag.current.startWidth + event.clientX - drag.current.startX, false)
  }
  function onPointerUp(event: PointerEvent<HTMLDivElement>) {
    if (!drag.current) return
    props.onResize(drag.current.startWidth + event.clientX - drag.current.startX, true)
    drag.current = null
  }

  return (
    // biome-ignore lint/a11y/useSemanticElements: an <hr> cannot be focused and moved; a focusable separator is the ARIA window splitter.
    <div
      className="sidebar-resizer"
      data-testid="sidebar-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Sidebar width"
      aria-controls={sidebarId}
      aria-valuenow={props.width}
      aria-valuemin={minSidebarWidth}
      aria-valuemax={max}
      aria-valuetext={`${props.width} pixels`}
      tabIndex={0}
      title="Drag, or use the arrow keys, to resize the sidebar"
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => {
        drag.current = null
      }}
    />
  )
}
