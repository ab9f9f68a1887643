// Resolves and opens a path a tool was given inside the session's cwd, never following a link
// out of it at any component (docs/architecture.md §6, §12.1): `..`, absolute paths elsewhere,
// links whose target lies outside and dangling links are refused (`path-outside-cwd`).
//
// There is no time of check apart from the time of use. On Linux the walk holds each directory
// open and names the next component through `/proc/self/fd/<fd>/<name>` with O_NOFOLLOW, so a
// component swapped for a symlink meanwhile is refused (ELOOP/ENOTDIR) instead of followed, and
// what is opened is what was checked. A link whose target lies inside is followed by reading it
// and walking its target component by component under the same rules (at most 40 links).
// Where /proc/self/fd is missing (macOS) the walk names components by absolute path and checks
// that each directory it opened is the one the path names (fstat against lstat): a weaker
// guarantee, since an ancestor swapped and swapped back between the two goes unseen.
import { constants, type Stats } from 'node:fs'
import fs, { type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import {
  assertUnmoved,
  ConfinedDirectory,
  closeAndThrow,
  joinRelative,
  verifyOpened,
} from './confined-directory.js'

export interface ConfinedPath {
  /** Real absolute path (in-tree symlinks resolved as far as the path exists). */
  readonly absolute: string
  /** Real path relative to the cwd, `/`-separated, for rules and messages (`.` for the cwd itself). */
  readonly relative: string
}

/** Reading or writing: only a write creates what is missing, and only a write is refused in protected folders. */
export type PathAccess = 'read' | 'write'

/**
 * Called with the real relative path a tool is about to open, before anything is created or
 * opened; throws to refuse (the agent wires the permission rules to it, docs/architecture.md §12.1).
 */
export type RealPathCheck = (relative: string, access: PathAccess) => Promise<void> | void

export interface OpenOptions {
  access: PathAccess
  /** Flags for the final open (O_RDONLY, O_WRONLY | O_APPEND, O_RDWR); O_NOFOLLOW and O_NONBLOCK are added. */
  flags: number
  /** Create the file and its missing parent folders (write). */
  create?: boolean
  /** Folders never written (Tangent's data directory): real absolute paths. */
  protectedPaths?: readonly string[] | undefined
  check?: RealPathCheck | undefined
  /** Tests: walk by absolute paths (the fallback where /proc/self/fd is missing). */
  procFd?: boolean
}

/** What `openConfined` opened: a file with the folder holding it, or a folder. Close it. */
export type OpenedPath =
  | {
      kind: 'file'
      path: ConfinedPath
      handle: FileHandle
      /** True when the open made it (it did not exist: `create`). */
      created: boolean
      /** The open folder holding the file, for a rename beside it. */
      parent: ConfinedDirectory
      name: string
      close(): Promise<void>
    }
  | { kind: 'directory'; path: ConfinedPath; directory: ConfinedDirectory; close(): Promise<void> }

const linkLimit = 40

/**
 * The real path of `requested` inside `cwd`, without opening it: what the permission policy
 * matches rules against. A path that does not exist yet is resolved through its nearest existing
 * ancestor, so `write` may create it. Throws `path-outside-cwd` for a path leading out.
 * With `throughDanglingLinks` a link to something missing inside `cwd` gives where it points
 * (what the permission policy asks about) instead of a refusal; the tools still refuse it.
 */
export async function confinePath(
  cwd: string,
  requested: string,
  options: { throughDanglingLinks?: boolean } = {},
): Promise<ConfinedPath> {
  const opened: ConfinedDirectory[] = []
  try {
    const root = await openRoot(cwd, undefined, opened)
    const located = await locate(root, requested, opened, options.throughDanglingLinks === true)
    return realPathOf(root, located)
  } finally {
    await closeAll(opened)
  }
}

/** Opens `requested` inside `cwd` (see the top of this file); the caller closes what it gets. */
export async function openConfined(
  cwd: string,
  requested: string,
  options: OpenOptions,
): Promise<OpenedPath> {
  const opened: ConfinedDirectory[] = []
  try {
    const root = await openRoot(cwd, options.procFd, opened)
    for (let attempt = 0; ; attempt++) {
      const located = await locate(root, requested, opened)
      const real = realPathOf(root, located)
      if (options.access === 'write') assertWritable(real, options.protectedPaths)
      let parent = located.stack.at(-1)!
      await assertUnmoved(parent)
      await options.check?.(real.relative, options.access)
      const names = located.name === null ? [] : [located.name, ...located.missing]
      if (!located.exists && !options.create)
        throw new TangentError('tool-failed', `${real.relative} does not exist (ENOENT).`, {
          path: real.relative,
        })
      for (const name of names.slice(0, -1)) {
        await fs.mkdir(parent.entry(name)).catch(ignoreCode('EEXIST'))
        parent = remember(opened, await parent.openDirectory(name))
      }
      const name = names.at(-1)
      const close = () => closeAll(opened)
      if (name === undefined) return { kind: 'directory', path: real, directory: parent, close }
      const flags =
        options.flags | constants.O_NOFOLLOW | constants.O_NONBLOCK | (options.create ? constants.O_CREAT : 0)
      let handle: FileHandle
      try {
        handle = await fs.open(parent.entry(name), flags, 0o666)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // A symlink put in its place since the walk: walk again, following it only if it stays inside.
        if (code === 'ELOOP' && attempt < linkLimit) {
          await closeAll(opened.splice(1))
          continue
        }
        throw explainOpenError(error, real.relative)
      }
      const stat = await handle.stat().catch(closeAndThrow(handle))
      if (stat.isDirectory()) {
        const directory = remember(
          opened,
          new ConfinedDirectory(handle, real.relative, real.absolute, parent.viaProc),
        )
        if (!parent.viaProc) await verifyOpened(directory)
        return { kind: 'directory', path: real, directory, close }
      }
      return {
        kind: 'file',
        path: real,
        handle,
        created: !located.exists,
        parent,
        name,
        close: async () => {
          await handle.close()
          await close()
        },
      }
    }
  } catch (error) {
    await closeAll(opened)
    throw error
  }
}

/** The real path of a session's cwd; a clear `cwd-missing` error when there is none. */
export async function resolveWorkingDirectory(cwd: string): Promise<string> {
  if (!path.isAbsolute(cwd)) {
    throw new TangentError(
      'cwd-missing',
      `This session has no usable working directory (${JSON.stringify(cwd)}).`,
      { cwd },
    )
  }
  try {
    const real = await fs.realpath(cwd)
    if ((await fs.stat(real)).isDirectory()) return real
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  throw new TangentError(
    'cwd-missing',
    `The working directory ${cwd} does not exist (any more): recreate it or start a session elsewhere.`,
    { cwd },
  )
}

/**
 * Throws `invalid-path` when `target` is in one of `protectedPaths` (Tangent's data directory,
 * which a session's folder may hold): a tool never writes the logs it is recorded in.
 */
export function assertWritable(target: ConfinedPath, protectedPaths: readonly string[] | undefined): void {
  const inside = protectedPaths?.find((folder) => isInside(folder, target.absolute))
  if (inside === undefined) return
  throw new TangentError(
    'invalid-path',
    `${target.relative} is inside Tangent's data directory (${inside}), which holds the session logs: the agent may not write there.`,
    { path: target.relative },
  )
}

/** True when `candidate` is `root` or lies beneath it (lexically). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  )
}

interface Located {
  /** Open folders from the root to the one holding `name` (`..` pops). */
  stack: ConfinedDirectory[]
  /** The last component, in the top folder; null when the path names the top folder itself. */
  name: string | null
  exists: boolean
  /** Components after a missing `name` (folders to create, then the file). */
  missing: string[]
}

/**
 * Walks `requested` from `root`: `..` in what the model wrote is lexical (as it always was),
 * `..` in a link's target is structural (the folder above the link's real folder).
 */
async function locate(
  root: ConfinedDirectory,
  requested: string,
  opened: ConfinedDirectory[],
  throughDanglingLinks = false,
): Promise<Located> {
  if (requested.trim() === '') {
    throw new TangentError(
      'invalid-path',
      'The path is empty: give a path relative to the working directory.',
    )
  }
  const lexical = path.resolve(root.absolute, requested)
  if (!isInside(root.absolute, lexical)) throw outside(requested, root.absolute)
  const queue = splitComponents(path.relative(root.absolute, lexical)).map((name) => ({
    name,
    fromLink: false,
  }))
  const stack = [root]
  let links = 0
  while (queue.length > 0) {
    const { name, fromLink } = queue.shift()!
    const current = stack.at(-1)!
    if (name === '..') {
      if (stack.length === 1) throw outside(requested, root.absolute)
      stack.pop()
      continue
    }
    let stat: Stats
    try {
      stat = await fs.lstat(current.entry(name))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      // Creating what a link points to could create a file anywhere the link is later changed to.
      const throughLink = fromLink || queue.some((next) => next.fromLink)
      if (throughLink && !throughDanglingLinks) throw dangling(requested)
      // Nothing below a missing folder exists: a link target's `..` there is lexical.
      const missing: string[] = []
      for (const part of [name, ...queue.map((next) => next.name)]) {
        if (part !== '..') missing.push(part)
        else if (missing.length > 0) missing.pop()
        else if (stack.length > 1) stack.pop()
        else throw outside(requested, root.absolute)
      }
      const [first = null, ...rest] = missing
      return { stack, name: first, exists: first === null, missing: rest }
    }
    if (stat.isSymbolicLink()) {
      if (++links > linkLimit) throw tooManyLinks(requested)
      const target = await fs.readlink(current.entry(name))
      let parts: string[]
      if (path.isAbsolute(target)) {
        const prefix = root.absolute.endsWith(path.sep) ? root.absolute : `${root.absolute}${path.sep}`
        if (target !== root.absolute && !target.startsWith(prefix)) throw outside(requested, root.absolute)
        parts = splitComponents(target.slice(prefix.length))
        stack.splice(1)
      } else parts = splitComponents(target)
      queue.unshift(...parts.map((part) => ({ name: part, fromLink: true })))
      continue
    }
    if (queue.length === 0) return { stack, name, exists: true, missing: [] }
    if (!stat.isDirectory()) {
      throw new TangentError(
        'tool-failed',
        `${joinRelative(current.relative, name)} is not a directory (in "${requested}").`,
        { path: requested },
      )
    }
    try {
      stack.push(remember(opened, await current.openDirectory(name)))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Swapped for a link or a file since the lstat: look at it again (bounded like links).
      if ((code !== 'ELOOP' && code !== 'ENOTDIR' && code !== 'ENOENT') || ++links > linkLimit) throw error
      queue.unshift({ name, fromLink })
    }
  }
  return { stack, name: null, exists: true, missing: [] }
}

async function openRoot(
  cwd: string,
  procFd: boolean | undefined,
  opened: ConfinedDirectory[],
): Promise<ConfinedDirectory> {
  const absolute = await resolveWorkingDirectory(cwd)
  const handle = await fs.open(absolute, constants.O_RDONLY | constants.O_DIRECTORY)
  let viaProc = false
  if (procFd !== false) {
    const named = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null)
    viaProc = named === absolute
  }
  const root = remember(opened, new ConfinedDirectory(handle, '.', absolute, viaProc))
  if (!viaProc) await verifyOpened(root)
  return root
}

