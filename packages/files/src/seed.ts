// Seeds a directory's first snapshot from the project's own git index and objects
// (docs/architecture.md §5, "A first snapshot seeded from the project's index"): the index's stat
// data says which tracked files are unchanged, so they are neither read nor hashed, and their
// blobs stay in the project's object database, read through an alternate and kept from the
// user's gc by a ref of Tangent's in that repository. Only what differs is stored here.
import { createHash, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import {
  appendFile,
  chmod,
  copyFile,
  mkdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { SnapshotDirectory } from './directory.js'
import { runGit } from './git.js'
import { readIndex } from './index-file.js'
import { makePrivateDirectory, privateFileMode } from './private-files.js'
import { emptyTree, type ShadowRepository } from './shadow-repository.js'

/** The ref in the project's repository that keeps a seed's objects from the user's gc. */
export function seedRef(directory: SnapshotDirectory, tree: string): string {
  return `refs/tangent/seeds/${directory.key}/${tree}`
}

/** Why a directory was not seeded (the full walk runs instead); for tests and the bench. */
export type SeedDecision = { seeded: true; tree: string } | { seeded: false; reason: string }

// Attributes that make git store something other than the bytes on disk (line-ending
// conversion, filters, ident expansion, re-encoding): a blob in such a repository's index need
// not be the file's exact bytes, which a snapshot promises.
const conversionAttribute = /^(?:text|eol|filter|ident|working-tree-encoding|crlf)(?:=.*)?$/

/** Whether attribute lines set any converting attribute (unsetting one, `-text`, is harmless). */
export function setsConversionAttributes(text: string): boolean {
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const tokens = line.split(/\s+/).slice(1)
    if (tokens.some((token) => conversionAttribute.test(token))) return true
  }
  return false
}

async function readIfSmall(file: string): Promise<string | null> {
  const info = await stat(file).catch(() => null)
  if (info === null || !info.isFile()) return null
  // An attributes file this big is not one a person wrote: assume the worst.
  if (info.size > 1024 * 1024) return 'text'
  return readFile(file, 'utf8').catch(() => null)
}

interface ProjectRepository {
  gitDirectory: string
  objects: string
  index: string
  attributeFiles: string[]
}

/** The project's repository at `top`, when its metadata is where git would put it; else why not. */
async function probeRepository(top: string): Promise<ProjectRepository | string> {
  const probe = await runGit(
    [
      'rev-parse',
      '--absolute-git-dir',
      '--git-common-dir',
      '--show-toplevel',
      '--git-path',
      'index',
      '--git-path',
      'objects',
    ],
    { cwd: top, allowedExitCodes: [128] },
  )
  if (probe.exitCode !== 0) return `not a git repository: ${probe.stderr.trim()}`
  const [gitDirectory = '', common = '', toplevel = '', index = '', objects = ''] = probe.stdout
    .toString('utf8')
    .split('\n')
  const real = (folder: string) => realpath(path.resolve(top, folder)).catch(() => path.resolve(top, folder))
  const [gitReal, commonReal, topReal, objectsReal] = await Promise.all([
    real(gitDirectory),
    real(common),
    real(toplevel),
    real(objects),
  ])
  if (topReal !== top) return `the repository's top is ${topReal}, not ${top}`
  // The same rule as assertGitMetadataIntact: a planted `commondir` is not followed.
  if (gitReal !== commonReal && path.dirname(gitReal) !== path.join(commonReal, 'worktrees')) {
    return 'its git metadata points elsewhere'
  }
  if (path.dirname(objectsReal) !== commonReal) return 'its objects live outside its git directory'
  // An alternates line cannot hold a newline, and a leading quote would be read as C quoting.
  if (/[\n\r]/.test(objectsReal) || objectsReal.startsWith('"')) return 'its path cannot be an alternate'
  const config = await runGit(['config', '-z', '--get-regexp', '^core\\.(autocrlf|attributesfile)$'], {
    cwd: top,
    allowedExitCodes: [1],
  })
  let attributesFile = path.join(
    process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'),
    'git',
    'attributes',
  )
  for (const entry of config.stdout.toString('utf8').split('\0')) {
    const newline = entry.indexOf('\n')
    if (newline < 0) continue
    const key = entry.slice(0, newline)
    const value = entry.slice(newline + 1)
    if (key === 'core.autocrlf' && /^(?:true|input|yes|on|1)$/i.test(value)) {
      return 'core.autocrlf converts line endings'
    }
    if (key === 'core.attributesfile') {
      attributesFile = value.startsWith('~/')
        ? path.join(os.homedir(), value.slice(2))
        : path.resolve(top, value)
    }
  }
  return {
    gitDirectory: gitReal,
    objects: objectsReal,
    index: path.resolve(top, index),
    attributeFiles: [path.join(commonReal, 'info', 'attributes'), attributesFile, '/etc/gitattributes'],
  }
}

export interface IndexScan {
  /** Entries the seed must not take as they are (paths relative to top). */
  remove: string[]
  /** `.gitattributes` files the index tracks (relative to top). */
  attributeFiles: string[]
  entries: number
  /** An entry no git writes (an unknown mode): the index is not one to trust. */
  malformed: boolean
}

const gitattributes = Buffer.from('.gitattributes')

/** Entries scanned between two turns of the event loop (~1 ms each on an idle machine). */
const entriesPerSlice = 2048

/** Whether the six bytes at `at` are the ASCII digits of `mode`. */
function modeIs(listing: Buffer, at: number, mode: string): boolean {
  for (let i = 0; i < 6; i++) if (listing[at + i] !== mode.charCodeAt(i)) return false
  return true
}

/**
 * Where the entry at `start` has its tab, when it is where git puts it: `<tag> <mode> <oid>
 * <stage>\t`, the oid of SHA-1 (40 hex digits) or SHA-256 (64); else -1 (then searched for).
 */
function tabAtFixedOffset(listing: Buffer, start: number): number {
  if (listing[start + 1] !== 0x20 || listing[start + 8] !== 0x20) return -1
  for (const tab of [start + 51, start + 75]) {
    const stage = listing[tab - 1] ?? 0
    if (listing[tab] === 9 && listing[tab - 2] === 0x20 && stage >= 0x30 && stage <= 0x33) return tab
  }
  return -1
}

/**
 * Reads `ls-files -s -v -z` (`<tag> <mode> <oid> <stage>\t<path>\0`) byte by byte, keeping only
 * the few entries a seed cannot take: not on disk by design (skip-worktree, `S`), not checked by
 * stat (assume-unchanged, a lowercase tag), unmerged, or submodules (the walk names them as
 * skipped nested repositories), plus the paths under TANGENT_HOME. The tab is where git puts it
 * and the path's end is found by a loop over its bytes rather than Buffer.indexOf (a call into
 * C++ per entry cost more than the search): a 100,000-entry listing takes ~10 ms instead of ~25,
 * in slices with a turn of the event loop between them (issue 33).
 */
export async function scanIndexListing(listing: Buffer, excludedPrefix: string | null): Promise<IndexScan> {
  const scan = new ScanRules(excludedPrefix)
  const length = listing.length
  let scanned = 0
  let start = 0
  while (start < length) {
    if (++scanned % entriesPerSlice === 0) await new Promise((resolve) => setImmediate(resolve))
    let tab = tabAtFixedOffset(listing, start)
    let end: number
    if (tab >= 0) {
      end = tab + 1
      while (end < length && listing[end] !== 0) end++
    } else {
      end = listing.indexOf(0, start)
      if (end < 0) end = length
      tab = listing.indexOf(9, start)
      if (!(tab > start && tab < end)) {
        start = end + 1
        continue
      }
    }
    const mode = modeIs(listing, start + 2, '160000')
      ? 'gitlink'
      : modeIs(listing, start + 2, '100644') ||
          modeIs(listing, start + 2, '100755') ||
          modeIs(listing, start + 2, '120000')
        ? 'file'
        : 'unknown'
    // H: cached, nothing special (S: skip-worktree, lowercase: assume-unchanged); stage 0.
    const plain = listing[start] === 0x48 && listing[tab - 1] === 0x30
    scan.entry(listing, tab + 1, end, plain, mode)
    start = end + 1
  }
  return scan.result()
}

const modeFile = 0o100644
const modeExecutable = 0o100755
const modeLink = 0o120000
const modeGitlink = 0o160000

/**
 * The scan of scanIndexListing read from the index file's bytes (index-file.ts) instead of git's
 * listing of it: the same rules, from the entries' flags (skip-worktree, assume-valid, stage) and
 * modes. Saves a git process that reads the whole index and prints every entry (~0.1 s on
 * 100,000 files, a third of a `git status`). Undefined when the index is not one index-file.ts
 * reads as git would, or uses an extension git must understand to read it (a split index's
 * `link`, a sparse index's `sdir`): git's listing decides.
 */
export async function scanIndexFile(
  bytes: Buffer,
  excludedPrefix: string | null,
): Promise<IndexScan | undefined> {
  const scan = new ScanRules(excludedPrefix)
  const layout = await readIndex(bytes, (entry) => {
    const { mode } = entry
    const plain = !entry.skipWorktree && !entry.assumeValid && entry.stage === 0
    scan.entry(
      entry.name,
      0,
      entry.nameLength,
      plain,
      mode === modeGitlink
        ? 'gitlink'
        : mode === modeFile || mode === modeExecutable || mode === modeLink
          ? 'file'
          : 'unknown',
    )
  })
  if (layout === undefined) return undefined
  // An extension whose signature does not start with a capital letter is one git must understand.
  if (layout.extensions.some(({ signature }) => !(signature[0]! >= 'A' && signature[0]! <= 'Z')))
    return undefined
  return scan.result()
}

/**
 * What a seed keeps out of the project's index, entry by entry, whichever way the entries are
 * read: an entry not plain (skip-worktree, assume-unchanged, unmerged), a submodule (the walk
 * names it as a skipped nested repository) or a path under TANGENT_HOME; and the tracked
 * `.gitattributes` files.
 */
class ScanRules {
  readonly #remove: string[] = []
  readonly #attributeFiles: string[] = []
  readonly #excluded: Buffer | null
  #entries = 0
  #malformed = false

  constructor(excludedPrefix: string | null) {
    this.#excluded = excludedPrefix === null ? null : Buffer.from(`${excludedPrefix}/`)
  }

  /** The entry whose path is `bytes[start, end)`; `plain`: stage 0, neither skip-worktree nor assume-unchanged. */
  entry(
    bytes: Buffer,
    start: number,
    end: number,
    plain: boolean,
    mode: 'file' | 'gitlink' | 'unknown',
  ): void {
    this.#entries++
    // A mode no git writes: the index is not one to trust.
    if (mode === 'unknown') this.#malformed = true
    const excluded = this.#excluded
    const underHome =
      excluded !== null &&
      end - start >= excluded.length &&
      bytes.compare(excluded, 0, excluded.length, start, start + excluded.length) === 0
    if (!plain || mode === 'gitlink' || underHome) this.#remove.push(bytes.toString('utf8', start, end))
    const nameStart = end - gitattributes.length
    if (
      nameStart >= start &&
      bytes[end - 1] === 0x73 && // the final `s`, before a comparison through C++
      (nameStart === start || bytes[nameStart - 1] === 0x2f) &&
      bytes.compare(gitattributes, 0, gitattributes.length, nameStart, end) === 0
    ) {
      this.#attributeFiles.push(bytes.toString('utf8', start, end))
    }
  }

  result(): IndexScan {
    return {
      remove: [...new Set(this.#remove)],
      attributeFiles: this.#attributeFiles,
      entries: this.#entries,
      malformed: this.#malformed,
    }
  }
}

/**
 * Whether the index file's trailing SHA-1 is the hash of what precedes it (an all-zero trailer,
 * written with `index.skipHash`, is accepted as git accepts it). Hashed a slice at a time, with a
 * turn of the event loop between (a 10 MB index never holds it).
 */
async function checksumMatches(bytes: Buffer): Promise<boolean> {
  if (bytes.length < 32) return false
  const bodyEnd = bytes.length - 20
  const hash = createHash('sha1')
  const slice = 1024 * 1024
  for (let at = 0; at < bodyEnd; at += slice) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve))
    hash.update(bytes.subarray(at, Math.min(bodyEnd, at + slice)))
  }
  const expected = bytes.subarray(bodyEnd)
  return expected.every((byte) => byte === 0) || hash.digest().equals(expected)
}

