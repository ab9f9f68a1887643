// Where Claude Code keeps its session files: `<config>/projects/<folder key>/<uuid>.jsonl`, the
// config folder being CLAUDE_CONFIG_DIR or ~/.claude, and the subagents of a session under
// `<uuid>/subagents/agent-<id>.jsonl` (the folder key: claude-folder-key.ts).
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { toolHomeDir } from '../tool-homes.js'
import { claudeFolderKey, maxClaudeFolderKeyLength } from './claude-folder-key.js'

export { claudeFolderKey }

export interface ClaudeSessionFile {
  /** The session file. */
  path: string
  /** Its session id (the file name). */
  sessionId: string
  /** The folder key it sits under (`-home-me-project`). */
  folderKey: string
  /** Its subagents' files, if any. */
  subagents: string[]
}

/** The `projects` folder of Claude Code's configuration. */
export function claudeProjectsDir(env: { HOME?: string; CLAUDE_CONFIG_DIR?: string }): string | null {
  const home = toolHomeDir('claude', env)
  return home === null ? null : join(home, 'projects')
}

async function entriesOf(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true })
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' ||
      (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    )
      return []
    throw error
  }
}

/**
 * The session files of one working folder (or of every folder, `folder` null), sorted by folder key
 * then file name. A folder Claude Code never ran in has none (an empty list, not an error). A long
 * folder's key is also matched by its first 200 characters, as Claude Code does, since an older
 * version hashed the rest differently.
 */
export async function claudeSessionFiles(
  env: { HOME?: string; CLAUDE_CONFIG_DIR?: string },
  folder: string | null,
): Promise<ClaudeSessionFile[]> {
  const projects = claudeProjectsDir(env)
  if (projects === null) return []
  const key = folder === null ? null : claudeFolderKey(folder)
  const prefix =
    key !== null && key.length > maxClaudeFolderKeyLength
      ? `${key.slice(0, maxClaudeFolderKeyLength)}-`
      : null
  const folders = (await entriesOf(projects))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .filter((name) => key === null || name === key || (prefix !== null && name.startsWith(prefix)))
    .sort()
  const files: ClaudeSessionFile[] = []
  for (const folderKey of folders) {
    const entries = await entriesOf(join(projects, folderKey))
    const sessions = entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
      .map((entry) => entry.name)
    for (const name of sessions.sort()) {
      const sessionId = name.slice(0, -'.jsonl'.length)
      const agentsDir = join(projects, folderKey, sessionId, 'subagents')
      const subagents = (await entriesOf(agentsDir))
        .filter((entry) => entry.isFile() && /^agent-.+\.jsonl$/.test(entry.name))
        .map((entry) => join(agentsDir, entry.name))
        .sort()
      files.push({ path: join(projects, folderKey, name), sessionId, folderKey, subagents })
    }
  }
  return files
}
