// Files Tangent keeps under TANGENT_HOME/snapshots and TANGENT_HOME/worktrees are the user's
// private data (snapshots hold their project's content): directories 0700, files 0600,
// whatever the umask. Small records are written atomically (temp file, fsync, rename, fsync
// of the directory), so a crash or a full disk never leaves a half-written one behind.
import { randomUUID } from 'node:crypto'
import { chmod, lstat, mkdir, open, readdir, rename, statfs, unlink } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'

export const privateDirectoryMode = 0o700
export const privateFileMode = 0o600

/** Suffix of the temporary file of an atomic write: `<name>.<pid>.<random>.tmp`. */
const tempPattern = /\.(\d+)\.[0-9a-f-]{36}\.tmp$/

/** Creates `directory` (and missing parents) and makes it 0700 whatever the umask. */
export async function makePrivateDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: privateDirectoryMode })
  await chmod(directory, privateDirectoryMode)
}

/** fsync of a directory, so a rename or unlink in it survives a crash (best effort where unsupported). */
export async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    handle = await open(directory, 'r')
    await handle.sync()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Some platforms and file systems cannot fsync a directory: the rename is still atomic.
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'EBADF') throw error
  } finally {
    await handle?.close()
  }
}

/**
 * Writes `content` to `file` (mode 0600) atomically: readers and a restart after a crash see
 * the old content or the new one, never a part. On failure the temporary file is removed.
 */
export async function writePrivateFile(file: string, content: string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`
  try {
    const handle = await open(temp, 'wx', privateFileMode)
    try {
      await handle.writeFile(content)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await syncDirectory(path.dirname(file))
}

/** Removes `file` (if present) and makes the removal durable. */
export async function removeDurably(file: string): Promise<void> {
  try {
    await unlink(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  await syncDirectory(path.dirname(file))
}

/** Whether the process `pid` (of this host) is running. */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Temporary files of atomic writes in `directory` whose writer is no longer running (a crash mid-write). */
export async function removeStaleTempFiles(directory: string): Promise<string[]> {
  const names = await readdir(directory).catch(() => [] as string[])
  const removed: string[] = []
  for (const name of names) {
    const match = tempPattern.exec(name)
    if (!match || isProcessAlive(Number(match[1]))) continue
    await unlink(path.join(directory, name)).catch(() => undefined)
    removed.push(name)
  }
  return removed
}

/**
 * Takes every permission of group and others away under `root` (itself included): folders
 * become 0700, files keep only their owner bits (0600, or 0400 for git's read-only objects).
 * Symlinks are left alone.
 */
export async function makeTreePrivate(root: string): Promise<void> {
  const info = await lstat(root).catch(() => null)
  if (info === null || info.isSymbolicLink()) return
  if (!info.isDirectory()) {
    if ((info.mode & 0o077) !== 0) await chmod(root, info.mode & 0o700)
    return
  }
  await chmod(root, privateDirectoryMode)
  await Promise.all((await readdir(root)).map((name) => makeTreePrivate(path.join(root, name))))
}

/** Git's words for a full disk or quota in its stderr. */
const diskFullText = /No space left on device|Disk quota exceeded/i

/** True when `error` (an fs error, or a git failure) is a full disk or quota. */
export function isDiskFull(error: unknown): boolean {
  if (TangentError.hasCode(error, 'disk-full')) return true
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (code === 'ENOSPC' || code === 'EDQUOT') return true
  if (TangentError.hasCode(error, 'git-failed')) {
    const stderr = (error as TangentError).data.stderr
    return typeof stderr === 'string' && diskFullText.test(stderr)
  }
  return false
}

/**
 * Whether the file system holding `directory` (or its nearest existing parent) is full: less
 * than 1 MiB free, or no inode left. Git says only "unable to write file" when a checkout
 * runs out of space, so after a failed write this tells a full disk from other failures.
 */
export async function isFileSystemFull(directory: string): Promise<boolean> {
  let current = path.resolve(directory)
  for (;;) {
    const info = await statfs(current).catch(() => null)
    if (info !== null) {
      return info.bavail * info.bsize < 1024 * 1024 || (info.files > 0 && info.ffree === 0)
    }
    const parent = path.dirname(current)
    if (parent === current) return false
    current = parent
  }
}

/**
 * After a git command that writes files failed: whether it ran out of space. Git says only
 * "unable to write file" when a write(2) fails (a full disk or quota, rarely an I/O error) and
 * may clean up (freeing the space) before it exits; otherwise the file system is asked.
 */
export async function failedForSpace(error: unknown, directory: string): Promise<boolean> {
  if (isDiskFull(error)) return true
  if (!TangentError.hasCode(error, 'git-failed')) return false
  const stderr = (error as TangentError).data.stderr
  if (typeof stderr === 'string' && /unable to write file/.test(stderr)) return true
  return isFileSystemFull(directory)
}

/** Whether git's stderr says the disk is full. */
export function mentionsDiskFull(stderr: string): boolean {
  return diskFullText.test(stderr)
}

/** TangentError `disk-full` for a write under `where` that failed for lack of space. */
export function diskFullError(where: string, doing: string, cause: unknown): TangentError {
  return new TangentError(
    'disk-full',
    `The disk holding ${where} is full (or its quota is used up) while ${doing}: free some space and try again.`,
    { path: where },
    { cause },
  )
}
