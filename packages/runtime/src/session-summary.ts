// The one place a SessionSummary (docs/protocol.md "Types") is built: from the catalog entry
// and, when the session is live in memory, its current events (the live object is fresher).
// The workspace is derived from the folder that holds the session's cwd (docs/architecture.md §7).
import { defaultSessionMode, type Session, type StoredSession } from '@tangent/core'
import type { SessionSummary } from '@tangent/protocol'
import { headerMetaOf } from './header-meta.js'

/**
 * Finds the workspace of a session: the deepest workspace folder holding `cwd`, else the one
 * holding its `projectFolder` (a worktree fork's parent's folder), else `recorded` if it exists.
 */
export type WorkspaceResolver = (
  cwd: string,
  recorded: string | undefined,
  projectFolder?: string | undefined,
) => string | null

const recordedOnly: WorkspaceResolver = (_cwd, recorded) => recorded ?? null

export function toSessionSummary(
  entry: Readonly<StoredSession> | undefined,
  live: Session | undefined,
  options: {
    running?: boolean
    workspaceOf?: WorkspaceResolver
    /** This Host's machine, with a shared store: a session whose files are on another is `elsewhere`. */
    machine?: string | undefined
  } = {},
): SessionSummary {
  const header: Readonly<Record<string, unknown>> = live?.header ?? entry?.header ?? {}
  const id = live?.id ?? entry?.id ?? String(header.id)
  const cwd = typeof header.cwd === 'string' ? header.cwd : (entry?.cwd ?? '')
  const createdAt = typeof header.createdAt === 'number' ? header.createdAt : undefined
  const meta = headerMetaOf(header)
  const workspaceOf = options.workspaceOf ?? recordedOnly
  // A lineage through a loop of parents (damaged headers) is shown at the top, flagged.
  const parentLoop = entry?.parentLoop
  const summary: SessionSummary = {
    id,
    title: (live ? live.title : entry?.title) ?? '',
    cwd,
    workspaceId: workspaceOf(cwd, meta.workspaceId, meta.projectFolder),
    parentSession:
      parentLoop !== undefined
        ? null
        : typeof header.parentSession === 'string'
          ? header.parentSession
          : (entry?.parentSession ?? null),
    forkedAt: typeof header.forkedAt === 'number' ? header.forkedAt : (entry?.forkedAt ?? null),
    origin: originOf(header.origin ?? entry?.origin),
    createdAt: createdAt ?? entry?.createdAt ?? 0,
    updatedAt: Math.max(entry?.updatedAt ?? 0, live?.events.at(-1)?.time ?? 0, createdAt ?? 0),
    eventCount: live ? live.events.length : (entry?.eventCount ?? 0),
    inheritedEventCount: live ? live.inheritedEventCount : (entry?.inheritedEventCount ?? 0),
    status: (options.running ?? live?.isTurnOpen) ? 'running' : 'idle',
    archived: entry?.archived ?? false,
    model: live ? modelOf(live) : (entry?.model ?? null),
    mode: live ? live.mode : (entry?.mode ?? defaultSessionMode),
    files: {
      mode: meta.files?.mode ?? 'shared',
      path: meta.files?.path ?? cwd,
      baseTree: typeof meta.baseTree === 'string' ? meta.baseTree : null,
    },
  }
  // Added after, not spread in (no empty object per summary, ~10-20% of 10,000 summaries);
  // the key order, and so the JSON, is the same.
  if (parentLoop !== undefined) summary.parentLoop = [...parentLoop]
  if (meta.exploration) summary.exploration = { id: meta.exploration.id, label: meta.exploration.label }
  if (meta.subagentOf) summary.subagentOf = { ...meta.subagentOf }
  if (meta.imported) {
    const { source, sourceId, branchOf } = meta.imported
    summary.imported = branchOf !== undefined ? { source, sourceId, branchOf } : { source, sourceId }
  }
  if (options.machine !== undefined && meta.machine !== undefined) {
    summary.files.machine = meta.machine
    if (meta.machine !== options.machine) summary.files.elsewhere = true
  }
  return summary
}

function originOf(value: unknown): SessionSummary['origin'] {
  return value === 'fork' || value === 'subagent' ? value : 'user'
}

function modelOf(session: Session): SessionSummary['model'] {
  const selection = session.model
  if (!selection) return null
  return {
    provider: selection.provider,
    model: selection.model,
    ...(selection.reasoningEffort !== undefined ? { reasoningEffort: selection.reasoningEffort } : {}),
  }
}
