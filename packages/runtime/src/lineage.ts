// The common ancestor of two sessions and the last seq they share, from the lineage in
// their headers. Seqs continue across forks (docs/architecture.md §3), so "after the fork
// point" is `seq > forkSeq` on both sides.

export interface LineageLink {
  sessionId: string
  /** The highest seq of this session its descendant (the start of the chain) sees. */
  visibleThrough: number
}

/** Where a session's parent and fork point are read (the catalog). */
export type ParentOf = (
  sessionId: string,
) => Promise<{ parentSession: string | null; forkedAt: number | null } | undefined>

/** The session, then its parent, grandparent…, each with the last seq the session shares with it. */
export async function lineageOf(sessionId: string, parentOf: ParentOf): Promise<LineageLink[]> {
  const chain: LineageLink[] = []
  const seen = new Set<string>()
  let current: string | null = sessionId
  let visible = Number.POSITIVE_INFINITY
  while (current !== null && !seen.has(current)) {
    seen.add(current)
    chain.push({ sessionId: current, visibleThrough: visible })
    const links = await parentOf(current)
    if (!links || links.parentSession === null || links.forkedAt === null) break
    visible = Math.min(visible, links.forkedAt)
    current = links.parentSession
  }
  return chain
}

/**
 * The nearest session both lineages contain, and the last seq both sides share with it:
 * `lastSeqs` caps a side that is the ancestor itself (a session shares all its events with
 * itself). Null when the sessions are unrelated.
 */
export function commonAncestor(
  a: readonly LineageLink[],
  b: readonly LineageLink[],
  lastSeqs: { a: number; b: number },
): { ancestor: string | null; forkSeq: number | null } {
  const inB = new Map(b.map((link) => [link.sessionId, link.visibleThrough]))
  for (const link of a) {
    const other = inB.get(link.sessionId)
    if (other === undefined) continue
    const shared = Math.min(link.visibleThrough, other, lastSeqs.a, lastSeqs.b)
    return { ancestor: link.sessionId, forkSeq: shared }
  }
  return { ancestor: null, forkSeq: null }
}
