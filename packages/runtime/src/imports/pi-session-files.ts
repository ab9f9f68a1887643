// Where pi keeps its session files, for `tangent import --from pi [--all]` (issue 31). pi 0.73:
// `$PI_CODING_AGENT_DIR` (default `~/.pi/agent`), then `sessions/--<cwd, / \ : as ->--/*.jsonl`
// (`getDefaultSessionDir`); `$PI_CODING_AGENT_SESSION_DIR` replaces that with one flat folder
// holding every folder's sessions, told apart by the `cwd` of their headers.

import { open, readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { expandHome, piSessionDirName, toolHomeDir } from '../tool-homes.js'

export interface PiEnvironment {
  HOME?: string
  PI_CODING_AGENT_DIR?: string
  PI_CODING_AGENT_SESSION_DIR?: string
}

export { piSessionDirName }

/** pi's agent directory, or null when neither it nor HOME is set. */
export function piAgentDir(env: PiEnvironment): string | null {
  return toolHomeDir('pi', env)
}

/**
 * The pi session files of `folder` (the sessions pi resumes there), or of every folder when
 * `folder` is null; sorted by path (pi's names start with their creation time). A missing
 * directory is no sessions.
 */
export async function piSessionFiles(env: PiEnvironment, folder: string | null): Promise<string[]> {
  const agentDir = piAgentDir(env)
  const flatDir = await piChosenSessionDir(env, agentDir, folder)
  if (flatDir !== null) {
    const files = await jsonlFiles(flatDir)
    if (folder === null) return files
    const kept: string[] = []
    for (const file of files) if ((await headerCwd(file)) === folder) kept.push(file)
    return kept
  }
  if (agentDir === null) return []
  const sessionsDir = join(agentDir, 'sessions')
  if (folder !== null) return jsonlFiles(join(sessionsDir, piSessionDirName(folder)))
  const files: string[] = []
  for (const dir of await subdirectories(sessionsDir))
    files.push(...(await jsonlFiles(join(sessionsDir, dir))))
  return files.sort()
}

/** The one session folder the environment or pi's settings choose, or null for pi's per-folder layout. */
async function piChosenSessionDir(env: PiEnvironment, agentDir: string | null, folder: string | null) {
  if (env.PI_CODING_AGENT_SESSION_DIR) return expandHome(env.PI_CODING_AGENT_SESSION_DIR, env.HOME)
  const settingsFiles = [
    ...(folder === null ? [] : [join(folder, '.pi', 'settings.json')]),
    ...(agentDir === null ? [] : [join(agentDir, 'settings.json')]),
  ]
  for (const file of settingsFiles) {
    const dir = await settingsSessionDir(file)
    if (dir !== null) return resolve(folder ?? agentDir ?? '/', expandHome(dir, env.HOME))
  }
  return null
}

/** `sessionDir` of a pi settings file, or null when it has none (or cannot be read: pi then runs without it too). */
async function settingsSessionDir(file: string): Promise<string | null> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null
    throw error
  }
  let settings: unknown
  try {
    settings = JSON.parse(text)
  } catch {
    // pi reports a settings file that is not JSON and runs on without it; so does the listing.
    return null
  }
  const dir =
    typeof settings === 'object' && settings !== null
      ? (settings as { sessionDir?: unknown }).sessionDir
      : undefined
  return typeof dir === 'string' && dir !== '' ? dir : null
}

async function jsonlFiles(dir: string): Promise<string[]> {
  const entries = await readdirOrNothing(dir)
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
    .map((entry) => join(dir, entry.name))
    .sort()
}

async function subdirectories(dir: string): Promise<string[]> {
  return (await readdirOrNothing(dir)).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
}

async function readdirOrNothing(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
    throw error
  }
}

/** The `cwd` of a session file's header (read from its first 64 KiB only), or null. */
async function headerCwd(file: string): Promise<string | null> {
  const handle = await open(file, 'r')
  let text: string
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    text = buffer.subarray(0, bytesRead).toString('utf8')
  } finally {
    await handle.close()
  }
  const newline = text.indexOf('\n')
  let header: unknown
  try {
    header = JSON.parse(newline < 0 ? text : text.slice(0, newline))
  } catch {
    // A first line that is not JSON (or past 64 KiB) belongs to no folder; importing the file by name says why.
    return null
  }
  const cwd = typeof header === 'object' && header !== null ? (header as { cwd?: unknown }).cwd : undefined
  return typeof cwd === 'string' ? cwd : null
}
