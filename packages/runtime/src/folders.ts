// Folder paths as people type them (`~`, `~/code`, `../other`, `/abs`) and the subfolders of
// a folder, for opening workspaces and for a folder picker. Node built-ins only.
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'

export interface FolderPathOptions {
  /** What `~` means. */
  readonly homeDir: string
  /** What a relative path is relative to (the Host's start folder). */
  readonly base: string
}

export interface BrowseOptions extends FolderPathOptions {
  /** Include folders whose name starts with a dot (default false). */
  readonly hidden?: boolean
  /** At most this many subfolders (default 1,000); `truncated` says when there were more. */
  readonly limit?: number
}

export interface FolderEntry {
  readonly name: string
  readonly path: string
}

export interface BrowseResult {
  /** The real path listed. */
  readonly path: string
  /** Its parent, null at the root. */
  readonly parent: string | null
  /** Subfolders (and symlinks to folders) sorted by name. */
  readonly folders: FolderEntry[]
  readonly truncated: boolean
}

export const defaultBrowseLimit = 1000

/**
 * An absolute, normalised path: `~` is `homeDir`, `~/x` is under it, an absolute path stays,
 * anything else is relative to `base`. Surrounding whitespace is ignored; `''` is `base`.
 * Never touches the disk. (`~user` is not expanded: it is a relative name like any other.)
 */
export function resolveFolderPath(input: string, options: FolderPathOptions): string {
  const text = input.trim()
  if (text === '~') return path.resolve(options.homeDir)
  if (text.startsWith('~/') || (path.sep !== '/' && text.startsWith(`~${path.sep}`))) {
    return path.resolve(options.homeDir, text.slice(2))
  }
  return path.resolve(options.base, text)
}

/**
 * The real path (symlinks resolved) of an existing folder. Throws TangentError
 * `folder-not-found` (data `{path, resolved}`) when it does not exist, is not a folder, or
 * cannot be reached.
 */
export async function realFolder(input: string, options: FolderPathOptions): Promise<string> {
  const resolved = resolveFolderPath(input, options)
  let real: string
  try {
    real = await fs.realpath(resolved)
  } catch (error) {
    throw notFound(input, resolved, error)
  }
  let stats: Awaited<ReturnType<typeof fs.stat>>
  try {
    stats = await fs.stat(real)
  } catch (error) {
    throw notFound(input, resolved, error)
  }
  if (!stats.isDirectory()) {
    throw new TangentError(
      'folder-not-found',
      `${resolved} is a file, not a folder: give the folder that contains it (${path.dirname(resolved)}).`,
      { path: input, resolved },
    )
  }
  return real
}

/**
 * The subfolders of a folder (default `base`): directories and symlinks that point at
 * directories, sorted by name (numeric-aware), dot-folders only with `hidden`. Entries that
 * cannot be inspected (a broken symlink, a race with a delete) are left out. Only symlinks
 * are stat'ed, so a folder of 10,000 entries costs one `readdir`.
 */
export async function browseFolders(
  input: string | undefined,
  options: BrowseOptions,
): Promise<BrowseResult> {
  const folder = input === undefined || input.trim() === '' ? options.base : input
  const real = await realFolder(folder, options)
  const limit = Math.max(0, options.limit ?? defaultBrowseLimit)
  let entries: Dirent[]
  try {
    entries = await fs.readdir(real, { withFileTypes: true })
  } catch (error) {
    throw new TangentError(
      'folder-not-found',
      `Cannot list ${real}: ${reason(error)}. Choose another folder, or give your user read access to this one.`,
      { path: folder, resolved: real, ...errorCode(error) },
    )
  }

  const names: string[] = []
  const links: string[] = []
  for (const entry of entries) {
    const name = String(entry.name)
    if (!options.hidden && name.startsWith('.')) continue
    if (entry.isDirectory()) names.push(name)
    else if (entry.isSymbolicLink()) links.push(name)
  }
  // A symlink counts when it leads to a folder; a broken or unreadable one is skipped.
  const linked = await Promise.all(
    links.map(async (name) => {
      try {
        return (await fs.stat(path.join(real, name))).isDirectory() ? name : null
      } catch {
        return null
      }
    }),
  )
  for (const name of linked) if (name !== null) names.push(name)

  names.sort(compareNames)
  const root = path.parse(real).root
  return {
    path: real,
    parent: real === root ? null : path.dirname(real),
    folders: names.slice(0, limit).map((name) => ({ name, path: path.join(real, name) })),
    truncated: names.length > limit,
  }
}

// Made on the first sort, not when the module loads: building a collator loads ICU's collation
// data (a few ms), and most commands that load the runtime never list folders.
let collator: Intl.Collator | undefined

/** `localeCompare` with numeric order (`v2` before `v10`); ties broken by code points, so it is total. */
function compareNames(a: string, b: string): number {
  collator ??= new Intl.Collator(undefined, { numeric: true })
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0)
}

function notFound(input: string, resolved: string, error: unknown): TangentError {
  const code = (error as { code?: unknown } | null)?.code
  const message =
    code === 'ENOENT'
      ? `No folder at ${resolved}: check the spelling, or create it first (mkdir -p ${quote(resolved)}).`
      : code === 'ENOTDIR'
        ? `${resolved} is not a folder (a part of the path is a file): check the path.`
        : code === 'EACCES' || code === 'EPERM'
          ? `Cannot reach ${resolved}: permission denied. Choose another folder, or give your user access to this one.`
          : code === 'ELOOP'
            ? `${resolved} is a loop of symlinks: point it at a real folder.`
            : `Cannot open ${resolved}: ${reason(error)}.`
  return new TangentError(
    'folder-not-found',
    message,
    { path: input, resolved, ...errorCode(error) },
    {
      cause: error,
    },
  )
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'ENOENT') return 'it no longer exists'
  return error instanceof Error ? error.message : String(error)
}

function errorCode(error: unknown): { errno?: string } {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? { errno: code } : {}
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`
}
