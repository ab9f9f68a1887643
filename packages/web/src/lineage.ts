// The lineage tree of the sidebar: forks nested under their parent, grouped by workspace; the
// branches of one exploration ("Try N ways") sit together under a group row of their parent.
// Built once per session list (O(n)); flattening walks only expanded nodes, so a tree of
// thousands of sessions costs as many rows as are actually visible.
import type { SessionSummary } from './wire.js'

export interface LineageIndex {
  /** Visible sessions by workspace id ('' for sessions without one), newest first. */
  readonly roots: ReadonlyMap<string, readonly SessionSummary[]>
  /** Visible children of each session, in fork order. */
  readonly children: ReadonlyMap<string, readonly SessionSummary[]>
  /** How many branches each exploration has, archived ones included. */
  readonly explorationSizes: ReadonlyMap<string, number>
  /** Visible sessions of each workspace, forks included (what its row counts). */
  readonly totals: ReadonlyMap<string, number>
  /**
   * Sessions whose parents form a loop (damaged logs), each with the loop: from the Host's
   * `parentLoop`, or found here when a Host lists the loop's parents as they are (such a session
   * would otherwise be nobody's child and no root, so it would vanish from the tree).
   */
  readonly parentLoops: ReadonlyMap<string, readonly string[]>
}

/** The group row of one exploration's branches under their parent. */
export interface ExplorationRowModel {
  readonly kind: 'exploration'
  readonly exploration: string
  readonly parentId: string
  readonly depth: number
  /** Its branches shown here (archived ones only when those are shown), in label order. */
  readonly branches: readonly SessionSummary[]
  /** Its branches in all, archived ones included. */
  readonly size: number
  readonly expanded: boolean
}

/** The key of an exploration's group row in the set of expanded rows (beside session ids). */
export function explorationGroupKey(exploration: string): string {
  return `exploration:${exploration}`
}

export interface SessionRowModel {
  readonly kind: 'session'
  readonly session: SessionSummary
  readonly depth: number
  readonly childCount: number
  readonly expanded: boolean
  /** Set when the parent exists but is not shown here (archived, or in another workspace). */
  readonly detachedFrom: string | null
  /** Set when its parents form a loop (damaged logs): the sessions of the loop, in order. */
  readonly parentLoop: readonly string[] | null
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
  const all = new Map<string, SessionSummary>()
  const visible = new Map<string, SessionSummary>()
  const explorationSizes = new Map<string, number>()
  for (const session of sessions) {
    all.set(session.id, session)
    if (showArchived || !session.archived) visible.set(session.id, session)
    const id = session.exploration?.id
    if (id !== undefined) explorationSizes.set(id, (explorationSizes.get(id) ?? 0) + 1)
  }
  const roots = new Map<string, SessionSummary[]>()
  const children = new Map<string, SessionSummary[]>()
  const totals = new Map<string, number>()
  const parentLoops = findParentLoops(all)
  const groupOf = (session: SessionSummary) =>
    session.workspaceId !== null && workspaceIds.has(session.workspaceId) ? session.workspaceId : ''
  for (const session of visible.values()) {
    totals.set(groupOf(session), (totals.get(groupOf(session)) ?? 0) + 1)
    // A session in a loop of parents is listed at the top, as the Host lists it when it knows.
    const parent =
      session.parentSession === null || parentLoops.has(session.id)
        ? undefined
        : visible.get(session.parentSession)
    if (parent && groupOf(parent) === groupOf(session)) {
      push(children, parent.id, session)
    } else {
      push(roots, groupOf(session), session)
    }
  }
  for (const list of roots.values()) list.sort((a, b) => b.createdAt - a.createdAt || compareIds(b, a))
  for (const list of children.values()) list.sort((a, b) => a.createdAt - b.createdAt || compareIds(a, b))
  return { roots, children, explorationSizes, totals, parentLoops }
}

