// Resolves a path a tool was given against the session's cwd and refuses any path that
// leaves it: `..`, absolute paths elsewhere, and symlinks whose target lies outside.
import fs from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'

export interface ConfinedPath {
  /** Real absolute path (symlinks resolved as far as the path exists). */
  readonly absolute: string
  /** Path relative to the cwd, for messages (`.` for the cwd itself). */
  readonly relative: string
}

/**
 * Throws TangentError `path-outside-cwd` when `requested` resolves outside `cwd`,
 * lexically or through a symlink. A path that does not exist yet is checked through
 * its nearest existing ancestor, so `write` may create it.
 */
export async function confinePath(cwd: string, requested: string): Promise<ConfinedPath> {
  if (requested.trim() === '') {
    throw new TangentError(
      'invalid-path',
      'The path is empty: give a path relative to the working directory.',
    )
  }
  const root = await resolveWorkingDirectory(cwd)
  const lexical = path.resolve(root, requested)
  if (!isInside(root, lexical)) throw outside(requested, root)
  const real = await realpathAllowingMissing(lexical, requested)
  if (!isInside(root, real)) throw outside(requested, root)
  return { absolute: real, relative: path.relative(root, real) || '.' }
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

function outside(requested: string, root: string): TangentError {
  return new TangentError(
    'path-outside-cwd',
    `Refused: "${requested}" is outside the working directory ${root} (paths must stay inside it; symlinks that lead out are refused too).`,
    { path: requested, cwd: root },
  )
}

/** realpath of the longest existing prefix, plus the missing tail. */
async function realpathAllowingMissing(target: string, requested: string): Promise<string> {
  const missing: string[] = []
  let current = target
  for (;;) {
    try {
      const real = await fs.realpath(current)
      return path.join(real, ...missing)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      const link = await fs.lstat(current).catch(() => null)
      if (link?.isSymbolicLink()) {
        // A dangling symlink: following it on write could create a file anywhere.
        throw new TangentError(
          'path-outside-cwd',
          `Refused: "${requested}" goes through a symlink whose target does not exist.`,
          { path: requested },
        )
      }
      const parent = path.dirname(current)
      if (parent === current) throw error
      missing.unshift(path.basename(current))
      current = parent
    }
  }
}
