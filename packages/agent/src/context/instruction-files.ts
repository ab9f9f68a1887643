// Project instructions on disk (docs/architecture.md §12.3): AGENTS.md — else CLAUDE.md — in
// each directory from the session's cwd up to its repository root, and one user-level file.
// Reading is the only I/O here; what the model sees comes from the log (instructions.ts).
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { InstructionsData } from '@tangent/core'

export type InstructionFile = InstructionsData['files'][number]

/** Bytes kept of one file; the rest is replaced by a note saying so. */
export const maxInstructionFileBytes = 64 * 1024
const fileNames = ['AGENTS.md', 'CLAUDE.md'] as const

export interface InstructionSources {
  /** The session's working directory. */
  cwd: string
  /** The user-level file (default `userInstructionsPath(process.env)`); null: none. */
  userPath?: string | null
  maxBytes?: number
}

/** `$XDG_CONFIG_HOME/tangent/AGENTS.md`, else `~/.config/tangent/AGENTS.md`. */
export function userInstructionsPath(env: Record<string, string | undefined> = process.env): string {
  const config = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config')
  return path.join(config, 'tangent', 'AGENTS.md')
}

/**
 * The instruction files in force for `cwd`, user file first, then from the repository root
 * down to `cwd` (the nearest file last, so it reads as the most specific). The repository
 * root is the nearest ancestor holding `.git` (a directory, or a file in a worktree); without
 * one only `cwd` itself is read. Paths are as the user knows them: the user file with `~`,
 * project files relative to `cwd` (`AGENTS.md`, `../AGENTS.md`).
 */
export async function readInstructionFiles(sources: InstructionSources): Promise<InstructionFile[]> {
  const maxBytes = sources.maxBytes ?? maxInstructionFileBytes
  const files: InstructionFile[] = []
  const userPath = sources.userPath === undefined ? userInstructionsPath() : sources.userPath
  if (userPath !== null) {
    const content = await readCapped(userPath, maxBytes)
    if (content !== null) files.push({ path: displayPath(userPath), scope: 'user', content })
  }
  const directories = await projectDirectories(sources.cwd)
  for (const directory of directories.reverse()) {
    for (const name of fileNames) {
      const file = path.join(directory, name)
      const content = await readCapped(file, maxBytes)
      if (content === null) continue
      files.push({ path: path.relative(sources.cwd, file), scope: 'project', content })
      break
    }
  }
  return files
}

/** `cwd` and its ancestors up to the repository root; only `cwd` outside a repository. */
async function projectDirectories(cwd: string): Promise<string[]> {
  const directories: string[] = []
  for (let directory = cwd; ; ) {
    directories.push(directory)
    if (await exists(path.join(directory, '.git'))) return directories
    const parent = path.dirname(directory)
    if (parent === directory) return [cwd]
    directory = parent
  }
}

/** The file's text, cut at `maxBytes` with a note; null when it is absent or not a file. */
async function readCapped(file: string, maxBytes: number): Promise<string | null> {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(file, 'r')
  } catch (error) {
    if (isMissing(error)) return null
    throw error
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return null
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    // Invalid UTF-8 becomes U+FFFD (TextDecoder without `fatal`), and a character cut at the
    // cap is dropped rather than half-kept.
    const text = new TextDecoder('utf-8').decode(buffer.subarray(0, bytesRead)).replace(/\uFFFD$/, '')
    if (stat.size <= maxBytes) return text
    return `${text}\n\n[Truncated: ${file} has ${stat.size} bytes; only the first ${maxBytes} are included.]`
  } finally {
    await handle.close()
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file)
    return true
  } catch (error) {
    if (isMissing(error)) return false
    throw error
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR'
}

function displayPath(file: string): string {
  const home = os.homedir()
  return file.startsWith(`${home}${path.sep}`) ? `~${file.slice(home.length)}` : file
}
