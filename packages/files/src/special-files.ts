// Special files (FIFOs, sockets, devices) in a directory: git never lists them, so a snapshot
// cannot name them in `skipped`; a worktree fork finds them here to say it could not bring them.
import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import type { SnapshotDirectory } from './directory.js'
import { splitNul } from './git.js'
import type { ShadowRepository } from './shadow-repository.js'

/**
 * The special files under `directory` (relative POSIX paths, sorted), as a snapshot would see the
 * folder: `.gitignore` rules apply, ignored folders, `.git`, nested repositories and the data
 * directory are not entered.
 */
export async function findSpecialFiles(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
): Promise<string[]> {
  const scope = { cwd: directory.path, workTree: directory.top, indexFile: directory.indexFile }
  // Ignored folders as git collapses them (`dir/`): not walked (node_modules can be large).
  const ignored = await repository.git(
    ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--', '.'],
    scope,
  )
  const skip = new Set(
    splitNul(ignored.stdout)
      .filter((entry) => entry.endsWith('/'))
      .map((entry) => entry.slice(0, -1)),
  )
  if (directory.excludedHome !== null) skip.add(directory.excludedHome)
  const found: string[] = []
  const walk = async (relative: string): Promise<void> => {
    let entries: Dirent[]
    try {
      entries = await readdir(path.join(directory.path, relative), { withFileTypes: true })
    } catch {
      return // unreadable or gone: the snapshot names what it could not read
    }
    // A nested repository's files are its own (the snapshot names the folder).
    if (relative !== '' && entries.some((entry) => entry.name === '.git')) return
    for (const entry of entries) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (entry.name === '.git' || skip.has(child)) continue
      if (entry.isDirectory()) await walk(child)
      else if (!entry.isFile() && !entry.isSymbolicLink()) found.push(child)
    }
  }
  await walk('')
  if (found.length === 0) return []
  // A special file an ignore rule matches is no more left out than any other ignored file.
  const matched = await repository.git(['check-ignore', '-z', '--no-index', '--stdin'], {
    ...scope,
    input: `${found.join('\0')}\0`,
    allowedExitCodes: [1],
  })
  const ignoredFiles = new Set(splitNul(matched.stdout))
  return found.filter((relative) => !ignoredFiles.has(relative)).sort()
}
