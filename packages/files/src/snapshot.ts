// Takes a snapshot of a directory as a git tree: one walk (`diff-files`: a stat of every tracked
// file against the private index's stat data; `ls-files --others`: a read of every folder) says
// what differs, only that is staged into the directory's private index, the tree is written and
// recorded under the directory's refs so `git gc` keeps it. After a step whose tools named what
// they wrote, and at a turn's start in a watched folder, `snapshotChanges` stages just the paths
// named (the walk's rules applied to them), with no walk of the tree.
import { existsSync } from 'node:fs'
import { lstat, readFile, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { changedPaths } from './diff.js'
import type { SnapshotDirectory } from './directory.js'
import { splitNul } from './git.js'
import { listTree, pathArgumentLimit } from './materialize.js'
import { privateFileMode } from './private-files.js'
import { seedIndex } from './seed.js'
import { emptyTree, type ShadowRepository } from './shadow-repository.js'

export interface Snapshot {
  /** The git tree of the directory (without ignored, skipped and TANGENT_HOME paths). */
  tree: string
  /** Paths (relative to cwd, '/'-separated) that differ from the previous snapshot of the directory. */
  changed: string[]
  /** Paths left out: files over the size limit, nested repositories (`dir/`), special files. */
  skipped: string[]
}

/**
 * A snapshot and the tree it was compared with: the directory's latest snapshot as the snapshot
 * read it (null before its first), which `changed` is against. A turn's start needs both (is the
 * session's tree that one?), and reading the ref again would cost a read and could see a later
 * writer's tree.
 */
export interface ComparedSnapshot {
  snapshot: Snapshot
  previous: string | null
}

/** What the walks below return: a snapshot with the tree it was compared with. */
type Taken = Snapshot & { previous: string | null }

function compared({ previous, ...snapshot }: Taken): ComparedSnapshot {
  return { snapshot, previous }
}

/** A snapshot at a turn's start: `changed` is empty, `outside` what changed between turns. */
export interface TurnStartSnapshot extends Snapshot {
  changed: []
  /** Paths that differ from the session's previous tree; absent on a session's first tree. */
  outside?: string[]
}

/** A pathspec that matches exactly `relative` (no glob, no magic). */
function literalPathspec(relative: string): string {
  return `:(literal)${relative}`
}

function excludePathspec(relative: string): string {
  return `:(exclude,literal)${relative}`
}

/** The directory's latest snapshot tree, or null before its first snapshot. */
async function previousTree(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
): Promise<string | null> {
  // Read from the ref files when they can be read (every turn takes two snapshots: a git
  // process less each); git answers when they cannot.
  const read = await readRefFiles(repository.gitDir, directory.ref)
  if (read !== undefined) return read
  const result = await repository.git(['rev-parse', '--verify', '--quiet', directory.ref], {
    allowedExitCodes: [1],
  })
  return result.exitCode === 0 ? result.stdout.toString('utf8').trim() : null
}

const objectId = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/**
 * `ref`'s object id from the files backend's files (a loose ref, else `packed-refs`: git writes
 * packed-refs before it removes a loose ref, and replaces each file by a rename), null when
 * neither has it, undefined when only git can say (a reftable repository, a symbolic or
 * unreadable ref).
 */
async function readRefFiles(gitDir: string, ref: string): Promise<string | null | undefined> {
  const read = (file: string) =>
    readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null
      throw error
    })
  try {
    const loose = await read(path.join(gitDir, ref))
    if (loose !== null) {
      const id = loose.trim()
      return objectId.test(id) ? id : undefined
    }
    const packed = await read(path.join(gitDir, 'packed-refs'))
    if (packed === null) {
      // No packed refs either: absent, unless the refs live in a reftable.
      return (await read(path.join(gitDir, 'reftable', 'tables.list'))) === null ? null : undefined
    }
    for (const line of packed.split('\n')) {
      if (line.endsWith(` ${ref}`)) {
        const id = line.slice(0, line.indexOf(' '))
        return objectId.test(id) ? id : undefined
      }
    }
    return null
  } catch {
    return undefined
  }
}