/** Adds the project's object directory to the shadow repository's alternates (once). */
async function addAlternate(repository: ShadowRepository, objects: string): Promise<void> {
  const file = path.join(repository.gitDir, 'objects', 'info', 'alternates')
  const current = await readFile(file, 'utf8').catch(() => '')
  if (current.split('\n').includes(objects)) return
  await mkdir(path.dirname(file), { recursive: true })
  // One O_APPEND write: concurrent seeds of two projects do not interleave their lines.
  await appendFile(file, `${objects}\n`, { mode: privateFileMode })
}

/**
 * Makes the directory's private index from the project's index when that is safe, and says
 * which tree it holds for cwd; the caller's walk then stages only what differs. Nothing is
 * written in the shadow repository's index unless the seed succeeds.
 */
export async function seedIndex(
  repository: ShadowRepository,
  directory: SnapshotDirectory,
): Promise<SeedDecision> {
  if (!existsSync(path.join(directory.top, '.git'))) return { seeded: false, reason: 'not a git project' }
  const project = await probeRepository(directory.top)
  if (typeof project === 'string') return { seeded: false, reason: project }
  // Taken before the copy: if git replaces the index meanwhile, the copy is newer than this
  // time says, which only makes git's racy-entry check re-read more files, never fewer.
  const source = await stat(project.index).catch(() => null)
  if (source === null || !source.isFile() || source.size < 32) {
    return { seeded: false, reason: 'the project has no index' }
  }
  // A scratch name (`<pid>-<uuid>.index`): a copy left by a killed process is removed at start.
  await makePrivateDirectory(repository.scratchDirectory)
  const seed = path.join(repository.scratchDirectory, `${process.pid}-${randomUUID()}.index`)
  try {
    await copyFile(project.index, seed)
    await chmod(seed, privateFileMode)
    await utimes(seed, source.atime, source.mtime)
    const scope = { cwd: directory.top, workTree: directory.top, indexFile: seed }
    // git reads an index without checking its checksum: a torn or corrupt one would read as
    // garbage entries. Checked here, on the copy (what the seed will be).
    const bytes = await readFile(seed)
    if (!(await checksumMatches(bytes))) return { seeded: false, reason: 'its index is corrupt (checksum)' }
    const excludedPrefix =
      directory.excludedHome === null
        ? null
        : directory.prefix === ''
          ? directory.excludedHome
          : `${directory.prefix}/${directory.excludedHome}`
    let scan = await scanIndexFile(bytes, excludedPrefix)
    if (scan === undefined) {
      // Read with the shadow repository's settings: the project's config says nothing here.
      const listing = await repository.git(['ls-files', '-s', '-v', '-z'], {
        ...scope,
        allowedExitCodes: [128],
      })
      if (listing.exitCode !== 0) {
        return { seeded: false, reason: `its index cannot be read: ${listing.stderr.trim().slice(0, 300)}` }
      }
      scan = await scanIndexListing(listing.stdout, excludedPrefix)
    }
    if (scan.malformed) return { seeded: false, reason: 'its index has malformed entries' }
    if (scan.entries === 0) return { seeded: false, reason: 'its index is empty' }
    const attributeTexts = await Promise.all(
      [...project.attributeFiles, ...scan.attributeFiles.map((file) => path.join(directory.top, file))].map(
        readIfSmall,
      ),
    )
    if (attributeTexts.some((text) => text !== null && setsConversionAttributes(text))) {
      return { seeded: false, reason: 'its attributes convert file content' }
    }
    if (scan.remove.length > 0) {
      await repository.git(['update-index', '--force-remove', '-z', '--stdin'], {
        ...scope,
        input: `${scan.remove.join('\0')}\0`,
      })
    }
    // In the project's repository: checks that it holds every blob the index names, writes the
    // trees of staged changes there (the commit's trees are there already), and names the tree
    // the keep-ref holds. Runs nothing the repository controls (inert settings, no hooks).
    const written = await runGit(['write-tree'], {
      cwd: directory.top,
      env: { GIT_INDEX_FILE: seed },
      allowedExitCodes: [128],
    })
    if (written.exitCode !== 0) {
      return {
        seeded: false,
        reason: `its index names objects it lacks: ${written.stderr.trim().slice(0, 300)}`,
      }
    }
    const top = written.stdout.toString('utf8').trim()
    const kept = await runGit(['update-ref', seedRef(directory, top), top], {
      cwd: directory.top,
      allowedExitCodes: [1, 128],
    })
    if (kept.exitCode !== 0) {
      return { seeded: false, reason: `its refs cannot be written: ${kept.stderr.trim().slice(0, 300)}` }
    }
    await addAlternate(repository, project.objects)
    await rename(seed, directory.indexFile)
    let tree = top
    if (directory.prefix !== '') {
      const sub = await repository.git(['rev-parse', '--verify', '--quiet', `${top}:${directory.prefix}`], {
        allowedExitCodes: [1, 128],
      })
      tree = sub.exitCode === 0 ? sub.stdout.toString('utf8').trim() : emptyTree
    }
    return { seeded: true, tree }
  } finally {
    await rm(seed, { force: true })
  }
}

