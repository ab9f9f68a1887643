// The lineage tree of `tangent tui`'s left pane: the folder's sessions, forks under their parent
// with the seq they forked at, the branches of one exploration grouped under a row of their
// own (A, B, C…), archived sessions left out. Display only: the rows come from `session.list`.
import type { SessionSummary } from '../backend.js'
import { childrenByParent } from '../render/session-tree.js'
import { safeLine, titleOf } from '../render/style.js'

export interface TreeRow {
  /** The session the row opens; for an exploration's row, the session it explored from. */
  sessionId: string
  /** `exploration`: the row that groups one exploration's branches (opens its board). */
  kind: 'session' | 'exploration'
  depth: number
  /** What the row says (no ANSI: the pane colours it). */
  label: string
  /** `12 events`, `3 branches` (the label leads with a fork's `@seq` and a branch's letter). */
  detail: string
  running: boolean
  /** An exploration row: its id and the branches' ids, A first. */
  exploration?: { id: string; branches: string[] }
}

/** How deep the tree indents before it stops indenting (a chain of 1,000 forks stays readable). */
const maxDepth = 12

/**
 * The rows of `folder`'s tree: every listed session whose directory is `folder`, and every
 * descendant of one (worktree forks have folders of their own), in creation order under each parent.
 */
export function treeRows(sessions: readonly SessionSummary[], folder: string): TreeRow[] {
  const shown = sessions.filter((session) => !session.archived)
  const children = childrenByParent(shown)
  const roots = (children.get(null) ?? []).filter((session) => session.cwd === folder)
  const rows: TreeRow[] = []
  // Depth first with a stack of its own: a lineage thousands of forks deep must not overflow.
  type Pending = { session: SessionSummary; depth: number } | { header: TreeRow }
  const pending: Pending[] = roots
    .slice()
    .reverse()
    .map((session) => ({ session, depth: 0 }))
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if ('header' in next) {
      rows.push(next.header)
      continue
    }
    const { session, depth } = next
    rows.push(sessionRow(session, depth))
    const kids = children.get(session.id) ?? []
    const childDepth = Math.min(depth + 1, maxDepth)
    // One exploration's branches go under a row of their own (A, B… in order), before the plain forks.
    const explorations = new Map<string, SessionSummary[]>()
    for (const kid of kids) {
      if (kid.exploration === undefined) continue
      const group = explorations.get(kid.exploration.id) ?? []
      group.push(kid)
      explorations.set(kid.exploration.id, group)
    }
    const ordered: Pending[] = []
    for (const [id, group] of explorations) {
      group.sort((a, b) => (a.exploration?.label ?? '').localeCompare(b.exploration?.label ?? ''))
      ordered.push({
        header: {
          sessionId: session.id,
          kind: 'exploration',
          depth: childDepth,
          label: `exploration ${group.map((branch) => branch.exploration?.label ?? '?').join(' ')}${group[0]?.forkedAt != null ? ` @${group[0].forkedAt}` : ''}`,
          detail: `${group.length} branches${group[0]?.forkedAt != null ? ` @ ${group[0].forkedAt}` : ''}`,
          running: group.some((branch) => branch.status === 'running'),
          exploration: { id, branches: group.map((branch) => branch.id) },
        },
      })
      for (const branch of group) ordered.push({ session: branch, depth: Math.min(childDepth + 1, maxDepth) })
    }
    for (const kid of kids)
      if (kid.exploration === undefined) ordered.push({ session: kid, depth: childDepth })
    // Pushed last to first, so they come off first to last.
    for (let index = ordered.length - 1; index >= 0; index--) pending.push(ordered[index]!)
  }
  return rows
}

function sessionRow(session: SessionSummary, depth: number): TreeRow {
  const at = session.forkedAt !== null ? `@${session.forkedAt} ` : ''
  // What tells forks apart comes first (the pane is narrow): a branch's letter, the fork seq.
  const prefix =
    session.exploration !== undefined
      ? `${session.exploration.label} ${at}`
      : session.parentSession !== null
        ? `${session.origin === 'subagent' ? 'subagent ' : ''}${at}`
        : ''
  return {
    sessionId: session.id,
    kind: 'session',
    depth,
    label: `${prefix}${safeLine(titleOf(session))}`,
    detail: `${session.eventCount} events`,
    running: session.status === 'running',
  }
}