/**
 * `diff-files --name-status -z` output (`<status>\0<path>\0`…): the tracked paths whose file
 * changed or went (modified, deleted, type changed), or whose stat data no longer matches the
 * index (staging them refreshes it).
 */
function parseTrackedChanges(stdout: Buffer): string[] {
  const parts = splitNul(stdout)
  const paths = new Set<string>()
  for (let i = 1; i < parts.length; i += 2) paths.add(parts[i]!)
  return [...paths]
}

/** Past this many paths, staging by a list of them costs more than letting `git add -A` walk. */
const stageByListLimit = 1000

/** lstat, or null when the path has gone meanwhile (nothing to stage then; git add sees it gone). */
function lstatIfPresent(file: string) {
  return lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null
    throw error
  })
}

/** Untracked paths that must not be staged: too big, nested repositories, sockets and the like. */
async function findSkipped(directory: SnapshotDirectory, untracked: readonly string[], maxFileBytes: number) {
  const verdicts = await Promise.all(
    untracked.map(async (relative) => {
      // ls-files names an embedded repository (or submodule) as `dir/`: its files are its own.
      if (relative.endsWith('/')) return true
      const info = await lstatIfPresent(path.join(directory.path, relative))
      if (info === null || info.isSymbolicLink()) return false
      return !info.isFile() || info.size > maxFileBytes
    }),
  )
  return untracked.filter((_, index) => verdicts[index])
}

/** Tracked paths among `changed` that have grown over the limit since they were staged. */
async function findGrown(directory: SnapshotDirectory, changed: readonly string[], maxFileBytes: number) {
  const infos = await Promise.all(
    changed.map((relative) => lstatIfPresent(path.join(directory.path, relative))),
  )
  return changed.filter((_, index) => {
    const info = infos[index]
    return info?.isFile() === true && info.size > maxFileBytes
  })
}

/** Paths named by `git add --ignore-errors` as unreadable. */
function unreadablePaths(stderr: string): string[] {
  const paths: string[] = []
  for (const line of stderr.split('\n')) {
    const match =
      /^error: unable to index file '?(.*?)'?$/.exec(line) ?? /^error: open\("(.*)"\): /.exec(line)
    if (match?.[1]) paths.push(match[1])
  }
  return paths
}

/** Identity of the index file's current content: git rewrites it (new inode) whenever it changes. */
async function indexStamp(directory: SnapshotDirectory): Promise<string | null> {
  const info = await stat(directory.indexFile, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null
    throw error
  })
  return info === null ? null : `${info.ino}:${info.size}:${info.mtimeNs}`
}

function stampFile(directory: SnapshotDirectory): string {
  return `${directory.indexFile}.tree`
}

/** The tree last written from the index, if the index has not changed since (`<stamp> <tree>`). */
async function treeOfUnchangedIndex(directory: SnapshotDirectory): Promise<string | null> {
  const [recorded, current] = await Promise.all([
    readFile(stampFile(directory), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return ''
      throw error
    }),
    indexStamp(directory),
  ])
  const [stamp, tree] = recorded.trim().split(' ')
  return current !== null && stamp === current && tree ? tree : null
}

async function rememberIndexTree(directory: SnapshotDirectory, tree: string): Promise<void> {
  await writeFile(stampFile(directory), `${await indexStamp(directory)} ${tree}\n`, { mode: privateFileMode })
}

/** Where git runs for a directory's snapshot: in it, its work tree's top, its private index. */
export function scopeOf(directory: SnapshotDirectory) {
  return { cwd: directory.path, workTree: directory.top, indexFile: directory.indexFile }
}