/**
 * The loops of parents among `sessions` (A's parent is B, B's is A), by member, plus what the
 * Host said (`parentLoop`). Each session is walked once: O(n).
 */
function findParentLoops(sessions: ReadonlyMap<string, SessionSummary>): Map<string, readonly string[]> {
  const loops = new Map<string, readonly string[]>()
  const walked = new Set<string>()
  for (const start of sessions.values()) {
    if (start.parentLoop) loops.set(start.id, start.parentLoop)
    const path: string[] = []
    const onPath = new Map<string, number>()
    let id: string | null = start.id
    while (id !== null && !walked.has(id) && !onPath.has(id)) {
      onPath.set(id, path.length)
      path.push(id)
      id = sessions.get(id)?.parentSession ?? null
    }
    const loopStart = id === null ? undefined : onPath.get(id)
    if (loopStart !== undefined) {
      const loop = path.slice(loopStart)
      for (const member of loop) if (!loops.has(member)) loops.set(member, loop)
    }
    for (const id of path) walked.add(id)
  }
  return loops
}

/** The rows of one workspace, depth-first, descending only into expanded sessions and groups. */
export function flattenWorkspace(
  index: LineageIndex,
  workspaceId: string,
  expanded: ReadonlySet<string>,
): (SessionRowModel | ExplorationRowModel)[] {
  const rows: (SessionRowModel | ExplorationRowModel)[] = []
  const roots = index.roots.get(workspaceId) ?? []
  type Entry = { session: SessionSummary; depth: number } | { group: ExplorationRowModel }
  const stack: Entry[] = []
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ session: roots[i]!, depth: 0 })
  while (stack.length > 0) {
    const entry = stack.pop()!
    if ('group' in entry) {
      const { group } = entry
      rows.push(group)
      if (group.expanded) {
        for (let i = group.branches.length - 1; i >= 0; i--) {
          stack.push({ session: group.branches[i]!, depth: group.depth + 1 })
        }
      }
      continue
    }
    const { session, depth } = entry
    const kids = index.children.get(session.id) ?? []
    const isExpanded = expanded.has(session.id)
    rows.push({
      kind: 'session',
      session,
      depth,
      childCount: kids.length,
      expanded: isExpanded,
      detachedFrom: depth === 0 ? session.parentSession : null,
      parentLoop: index.parentLoops.get(session.id) ?? null,
    })
    if (isExpanded) {
      const entries = childEntries(index, session.id, kids, depth + 1, expanded)
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]!)
    }
  }
  return rows
}

/**
 * A session's children in fork order, the branches of each exploration gathered into one
 * group where its first branch stands. Costs as many steps as the session has children.
 */
function childEntries(
  index: LineageIndex,
  parentId: string,
  kids: readonly SessionSummary[],
  depth: number,
  expanded: ReadonlySet<string>,
): ({ session: SessionSummary; depth: number } | { group: ExplorationRowModel })[] {
  const entries: ({ session: SessionSummary; depth: number } | { group: ExplorationRowModel })[] = []
  const groups = new Map<string, SessionSummary[]>()
  for (const kid of kids) {
    const exploration = kid.exploration?.id
    if (exploration === undefined) {
      entries.push({ session: kid, depth })
      continue
    }
    const members = groups.get(exploration)
    if (members) {
      members.push(kid)
      continue
    }
    const branches = [kid]
    groups.set(exploration, branches)
    entries.push({
      group: {
        kind: 'exploration',
        exploration,
        parentId,
        depth,
        branches,
        size: index.explorationSizes.get(exploration) ?? 1,
        expanded: expanded.has(explorationGroupKey(exploration)),
      },
    })
  }
  for (const members of groups.values()) members.sort(byLabel)
  return entries
}

function byLabel(a: SessionSummary, b: SessionSummary): number {
  const x = a.exploration?.label ?? ''
  const y = b.exploration?.label ?? ''
  return x < y ? -1 : x > y ? 1 : 0
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
