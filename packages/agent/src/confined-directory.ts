// An open folder inside the session's cwd (docs/architecture.md §6): the unit the confined walk
// (confine-path.ts) moves by. On Linux its entries are named through /proc/self/fd/<fd>/<name>,
// relative to the open descriptor, so no link swapped into an ancestor can redirect them; where
// /proc/self/fd is missing they are named by absolute path and each opened folder is checked
// against what its path names (weaker: see confine-path.ts).
import { constants } from 'node:fs'
import fs, { type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/** An open folder inside the cwd; its entries are named relative to the open descriptor. */
export class ConfinedDirectory {
  constructor(
    readonly handle: FileHandle,
    /** Real path relative to the cwd (`.` for the cwd). */
    readonly relative: string,
    readonly absolute: string,
    readonly viaProc: boolean,
  ) {}

  /** A path for `name` in this folder that a link swapped into an ancestor cannot redirect (on Linux). */
  entry(name: string): string {
    return this.viaProc ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.absolute, name)
  }

  /** Opens the sub-folder `name`; a symlink there is refused (ELOOP), not followed. */
  async openDirectory(name: string): Promise<ConfinedDirectory> {
    const handle = await fs.open(this.entry(name), directoryFlags)
    const child = new ConfinedDirectory(
      handle,
      joinRelative(this.relative, name),
      path.join(this.absolute, name),
      this.viaProc,
    )
    if (!this.viaProc) await verifyOpened(child).catch(closeAndThrow(handle))
    return child
  }
}

/** A folder renamed elsewhere while open (its descriptor moves with it) is refused, on Linux. */
export async function assertUnmoved(directory: ConfinedDirectory): Promise<void> {
  if (!directory.viaProc) return
  const now = await fs.readlink(`/proc/self/fd/${directory.handle.fd}`)
  if (now === directory.absolute) return
  throw new TangentError(
    'path-outside-cwd',
    `Refused: ${directory.relative} was moved while it was being opened (now ${now}).`,
    { path: directory.relative },
  )
}

/** Fallback: the folder opened is the one its path names now (same device and inode). */
export async function verifyOpened(directory: ConfinedDirectory): Promise<void> {
  const [opened, named] = await Promise.all([directory.handle.stat(), fs.lstat(directory.absolute)])
  if (opened.dev === named.dev && opened.ino === named.ino && !named.isSymbolicLink()) return
  throw new TangentError(
    'path-outside-cwd',
    `Refused: ${directory.relative} changed while it was being opened.`,
    { path: directory.relative },
  )
}

export function joinRelative(base: string, name: string): string {
  return base === '.' ? name : `${base}/${name}`
}

export function closeAndThrow(handle: FileHandle): (error: unknown) => Promise<never> {
  return async (error) => {
    await handle.close()
    throw error
  }
}