/** Writes the index's tree of cwd (its subtree when cwd is below the work tree's top). */
async function writeTree(repository: ShadowRepository, directory: SnapshotDirectory): Promise<string> {
  const args = directory.prefix === '' ? ['write-tree'] : ['write-tree', `--prefix=${directory.prefix}/`]
  const written = await repository.git(args, { ...scopeOf(directory), allowedExitCodes: [128] })
  if (written.exitCode === 0) return written.stdout.toString('utf8').trim()
  // The index has nothing under cwd: an empty directory (or everything ignored).
  if (written.stderr.includes('not found')) return emptyTree
  throw new TangentError(
    'snapshot-failed',
    `Could not write the tree of ${directory.path}: ${written.stderr.trim()}`,
    {
      cwd: directory.path,
      stderr: written.stderr,
    },
  )
}

/**
 * Records `tree` as the directory's latest snapshot and keeps it from gc with a ref of its own
 * (`refs/tangent/<dir>/trees/<tree>`), in one transaction that fails if another writer moved
 * `latest` since we read it.
 */
export async function recordTree(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  previous: string | null,
  tree: string,
): Promise<void> {
  if (tree === previous) return
  const expected = previous ?? '0'.repeat(40)
  const keep = directory.ref.replace(/\/latest$/, `/trees/${tree}`)
  await repository.git(['update-ref', '--stdin'], {
    input: `update ${directory.ref} ${tree} ${expected}\nupdate ${keep} ${tree}\n`,
  })
}

export async function takeSnapshot(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  maxFileBytes: number,
  options: {
    /** With no previous snapshot, list every file as changed (default); false: `changed` is []. */
    listFirstChanges?: boolean
  } = {},
): Promise<ComparedSnapshot> {
  const walk = async () => {
    const snapshot = await walkSnapshot(repository, directory, maxFileBytes, options, null)
    if (snapshot === null) throw new Error('a snapshot of the whole tree always has an answer')
    return compared(snapshot)
  }
  try {
    return await walk()
  } catch (error) {
    if (!unreadableIndex(error)) throw error
    // The private index is only a cache of what the snapshots hold (their trees are under refs):
    // one git cannot read is dropped, and this walk starts afresh (seeded, or reading every file).
    await dropIndex(directory)
    return walk()
  }
}

/**
 * Whether git failed because it could not read a directory's private index: corrupt (a disk
 * error, a person's edit) or split with its shared index gone (shared-index.ts).
 */
function unreadableIndex(error: unknown): boolean {
  if (!(error instanceof TangentError) || error.code !== 'git-failed') return false
  const stderr = String(error.data.stderr ?? '')
  return /index file (?:corrupt|open failed)|bad index|broken index|bad signature|index uses .* extension/.test(
    stderr,
  )
}

/** Removes a directory's private index and its stamp (the next walk builds it again). */
async function dropIndex(directory: SnapshotDirectory): Promise<void> {
  await rm(directory.indexFile, { force: true })
  await rm(stampFile(directory), { force: true })
}

/**
 * The snapshot that reads only `paths` (a folder stands for its whole tree) and takes everything
 * else from the directory's previous snapshot, `since` (docs/architecture.md §5): after a step
 * whose tools said exactly which files they wrote, and at a turn's start after a period in which a
 * watch of the directory saw every change (folder-watch.ts). Every rule of the full walk applies
 * to the paths as it would (ignored, over the size limit, skipped, nested repositories,
 * unreadable, gone): named files are staged by name when that is sure to give the walk's answer,
 * else the walk runs limited to them. Null when that is not sound and a full snapshot must run
 * instead: a path is not one to stage by name (empty, absolute, with an empty or `.` part, leaving
 * the folder, in git metadata or Tangent's data directory), the directory's latest snapshot is not
 * `since` (another writer's), its index is not the one that snapshot was written from, or the
 * paths are too many to stage by list. A change made beside them meanwhile is not in the snapshot:
 * the next full walk (a turn's start) finds it. `previous` is always `since.tree`.
 */