function alternatesFile(repository: ShadowRepository): string {
  return path.join(repository.gitDir, 'objects', 'info', 'alternates')
}

/** Removes the alternates of projects whose object directory is gone (before a gc). */
export async function dropLostAlternates(repository: ShadowRepository): Promise<string[]> {
  const file = alternatesFile(repository)
  const current = await readFile(file, 'utf8').catch(() => null)
  if (current === null) return []
  const lines = current.split('\n').filter((line) => line !== '')
  const present = lines.filter((line) => existsSync(line))
  if (present.length === lines.length) return []
  await writeFile(`${file}.tmp`, present.map((line) => `${line}\n`).join(''), { mode: privateFileMode })
  await rename(`${file}.tmp`, file)
  return lines.filter((line) => !present.includes(line))
}

/** Deletes Tangent's refs whose object is missing (lent by a repository now gone); how many. */
export async function dropRefsToMissingObjects(repository: ShadowRepository): Promise<number> {
  const refs = await repository.git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/tangent/'])
  const pairs = refs.stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)] as const)
  if (pairs.length === 0) return 0
  const checked = await repository.git(['cat-file', '--batch-check=%(objectname)'], {
    input: pairs.map(([id]) => `${id}\n`).join(''),
  })
  const missing = new Set(
    checked.stdout
      .toString('utf8')
      .split('\n')
      .filter((line) => line.endsWith(' missing'))
      .map((line) => line.slice(0, line.indexOf(' '))),
  )
  const lost = pairs.filter(([id]) => missing.has(id))
  if (lost.length === 0) return 0
  await repository.git(['update-ref', '--stdin'], {
    input: lost.map(([, ref]) => `delete ${ref}\n`).join(''),
  })
  return lost.length
}
