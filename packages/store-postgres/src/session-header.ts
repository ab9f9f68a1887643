// A session's header as the `sessions` row keeps it (jsonb) (docs/architecture.md §4.2).
import type { Session, SessionOrigin } from '@tangent/core'

/** The stored header: the session's header without what is derived at load (`isSeeded`). */
export function storedHeaderOf(session: Session): Record<string, unknown> {
  const header: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(session.header))
    if (key !== 'isSeeded' && value !== undefined) header[key] = value
  return header
}

/** The meta and lineage to hand `SessionStore.create` when loading a stored header. */
export function createOptionsOf(header: Record<string, unknown>): {
  meta: Record<string, unknown> & { cwd: string; createdAt: number; origin: SessionOrigin }
  lineage: { parentSession?: string; forkedAt?: number; inheritedEventCount: number }
} {
  const { id: _id, isSeeded: _isSeeded, parentSession, forkedAt, inheritedEventCount, ...rest } = header
  const meta = rest as Record<string, unknown> & { cwd: string; createdAt: number; origin: SessionOrigin }
  const lineage: { parentSession?: string; forkedAt?: number; inheritedEventCount: number } = {
    inheritedEventCount: typeof inheritedEventCount === 'number' ? inheritedEventCount : 0,
  }
  if (typeof parentSession === 'string') lineage.parentSession = parentSession
  if (typeof forkedAt === 'number') lineage.forkedAt = forkedAt
  return { meta, lineage }
}
