// Resolves a session's cwd to what a snapshot needs: its real path, the git work tree it
// belongs to (so the user's .gitignore files above cwd apply too), its index file and ref.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { ShadowRepository } from './shadow-repository.js'

export interface SnapshotDirectory {
  /** realpath(cwd). */
  path: string
  /** The nearest ancestor (or cwd itself) holding a `.git`, else cwd: the shadow work tree. */
  top: string
  /** cwd relative to `top`, POSIX separators, '' when they are the same. */
  prefix: string
  /** Hash of the real path: names this directory's ref. */
  key: string
  /** `refs/tangent/<key>/latest`: the latest snapshot tree (each one also has `…/trees/<tree>`). */
  ref: string
  /** Private index file of this directory inside the shadow repository. */
  indexFile: string
  /** TANGENT_HOME relative to cwd when it lies inside cwd (never snapshotted), else null. */
  excludedHome: string | null
}

export function hashPath(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 24)
}

export function toPosix(relative: string): string {
  return relative.split(path.sep).join('/')
}

/** Real path of an existing directory, or TangentError `not-a-directory`. */
export async function realDirectory(cwd: string): Promise<string> {
  let real: string
  try {
    real = await realpath(cwd)
  } catch (error) {
    throw new TangentError(
      'not-a-directory',
      `${cwd} does not exist: pass an existing directory.`,
      { cwd },
      { cause: error },
    )
  }
  if (!(await stat(real)).isDirectory()) {
    throw new TangentError('not-a-directory', `${cwd} is not a directory: pass a directory.`, { cwd })
  }
  return real
}

/**
 * The nearest directory at or above `start` that contains `.git` (a directory or a worktree's
 * file), not looking above `boundary` when given.
 */
export function findGitTop(start: string, boundary?: string): string | null {
  let current = start
  for (;;) {
    if (existsSync(path.join(current, '.git'))) return current
    const parent = path.dirname(current)
    if (parent === current || current === boundary) return null
    current = parent
  }
}

/** Whether `child` is `parent` or lies inside it (both real, absolute). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

export async function resolveDirectory(
  repository: ShadowRepository,
  cwd: string,
): Promise<SnapshotDirectory> {
  const real = await realDirectory(cwd)
  const home = await realpath(repository.home)
  // Worktree copies live under TANGENT_HOME: whatever repository holds the home (and its
  // ignore rules) has nothing to say about them.
  const top = findGitTop(real, isInside(home, real) ? home : undefined) ?? real
  const key = hashPath(real)
  let excludedHome: string | null = null
  if (isInside(real, home)) {
    excludedHome = toPosix(path.relative(real, home))
    if (excludedHome === '') {
      throw new TangentError(
        'snapshot-failed',
        `${real} is TANGENT_HOME itself; snapshots of it are refused: run sessions in a project directory.`,
        { cwd: real },
      )
    }
  }
  return {
    path: real,
    top,
    prefix: toPosix(path.relative(top, real)),
    key,
    ref: `refs/tangent/${key}/latest`,
    // Keyed by top too: if a `git init` above cwd changes the work tree, a fresh index starts.
    indexFile: path.join(repository.indexDirectory, hashPath(`${real}\0${top}`)),
    excludedHome,
  }
}