export async function snapshotChanges(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  paths: readonly string[],
  since: { tree: string; skipped: readonly string[] },
  maxFileBytes: number,
): Promise<ComparedSnapshot | null> {
  if (!paths.every((relative) => stageableName(directory, relative))) return null
  const wanted = await outsideNestedRepositories(directory, [...new Set(paths)])
  try {
    const named = await stageNamedFiles(repository, directory, wanted, since, maxFileBytes)
    if (named !== undefined) return named === null ? null : compared(named)
    const walked = await walkSnapshot(repository, directory, maxFileBytes, {}, { paths: wanted, since })
    return walked === null ? null : compared(walked)
  } catch (error) {
    // An index git cannot read: the full snapshot (the caller's, on null) rebuilds it.
    if (!unreadableIndex(error)) throw error
    await dropIndex(directory)
    return null
  }
}

/**
 * snapshotChanges when every path is a file or a link, or gone (the common case: files edited,
 * added, removed): they are staged by name with no walk first — `git add -A --ignore-errors` of
 * the ones there (git refuses an ignored one as the walk leaves it out, and names an unreadable
 * one, which is skipped as the walk skips it), `git rm -r --cached --ignore-unmatch` of the gone
 * ones (a folder removed whole too). Undefined when a path needs the walk's rules (a folder, a
 * special file, over the size limit, skipped before, in a nested repository); null as
 * snapshotChanges.
 */
async function stageNamedFiles(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  wanted: readonly string[],
  since: { tree: string; skipped: readonly string[] },
  maxFileBytes: number,
): Promise<Taken | null | undefined> {
  if (wanted.length === 0 || wanted.length > stageByListLimit) return undefined
  const skippedSet = new Set(since.skipped.map((p) => p.replace(/\/$/, '')))
  if (wanted.some((relative) => skippedSet.has(relative))) return undefined
  const infos = await filesWithinLimit(directory, wanted, maxFileBytes)
  if (infos === null) return undefined
  const [previous, indexTree] = await Promise.all([
    previousTree(repository, directory),
    treeOfUnchangedIndex(directory),
  ])
  if (previous !== since.tree || indexTree !== previous) return null
  const present = wanted.filter((_, index) => infos[index] !== null)
  const gone = wanted.filter((_, index) => infos[index] === null)
  const pathspecs = (paths: readonly string[]) => `${paths.map(literalPathspec).join('\0')}\0`
  const skipped: string[] = []
  if (gone.length > 0) {
    await repository.git(
      [
        'rm',
        '-r',
        '--cached',
        '--quiet',
        '--ignore-unmatch',
        '--pathspec-from-file=-',
        '--pathspec-file-nul',
      ],
      { ...scopeOf(directory), input: pathspecs(gone) },
    )
  }
  // Files the index already holds (between turns, most often files edited) go to `update-index`,
  // which skips what `git add` does first — preload the index, hash every name, scan the folders
  // named — about a quarter of it on 100,000 files (docs/benchmarks.md, stop 22). It takes every
  // path literally; one it will not take as given (not in the index, beyond a link, unreadable)
  // makes it write nothing and exit 128, and `git add` decides as before. The index was written
  // from `previous` (checked above): the paths that tree holds are the ones the index does.
  const updated =
    present.length > 0 && (await treeHolds(repository, previous, present))
      ? await repository.git(['update-index', '--remove', '-z', '--stdin'], {
          ...scopeOf(directory),
          input: `${present.join('\0')}\0`,
          allowedExitCodes: [128],
        })
      : null
  if (present.length > 0 && updated?.exitCode !== 0) {
    const added = await repository.git(
      ['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'],
      { ...scopeOf(directory), input: pathspecs(present), allowedExitCodes: [1, 128] },
    )
    // 128: a path git will not take by name (beyond a link, gone since): the walk decides.
    if (added.exitCode === 128) {
      return walkSnapshot(
        repository,
        directory,
        maxFileBytes,
        {},
        { paths: wanted, since: { tree: previous, skipped: since.skipped } },
      )
    }
    if (added.exitCode === 1) skipped.push(...unreadablePaths(added.stderr))
  }
  const outOfScope = since.skipped.filter((p) => !wanted.includes(p.replace(/\/$/, '')))
  return recordStaged(repository, directory, previous, [...new Set([...outOfScope, ...skipped])].sort())
}

