// SessionSummary (PROTOCOL.md) from the catalog entry and, when the session is live in
// memory, its current events: the live object is fresher than the catalog.
import type { Session } from '@tangent/core'
import type { SessionSummary } from '@tangent/protocol'
import type { CatalogEntry } from '@tangent/store-jsonl'
import { z } from 'zod'

/** The header fields the Host adds at create/fork (extra meta), read tolerantly. */
const HostHeaderMeta = z.object({
  workspaceId: z.string().optional().catch(undefined),
  files: z
    .object({ mode: z.enum(['shared', 'worktree']), path: z.string() })
    .optional()
    .catch(undefined),
  baseTree: z.string().nullable().optional().catch(undefined),
  forkRequestId: z.string().optional().catch(undefined),
})
export type HostHeaderMeta = z.infer<typeof HostHeaderMeta>

export function hostMetaOf(header: Readonly<Record<string, unknown>>): HostHeaderMeta {
  return HostHeaderMeta.parse(header)
}

const SessionOrigin = z.enum(['user', 'fork', 'subagent']).catch('user')

export function toSessionSummary(entry: CatalogEntry | undefined, live: Session | undefined): SessionSummary {
  const header: Readonly<Record<string, unknown>> = live?.header ?? entry?.header ?? {}
  const meta = hostMetaOf(header)
  const id = live?.id ?? entry?.id ?? String(header.id)
  const cwd = typeof header.cwd === 'string' ? header.cwd : (entry?.cwd ?? '')
  const lastEvent = live?.events.at(-1)
  return {
    id,
    title: (live ? live.title : entry?.title) ?? '',
    cwd,
    workspaceId: meta.workspaceId ?? null,
    parentSession:
      typeof header.parentSession === 'string' ? header.parentSession : (entry?.parentSession ?? null),
    forkedAt: typeof header.forkedAt === 'number' ? header.forkedAt : (entry?.forkedAt ?? null),
    origin: SessionOrigin.parse(header.origin ?? entry?.origin),
    createdAt: typeof header.createdAt === 'number' ? header.createdAt : (entry?.createdAt ?? 0),
    updatedAt: Math.max(
      entry?.updatedAt ?? 0,
      lastEvent?.time ?? 0,
      typeof header.createdAt === 'number' ? header.createdAt : 0,
    ),
    eventCount: live ? live.events.length : (entry?.eventCount ?? 0),
    inheritedEventCount: live ? live.inheritedEventCount : (entry?.inheritedEventCount ?? 0),
    status: live?.isTurnOpen ? 'running' : 'idle',
    archived: entry?.archived ?? false,
    model: live ? modelOf(live) : (entry?.model ?? null),
    files: {
      mode: meta.files?.mode ?? 'shared',
      path: meta.files?.path ?? cwd,
      baseTree: meta.baseTree ?? null,
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
