// The lineage tree of the sidebar: forks nested under their parent, grouped by workspace.
// Built once per session list (O(n)); flattening walks only expanded nodes, so a tree of
// thousands of sessions costs as many rows as are actually visible.
import type { SessionSummary } from './wire.js'

export interface LineageIndex {
  /** Visible sessions by workspace id ('' for sessions without one), newest first. */
  readonly roots: ReadonlyMap<string, readonly SessionSummary[]>
  /** Visible children of each session, in fork order. */
  readonly children: ReadonlyMap<string, readonly SessionSummary[]>
}

export interface SessionRowModel {
  readonly kind: 'session'
  readonly session: SessionSummary
  readonly depth: number
  readonly childCount: number
  readonly expanded: boolean
  /** Set when the parent exists but is not shown here (archived, or in another workspace). */
  readonly detachedFrom: string | null
}

/**
 * `workspaceIds`: the workspaces the Host knows; a session whose workspace is unknown (or
 * null) is grouped under '' so it is never hidden.
 */
export function buildLineage(
  sessions: Iterable<SessionSummary>,
  showArchived: boolean,
  workspaceIds: ReadonlySet<string>,
): LineageIndex {
  const visible = new Map<string, SessionSummary>()
  for (const session of sessions) {
    if (showArchived || !session.archived) visible.set(session.id, session)
  }
  const roots = new Map<string, SessionSummary[]>()
  const children = new Map<string, SessionSummary[]>()
  const groupOf = (session: SessionSummary) =>
    session.workspaceId !== null && workspaceIds.has(session.workspaceId) ? session.workspaceId : ''
  for (const session of visible.values()) {
    const parent = session.parentSession === null ? undefined : visible.get(session.parentSession)
    if (parent && groupOf(parent) === groupOf(session)) {
      push(children, parent.id, session)
    } else {
      push(roots, groupOf(session), session)
    }
  }
  for (const list of roots.values()) list.sort((a, b) => b.createdAt - a.createdAt || compareIds(b, a))
  for (const list of children.values()) list.sort((a, b) => a.createdAt - b.createdAt || compareIds(a, b))
  return { roots, children }
}

/** The rows of one workspace, depth-first, descending only into expanded sessions. */
export function flattenWorkspace(
  index: LineageIndex,
  workspaceId: string,
  expanded: ReadonlySet<string>,
): SessionRowModel[] {
  const rows: SessionRowModel[] = []
  const roots = index.roots.get(workspaceId) ?? []
  const stack: { session: SessionSummary; depth: number }[] = []
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ session: roots[i]!, depth: 0 })
  while (stack.length > 0) {
    const { session, depth } = stack.pop()!
    const kids = index.children.get(session.id) ?? []
    const isExpanded = expanded.has(session.id)
    rows.push({
      kind: 'session',
      session,
      depth,
      childCount: kids.length,
      expanded: isExpanded,
      detachedFrom: depth === 0 ? session.parentSession : null,
    })
    if (isExpanded) {
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ session: kids[i]!, depth: depth + 1 })
    }
  }
  return rows
}

/** The ids of a session's ancestors, nearest first (to expand the path to a session). */
export function ancestorsOf(sessions: ReadonlyMap<string, SessionSummary>, id: string): string[] {
  const result: string[] = []
  const seen = new Set<string>([id])
  let parent = sessions.get(id)?.parentSession ?? null
  while (parent !== null && !seen.has(parent)) {
    result.push(parent)
    seen.add(parent)
    parent = sessions.get(parent)?.parentSession ?? null
  }
  return result
}

function push(map: Map<string, SessionSummary[]>, key: string, session: SessionSummary): void {
  const list = map.get(key)
  if (list) list.push(session)
  else map.set(key, [session])
}

function compareIds(a: SessionSummary, b: SessionSummary): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