/**
 * A path a tool or a watch named, relative to the folder, that a snapshot may stage by name:
 * not empty or absolute, no empty or `.` part (`.` would be the whole folder, whose skipped paths
 * only a full walk accounts for), not leaving the folder (`..`), not in git metadata (git skips a
 * `.git` path without a word) and not in Tangent's own data directory when it lies in the folder.
 */
function stageableName(directory: SnapshotDirectory, relative: string): boolean {
  const parts = relative.split('/')
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part === '.git')) return false
  const home = directory.excludedHome
  return home === null || (relative !== home && !relative.startsWith(`${home}/`))
}

/**
 * `paths` with each one inside a nested repository replaced by that repository's folder (the
 * outermost, below the snapshot's folder): `git add` of a file in a nested repository stages
 * nothing and says nothing, where the walk names the repository as skipped (`dir/`). The walk of
 * that folder does the same.
 */
async function outsideNestedRepositories(
  directory: SnapshotDirectory,
  paths: readonly string[],
): Promise<string[]> {
  const holdsGit = new Map<string, Promise<boolean>>()
  const isRepository = (folder: string) => {
    let known = holdsGit.get(folder)
    if (known === undefined) {
      // Unreadable counts as no: the path goes on as named, as it did before this look.
      known = lstat(path.join(directory.path, folder, '.git')).then(
        () => true,
        () => false,
      )
      holdsGit.set(folder, known)
    }
    return known
  }
  const mapped = await Promise.all(
    paths.map(async (relative) => {
      const parts = relative.split('/')
      for (let depth = 1; depth < parts.length; depth++) {
        const folder = parts.slice(0, depth).join('/')
        if (await isRepository(folder)) return folder
      }
      return relative
    }),
  )
  return [...new Set(mapped)]
}

/**
 * Whether `tree` holds every one of `paths` (relative to the tree's root) as a file or link: when
 * the directory's index was written from that tree, the paths the index holds. Asked of git for
 * the named paths only (no read of the whole index); past the paths one command takes, false.
 */
async function treeHolds(repository: ShadowRepository, tree: string, paths: readonly string[]) {
  if (paths.length > pathArgumentLimit) return false
  const held = new Set(
    (await listTree(repository, tree, new Set(paths)))
      .filter((entry) => entry.type === 'blob')
      .map((entry) => entry.path),
  )
  return paths.every((relative) => held.has(relative))
}

/** Each path's lstat (null: gone), or null when one is not a file or link, or a file over the limit. */
async function filesWithinLimit(
  directory: SnapshotDirectory,
  paths: readonly string[],
  maxFileBytes: number,
) {
  const infos = await Promise.all(
    paths.map((relative) => lstatIfPresent(path.join(directory.path, relative))),
  )
  for (const info of infos) {
    if (info === null || info.isSymbolicLink()) continue
    if (!info.isFile() || info.size > maxFileBytes) return null
  }
  return infos
}

/** After staging named paths: the previous tree when the index did not change, else the new one. */
async function recordStaged(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  previous: string,
  skipped: string[],
): Promise<Taken> {
  if ((await treeOfUnchangedIndex(directory)) === previous)
    return { tree: previous, changed: [], skipped, previous }
  return { ...(await recordIndexTree(repository, directory, previous)), skipped, previous }
}

