// The one shadow repository of a TANGENT_HOME: a bare git repo holding every snapshot of
// every directory, so trees from different directories (a worktree and its parent) can be
// diffed directly. Each directory has its own index file and ref; the user's .git is never used.

import { existsSync } from 'node:fs'
import { appendFile, readdir, stat, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { type GitResult, runGit } from './git.js'
import { isProcessAlive, makePrivateDirectory, makeTreePrivate, privateFileMode } from './private-files.js'
import { defaultSplitIndexBytes, indexSettings } from './shared-index.js'

/** The tree with no entries; git knows it without it being stored. */
export const emptyTree = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

export interface ShadowGitOptions {
  /** Process working directory (the directory a pathspec is relative to). */
  cwd?: string
  /** GIT_WORK_TREE; omitted for commands that only read objects. */
  workTree?: string
  /** GIT_INDEX_FILE; omitted for commands that do not use an index. */
  indexFile?: string
  input?: string | Buffer
  allowedExitCodes?: readonly number[]
}

// Settings of the shadow repository, whatever the user's global git config says:
// exact bytes (no CRLF conversion), a smaller index (v4; the untracked cache is kept on, but
// only `git status` reads it, and snapshots walk with `diff-files` and `ls-files`), no automatic gc (gc() runs it
// when nothing else is writing).
const shadowConfig: readonly (readonly [string, string])[] = [
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.symlinks', 'true'],
  ['core.filemode', 'true'],
  ['core.untrackedCache', 'true'],
  ['core.fsmonitor', 'false'],
  ['core.logAllRefUpdates', 'false'],
  ['index.version', '4'],
  ['gc.auto', '0'],
  ['advice.addEmbeddedRepo', 'false'],
  ['advice.addIgnoredFile', 'false'],
]

// info/attributes outranks every .gitattributes in the directory: snapshots store the exact
// bytes on disk and write them back unchanged (no EOL normalisation, no LFS or other filters).
const snapshotAttributes = '* -text -filter -ident !eol !working-tree-encoding\n'

/** Git config file syntax for `key = value` pairs (`section.name` keys only). */
function configText(settings: readonly (readonly [string, string])[]): string {
  const sections = new Map<string, string[]>()
  for (const [key, value] of settings) {
    const dot = key.indexOf('.')
    const lines = sections.get(key.slice(0, dot)) ?? []
    lines.push(`\t${key.slice(dot + 1)} = ${value}\n`)
    sections.set(key.slice(0, dot), lines)
  }
  return [...sections].map(([section, lines]) => `[${section}]\n${lines.join('')}`).join('')
}

export class ShadowRepository {
  readonly home: string
  readonly gitDir: string
  #ready: Promise<void> | undefined

  /** Private indexes at least this big are kept split (shared-index.ts). */
  readonly splitIndexBytes: number

  constructor(home: string, options: { splitIndexBytes?: number } = {}) {
    this.home = path.resolve(home)
    this.gitDir = path.join(this.home, 'snapshots', 'objects.git')
    this.splitIndexBytes = options.splitIndexBytes ?? defaultSplitIndexBytes
  }

  /** Directory of the per-directory index files. */
  get indexDirectory(): string {
    return path.join(this.gitDir, 'tangent', 'index')
  }

  /** Directory of the throwaway indexes that write files (`<pid>-<uuid>.index`). */
  get scratchDirectory(): string {
    return path.join(this.gitDir, 'tangent', 'scratch')
  }

  /** Directory of the journals of restores in progress (one per directory, see restore-journal.ts). */
  get journalDirectory(): string {
    return path.join(this.home, 'snapshots', 'journal')
  }

  /** Creates the repository on first use (idempotent, also across processes). */
  ensure(): Promise<void> {
    this.#ready ??= this.#create()
    return this.#ready
  }

  async #create(): Promise<void> {
    const snapshots = path.dirname(this.gitDir)
    const marker = path.join(this.gitDir, 'tangent', 'created')
    // Snapshots hold the content of the user's projects: private whatever the umask.
    await makePrivateDirectory(snapshots)
    if (!existsSync(marker)) {
      // --shared=0600 (core.sharedRepository): git makes what it writes later 0600/0700 too.
      await runGit(['init', '--bare', '--quiet', '--shared=0600', this.gitDir], { cwd: this.home })
      // One write instead of a `git config` process per setting (init is on the first snapshot's path).
      await appendFile(path.join(this.gitDir, 'config'), configText(shadowConfig))
      await makePrivateDirectory(this.indexDirectory)
      await makePrivateDirectory(path.join(this.gitDir, 'info'))
      await writeFile(path.join(this.gitDir, 'info', 'attributes'), snapshotAttributes, {
        mode: privateFileMode,
      })
      // Stored for real, so refs may point at it like at any other tree.
      await this.git(['hash-object', '-t', 'tree', '-w', '--stdin'])
      await writeFile(marker, `${new Date().toISOString()}\n`, { mode: privateFileMode })
    }
    await this.#makePrivate()
    await this.#removeStaleScratch()
  }

  /**
   * Once per store: what git made at init (and everything a store from before this rule
   * holds) becomes owner-only, and git is told to keep it so (`core.sharedRepository=0600`).
   */
  async #makePrivate(): Promise<void> {
    const marker = path.join(this.gitDir, 'tangent', 'private')
    if (existsSync(marker)) return
    await this.git(['config', 'core.sharedRepository', '0600'])
    await makeTreePrivate(path.dirname(this.gitDir))
    await writeFile(marker, `${new Date().toISOString()}\n`, { mode: privateFileMode })
  }

  /**
   * Throwaway indexes (and git's lock files of them) left by a process that was killed while
   * it wrote files: named `<pid>-<uuid>.index`, removed once that process is gone. Names
   * without a pid (from older versions) go when they are more than ten minutes old.
   */
  async #removeStaleScratch(): Promise<void> {
    const names = await readdir(this.scratchDirectory).catch(() => [] as string[])
    for (const name of names) {
      const file = path.join(this.scratchDirectory, name)
      const owner = /^(\d+)-/.exec(name)
      const stale = owner
        ? !isProcessAlive(Number(owner[1]))
        : Date.now() - ((await stat(file).catch(() => null))?.mtimeMs ?? Date.now()) > 10 * 60_000
      if (stale) await unlink(file).catch(() => undefined)
    }
  }

  /** Runs git against the shadow repository. */
  async git(args: readonly string[], options: ShadowGitOptions = {}): Promise<GitResult> {
    const env: Record<string, string> = {
      ...(await indexSettings(args[0], options.indexFile, this.indexDirectory, this.splitIndexBytes)),
      GIT_DIR: this.gitDir,
      GIT_AUTHOR_NAME: 'tangent',
      GIT_AUTHOR_EMAIL: 'tangent@localhost',
      GIT_COMMITTER_NAME: 'tangent',
      GIT_COMMITTER_EMAIL: 'tangent@localhost',
    }
    if (options.workTree !== undefined) env.GIT_WORK_TREE = options.workTree
    if (options.indexFile !== undefined) env.GIT_INDEX_FILE = options.indexFile
    return runGit(args, {
      cwd: options.cwd ?? this.gitDir,
      env,
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.allowedExitCodes !== undefined ? { allowedExitCodes: options.allowedExitCodes } : {}),
    })
  }

  /** Whether `tree` names a tree object in the store. */
  async hasTree(tree: string): Promise<boolean> {
    return (await this.missingTrees([tree])).length === 0
  }

  /** The names among `trees` that are not tree objects in the store (one git process for all). */
  async missingTrees(trees: readonly string[]): Promise<string[]> {
    const asked = [...new Set(trees)].filter((tree) => tree !== emptyTree)
    if (asked.length === 0) return []
    // Only full hex names: a revision expression here would be evaluated by git.
    const wellFormed = asked.filter((tree) => /^[0-9a-f]{40}$/.test(tree))
    const result = await this.git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
      input: wellFormed.map((tree) => `${tree}\n`).join(''),
    })
    const found = new Set<string>()
    for (const line of result.stdout.toString('utf8').split('\n')) {
      const [name, type] = line.split(' ')
      if (name && type === 'tree') found.add(name)
    }
    return asked.filter((tree) => !found.has(tree))
  }
}