function realPathOf(root: ConfinedDirectory, located: Located): ConfinedPath {
  const top = located.stack.at(-1)!
  const names = located.name === null ? [] : [located.name, ...located.missing]
  const relative = names.reduce(joinRelative, top.relative)
  return { absolute: relative === '.' ? root.absolute : path.join(root.absolute, relative), relative }
}

function explainOpenError(error: unknown, relative: string): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ELOOP') {
    return new TangentError(
      'path-outside-cwd',
      `Refused: ${relative} became a symlink while it was being opened.`,
      { path: relative },
    )
  }
  if (code === 'EISDIR')
    return new TangentError('tool-failed', `${relative} is a directory: it cannot be written.`)
  if (code === 'ENXIO')
    return new TangentError('tool-failed', `${relative} is not a regular file: it cannot be written.`)
  return error
}

function splitComponents(relative: string): string[] {
  // A backslash is part of a name on POSIX systems.
  return relative.split(path.sep === '\\' ? /[\\/]/ : '/').filter((part) => part !== '' && part !== '.')
}

function remember(opened: ConfinedDirectory[], directory: ConfinedDirectory): ConfinedDirectory {
  opened.push(directory)
  return directory
}

async function closeAll(directories: ConfinedDirectory[]): Promise<void> {
  await Promise.all(directories.map((directory) => directory.handle.close()))
  directories.length = 0
}

function ignoreCode(code: string): (error: unknown) => void {
  return (error) => {
    if ((error as NodeJS.ErrnoException).code !== code) throw error
  }
}

function outside(requested: string, root: string): TangentError {
  return new TangentError(
    'path-outside-cwd',
    `Refused: "${requested}" is outside the working directory ${root} (paths must stay inside it; symlinks that lead out are refused too).`,
    { path: requested, cwd: root },
  )
}

function dangling(requested: string): TangentError {
  return new TangentError(
    'path-outside-cwd',
    `Refused: "${requested}" goes through a symlink whose target does not exist.`,
    { path: requested },
  )
}

function tooManyLinks(requested: string): TangentError {
  return new TangentError(
    'path-outside-cwd',
    `Refused: "${requested}" goes through more than ${linkLimit} symlinks.`,
    { path: requested },
  )
}
