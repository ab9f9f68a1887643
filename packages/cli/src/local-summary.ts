// PROTOCOL.md's SessionSummary built from what the local store knows (catalog entry
// or live session), so local output matches what a Host would send.
import { currentModel, type Session } from '@tangent/core'
import type { CatalogEntry } from '@tangent/store-jsonl'
import type { SessionSummary } from './backend.js'

type Files = SessionSummary['files']

export function summaryFromCatalog(entry: CatalogEntry, running: boolean): SessionSummary {
  return {
    id: entry.id,
    title: entry.title ?? '',
    cwd: entry.cwd,
    workspaceId: stringOrNull(entry.header.workspaceId),
    parentSession: entry.parentSession,
    forkedAt: entry.forkedAt,
    origin: entry.origin,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    eventCount: entry.eventCount,
    inheritedEventCount: entry.inheritedEventCount,
    status: running ? 'running' : 'idle',
    archived: entry.archived,
    model: entry.model,
    files: filesOf(entry.header, entry.cwd),
  }
}

/** From a loaded session (exact counts) plus its catalog entry (archived flag). */
export function summaryFromSession(
  session: Session,
  entry: CatalogEntry | undefined,
  running: boolean,
): SessionSummary {
  const header = session.header
  const events = session.events
  const last = events[events.length - 1]
  return {
    id: session.id,
    title: session.title ?? '',
    cwd: header.cwd,
    workspaceId: stringOrNull(header.workspaceId),
    parentSession: header.parentSession ?? null,
    forkedAt: header.forkedAt ?? null,
    origin: header.origin,
    createdAt: header.createdAt,
    updatedAt: Math.max(last?.time ?? header.createdAt, entry?.updatedAt ?? 0),
    eventCount: events.length,
    inheritedEventCount: header.inheritedEventCount,
    status: running ? 'running' : 'idle',
    archived: entry?.archived ?? false,
    model: currentModel(events),
    files: filesOf(header, header.cwd),
  }
}

function filesOf(header: Record<string, unknown>, cwd: string): Files {
  const files = header.files as { mode?: unknown; path?: unknown } | undefined
  const mode = files?.mode === 'worktree' ? 'worktree' : 'shared'
  const path = typeof files?.path === 'string' ? files.path : cwd
  return { mode, path, baseTree: stringOrNull(header.baseTree) }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}
