// The lineage tree of `tangent sessions` and `/tree`: forks indented under their
// parent with the seq they were forked at. A fork whose parent is not listed is a root, and
// one deeper than maxIndentDepth starts again at the margin; both name their parent.
import type { SessionSummary } from '../backend.js'
import type { LastStatus } from '../last-status.js'
import { type Style, safeLine, titleOf } from './style.js'

export interface TreeOptions {
  /** Marks this session (chat's current one). */
  current?: string | null
  /** How each session's last turn went (`tangent sessions`); a session missing here shows none. */
  lastStatus?: ReadonlyMap<string, LastStatus>
  /** Now (epoch ms), for each session's age; without it no age is shown. */
  now?: number
  /** The user's home directory, shown as `~` in folders. */
  homeDir?: string | undefined
}

/**
 * How many levels a lineage is indented (3 columns each). Forks deeper than that start again at
 * the margin after their tree, naming their parent as a fork whose parent is not listed does: a
 * chain of 10,000 forks would otherwise print rows 30,000 columns wide (150 MB in all).
 */
const maxIndentDepth = 20

/**
 * Each session's children in creation order (key null: the roots, and every session whose parent
 * is not among `sessions`). The CLI's tree and the terminal UI's (tui/tree-rows.ts) both start here.
 */
export function childrenByParent(sessions: readonly SessionSummary[]): Map<string | null, SessionSummary[]> {
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
  return children
}

export function renderSessionTree(
  sessions: readonly SessionSummary[],
  style: Style,
  options: TreeOptions = {},
): string[] {
  const children = childrenByParent(sessions)

  // Depth first with a stack of its own, not recursion: a lineage thousands of forks deep
  // (each a fork of the one before) must not overflow the call stack. Forks too deep to indent
  // are shown after the tree they belong to, at the margin.
  const lines: string[] = []
  for (const root of children.get(null) ?? []) {
    const atMargin = [root]
    for (let start = 0; start < atMargin.length; start++) {
      const pending = [{ session: atMargin[start]!, prefix: '', branch: '', depth: 0 }]
      for (let row = pending.pop(); row !== undefined; row = pending.pop()) {
        const { session, prefix, branch, depth } = row
        lines.push(`${prefix}${branch}${renderRow(session, style, options, depth === 0)}`)
        const kids = children.get(session.id) ?? []
        if (depth === maxIndentDepth) {
          for (const kid of kids) atMargin.push(kid)
          continue
        }
        const childPrefix = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ')
        // Pushed last to first, so they come off first to last.
        for (let index = kids.length - 1; index >= 0; index--) {
          const last = index === kids.length - 1
          pending.push({
            session: kids[index]!,
            prefix: childPrefix,
            branch: last ? '└─ ' : '├─ ',
            depth: depth + 1,
          })
        }
      }
    }
  }
  return lines
}

function renderRow(
  session: SessionSummary,
  style: Style,
  options: TreeOptions,
  /** At the margin: a fork there names its parent (not listed, or too deep to indent under). */
  atMargin: boolean,
): string {
  const marker = options.current === session.id ? style.green('* ') : ''
  const parts: string[] = []
  if (session.parentSession !== null) {
    const at = session.forkedAt === null ? '' : ` @ seq ${session.forkedAt}`
    const kind = session.origin === 'subagent' ? 'subagent' : 'fork'
    parts.push(atMargin ? `${kind} of ${session.parentSession}${at}` : `${kind}${at}`)
  }
  parts.push(`${session.eventCount} events`)
  if (session.model !== null) parts.push(safeLine(`${session.model.provider}:${session.model.model}`))
  // Another machine's folder is its path there: `~` is not this one's home.
  const elsewhere = session.files.elsewhere === true
  const folder = (path: string) => (elsewhere ? path : folderName(path, options))
  if (session.files.mode === 'worktree') parts.push(`worktree ${safeLine(folder(session.files.path))}`)
  else parts.push(safeLine(folder(session.cwd)))
  if (elsewhere) parts.push(`on ${safeLine(session.files.machine ?? 'another machine')}`)
  if (options.now !== undefined) parts.push(age(options.now - session.updatedAt))
  const flags: string[] = []
  const last = options.lastStatus?.get(session.id) ?? (session.status === 'running' ? 'running' : undefined)
  if (last !== undefined) flags.push(statusWord(last, style))
  // A mode other than the default is worth a glance: it changes what the next turn may do (§12.1).
  if (session.mode !== undefined && session.mode !== 'edit') flags.push(style.yellow(`${session.mode} mode`))
  if (session.archived) flags.push(style.magenta('archived'))
  if (session.parentLoop) flags.push(style.red(`damaged: parents loop ${session.parentLoop.join(' → ')}`))
  return `${marker}${style.cyan(session.id)}  ${style.bold(titleOf(session))}  ${style.dim(parts.join(' · '))}${
    flags.length > 0 ? `  ${flags.join(' ')}` : ''
  }`
}

/** A folder as people read it: under their home directory as `~/…`. */
function folderName(folder: string, options: TreeOptions): string {
  const home = options.homeDir
  if (home && home !== '/' && (folder === home || folder.startsWith(`${home}/`)))
    return `~${folder.slice(home.length)}`
  return folder
}

/** How long ago, in the largest unit that fits: `just now`, `5m ago`, `3h ago`, `12d ago`. */
export function age(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes}m ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours}h ago`
  return `${Math.floor(hours / 24)}d ago`
}

/** A last status as the tree shows it: a failure in red, what needs a look in yellow. */
function statusWord(status: LastStatus, style: Style): string {
  switch (status) {
    case 'failed':
      return style.red('failed')
    case 'aborted':
      return style.yellow('aborted')
    case 'max-steps':
      return style.yellow('stopped at max steps')
    case 'needs-approval':
      return style.yellow('needs approval')
    case 'running':
      return style.yellow('running')
    case 'ok':
      return style.green('ok')
    case 'new':
      return style.dim('no turns yet')
  }
}
