// Breadth-first walk of a directory for `list` and `grep`, through open folders
// (ConfinedDirectory, ../confined-directory.ts): symlinks are listed, never followed, and a folder
// swapped for a symlink while the walk runs is refused by O_NOFOLLOW rather than entered, so a
// walk cannot leave the working directory (docs/architecture.md §6).
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import { type ConfinedDirectory, joinRelative } from '../confined-directory.js'

/** Directories that are noise for an agent (and huge): skipped unless asked for directly. */
export const skippedDirectoryNames: ReadonlySet<string> = new Set(['.git', 'node_modules'])

export interface WalkEntry {
  /** Path relative to the walk's root directory, `/`-separated. */
  readonly relative: string
  readonly kind: 'file' | 'directory' | 'symlink' | 'other'
  /** The open folder holding the entry (open while the entry is being handled) and its name there. */
  readonly parent: ConfinedDirectory
  readonly name: string
}

/** An entry's real path relative to the cwd (what rules see). */
export function realPathOfEntry(entry: WalkEntry): string {
  return joinRelative(entry.parent.relative, entry.name)
}

/**
 * Yields entries sorted by name; descends only when `recursive`, into folders `enter` accepts
 * (default all but `skippedDirectoryNames`; a deny rule's folder is left out, docs/architecture.md §12.1).
 */
export async function* walkDirectory(
  root: ConfinedDirectory,
  recursive: boolean,
  signal?: AbortSignal,
  enter: (entry: WalkEntry) => Promise<boolean> = async () => true,
): AsyncGenerator<WalkEntry> {
  const pending: string[][] = [[]]
  while (pending.length > 0) {
    signal?.throwIfAborted()
    const names = pending.shift()!
    // Reopened from the root one folder at a time, so only a path's worth of folders is open.
    const opened: ConfinedDirectory[] = []
    try {
      let directory = root
      for (const name of names) {
        const child = await directory.openDirectory(name).catch(skipVanished)
        if (child === null) break
        opened.push(child)
        directory = child
      }
      if (opened.length !== names.length) continue
      const entries: Dirent[] = await fs.readdir(directory.entry('.'), { withFileTypes: true })
      entries.sort((a, b) => a.name.localeCompare(b.name))
      for (const entry of entries) {
        const relative = [...names, entry.name].join('/')
        const kind = entry.isSymbolicLink()
          ? 'symlink'
          : entry.isDirectory()
            ? 'directory'
            : entry.isFile()
              ? 'file'
              : 'other'
        const walked: WalkEntry = { relative, kind, parent: directory, name: entry.name }
        yield walked
        if (
          recursive &&
          kind === 'directory' &&
          !skippedDirectoryNames.has(entry.name) &&
          (await enter(walked))
        )
          pending.push([...names, entry.name])
      }
    } finally {
      await Promise.all(opened.map((directory) => directory.handle.close()))
    }
  }
}

/** A folder removed or swapped for a link or a file since it was listed is left out. */
function skipVanished(error: unknown): null {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return null
  throw error
}
