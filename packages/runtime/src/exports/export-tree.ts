// The sessions of a session's tree for an export that writes them all (pi's file is a tree:
// exports/pi-export.ts): the session, its ancestors, and every fork of the root's lineage. A
// subagent's session is not a branch of the conversation and an archived fork was put away, so
// neither is taken unless the exported session descends through it.
import type { Session, StoredSession } from '@tangent/core'

export interface ExportTreeSource {
  /** The store's listing (its index: no log is read). */
  list(): Promise<readonly Readonly<StoredSession>[]>
  load(sessionId: string): Promise<Session>
}

/** The other sessions of `session`'s tree, loaded, parents before children. */
export async function treeSessionsOf(session: Session, source: ExportTreeSource): Promise<Session[]> {
  const listed = new Map((await source.list()).map((entry) => [entry.id, entry]))
  const chain: string[] = []
  const taken = new Set([session.id])
  for (let id = session.header.parentSession; id !== undefined && listed.has(id) && !taken.has(id); ) {
    chain.unshift(id)
    taken.add(id)
    id = listed.get(id)!.parentSession ?? undefined
  }
  const children = new Map<string, string[]>()
  for (const entry of listed.values()) {
    if (entry.parentSession === null || entry.origin === 'subagent' || entry.archived || entry.parentLoop)
      continue
    const list = children.get(entry.parentSession)
    if (list) list.push(entry.id)
    else children.set(entry.parentSession, [entry.id])
  }
  const order = [...chain]
  const root = chain[0] ?? session.id
  // Breadth first from the root: a fork is listed after its parent.
  const queue = [root]
  const queued = new Set(queue)
  for (let next = 0; next < queue.length; next++) {
    for (const child of children.get(queue[next]!) ?? []) {
      if (queued.has(child)) continue
      queue.push(child)
      queued.add(child)
      if (!taken.has(child)) {
        taken.add(child)
        order.push(child)
      }
    }
  }
  const sessions: Session[] = []
  for (const id of order) sessions.push(await source.load(id))
  return sessions
}
