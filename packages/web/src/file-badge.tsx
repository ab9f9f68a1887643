// The file mode of a session, said plainly: a worktree of its own, or the directory it
// shares with other sessions (whose edits it sees and overwrites).
import { useMemo } from 'react'
import { titleOf } from './session-display.js'
import { useHost } from './use-host.js'
import type { SessionSummary } from './wire.js'

export function FileBadge({ session }: { session: SessionSummary }) {
  const sessions = useHost((state) => state.sessions)
  const sharers = useMemo(() => {
    if (session.files.mode !== 'shared') return []
    const list: SessionSummary[] = []
    for (const other of sessions.values()) {
      if (other.id !== session.id && !other.archived && other.files.path === session.files.path)
        list.push(other)
    }
    return list
  }, [sessions, session])

  if (session.files.elsewhere) {
    const machine = session.files.machine ?? 'another machine'
    return (
      <span
        className="tag tag-elsewhere"
        data-testid="file-badge"
        data-mode={session.files.mode}
        data-machine={machine}
        title={`Its files are on ${machine}, in ${session.files.path}: its turns run there. Fork it with its own worktree to continue on this machine.`}
      >
        files on {machine}: {shortPath(session.files.path)}
      </span>
    )
  }
  if (session.files.mode === 'worktree') {
    return (
      <span
        className="tag tag-worktree"
        data-testid="file-badge"
        data-mode="worktree"
        title={session.files.path}
      >
        worktree: {shortPath(session.files.path)}
      </span>
    )
  }
  const names = sharers.map((s) => titleOf(s))
  const text =
    sharers.length === 0
      ? `files: ${shortPath(session.files.path)}`
      : `shares files with ${names[0]}${sharers.length > 1 ? ` +${sharers.length - 1}` : ''}`
  return (
    <span
      className="tag tag-shared"
      data-testid="file-badge"
      data-mode="shared"
      title={`Works directly in ${session.files.path}${names.length > 0 ? `, like ${fewOf(names)}` : ''}. Edits by any of them land in the same files.`}
    >
      {text}
    </span>
  )
}

function shortPath(path: string): string {
  const parts = path.split('/').filter(Boolean)
  return parts.length <= 2 ? path : `…/${parts.slice(-2).join('/')}`
}

/** A few names and how many more: a folder shared by thousands of sessions must not make a 300 KB tooltip. */
export function fewOf(names: readonly string[], shown = 5): string {
  if (names.length <= shown) return names.join(', ')
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`
}
