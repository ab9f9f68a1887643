// `tangent export --format pi`: a session as a file pi resumes with `pi --session FILE` (issue 31;
// pi-coding-agent 0.73.1, session format 3; docs/architecture.md, "Moving in and out"). pi's file is
// a tree (`id`/`parentId`), so the whole Tangent tree goes in — every fork a branch at its fork
// point — and the exported branch is the file's last entry, which pi resumes as its current leaf.
// Written under pi's agent directory as `sessions/--<cwd>--/<time>_<uuid>.jsonl`, the uuid derived
// from the session id, so exporting a session again overwrites its own file.

import { defaultModelId } from '@tangent/agent/light'
import { openTurnAt, type Session } from '@tangent/core'
import { piSessionDirName } from '../tool-homes.js'
import { exportedSessionUuid } from './export-ids.js'
import type { ExportContext, ToolExport, ToolExporter } from './export-types.js'
import { type PiEntry, piEntriesOfPath, piEntryId } from './pi-export-entries.js'

/** The session format version written (pi-coding-agent 0.73.1's `CURRENT_SESSION_VERSION`). */
export const piExportSessionVersion = 3

/** The branch alone (no other session of its tree): its events, inherited ones included. */
export const exportPi: ToolExporter = (session, throughSeq, context) =>
  exportPiTree(session, throughSeq, context, [])

/**
 * The tree as one pi session file. `tree` holds the other sessions to write as branches (the
 * exported session's ancestors and their forks, loaded); each is written through its last
 * completed turn, the exported one through `throughSeq`. A session whose parent is not in `tree`
 * starts a root of its own (its inherited events written as its own).
 */
export function exportPiTree(
  session: Session,
  throughSeq: number,
  context: ExportContext,
  tree: readonly Session[],
): ToolExport {
  const byId = new Map<string, Session>([[session.id, session]])
  for (const other of tree) if (!byId.has(other.id)) byId.set(other.id, other)
  const defaultModel = modelOf(defaultModelId)

  const entries = new Map<string, PiEntry>()
  let exportedPath: PiEntry[] = []
  for (const member of byId.values()) {
    const through = member === session ? throughSeq : lastCompletedSeq(member)
    const path = piEntriesOfPath({
      events: member.events,
      throughSeq: through,
      ownerOf: (seq) => ownerOf(member, seq, byId),
      defaultModel,
    })
    // The paths of one tree agree on their shared prefix (same writer, same seq, same entry): kept once.
    for (const entry of path) if (!entries.has(entry.id)) entries.set(entry.id, entry)
    if (member === session) exportedPath = path
  }

  // pi names a file, not a branch: the exported branch's title names it, as the first entry.
  const title = titleOf(session, throughSeq)
  const rootId = title === undefined ? null : piEntryId(session.id, -1, 0)
  const lines: PiEntry[] = []
  if (rootId !== null)
    lines.push({
      type: 'session_info',
      id: rootId,
      parentId: null,
      timestamp: isoTime(session.header.createdAt, context.now),
      name: title,
    })
  lines.push(...treeOrder(entries, new Set(exportedPath.map((entry) => entry.id)), rootId))
  // pi resumes the file's last entry: the exported branch's leaf goes last (a fork of it made
  // after that point then names a parent written below it, which pi and Tangent's reader both take).
  const leaf = exportedPath.at(-1)
  if (leaf) {
    const at = lines.findIndex((entry) => entry.id === leaf.id)
    lines.push(...lines.splice(at, 1))
  }

  const createdAt = isoTime(session.header.createdAt, context.now)
  const sessionId = piSessionUuid(session.id)
  const header = {
    type: 'session',
    version: piExportSessionVersion,
    id: sessionId,
    timestamp: createdAt,
    cwd: session.header.cwd,
  }
  return {
    lines: [JSON.stringify(header), ...lines.map((entry) => JSON.stringify(entry))],
    file: {
      tool: 'pi',
      sessionId,
      path: `sessions/${piSessionDirName(session.header.cwd)}/${createdAt.replace(/[:.]/g, '-')}_${sessionId}.jsonl`,
    },
  }
}

/**
 * Every entry, parents before children, the children of a node in the order first written,
 * except that the child on the exported path comes after its siblings' subtrees. A root (an
 * entry with no parent) hangs under `rootId` when there is one.
 */
function treeOrder(entries: Map<string, PiEntry>, onPath: Set<string>, rootId: string | null): PiEntry[] {
  const children = new Map<string | null, PiEntry[]>()
  for (const entry of entries.values()) {
    const parent = entry.parentId !== null && entries.has(entry.parentId) ? entry.parentId : null
    if (parent === null) entry.parentId = rootId
    const list = children.get(parent)
    if (list) list.push(entry)
    else children.set(parent, [entry])
  }
  const ordered: PiEntry[] = []
  // Depth first without recursion (a path may be a million entries deep); the stack pops the last pushed.
  const stack: PiEntry[] = []
  const pushChildren = (parent: string | null) => {
    const kids = children.get(parent) ?? []
    const next = kids.find((kid) => onPath.has(kid.id))
    if (next) stack.push(next)
    for (let i = kids.length - 1; i >= 0; i--) if (kids[i] !== next) stack.push(kids[i]!)
  }
  pushChildren(null)
  while (stack.length > 0) {
    const entry = stack.pop()!
    ordered.push(entry)
    pushChildren(entry.id)
  }
  return ordered
}

/** The session in `tree` that wrote `seq` of `session`'s events: a fork's inherited events are its parent's. */
function ownerOf(session: Session, seq: number, tree: Map<string, Session>): string {
  let owner = session
  for (let hops = 0; hops <= tree.size; hops++) {
    const { parentSession, forkedAt } = owner.header
    const parent = parentSession === undefined ? undefined : tree.get(parentSession)
    if (!parent || forkedAt === undefined || seq > forkedAt) return owner.id
    owner = parent
  }
  return owner.id
}

/** pi's session id for a Tangent session (export-ids.ts). */
export const piSessionUuid = exportedSessionUuid

function titleOf(session: Session, throughSeq: number): string | undefined {
  const event = session.latestOfType('session/title', throughSeq)
  const title = (event?.data as { title?: unknown } | undefined)?.title
  const text = typeof title === 'string' ? title : session.header.title
  return text?.trim() ? text : undefined
}

function lastCompletedSeq(session: Session): number {
  const last = session.events.length - 1
  const open = openTurnAt(session.events, last)
  return open === null ? last : open - 1
}

function isoTime(time: number, fallback: number): string {
  return new Date(Number.isFinite(time) && Math.abs(time) <= 8.64e15 ? time : fallback).toISOString()
}

function modelOf(id: string): { provider: string; model: string } {
  const colon = id.indexOf(':')
  return { provider: id.slice(0, colon), model: id.slice(colon + 1) }
}
