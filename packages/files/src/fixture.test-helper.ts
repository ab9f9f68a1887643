// Test fixtures: temporary directories, real git repositories and file helpers.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gitEnvironment } from './git.js'

/** Temporary directories made by `makeTemp`, removed by `removeTemps` (call it in afterEach). */
export class TempDirectories {
  readonly #made: string[] = []

  make(): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tangent-'))
    this.#made.push(dir)
    return dir
  }

  removeAll(): void {
    for (const dir of this.#made.splice(0)) rmSync(dir, { recursive: true, force: true })
  }
}

export function write(root: string, relative: string, content: string | Buffer): void {
  const file = path.join(root, relative)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, content)
}

export function read(root: string, relative: string): string {
  return readFileSync(path.join(root, relative), 'utf8')
}

/** Runs the user's git in `cwd` (no GIT_* variables from the test runner leak in). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: gitEnvironment({
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    }),
    encoding: 'utf8',
  })
}

/** A git repository with `files` committed on its default branch. */
export function makeRepository(root: string, files: Record<string, string>): string {
  mkdirSync(root, { recursive: true })
  git(root, 'init', '--quiet')
  for (const [relative, content] of Object.entries(files)) write(root, relative, content)
  git(root, 'add', '-A')
  git(root, 'commit', '--quiet', '-m', 'initial')
  return root
}