async function walkSnapshot(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  maxFileBytes: number,
  options: { listFirstChanges?: boolean },
  scoped: { paths: readonly string[]; since: { tree: string; skipped: readonly string[] } } | null,
): Promise<Taken | null> {
  const scope = scopeOf(directory)
  const changesFrom = (previous: string | null, tree: string) =>
    previous === null && options.listFirstChanges === false ? [] : changedPaths(repository, previous, tree)
  // A directory's first snapshot in a git project starts from the project's index (seed.ts):
  // the walk below then finds only what differs from it, and nothing else is read or hashed.
  if (scoped === null && !existsSync(directory.indexFile)) {
    const seeded = await seedIndex(repository, directory)
    if (seeded.seeded) await rememberIndexTree(directory, seeded.tree)
  }
  const baseExcludes = directory.excludedHome === null ? [] : [excludePathspec(directory.excludedHome)]
  // The walk, as two processes at once: `diff-files` stats every tracked file against the index
  // (in threads: it preloads the index, which `ls-files --modified` does not) for the ones that
  // changed or went, while `ls-files --others` reads the folders for untracked files. On an idle
  // 2-core machine, 0.28 s against 0.37 s for one `ls-files` doing both, for 100,000 files
  // (docs/benchmarks.md, stop 20); `git status` takes 0.27 s.
  const pathspec = ['--', ...(scoped === null ? ['.'] : scoped.paths.map(literalPathspec)), ...baseExcludes]
  // Skipped paths outside a scoped walk are the previous snapshot's; inside it, the walk's.
  const within = (relative: string) =>
    scoped?.paths.some((scopePath) => relative === scopePath || relative.startsWith(`${scopePath}/`)) === true
  const skippedOf = (found: readonly string[]) =>
    [
      ...new Set([
        ...(scoped === null ? [] : scoped.since.skipped.filter((p) => !within(p.replace(/\/$/, '')))),
        ...found,
      ]),
    ].sort()
  if (scoped !== null && scoped.paths.length === 0) {
    const [previous, indexTree] = await Promise.all([
      previousTree(repository, directory),
      treeOfUnchangedIndex(directory),
    ])
    if (previous !== scoped.since.tree || indexTree !== previous) return null
    return { tree: previous, changed: [], skipped: skippedOf([]), previous }
  }
  const [previous, changes, others, indexTree] = await Promise.all([
    previousTree(repository, directory),
    repository.git(['diff-files', '--relative', '--name-status', '-z', ...pathspec], scope),
    repository.git(['ls-files', '-z', '--others', '--exclude-standard', ...pathspec], scope),
    treeOfUnchangedIndex(directory),
  ])
  if (scoped !== null && (previous !== scoped.since.tree || indexTree !== previous)) return null
  const tracked = parseTrackedChanges(changes.stdout)
  const untracked = splitNul(others.stdout)
  const skipped = await findSkipped(directory, untracked, maxFileBytes)
  // Nothing differs from the index but files a snapshot leaves out, and the index is the one
  // the latest snapshot was written from: that tree stands, without staging (the common case
  // at a turn's start and after a step that only read).
  if (
    tracked.length === 0 &&
    skipped.length === untracked.length &&
    indexTree !== null &&
    indexTree === previous
  ) {
    return { tree: indexTree, changed: [], skipped: skippedOf(skipped), previous }
  }

  // Stage what the walk found, so git looks at those paths only; without a consistent index (or
  // with very many paths) stage everything but what is skipped.
  const skippedSet = new Set(skipped)
  const listed = [...tracked, ...untracked.filter((relative) => !skippedSet.has(relative))]
  // Nothing to stage and the index's tree is known (a seeded first snapshot of a clean project,
  // or another writer's snapshot moved the ref): that tree is the directory's.
  if (listed.length === 0 && indexTree !== null) {
    const changed = await changesFrom(previous, indexTree)
    await recordTree(repository, directory, previous, indexTree)
    return { tree: indexTree, changed, skipped: skippedOf(skipped), previous }
  }
  const everything = ['.', ...baseExcludes, ...skipped.map((p) => excludePathspec(p.replace(/\/$/, '')))]
  const stage = (pathspecs: readonly string[]) =>
    repository.git(['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      ...scope,
      input: `${pathspecs.join('\0')}\0`,
      allowedExitCodes: [1, 128],
    })
  const byList = indexTree !== null && listed.length > 0 && listed.length <= stageByListLimit
  // A scoped walk stages by list or not at all: the whole tree is the full snapshot's to stage.
  if (scoped !== null && !byList) return null
  let added = await stage(byList ? listed.map(literalPathspec) : everything)
  if (scoped !== null && added.exitCode === 128) return null
  // git refuses the whole list for one path it cannot take as given (gone since the walk, now
  // beyond a symlink): stage everything, as without a list.
  if (byList && added.exitCode === 128) {
    added = await stage(everything)
  }
  if (added.exitCode !== 0) {
    const unreadable = unreadablePaths(added.stderr)
    if (unreadable.length === 0) {
      throw new TangentError(
        'snapshot-failed',
        `Could not stage ${directory.path} for a snapshot: ${added.stderr.trim().slice(0, 2000)}`,
        { cwd: directory.path, stderr: added.stderr },
      )
    }
    skipped.push(...unreadable)
  }

  // `git add` leaves the index file alone when nothing changed: then so did the tree.
  const unchanged = added.exitCode === 0 ? await treeOfUnchangedIndex(directory) : null
  if (unchanged !== null && unchanged === previous) {
    return { tree: unchanged, changed: [], skipped: skippedOf(skipped), previous }
  }
  let tree = await writeTree(repository, directory)
  let changed = await changesFrom(previous, tree)
  // A tracked file that grew past the limit was just hashed once; drop it from now on. Only one
  // the walk found modified can have (untracked ones over the limit are skipped before staging):
  // an unchanged file a seed took from the project's index is the project's own blob, kept at no
  // cost whatever its size.
  const grown = await findGrown(directory, tracked, maxFileBytes)
  if (grown.length > 0) {
    await repository.git(
      ['rm', '--cached', '--quiet', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'],
      {
        ...scope,
        input: `${grown.map(literalPathspec).join('\0')}\0`,
      },
    )
    skipped.push(...grown)
    tree = await writeTree(repository, directory)
    changed = await changesFrom(previous, tree)
  }
  await recordTree(repository, directory, previous, tree)
  await rememberIndexTree(directory, tree)
  return { tree, changed, skipped: skippedOf(skipped), previous }
}

/**
 * A snapshot that re-reads only `paths` (files Tangent itself just wrote or removed) and takes
 * everything else from the directory's previous snapshot (`skipped` carries its skipped list):
 * no scan of the whole tree.
 */
export async function snapshotPaths(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  paths: readonly string[],
  skipped: readonly string[],
): Promise<Snapshot> {
  const previous = await previousTree(repository, directory)
  // A path that is a folder now (a file removed, then files written into its place) leaves
  // the index as a file; the files in it come in as listed.
  const infos = await Promise.all(
    paths.map((relative) => lstatIfPresent(path.join(directory.path, relative))),
  )
  const folders = paths.filter((_, index) => infos[index]?.isDirectory() === true)
  const others = paths.filter((_, index) => infos[index]?.isDirectory() !== true)
  // Paths on stdin are relative to cwd (git applies the prefix), with no pathspec magic.
  if (folders.length > 0) {
    await repository.git(['update-index', '--force-remove', '-z', '--stdin'], {
      ...scopeOf(directory),
      input: `${folders.join('\0')}\0`,
    })
  }
  if (others.length > 0) {
    // --replace: a file where the index has a folder replaces the entries under it.
    await repository.git(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], {
      ...scopeOf(directory),
      input: `${others.join('\0')}\0`,
    })
  }
  return { ...(await recordIndexTree(repository, directory, previous)), skipped: [...skipped] }
}

/**
 * Writes the index's tree as the directory's latest snapshot (after `previous`): what a
 * snapshot that staged a known list of paths ends with.
 */
async function recordIndexTree(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
  previous: string | null,
): Promise<{ tree: string; changed: string[] }> {
  const tree = await writeTree(repository, directory)
  const changed = await changedPaths(repository, previous, tree)
  await recordTree(repository, directory, previous, tree)
  await rememberIndexTree(directory, tree)
  return { tree, changed }
}
