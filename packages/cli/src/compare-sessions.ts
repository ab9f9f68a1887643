// `tangent diff` without a Host: the common ancestor of two sessions from their lineage,
// the events after the fork point on each side. Seqs continue across forks (DESIGN.md §3),
// so "after the fork point" is simply `seq > forkSeq` on both sides.

/** One step of a lineage: a session and the highest of its seqs its descendant sees. */
interface LineageLink {
  sessionId: string
  visibleThrough: number
}

export interface LineageSource {
  parentOf(sessionId: string): Promise<{ parentSession: string | null; forkedAt: number | null }>
}

export async function lineageOf(sessionId: string, source: LineageSource): Promise<LineageLink[]> {
  const chain: LineageLink[] = []
  const seen = new Set<string>()
  let current: string | null = sessionId
  let visible = Number.POSITIVE_INFINITY
  while (current !== null && !seen.has(current)) {
    seen.add(current)
    chain.push({ sessionId: current, visibleThrough: visible })
    const { parentSession, forkedAt } = await source.parentOf(current)
    if (parentSession === null || forkedAt === null) break
    visible = Math.min(visible, forkedAt)
    current = parentSession
  }
  return chain
}

/** The nearest session both lineages contain, and the last seq they share (null: unrelated). */
export function commonAncestor(
  a: readonly LineageLink[],
  b: readonly LineageLink[],
): { ancestor: string | null; forkSeq: number | null } {
  for (const link of a) {
    const other = b.find((candidate) => candidate.sessionId === link.sessionId)
    if (other === undefined) continue
    const shared = Math.min(link.visibleThrough, other.visibleThrough)
    return { ancestor: link.sessionId, forkSeq: Number.isFinite(shared) ? shared : null }
  }
  return { ancestor: null, forkSeq: null }
}
