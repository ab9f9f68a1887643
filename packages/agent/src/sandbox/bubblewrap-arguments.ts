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
  readonly isolation: BubblewrapIsolation
}

/**
 * How the command is kept from undoing its mounts and from reaching programs outside through
 * Unix sockets (a D-Bus session bus runs commands, a Docker socket is root), best first; the
 * probe picks the first that works here.
 * - `seccomp`: a user namespace of its own, and the sandbox library's `apply-seccomp` helper
 *   (`helper`), which refuses Unix sockets and further user namespaces;
 * - `user-namespace`: a user namespace, no nested ones (bubblewrap 0.8+), no capabilities —
 *   Unix sockets on the file system stay reachable;
 * - `plain`: no user namespace (a setuid bubblewrap), no capabilities; the same.
 */
export type BubblewrapIsolation =
  | { readonly kind: 'seccomp'; readonly helper: string }
  | { readonly kind: 'user-namespace' }
  | { readonly kind: 'plain' }

export function bubblewrapArguments(layout: BubblewrapLayout, command: string): string[] {
  const { isolation } = layout
  const writable = [layout.cwd, layout.tempDirectory, ...layout.writable]
  const mounts = [
    ...layout.hidden.map((target) => ({ target, args: ['--tmpfs', target] })),
    ...[...writable, ...anchorsOf(layout.readOnly, writable)].map((target) => ({
      target,
      args: ['--bind', target, target],
    })),
    ...layout.readOnly.map((target) => ({ target, args: ['--ro-bind', target, target] })),
    // Reachable even where it lies in a hidden folder.
    ...(isolation.kind === 'seccomp'
      ? [{ target: isolation.helper, args: ['--ro-bind', isolation.helper, isolation.helper] }]
      : []),
  ]
  // A mount hides what was mounted at or below its path before it: parents first, so a
  // protected path stays protected inside a writable folder and a worktree inside the (hidden)
  // data directory is still reachable. Sorting is stable: at one path, the later kind wins.
  mounts.sort((a, b) => depthOf(a.target) - depthOf(b.target))
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...isolationArguments(isolation),
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
    // The helper makes a user namespace of its own; `0`: none may be made inside it.
    ...(isolation.kind === 'seccomp' ? ['--setenv', 'SRT_ALLOW_NESTED_USERNS', '0'] : []),
    '--chdir',
    layout.cwd,
    '--',
    ...(isolation.kind === 'seccomp' ? [isolation.helper] : []),
    'bash',
    '-c',
    command,
  ]
}

function isolationArguments(isolation: BubblewrapIsolation): string[] {
  if (isolation.kind === 'seccomp') return ['--unshare-user']
  if (isolation.kind === 'user-namespace') return ['--unshare-user', '--disable-userns', '--cap-drop', 'ALL']
  return ['--cap-drop', 'ALL']
}

/**
 * The folders between a writable folder and a read-only path inside it, each bound onto itself
 * (still writable): a mount point cannot be renamed or removed, so the command cannot move `.git`
 * aside, with its read-only config and hooks inside, and put a folder of its own in its place.
 */
function anchorsOf(readOnly: readonly string[], writable: readonly string[]): string[] {
  const anchors = new Set<string>()
  for (const target of readOnly) {
    const root = writable.find((folder) => target.startsWith(`${folder}${path.sep}`))
    if (root === undefined) continue
    for (let folder = path.dirname(target); folder !== root; folder = path.dirname(folder)) {
      if (!readOnly.includes(folder) && !writable.includes(folder)) anchors.add(folder)
    }
  }
  return [...anchors]
}

function depthOf(target: string): number {
  return path.resolve(target).split(path.sep).filter(Boolean).length
}
