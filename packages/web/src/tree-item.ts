// The attributes that make a row of the windowed session tree a WAI-ARIA treeitem
// (docs/architecture.md §8, accessibility). The DOM holds only the rows in view, flat, so
// each row carries its level and its place among its siblings instead of nesting in groups.
import type { KeyboardEvent } from 'react'

/** Where a row sits in the tree, given by the tree to each row. */
export interface TreeItemPlace {
  /** Identifies the row across renders: `w:<workspace>`, `s:<session>`, `x:<exploration>`. */
  readonly rowKey: string
  readonly level: number
  readonly posinset: number
  readonly setsize: number
  /** The tree's one Tab stop (roving tabindex). */
  readonly tabbable: boolean
  readonly onKeyDown: (event: KeyboardEvent<HTMLElement>) => void
}

/**
 * Spread on the row's element, beside `role="treeitem"`, its roving `tabIndex` and `onKeyDown`
 * (written out, where linters can see them).
 */
export function treeItemAttributes(place: TreeItemPlace) {
  return {
    'aria-level': place.level,
    'aria-posinset': place.posinset,
    'aria-setsize': place.setsize,
    'data-row-key': place.rowKey,
  } as const
}
