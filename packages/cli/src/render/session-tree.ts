// The lineage tree of `tangent sessions` and `/tree`: forks indented under their
// parent with the seq they were forked at. A fork whose parent is not listed is a root.
import type { SessionSummary } from '../backend.js'
import { type Style, titleOf } from './style.js'

export interface TreeOptions {
  /** Marks this session (chat's current one). */
  current?: string | null
}

export function renderSessionTree(
  sessions: readonly SessionSummary[],
  style: Style,
  options: TreeOptions = {},
): string[] {
  const byId = new Map(sessions.map((session) => [session.id, session]))
  const children = new Map<string | null, SessionSummary[]>()
  for (const session of sessions) {
    const parent =
      session.parentSession !== null && byId.has(session.parentSession) ? session.parentSession : null
    const list = children.get(parent) ?? []
    list.push(session)
    children.set(parent, list)
  }
  for (const list of children.values())
    list.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))

  const lines: string[] = []
  const visit = (session: SessionSummary, prefix: string, branch: string) => {
    lines.push(`${prefix}${branch}${renderRow(session, style, options, byId)}`)
    const kids = children.get(session.id) ?? []
    const childPrefix = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ')
    kids.forEach((kid, index) => {
      visit(kid, childPrefix, index === kids.length - 1 ? '└─ ' : '├─ ')
    })
  }
  for (const root of children.get(null) ?? []) visit(root, '', '')
  return lines
}

function renderRow(
  session: SessionSummary,
  style: Style,
  options: TreeOptions,
  byId: ReadonlyMap<string, SessionSummary>,
): string {
  const marker = options.current === session.id ? style.green('* ') : ''
  const parts: string[] = []
  if (session.parentSession !== null) {
    const at = session.forkedAt === null ? '' : ` @ seq ${session.forkedAt}`
    const kind = session.origin === 'subagent' ? 'subagent' : 'fork'
    parts.push(byId.has(session.parentSession) ? `${kind}${at}` : `${kind} of ${session.parentSession}${at}`)
  }
  parts.push(`${session.eventCount} events`)
  if (session.model !== null) parts.push(`${session.model.provider}:${session.model.model}`)
  if (session.files.mode === 'worktree') parts.push(`worktree ${session.files.path}`)
  const flags: string[] = []
  if (session.status === 'running') flags.push(style.yellow('running'))
  if (session.archived) flags.push(style.magenta('archived'))
  if (session.parentLoop) flags.push(style.red(`damaged: parents loop ${session.parentLoop.join(' → ')}`))
  return `${marker}${style.cyan(session.id)}  ${style.bold(titleOf(session))}  ${style.dim(parts.join(' · '))}${
    flags.length > 0 ? `  ${flags.join(' ')}` : ''
  }`
}
