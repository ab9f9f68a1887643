// session.compare: the common ancestor and fork seq of two sessions (from the lineage in
// their headers), each side's events after it, and the file diff between their latest trees.
import type { Session } from '@tangent/core'
import { type HostContext, liveSession } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { hostMetaOf } from '../session-summary.js'

interface LineageStep {
  id: string
  /** The last seq this session shares with `id` (Infinity for itself). */
  shared: number
}

export function sessionCompareMethods(context: HostContext): Pick<MethodHandlers, 'session.compare'> {
  return {
    'session.compare': async (params) => {
      const a = await liveSession(context, params.a)
      const b = await liveSession(context, params.b)
      const lineageA = await lineageOf(context, a)
      const lineageB = await lineageOf(context, b)
      const sharedB = new Map(lineageB.map((step) => [step.id, step.shared]))
      const common = lineageA.find((step) => sharedB.has(step.id))
      let forkSeq: number | null = null
      if (common) {
        const shared = Math.min(common.shared, sharedB.get(common.id) ?? Number.POSITIVE_INFINITY)
        forkSeq = Number.isFinite(shared) ? shared : Math.min(a.lastSeq, b.lastSeq)
      }
      const from = (forkSeq ?? -1) + 1
      const files = await context.files.diffTrees(latestTree(context, a), latestTree(context, b))
      return {
        ancestor: common?.id ?? null,
        forkSeq,
        a: { events: a.events.slice(from) },
        b: { events: b.events.slice(from) },
        files,
      }
    },
  }
}

/** The session, then its parent, grandparent…, each with the last seq shared with it. */
async function lineageOf(context: HostContext, session: Session): Promise<LineageStep[]> {
  const steps: LineageStep[] = [{ id: session.id, shared: Number.POSITIVE_INFINITY }]
  let parent = session.header.parentSession
  let shared = session.header.forkedAt ?? -1
  const seen = new Set([session.id])
  while (parent !== undefined && !seen.has(parent)) {
    seen.add(parent)
    steps.push({ id: parent, shared })
    const entry = await context.persistence.get(parent)
    if (!entry) break
    const next = entry.header.parentSession
    const forkedAt = entry.header.forkedAt
    if (typeof next !== 'string' || typeof forkedAt !== 'number') break
    shared = Math.min(shared, forkedAt)
    parent = next
  }
  return steps
}

function latestTree(context: HostContext, session: Session): string | null {
  return context.files.treeAt(session.events, session.lastSeq) ?? hostMetaOf(session.header).baseTree ?? null
}
