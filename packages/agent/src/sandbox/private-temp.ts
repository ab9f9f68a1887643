// The private temp directory of a session's sandboxed commands (docs/architecture.md §12.2):
// <os temp>/tangent-<uid>/<session>, each level 0700 and this user's own, so no other user can
// read it or plant a link in its place before we use it.
import { lstat, mkdir, realpath } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** The default root: one folder per user under the OS temp directory. */
export function defaultTempRoot(): string {
  return path.join(os.tmpdir(), `tangent-${process.getuid?.() ?? os.userInfo().username}`)
}

/** Makes (or checks) `<root>/<key>` and returns its real path. */
export async function privateTempDirectory(root: string, key: string): Promise<string> {
  await ensurePrivateDirectory(root)
  // A session id is already [A-Za-z0-9_-]; anything else is flattened rather than trusted.
  const directory = path.join(root, key.replace(/[^A-Za-z0-9_-]/g, '_') || 'default')
  await ensurePrivateDirectory(directory)
  return realpath(directory)
}

async function ensurePrivateDirectory(directory: string): Promise<void> {
  try {
    await mkdir(directory, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const stat = await lstat(directory)
  const uid = process.getuid?.()
  // A link, another user's folder or one others can enter is refused, never repaired: in a
  // shared temp directory it may be someone else's trap.
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new Error(
      `The sandbox's temp directory ${directory} is not a private folder of this user (mode 0700); remove it and retry.`,
    )
  }
}
