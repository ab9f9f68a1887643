// The bubblewrap command line of a sandboxed command (docs/architecture.md §12.2). Pure: what to
// mount comes from bash-sandbox.ts. The whole file system is read-only, the command's folders are
// bound writable over it, protected paths read-only over those, and Tangent's data directory is
// an empty read-only folder; every namespace is new (no network, its own PIDs), and bubblewrap
// dies with its parent, taking every process of the command with it.
import path from 'node:path'

export interface BubblewrapLayout {
  /** The session's folder: writable, and where the command starts. */
  readonly cwd: string
  /** Writable besides `cwd` and the temp directory: git directories outside `cwd`. */
  readonly writable: readonly string[]
  /** Read-only, each of them existing (protected paths and placeholders). */
  readonly readOnly: readonly string[]
  /** Emptied (an empty read-only folder): Tangent's data directory. Each exists. */
  readonly hidden: readonly string[]
  /** The command's TMPDIR (the rest of its environment is bubblewrap's own, from spawn). */
  readonly tempDirectory: string
  /** Whether this bubblewrap can make a user namespace and forbid nested ones (probed). */
  readonly userNamespace: boolean
}

export function bubblewrapArguments(layout: BubblewrapLayout, command: string): string[] {
  const mounts = [
    ...layout.hidden.map((target) => ({ target, args: ['--tmpfs', target] })),
    { target: layout.cwd, args: ['--bind', layout.cwd, layout.cwd] },
    ...[layout.tempDirectory, ...layout.writable].map((target) => ({
      target,
      args: ['--bind', target, target],
    })),
    ...layout.readOnly.map((target) => ({ target, args: ['--ro-bind', target, target] })),
  ]
  // A mount hides what was mounted at or below its path before it: parents first, so a
  // protected path stays protected inside a writable folder and a worktree inside the (hidden)
  // data directory is still reachable. Sorting is stable: at one path, the later kind wins.
  mounts.sort((a, b) => depthOf(a.target) - depthOf(b.target))
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(layout.userNamespace ? ['--unshare-user', '--disable-userns'] : []),
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mounts.flatMap((mount) => mount.args),
    // After whatever was bound inside it: a tmpfs is writable until remounted.
    ...layout.hidden.flatMap((target) => ['--remount-ro', target]),
    '--setenv',
    'TMPDIR',
    layout.tempDirectory,
    '--chdir',
    layout.cwd,
    '--',
    'bash',
    '-c',
    command,
  ]
}

function depthOf(target: string): number {
  return path.resolve(target).split(path.sep).filter(Boolean).length
}
