// Test fixtures: temporary directories, real git repositories and file helpers.
import { execFileSync, spawnSync } from 'node:child_process'
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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

/**
 * Mounts a tmpfs of `size` (e.g. '1m') on a new directory, to fill a disk for real; null when
 * this process may not mount (not root, or no tmpfs). Unmount with the function returned.
 */
export function mountTmpfs(
  temps: TempDirectories,
  size: string,
): { dir: string; unmount: () => void } | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null
  const dir = temps.make()
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch {
    return null
  }
  return { dir, unmount: () => execFileSync('umount', ['-l', dir], { stdio: 'pipe' }) }
}

/** Whether tmpfs mounts are possible here (root on Linux): the disk-full tests need one. */
export function canMountTmpfs(): boolean {
  const temps = new TempDirectories()
  const mounted = mountTmpfs(temps, '64k')
  mounted?.unmount()
  temps.removeAll()
  return mounted !== null
}

/** The pid of a process that has exited (for leftovers of a "crashed" process). */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  })
  return Number(child.stdout)
}

/** Every file and directory under `root` with its permission bits (symlinks left out). */
export function modesUnder(root: string): { path: string; mode: number; directory: boolean }[] {
  const found: { path: string; mode: number; directory: boolean }[] = []
  const walk = (current: string) => {
    const info = lstatSync(current)
    if (info.isSymbolicLink()) return
    found.push({ path: current, mode: info.mode & 0o777, directory: info.isDirectory() })
    if (info.isDirectory()) for (const name of readdirSync(current)) walk(path.join(current, name))
  }
  walk(root)
  return found
}
