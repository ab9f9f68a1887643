// SessionSummary (PROTOCOL.md) from the catalog entry and, when the session is live in
// memory, its current events: the live object is fresher than the catalog.
import type { Session } from '@tangent/core'
import type { SessionSummary } from '@tangent/protocol'
import type { CatalogEntry } from '@tangent/store-jsonl'

/**
 * The header fields the Host adds at create/fork (extra meta), read tolerantly: a field of
 * the wrong shape reads as absent. Plain type guards, not zod: session.list reads this for
 * every one of 10,000 sessions, and a zod parse with `.catch` per entry cost more than
 * everything else the list does.
 */
export interface HostHeaderMeta {
  workspaceId?: string
  files?: { mode: 'shared' | 'worktree'; path: string }
  baseTree?: string | null
  forkRequestId?: string
}

export function hostMetaOf(header: Readonly<Record<string, unknown>>): HostHeaderMeta {
  const meta: HostHeaderMeta = {}
  const { workspaceId, files, baseTree, forkRequestId } = header
  if (typeof workspaceId === 'string') meta.workspaceId = workspaceId
  const filesMeta = filesOf(files)
  if (filesMeta) meta.files = filesMeta
  if (typeof baseTree === 'string' || baseTree === null) meta.baseTree = baseTree
  if (typeof forkRequestId === 'string') meta.forkRequestId = forkRequestId
  return meta
}

function filesOf(value: unknown): HostHeaderMeta['files'] {
  if (typeof value !== 'object' || value === null) return undefined
  const { mode, path } = value as { mode?: unknown; path?: unknown }
  if ((mode !== 'shared' && mode !== 'worktree') || typeof path !== 'string') return undefined
  return { mode, path }
}

function originOf(value: unknown): SessionSummary['origin'] {
  return value === 'fork' || value === 'subagent' ? value : 'user'
}

export function toSessionSummary(
  entry: Readonly<CatalogEntry> | undefined,
  live: Session | undefined,
): SessionSummary {
  const header: Readonly<Record<string, unknown>> = live?.header ?? entry?.header ?? {}
  const id = live?.id ?? entry?.id ?? String(header.id)
  const cwd = typeof header.cwd === 'string' ? header.cwd : (entry?.cwd ?? '')
  const createdAt = typeof header.createdAt === 'number' ? header.createdAt : undefined
  const workspaceId = header.workspaceId
  const files = filesOf(header.files)
  const baseTree = header.baseTree
  return {
    id,
    title: (live ? live.title : entry?.title) ?? '',
    cwd,
    workspaceId: typeof workspaceId === 'string' ? workspaceId : null,
    parentSession:
      typeof header.parentSession === 'string' ? header.parentSession : (entry?.parentSession ?? null),
    forkedAt: typeof header.forkedAt === 'number' ? header.forkedAt : (entry?.forkedAt ?? null),
    origin: originOf(header.origin ?? entry?.origin),
    createdAt: createdAt ?? entry?.createdAt ?? 0,
    updatedAt: Math.max(entry?.updatedAt ?? 0, live?.events.at(-1)?.time ?? 0, createdAt ?? 0),
    eventCount: live ? live.events.length : (entry?.eventCount ?? 0),
    inheritedEventCount: live ? live.inheritedEventCount : (entry?.inheritedEventCount ?? 0),
    status: live?.isTurnOpen ? 'running' : 'idle',
    archived: entry?.archived ?? false,
    model: live ? modelOf(live) : (entry?.model ?? null),
    files: {
      mode: files?.mode ?? 'shared',
      path: files?.path ?? cwd,
      baseTree: typeof baseTree === 'string' ? baseTree : null,
    },
  }
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
