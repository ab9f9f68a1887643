// Where git inside the sandbox may write, and what of a repository's machinery it may never
// change (docs/architecture.md §12.2). Git runs code named by its metadata (config: core.fsmonitor,
// aliases, filters; hooks; commondir redirects all of them to another folder) the next time the
// user — or Tangent, outside the sandbox — runs git, so all of it is read-only, in the session's
// repository and, for a worktree fork, in the main repository whose git directory it shares. What
// `git add` and `git commit` write (objects, refs, logs, index, HEAD) stays writable.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { lstat, realpath } from 'node:fs/promises'
import path from 'node:path'
import { gitEnvironment } from '@tangent/files'
import { isInside } from '../confine-path.js'

/**
 * A path the command may not change. One that does not exist would be created by the command
 * instead (a commondir, hooks/, `.tangent/`): the sandbox puts `absent` there for the command's
 * time, read-only, and removes it after (placeholders.ts).
 */
export interface ProtectedPath {
  readonly path: string
  /** What stands in for it when it does not exist; `skip`: nothing (its creation is harmless). */
  readonly absent: 'directory' | 'file' | 'skip'
  /** A placeholder file's content. */
  readonly content?: string
}

export interface GitWriteRules {
  /** Git directories outside `cwd` that commits write (a worktree fork's, in the main repository). */
  readonly allowWrite: readonly string[]
  readonly protect: readonly ProtectedPath[]
}

/** Files of a common git directory git reads code or locations from. */
const commonFiles = ['config', 'config.worktree'] as const
const commonDirectories = ['hooks', 'info', 'modules', 'worktrees'] as const

export async function gitWriteRules(cwd: string): Promise<GitWriteRules> {
  const dotGit = path.join(cwd, '.git')
  const directories = await gitDirectoriesOf(cwd)
  if (directories === null) {
    // Not a repository: `git init` here would make one whose hooks and config Tangent's next git
    // command in this folder runs unsandboxed. An empty `.git` stands in; git skips it.
    return { allowWrite: [], protect: [{ path: dotGit, absent: 'directory' }] }
  }
  const { gitDirectory, commonDirectory, hooksDirectory } = directories
  const protect: ProtectedPath[] = [
    ...commonFiles.map((name) => ({
      path: path.join(commonDirectory, name),
      absent: 'file' as const,
      content: '',
    })),
    // Read by git as "the common directory is this one": the same as no file at all.
    { path: path.join(commonDirectory, 'commondir'), absent: 'file', content: '.\n' },
    ...commonDirectories.map((name) => ({
      path: path.join(commonDirectory, name),
      absent: 'directory' as const,
    })),
  ]
  if (gitDirectory !== commonDirectory) {
    // A worktree's own git directory (<common>/worktrees/<name>): writable for its index and HEAD,
    // but not where it says the common directory is, nor its own config.
    protect.push(
      { path: path.join(gitDirectory, 'commondir'), absent: 'file', content: '.\n' },
      { path: path.join(gitDirectory, 'config.worktree'), absent: 'file', content: '' },
      { path: path.join(gitDirectory, 'gitdir'), absent: 'skip' },
    )
  }
  // core.hooksPath may name a folder of the working tree (husky's `.husky/`), existing or not;
  // one elsewhere is read-only like everything outside the session's folders.
  if (hooksDirectory !== path.join(commonDirectory, 'hooks'))
    protect.push({
      path: outermostAbsent(hooksDirectory, cwd),
      absent: isInside(cwd, hooksDirectory) ? 'directory' : 'skip',
    })
  const dotGitStat = await lstat(dotGit).catch(() => null)
  // A worktree's `.git` file names where its metadata is; an absent `.git` (cwd below the
  // repository's root) would let `git init` make a nested repository; any `.git` folder that is
  // not this repository's (an empty one) stays as it is.
  if (dotGitStat === null) protect.push({ path: dotGit, absent: 'directory' })
  else if (!dotGitStat.isDirectory() || (await realpath(dotGit)) !== gitDirectory)
    protect.push({ path: dotGit, absent: 'skip' })
  // A main repository's git directory is its common directory; a linked worktree's lives in
  // `<common>/worktrees/`. A commondir pointing anywhere else (an unpacked archive's, a planted
  // one) names a repository that is not this one's: its objects and refs are not given to write.
  const intact =
    gitDirectory === commonDirectory || path.dirname(gitDirectory) === path.join(commonDirectory, 'worktrees')
  const allowWrite = (intact ? [gitDirectory, commonDirectory] : [gitDirectory]).filter(
    (directory, index, all) => !isInside(cwd, directory) && all.indexOf(directory) === index,
  )
  return { allowWrite, protect }
}

/**
 * The real path of the hooks folder. Reached through a link in the session's folder, it is
 * refused: the command could point the link elsewhere and put hooks there.
 */
async function hooksDirectoryOf(hooks: string, cwd: string): Promise<string> {
  let existing = hooks
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing)
  const real = path.join(await realpath(existing), path.relative(existing, hooks))
  if (real !== hooks && isInside(cwd, hooks)) {
    throw new Error(
      `git's hooks folder ${hooks} is reached through a symbolic link, which the sandbox cannot make read-only; replace the link with what it points to, or run with TANGENT_SANDBOX=off.`,
    )
  }
  return real
}

/** `target`, or its outermost ancestor inside `root` that does not exist: what stops its creation. */
function outermostAbsent(target: string, root: string): string {
  let outermost = target
  for (let parent = path.dirname(target); parent !== root && isInside(root, parent) && !existsSync(parent); )
    [outermost, parent] = [parent, path.dirname(parent)]
  return outermost
}

/** The git directories of the repository `cwd` is in (real paths); null outside one. */
async function gitDirectoriesOf(
  cwd: string,
): Promise<{ gitDirectory: string; commonDirectory: string; hooksDirectory: string } | null> {
  const output = await new Promise<string | null>((resolve) => {
    execFile(
      'git',
      // No GIT_* of Tangent's own environment decides which repository is protected. (rev-parse
      // runs no hook and no fsmonitor; inertGitSettings would hide the real hooks path.)
      ['rev-parse', '--absolute-git-dir', '--git-common-dir', '--git-path', 'hooks'],
      { cwd, timeout: 10_000, env: gitEnvironment() },
      // Not a repository, or no git at all: there is no repository to protect.
      (error, stdout) => resolve(error ? null : stdout),
    )
  })
  const [gitDirectory, common, hooks] = output?.split('\n') ?? []
  if (!gitDirectory || !common || !hooks) return null
  return {
    gitDirectory: await realpath(gitDirectory),
    commonDirectory: await realpath(path.resolve(cwd, common)),
    hooksDirectory: await hooksDirectoryOf(path.resolve(cwd, hooks), cwd),
  }
}
