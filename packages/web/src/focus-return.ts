// Where focus goes when a dialog or menu closes (docs/architecture.md §8, accessibility):
// back to the control that opened it; when that control is gone (its session was deleted,
// or the transcript it sat in was replaced), to the nearest thing that took its place —
// the session tree's Tab stop, else the message box — never to <body>.
import { composerInputId } from './composer.js'

/** Remembered when the dialog opens: the tree the opener sat in, if any. */
export interface OpenerPlace {
  readonly tree: Element | null
}

export function openerPlace(opener: Element | null): OpenerPlace {
  return { tree: opener?.closest('[role="tree"]') ?? null }
}

export function returnFocus(opener: Element | null, place: OpenerPlace): void {
  const focus = document.activeElement
  // Something else took focus on purpose while closing (a new session's message box).
  if (focus !== null && focus !== document.body && !focus.closest('dialog')) return
  if (opener instanceof HTMLElement && opener.isConnected) {
    opener.focus()
    return
  }
  const tabStop = place.tree?.isConnected
    ? place.tree.querySelector<HTMLElement>('[role="treeitem"][tabindex="0"]')
    : null
  ;(tabStop ?? document.getElementById(composerInputId))?.focus()
}

/** Runs `work` once what the store just changed has been rendered (the next frame, then a task). */
export function afterRender(work: () => void): void {
  requestAnimationFrame(() => setTimeout(work, 0))
}
