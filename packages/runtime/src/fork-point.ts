// Where a fork cuts and what it starts from: the boundary of an anchor (core's
// resolveForkAnchor, with the source named in its errors), the files' tree at a seq (and now), and the
// one session-not-found of the runtime.
import type { ModelSelectionData, Session } from '@tangent/core'
import { resolveForkAnchor, TangentError } from '@tangent/core'
import type { SessionForkParams } from '@tangent/protocol'
import { headerMetaOf } from './header-meta.js'
import { restoreEventOf } from './restore-events.js'

/** The one `session-not-found` of the runtime. */
export function sessionNotFound(sessionId: string): TangentError {
  return new TangentError(
    'session-not-found',
    `Session ${sessionId} not found: list sessions with \`tangent sessions --all\` or session.list.`,
    { sessionId },
  )
}

export function resolveBoundary(source: Session, params: SessionForkParams): number {
  try {
    return resolveForkAnchor(source.events, { atSeq: params.atSeq, before: params.before })
  } catch (error) {
    if (TangentError.isInstance(error)) {
      throw new TangentError(error.code, error.message, {
        ...error.data,
        sessionId: source.id,
        atSeq: params.atSeq ?? null,
      })
    }
    throw error
  }
}

/** The tree of the latest snapshot (taken, or left by a restore) at or before `seq`: index lookups, no scan. */
export function treeAt(session: Session, seq: number): string | null {
  const taken = session.latestOfType('snapshot/taken', seq)
  const restored = restoreEventOf(session.latestOfType('files/restored', seq))
  if (restored && (!taken || restored.seq > taken.seq)) return restored.data.tree
  return taken ? (taken.data as { tree: string }).tree : null
}

/** The files' tree now: the latest snapshot's (or restore's), else the fork point's tree in its header. */
export function latestTree(session: Session): string | null {
  return treeAt(session, session.lastSeq) ?? headerMetaOf(session.header).baseTree ?? null
}

/** What the snapshot `treeAt` picks left out (its `skipped`): [] when it left out nothing or none is known. */
export function skippedAt(session: Session, seq: number): string[] {
  const taken = session.latestOfType('snapshot/taken', seq)
  const restored = restoreEventOf(session.latestOfType('files/restored', seq))
  const data = restored && (!taken || restored.seq > taken.seq) ? restored.data : taken?.data
  const skipped = (data as { skipped?: unknown } | undefined)?.skipped
  return Array.isArray(skipped) ? skipped.filter((item): item is string => typeof item === 'string') : []
}

export function sameModel(a: ModelSelectionData | null, b: ModelSelectionData): boolean {
  return (
    a !== null && a.provider === b.provider && a.model === b.model && a.reasoningEffort === b.reasoningEffort
  )
}
