// Depth-first walk of a directory for `list` and `grep`; symlinks are listed, never followed,
// so a walk cannot leave the working directory.
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

/** Directories that are noise for an agent (and huge): skipped unless asked for directly. */
export const skippedDirectoryNames: ReadonlySet<string> = new Set(['.git', 'node_modules'])

export interface WalkEntry {
  /** Path relative to the walk's root directory, `/`-separated. */
  readonly relative: string
  readonly absolute: string
  readonly kind: 'file' | 'directory' | 'symlink' | 'other'
}

/** Yields entries sorted by name; descends only when `recursive`. */
export async function* walkDirectory(
  root: string,
  recursive: boolean,
  signal?: AbortSignal,
): AsyncGenerator<WalkEntry> {
  const pending: string[] = ['']
  while (pending.length > 0) {
    signal?.throwIfAborted()
    const relativeDir = pending.shift()!
    const entries: Dirent[] = await fs.readdir(path.join(root, relativeDir), { withFileTypes: true })
    entries.sort((a, b) => a.name.localeCompare(b.name))
    for (const entry of entries) {
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`
      const kind = entry.isSymbolicLink()
        ? 'symlink'
        : entry.isDirectory()
          ? 'directory'
          : entry.isFile()
            ? 'file'
            : 'other'
      yield { relative, absolute: path.join(root, relative), kind }
      if (recursive && kind === 'directory' && !skippedDirectoryNames.has(entry.name)) pending.push(relative)
    }
  }
}
