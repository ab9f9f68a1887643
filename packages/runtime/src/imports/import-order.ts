// The order the files of one `tangent import` go in (docs/architecture.md, "Moving in and out"):
// as given, except that a Codex rollout forked from another one given with it goes after that one,
// so its import can fork the parent's (import-tree.ts). Reads only first lines.

/** Indices of `firstLines` in import order: as given, parents before the rollouts that name them. */
export function importOrder(firstLines: readonly string[]): number[] {
  const idOf: (string | null)[] = []
  const parentOf: (string | null)[] = []
  for (const line of firstLines) {
    const meta = codexMetaOf(line)
    idOf.push(meta?.id ?? null)
    parentOf.push(meta?.forkedFrom ?? null)
  }
  const indexOf = new Map<string, number>()
  for (const [index, id] of idOf.entries()) if (id !== null && !indexOf.has(id)) indexOf.set(id, index)
  const order: number[] = []
  const seen = new Set<number>()
  for (let start = 0; start < firstLines.length; start++) {
    // The chain of parents not placed yet, walked in a loop (a chain of any length; a cycle ends it)
    const chain: number[] = []
    for (let at: number | undefined = start; at !== undefined && !seen.has(at); ) {
      seen.add(at)
      chain.push(at)
      const parent: string | null = parentOf[at] ?? null
      at = parent === null ? undefined : indexOf.get(parent)
    }
    order.push(...chain.reverse())
  }
  return order
}

function codexMetaOf(line: string): { id: string; forkedFrom: string | null } | null {
  if (!line.includes('"session_meta"')) return null
  try {
    const record = JSON.parse(line) as {
      type?: unknown
      payload?: { id?: unknown; forked_from_id?: unknown }
    }
    const id = record?.type === 'session_meta' ? record.payload?.id : undefined
    if (typeof id !== 'string') return null
    const parent = record.payload?.forked_from_id
    return { id, forkedFrom: typeof parent === 'string' ? parent : null }
  } catch {
    return null // not a Codex rollout: it keeps its place
  }
}
