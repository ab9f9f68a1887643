// How a session is named and laid out wherever it appears (tree rows, header, dialogs,
// banners). A leaf module: the tree and its rows both import it, not each other.

/** The height of every row of the windowed session tree, in pixels (fixed: windowing is exact). */
export const rowHeight = 30

/** The session's title, or `Untitled <last 4 of its id>` while it has none. */
export function titleOf(session: { title: string; id: string } | undefined): string {
  if (!session) return ''
  return session.title.trim() === '' ? `Untitled ${session.id.slice(-4)}` : session.title
}

/** "from #12": the parent's last seq the fork copied; "from start" for an empty prefix. */
export function forkPointLabel(parent: string | null, forkedAt: number | null): string | null {
  if (parent === null || forkedAt === null) return null
  return forkedAt < 0 ? 'from start' : `from #${forkedAt}`
}

/**
 * Whether a fork's title is still the one it got from its parent: the parent's title itself,
 * or the Host's default "<parent title> · fork N" (`Session <last 6 of its id>` for an
 * untitled parent). Such a branch is renamed after its own first message.
 */
export function isInheritedTitle(title: string, parent: { title: string; id: string }): boolean {
  if (title === parent.title) return true
  const base = parent.title.trim() || `Session ${parent.id.slice(-6)}`
  const prefix = `${base} · fork `
  return title.startsWith(prefix) && /^\d+$/.test(title.slice(prefix.length))
}
