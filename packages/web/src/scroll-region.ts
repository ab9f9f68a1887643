// A box that scrolls on its own (a long tool output, a wide patch or code block, a long file
// list) and holds nothing focusable must still be reachable by keyboard to be scrolled (WCAG
// 2.1.1). While its content overflows it becomes a named, focusable region; while everything
// fits it stays plain content and adds no Tab stop.
import { useLayoutEffect, useState } from 'react'

export interface ScrollRegionProps<T extends HTMLElement> {
  ref: (element: T | null) => void
  tabIndex?: number
  role?: 'region'
  'aria-label'?: string
}

/** Spread the result on the scrolling element; `label` names it while it is a region. */
export function useScrollRegion<T extends HTMLElement>(label: string): ScrollRegionProps<T> {
  // A callback ref (the state setter), so an element that appears later is measured too.
  const [element, setElement] = useState<T | null>(null)
  const [overflows, setOverflows] = useState(false)
  // Content can change without a resize (a result arriving): measure after every render.
  useLayoutEffect(() => {
    if (element) setOverflows(overflowing(element))
  })
  // And the box can change without a render (a window resize, a <details> opening).
  useLayoutEffect(() => {
    if (!element) return
    const observer = new ResizeObserver(() => setOverflows(overflowing(element)))
    observer.observe(element)
    return () => observer.disconnect()
  }, [element])
  return overflows
    ? { ref: setElement, tabIndex: 0, role: 'region', 'aria-label': label }
    : { ref: setElement }
}

function overflowing(element: HTMLElement): boolean {
  // One pixel of slack: subpixel layout can leave scrollHeight a rounding step above clientHeight.
  return element.scrollHeight > element.clientHeight + 1 || element.scrollWidth > element.clientWidth + 1
}
