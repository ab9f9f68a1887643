// Stand-ins for protected paths that do not exist (docs/architecture.md §12.2). A read-only mount
// needs something to mount on, and bubblewrap would create an absent mount point on the host
// anyway; so an empty folder or a harmless file is made before the command, mounted read-only,
// and removed after it when it is still as made and no other sandbox has it mounted (removing a
// mount point detaches the mounts of other namespaces on it). What a crash leaves behind is
// harmless by construction — an empty `.tangent/`, `hooks/` or `.git/` folder (git skips an empty
// `.git`), an empty config file, a commondir of `.` (git reads it as "this directory") — and the
// next command removes it: whatever looks exactly like a stand-in is treated as one.
import { lstat, mkdir, readdir, readFile, readlink, rmdir, unlink, writeFile } from 'node:fs/promises'
import type { ProtectedPath } from './git-write-rules.js'

interface Made {
  readonly kind: 'directory' | 'file'
  readonly content: string
  users: number
}

/** The placeholders one process made and still has in use; shared by its sandboxed commands. */
export class Placeholders {
  readonly #made = new Map<string, Made>()

  /**
   * Makes each absent path's stand-in and returns the paths to mount read-only (the existing ones
   * and the stand-ins). Throws for a protected path that is a symbolic link: the link itself would
   * stay replaceable, so the sandbox cannot protect it.
   */
  async acquire(
    paths: readonly ProtectedPath[],
  ): Promise<{ mounts: string[]; release: () => Promise<void> }> {
    const mounts: string[] = []
    const acquired: string[] = []
    const release = () => this.#release(acquired.splice(0))
    try {
      for (const entry of paths) {
        const existing = this.#made.get(entry.path)
        if (existing) {
          existing.users += 1
          acquired.push(entry.path)
          mounts.push(entry.path)
          continue
        }
        const stat = await lstat(entry.path).catch(() => null)
        if (stat?.isSymbolicLink()) {
          throw new Error(
            `${entry.path} is a symbolic link, which the sandbox cannot make read-only; replace it with what it points to, or run with TANGENT_SANDBOX=off.`,
          )
        }
        if (stat !== null) {
          // One just like a stand-in (an empty folder, a commondir of `.`) is taken for one a
          // crash left behind, and removed after this command like the ones it makes.
          if (await this.#adopt(entry, stat.isDirectory())) acquired.push(entry.path)
          mounts.push(entry.path)
          continue
        }
        if (entry.absent === 'skip') continue
        const made = await this.#make(entry)
        // `unwritable`: the command, which runs as this user, could not create it either.
        if (made === 'unwritable') continue
        // `exists`: someone else made it between our look and our try.
        if (made === 'made') acquired.push(entry.path)
        mounts.push(entry.path)
      }
      return { mounts, release }
    } catch (error) {
      await release()
      throw error
    }
  }

  async #adopt(entry: ProtectedPath, isDirectory: boolean): Promise<boolean> {
    if (entry.absent === 'skip') return false
    const content = entry.content ?? ''
    const kind = entry.absent
    const alike =
      kind === 'directory'
        ? isDirectory && (await readdir(entry.path).catch(() => null))?.length === 0
        : // Not an empty file: a repository's own config may be one.
          content !== '' && !isDirectory && (await readFile(entry.path, 'utf8').catch(() => null)) === content
    if (alike) this.#made.set(entry.path, { kind, content, users: 1 })
    return alike
  }

  async #make(entry: ProtectedPath): Promise<'made' | 'exists' | 'unwritable'> {
    const content = entry.content ?? ''
    try {
      if (entry.absent === 'directory') await mkdir(entry.path)
      else await writeFile(entry.path, content, { flag: 'wx' })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST') return 'exists'
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'unwritable'
      throw error
    }
    this.#made.set(entry.path, {
      kind: entry.absent === 'directory' ? 'directory' : 'file',
      content,
      users: 1,
    })
    return 'made'
  }

  /** Removes the stand-ins among `placeholders` that no command of this process or another uses. */
  async #release(placeholders: readonly string[]): Promise<void> {
    const ours = new Map<string, Made>()
    for (const placeholder of placeholders) {
      const made = this.#made.get(placeholder)
      if (!made) continue
      made.users -= 1
      if (made.users > 0) continue
      this.#made.delete(placeholder)
      ours.set(placeholder, made)
    }
    // Another process's sandbox may still have one mounted (it found it existing): leave it. The
    // command's own namespace may take a moment to go after bubblewrap has exited. One look at
    // the mount tables serves every stand-in of the command.
    let waiting = [...ours.keys()]
    // The namespace of a command that just ended usually goes at once; on a loaded machine it can
    // take a while, so the looks back off (20 ms doubling, about 2.5 s in all) before giving up
    // and leaving the stand-in for the next command to remove.
    for (let attempt = 0, delay = 20; waiting.length > 0; attempt += 1, delay *= 2) {
      const mounted = await mountedAnywhere(waiting)
      for (const placeholder of waiting.filter((path) => !mounted.has(path))) {
        const made = ours.get(placeholder)!
        // Changed meanwhile (the user wrote to it outside the sandbox), or gone: no longer ours to
        // remove, so a failure here is the expected outcome, not an error.
        if (made.kind === 'directory') await rmdir(placeholder).catch(() => undefined)
        else if ((await readFile(placeholder, 'utf8').catch(() => null)) === made.content)
          await unlink(placeholder).catch(() => undefined)
      }
      waiting = waiting.filter((path) => mounted.has(path))
      if (waiting.length === 0 || attempt === 7) return
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}

/**
 * Which of `targets` any process (in any mount namespace we can see) has as a mount point. Each
 * namespace's table is read once, through the first process found in it: the processes of one
 * namespace share it, and the host's is long.
 */
async function mountedAnywhere(targets: readonly string[]): Promise<Set<string>> {
  const needles = targets.map((target) => ({ target, needle: ` ${escapeMountPath(target)} ` }))
  const mounted = new Set<string>()
  const seen = new Set<string>()
  const processes = await readdir('/proc').catch(() => [])
  for (const pid of processes) {
    if (!/^\d+$/.test(pid)) continue
    // One we may not read is another user's, whose sandboxes do not mount our stand-ins.
    const namespace = await readlink(`/proc/${pid}/ns/mnt`).catch(() => null)
    if (namespace === null || seen.has(namespace)) continue
    seen.add(namespace)
    const table = await readFile(`/proc/${pid}/mountinfo`, 'utf8').catch(() => '')
    // Field 5 of each line is the mount point, with spaces, tabs, newlines and backslashes escaped.
    for (const { target, needle } of needles) if (table.includes(needle)) mounted.add(target)
    if (mounted.size === needles.length) break
  }
  return mounted
}

function escapeMountPath(target: string): string {
  return target.replace(
    /[ \t\n\\]/g,
    (character) => `\\${character.charCodeAt(0).toString(8).padStart(3, '0')}`,
  )
}
