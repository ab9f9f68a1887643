// The keyboard of the session tree as pure functions (docs/architecture.md §8, accessibility):
// the WAI-ARIA tree pattern over the flat, windowed list of rows. The tree
// has one Tab stop; arrows, Home/End and type-ahead move it; Enter opens.

/** What the keyboard needs to know of one row. */
export interface TreeNavItem {
  /** 1 for a workspace, deeper for its sessions (aria-level). */
  readonly level: number
  /** Whether it has children to show or hide (a workspace, a session with forks, an exploration). */
  readonly expandable: boolean
  readonly expanded: boolean
  /** What type-ahead matches: the title as shown. */
  readonly label: string
}

export type TreeKeyAction =
  | { readonly kind: 'move'; readonly index: number }
  | { readonly kind: 'expand' }
  | { readonly kind: 'collapse' }
  /** Enter or Space: open the session, open the board, fold or unfold the workspace. */
  | { readonly kind: 'activate' }
  /** Shift+F10 or the context-menu key: the row's action menu. */
  | { readonly kind: 'menu' }
  /** F2: rename. */
  | { readonly kind: 'rename' }
  /** `+`: a new session in the row's workspace. */
  | { readonly kind: 'new-session' }

export interface TreeKey {
  readonly key: string
  readonly shiftKey?: boolean
  readonly ctrlKey?: boolean
  readonly metaKey?: boolean
  readonly altKey?: boolean
}

/**
 * What a key pressed on the row at `index` does, or null when the tree leaves it alone (Tab,
 * shortcuts with Ctrl/Alt/Meta). `typed` is the type-ahead text so far, this key included,
 * when the key is a printable character.
 */
export function treeKeyAction(
  items: readonly TreeNavItem[],
  index: number,
  event: TreeKey,
  typed = '',
): TreeKeyAction | null {
  const item = items[index]
  if (!item) return null
  if (event.ctrlKey || event.metaKey || event.altKey) return null
  const last = items.length - 1
  switch (event.key) {
    case 'ArrowDown':
      return { kind: 'move', index: Math.min(index + 1, last) }
    case 'ArrowUp':
      return { kind: 'move', index: Math.max(index - 1, 0) }
    case 'Home':
      return { kind: 'move', index: 0 }
    case 'End':
      return { kind: 'move', index: last }
    case 'ArrowRight':
      if (item.expandable && !item.expanded) return { kind: 'expand' }
      // Open: onto its first child (the next row, when it is one level deeper).
      if (item.expandable && items[index + 1]?.level === item.level + 1)
        return { kind: 'move', index: index + 1 }
      return null
    case 'ArrowLeft': {
      if (item.expandable && item.expanded) return { kind: 'collapse' }
      const parent = parentIndex(items, index)
      return parent === null ? null : { kind: 'move', index: parent }
    }
    case 'Enter':
    case ' ':
      return { kind: 'activate' }
    case 'F10':
      return event.shiftKey ? { kind: 'menu' } : null
    case 'ContextMenu':
      return { kind: 'menu' }
    case 'F2':
      return { kind: 'rename' }
    case '+':
      return { kind: 'new-session' }
  }
  if (typed !== '' && event.key.length === 1) {
    const found = typeAhead(items, index, typed)
    return found === null ? null : { kind: 'move', index: found }
  }
  return null
}

/** The nearest row above `index` one level up, or null for a top-level row. */
export function parentIndex(items: readonly TreeNavItem[], index: number): number | null {
  const level = items[index]?.level ?? 1
  for (let at = index - 1; at >= 0; at--) {
    if (items[at]!.level < level) return at
  }
  return null
}

/**
 * The next row whose label starts with `typed` (case-insensitive), searching after `index`
 * and wrapping around; a single repeated letter cycles through the rows with that letter.
 * Null when none matches.
 */
export function typeAhead(items: readonly TreeNavItem[], index: number, typed: string): number | null {
  const wanted = typed.toLocaleLowerCase()
  const repeated = [...wanted].every((character) => character === wanted[0])
  // Typing on within one label keeps the current row if it still matches.
  const startOffset = wanted.length > 1 && !repeated ? 0 : 1
  const needle = repeated ? wanted[0]! : wanted
  for (let step = startOffset; step < items.length + startOffset; step++) {
    const at = (index + step) % items.length
    if (items[at]!.label.toLocaleLowerCase().startsWith(needle)) return at
  }
  return null
}

/**
 * aria-posinset and aria-setsize of every row of a flattened tree (rows in depth-first order,
 * each with its level): siblings are the rows of one level under the same parent. One pass.
 */
export function treePositions(levels: ArrayLike<number>): { posinset: Int32Array; setsize: Int32Array } {
  const count = levels.length
  const posinset = new Int32Array(count)
  const setsize = new Int32Array(count)
  // Each row's group of siblings, and each group's size so far; open groups on the way down.
  const groupOf = new Int32Array(count)
  const sizes: number[] = []
  const openLevels: number[] = []
  const openGroups: number[] = []
  for (let index = 0; index < count; index++) {
    const level = levels[index]!
    while (openLevels.length > 0 && openLevels[openLevels.length - 1]! > level) {
      openLevels.pop()
      openGroups.pop()
    }
    let group = openGroups[openGroups.length - 1]
    if (group === undefined || openLevels[openLevels.length - 1] !== level) {
      group = sizes.length
      sizes.push(0)
      openLevels.push(level)
      openGroups.push(group)
    }
    sizes[group] = sizes[group]! + 1
    posinset[index] = sizes[group]!
    groupOf[index] = group
  }
  for (let index = 0; index < count; index++) setsize[index] = sizes[groupOf[index]!]!
  return { posinset, setsize }
}
