// Loops of parents among stored sessions (only damaged data makes one: A's parent is B, B's is
// A). An engine lists each session whose chain loops, or leads into a loop, flagged with the loop
// (`parentLoop`) and says so once per loop (docs/architecture.md §4).

export interface ParentLoops {
  /** Each loop once, in parent order from where it was entered. */
  readonly loops: readonly (readonly string[])[]
  /** The loop of each session whose chain of parents loops or leads into one. */
  readonly loopOf: ReadonlyMap<string, readonly string[]>
}

/** One walk per chain: O(n) over the entries. */
export function findParentLoops(
  entries: ReadonlyMap<string, { readonly parentSession: string | null }>,
): ParentLoops {
  const loops: string[][] = []
  const found = new Map<string, string[] | null>()
  for (const [start, entry] of entries) {
    if (entry.parentSession === null || found.has(start)) continue
    const path: string[] = []
    const onPath = new Map<string, number>()
    let current: string | null = start
    while (current !== null && !found.has(current) && !onPath.has(current)) {
      const next = entries.get(current)
      if (next === undefined) break
      onPath.set(current, path.length)
      path.push(current)
      current = next.parentSession
    }
    let loop: string[] | null = null
    const loopStart = current === null ? undefined : onPath.get(current)
    if (loopStart !== undefined) {
      loop = path.slice(loopStart)
      loops.push(loop)
    } else if (current !== null) loop = found.get(current) ?? null
    for (const id of path) found.set(id, loop)
  }
  const loopOf = new Map<string, readonly string[]>()
  for (const [id, loop] of found) if (loop) loopOf.set(id, loop)
  return { loops, loopOf }
}
