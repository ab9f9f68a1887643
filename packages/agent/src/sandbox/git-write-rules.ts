// Where git inside the sandbox may write, and what it may never change (docs/architecture.md
// §12.2). A repository's hooks and config run code outside the sandbox the next time the user
// runs git, so they stay read-only, as the sandbox library does for the process's own cwd. A
// worktree fork keeps its git metadata in the user's repository, outside its cwd: that git
// directory is writable too (objects, refs, index), or committing in a fork would fail.
import { execFile } from 'node:child_process'
import { realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { isInside } from '../confine-path.js'

export interface GitWriteRules {
  readonly allowWrite: readonly string[]
  readonly denyWrite: readonly string[]
}

export async function gitWriteRules(cwd: string): Promise<GitWriteRules> {
  const directories = await gitDirectoriesOf(cwd)
  if (directories === null) return { allowWrite: [], denyWrite: [] }
  const { gitDirectory, commonDirectory } = directories
  const denyWrite = [path.join(commonDirectory, 'hooks'), path.join(commonDirectory, 'config')]
  const dotGit = path.join(cwd, '.git')
  // A `.git` file (a worktree) names where its metadata is: redirecting it would escape.
  if ((await stat(dotGit).catch(() => null))?.isFile()) denyWrite.push(dotGit)
  const allowWrite = [gitDirectory, commonDirectory].filter(
    (directory, index, all) => !isInside(cwd, directory) && all.indexOf(directory) === index,
  )
  return { allowWrite, denyWrite }
}

/** The git directory and common directory of the repository `cwd` is in; null outside one. */
async function gitDirectoriesOf(
  cwd: string,
): Promise<{ gitDirectory: string; commonDirectory: string } | null> {
  const output = await new Promise<string | null>((resolve) => {
    execFile(
      'git',
      ['rev-parse', '--absolute-git-dir', '--git-common-dir'],
      { cwd, timeout: 10_000 },
      // Not a repository, or no git at all: there is nothing of git's to allow or protect.
      (error, stdout) => resolve(error ? null : stdout),
    )
  })
  const [gitDirectory, common] = output?.split('\n') ?? []
  if (!gitDirectory || !common) return null
  return {
    gitDirectory: await realpath(gitDirectory),
    commonDirectory: await realpath(path.resolve(cwd, common)),
  }
}
