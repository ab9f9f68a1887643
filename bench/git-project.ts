// The generated git project the file benchmarks run on, and git run without the caller's
// GIT_* variables (a hook's GIT_DIR must not point the benchmark at another repository).
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** How many files the generated project has. */
export const projectFileCount = 10_000

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value
  return {
    ...env,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'b@b',
  }
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: gitEnv(), maxBuffer: 64 * 1024 * 1024 })).stdout
}

/** 10,000 small files, 20 top directories × 10 subdirectories × 50 files, committed, in `root/project`. */
export async function generateProject(root: string): Promise<string> {
  const cwd = path.join(root, 'project')
  for (let i = 0; i < projectFileCount; i++) {
    mkdirSync(path.dirname(path.join(cwd, projectFile(i))), { recursive: true })
    writeFileSync(
      path.join(cwd, projectFile(i)),
      `export const value${i} = ${i}\n// ${'x'.repeat(i % 200)}\n`,
    )
  }
  writeFileSync(path.join(cwd, '.gitignore'), 'node_modules/\ndist/\n')
  await git(cwd, 'init', '--quiet')
  await git(cwd, 'add', '-A')
  await git(cwd, 'commit', '--quiet', '-m', 'generated')
  return cwd
}

/** The path of the project's file `i`, relative to it. */
export function projectFile(i: number): string {
  return `src/module${i % 20}/part${Math.floor(i / 20) % 10}/file${i}.ts`
}

/** The path of file `i` of the generated monorepo: 100 packages × 10 folders × 100 files. */
export function monorepoFile(i: number): string {
  return `packages/pkg${i % 100}/src/mod${Math.floor(i / 100) % 10}/file${i}.ts`
}

/**
 * A committed git repository of `count` small files with unique contents, in `root/monorepo`:
 * the objects are written by one `git fast-import` (a pack, as a clone has), then checked out.
 */
export async function generateMonorepo(root: string, count: number): Promise<string> {
  const cwd = path.join(root, 'monorepo')
  mkdirSync(cwd, { recursive: true })
  await git(cwd, 'init', '--quiet')
  const chunks: string[] = []
  for (let i = 0; i < count; i++) {
    const content = `export const value${i} = ${i}\n`
    chunks.push(`blob\nmark :${i + 1}\ndata ${Buffer.byteLength(content)}\n${content}`)
  }
  const message = 'generated\n'
  chunks.push(
    `commit refs/heads/main\ncommitter bench <b@b> 1700000000 +0000\ndata ${message.length}\n${message}`,
  )
  for (let i = 0; i < count; i++) chunks.push(`M 100644 :${i + 1} ${monorepoFile(i)}\n`)
  chunks.push('\n')
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet'], {
      cwd,
      env: gitEnv(),
      stdio: ['pipe', 'ignore', 'inherit'],
    })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)),
    )
    child.stdin.end(chunks.join(''))
  })
  await git(cwd, 'symbolic-ref', 'HEAD', 'refs/heads/main')
  await git(cwd, 'reset', '--quiet', '--hard')
  return cwd
}
