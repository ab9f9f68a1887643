import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { asSeq, type SessionEvent } from '@tangent/core'
import { afterAll, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { git, makeRepository, TempDirectories, write } from './fixture.test-helper.js'
import { setsConversionAttributes } from './seed.js'

const temps = new TempDirectories()
afterAll(() => temps.removeAll())

function setup() {
  const root = temps.make()
  return { root, files: new FileState({ home: path.join(root, 'home') }) }
}

async function contentAt(files: FileState, tree: string, file: string): Promise<string | null> {
  return (await files.readFile(tree, file))?.toString('utf8') ?? null
}

function seedRefs(cwd: string): string[] {
  return git(cwd, 'for-each-ref', '--format=%(refname)', 'refs/tangent/seeds/').split('\n').filter(Boolean)
}

function hashBlob(content: string): string {
  const body = Buffer.from(content)
  return createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body]))
    .digest('hex')
}

/** Loose objects in the shadow repository's own store (its packs hold none in these tests). */
function looseObjects(files: FileState): string[] {
  const objects = path.join(files.repository.gitDir, 'objects')
  const found: string[] = []
  for (const folder of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue
    for (const name of readdirSync(path.join(objects, folder))) found.push(`${folder}${name}`)
  }
  return found
}

/**
 * A project whose index says `lie.txt` holds "BBBB" while the disk holds "AAAA", with stat data
 * that matches the disk: only a snapshot that never reads lie.txt records "BBBB".
 */
function projectWithLyingIndex(root: string): string {
  const cwd = makeRepository(path.join(root, 'project'), { 'lie.txt': 'XXXX\n', 'other.txt': 'other\n' })
  write(cwd, 'lie.txt', 'AAAA\n')
  // Older than the index, so git's racy-entry check does not re-read it either.
  const past = new Date(Date.now() - 3600_000)
  utimesSync(path.join(cwd, 'lie.txt'), past, past)
  git(cwd, 'add', 'lie.txt')
  const real = hashBlob('AAAA\n')
  const lie = hashBlob('BBBB\n')
  writeFileSync(path.join(root, 'bbbb'), 'BBBB\n')
  expect(git(cwd, 'hash-object', '-w', path.join(root, 'bbbb')).trim()).toBe(lie)
  const indexFile = path.join(cwd, '.git', 'index')
  const index = readFileSync(indexFile)
  const at = index.indexOf(Buffer.from(real, 'hex'))
  expect(at).toBeGreaterThan(0)
  Buffer.from(lie, 'hex').copy(index, at)
  const body = index.subarray(0, index.length - 20)
  createHash('sha1')
    .update(body)
    .digest()
    .copy(index, index.length - 20)
  writeFileSync(indexFile, index)
  // git itself now believes the index: the file on disk is as staged, to it.
  expect(git(cwd, 'status', '--porcelain')).toBe('M  lie.txt\n')
  return cwd
}

function snapshotEvent(seq: number, tree: string): SessionEvent {
  return { seq: asSeq(seq), time: 0, type: 'snapshot/taken', data: { tree, changed: [] } }
}

describe('a first snapshot seeded from the project index', () => {
  it('reads no tracked file: what the index says of an unchanged file is what it records', async () => {
    const { root, files } = setup()
    const cwd = projectWithLyingIndex(root)
    const snapshot = await files.snapshot(cwd)
    // Had lie.txt been read (or hashed), the tree would hold AAAA.
    expect(await contentAt(files, snapshot.tree, 'lie.txt')).toBe('BBBB\n')
    expect(await contentAt(files, snapshot.tree, 'other.txt')).toBe('other\n')
    expect(seedRefs(cwd)).toEqual([`refs/tangent/seeds/${seedRefs(cwd)[0]?.split('/')[3]}/${snapshot.tree}`])
    // Nothing of the project was copied: its blobs are borrowed, not stored here.
    const stored = looseObjects(files)
    expect(stored).not.toContain(hashBlob('other\n'))
    expect(stored).not.toContain(hashBlob('BBBB\n'))
    expect(existsSync(path.join(files.repository.gitDir, 'objects', 'info', 'alternates'))).toBe(true)
  })

  it('falls back to the full walk (reading every file) when the index is corrupt or missing', async () => {
    const { root, files } = setup()
    const cwd = projectWithLyingIndex(root)
    const indexFile = path.join(cwd, '.git', 'index')
    const index = readFileSync(indexFile)
    writeFileSync(indexFile, index.subarray(0, Math.floor(index.length / 2))) // cut in the middle
    const snapshot = await files.snapshot(cwd)
    expect(await contentAt(files, snapshot.tree, 'lie.txt')).toBe('AAAA\n')
    expect(seedRefs(cwd)).toEqual([])

    const other = setup()
    const missing = makeRepository(path.join(other.root, 'project'), { 'a.txt': 'a\n' })
    rmSync(path.join(missing, '.git', 'index'))
    const walked = await other.files.snapshot(missing)
    expect(await contentAt(other.files, walked.tree, 'a.txt')).toBe('a\n')
    expect(seedRefs(missing)).toEqual([])
  })

  it('captures modified, staged, untracked and deleted files, assume-unchanged and skip-worktree ones by their disk', async () => {
    const { root, files } = setup()
    const cwd = makeRepository(path.join(root, 'project'), {
      'same.txt': 'same\n',
      'edited.txt': 'v1\n',
      'staged.txt': 'v1\n',
      'gone.txt': 'gone\n',
      'assumed.txt': 'v1\n',
      'sparse.txt': 'v1\n',
      '.gitignore': 'ignored.log\n',
    })
    write(cwd, 'edited.txt', 'edited on disk\n')
    write(cwd, 'staged.txt', 'staged\n')
    git(cwd, 'add', 'staged.txt')
    write(cwd, 'staged.txt', 'staged then edited\n')
    rmSync(path.join(cwd, 'gone.txt'))
    write(cwd, 'new/untracked.txt', 'untracked\n')
    write(cwd, 'ignored.log', 'ignored\n')
    git(cwd, 'update-index', '--assume-unchanged', 'assumed.txt')
    write(cwd, 'assumed.txt', 'assumed but changed\n')
    git(cwd, 'update-index', '--skip-worktree', 'sparse.txt')
    rmSync(path.join(cwd, 'sparse.txt'))
    const snapshot = await files.snapshot(cwd)
    const listing = await files.repository.git(['ls-tree', '-r', '--name-only', snapshot.tree])
    expect(listing.stdout.toString('utf8').trim().split('\n')).toEqual([
      '.gitignore',
      'assumed.txt',
      'edited.txt',
      'new/untracked.txt',
      'same.txt',
      'staged.txt',
    ])
    expect(await contentAt(files, snapshot.tree, 'edited.txt')).toBe('edited on disk\n')
    expect(await contentAt(files, snapshot.tree, 'staged.txt')).toBe('staged then edited\n')
    expect(await contentAt(files, snapshot.tree, 'assumed.txt')).toBe('assumed but changed\n')
    expect(await contentAt(files, snapshot.tree, 'new/untracked.txt')).toBe('untracked\n')
    expect(seedRefs(cwd)).toHaveLength(1)
    // The next snapshot sees a change to a file the seed took from the index.
    write(cwd, 'same.txt', 'changed at last\n')
    const next = await files.snapshot(cwd)
    expect(next.changed).toEqual(['same.txt'])
    expect(await contentAt(files, next.tree, 'same.txt')).toBe('changed at last\n')
  })

  it('seeds a subdirectory of the project with its subtree', async () => {
    const { root, files } = setup()
    const top = makeRepository(path.join(root, 'project'), {
      'a.txt': 'a\n',
      'pkg/b.txt': 'b\n',
      'pkg/c/d.txt': 'd\n',
    })
    write(top, 'pkg/new.txt', 'new\n')
    const snapshot = await files.snapshot(path.join(top, 'pkg'))
    const listing = await files.repository.git(['ls-tree', '-r', '--name-only', snapshot.tree])
    expect(listing.stdout.toString('utf8').trim().split('\n')).toEqual(['b.txt', 'c/d.txt', 'new.txt'])
    expect(seedRefs(top)).toHaveLength(1)
  })

  it('restores after the user rewrites the branch, deletes it and runs git gc --prune=now', async () => {
    const { root, files } = setup()
    const cwd = makeRepository(path.join(root, 'project'), { 'keep.txt': 'original bytes\n', 'b.txt': 'b\n' })
    git(cwd, 'checkout', '--quiet', '-b', 'feature')
    const seeded = await files.snapshot(cwd)
    // The session's turn changes the file; then the user rewrites history so no commit holds the
    // original bytes, deletes the branch and prunes everything unreachable.
    write(cwd, 'keep.txt', 'agent bytes\n')
    const after = await files.snapshot(cwd)
    git(cwd, 'add', '-A')
    git(cwd, 'commit', '--quiet', '--amend', '-m', 'rewritten')
    git(cwd, 'checkout', '--quiet', '--orphan', 'fresh')
    git(cwd, 'commit', '--quiet', '-m', 'orphan')
    git(cwd, 'branch', '-D', 'feature')
    for (const branch of git(cwd, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n')) {
      if (branch !== '' && branch !== 'fresh') git(cwd, 'branch', '-D', branch)
    }
    git(cwd, 'reflog', 'expire', '--expire=now', '--all')
    git(cwd, 'gc', '--quiet', '--prune=now')
    expect(git(cwd, 'log', '--all', '--format=%s').trim()).toBe('orphan')
    // The user's gc kept the borrowed blob for the seed's ref, and only for it.
    const original = hashBlob('original bytes\n')
    expect(git(cwd, 'cat-file', '-t', original).trim()).toBe('blob')
    const events = [
      snapshotEvent(0, seeded.tree),
      { ...snapshotEvent(1, after.tree), data: { tree: after.tree, changed: ['keep.txt'] } },
    ]
    const restored = await files.restore({ cwd, events, inheritedEventCount: 0, toSeq: 0, force: true })
    expect(restored.restored).toEqual(['keep.txt'])
    expect(readFileSync(path.join(cwd, 'keep.txt'), 'utf8')).toBe('original bytes\n')
    // Tangent's own gc keeps it working: nothing borrowed is dropped or copied.
    await files.gc()
    expect(await contentAt(files, seeded.tree, 'keep.txt')).toBe('original bytes\n')
    expect(looseObjects(files)).not.toContain(original)
  })

  it('runs nothing the repository controls: fsmonitor command, hooks, filters', async () => {
    const { root, files } = setup()
    const marker = path.join(root, 'ran')
    const script = path.join(root, 'evil.sh')
    writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`, { mode: 0o755 })
    const cwd = makeRepository(path.join(root, 'project'), { 'a.txt': 'a\n', 'b.txt': 'b\n' })
    git(cwd, 'config', 'core.fsmonitor', script)
    git(cwd, 'config', 'core.hooksPath', path.join(root, 'hooks'))
    for (const hook of ['reference-transaction', 'post-index-change', 'post-checkout', 'pre-commit']) {
      write(path.join(root, 'hooks'), hook, `#!/bin/sh\necho ${hook} >> ${marker}\n`)
      write(path.join(cwd, '.git', 'hooks'), hook, `#!/bin/sh\necho ${hook} >> ${marker}\n`)
    }
    for (const dir of [path.join(root, 'hooks'), path.join(cwd, '.git', 'hooks')]) {
      for (const name of readdirSync(dir)) {
        if (!name.endsWith('.sample'))
          writeFileSync(path.join(dir, name), readFileSync(path.join(dir, name)), { mode: 0o755 })
      }
    }
    git(cwd, 'config', 'core.untrackedCache', 'true')
    write(cwd, 'c.txt', 'untracked\n')
    const snapshot = await files.snapshot(cwd)
    expect(seedRefs(cwd)).toHaveLength(1)
    write(cwd, 'a.txt', 'changed\n')
    const next = await files.snapshot(cwd)
    expect(next.changed).toEqual(['a.txt'])
    expect(await contentAt(files, snapshot.tree, 'c.txt')).toBe('untracked\n')
    expect(existsSync(marker)).toBe(false)

    // A clean filter is a program the repository names: such a project is not seeded (its blobs
    // need not be the bytes on disk), and the walk stores the bytes unfiltered.
    const other = setup()
    const filtered = makeRepository(path.join(other.root, 'filtered'), { 'x.txt': 'plain\n' })
    git(filtered, 'config', 'filter.evil.clean', script)
    git(filtered, 'config', 'filter.evil.smudge', script)
    write(filtered, '.gitattributes', 'x.txt filter=evil\n')
    git(filtered, 'add', '.gitattributes')
    git(filtered, 'commit', '--quiet', '-m', 'attributes')
    rmSync(marker, { force: true })
    const walked = await other.files.snapshot(filtered)
    expect(seedRefs(filtered)).toEqual([])
    expect(await contentAt(other.files, walked.tree, 'x.txt')).toBe('plain\n')
    expect(existsSync(marker)).toBe(false)
  })

  it('does not seed where line endings are converted, so the exact bytes are stored', async () => {
    const { root, files } = setup()
    const cwd = makeRepository(path.join(root, 'project'), { 'a.txt': 'a\n' })
    git(cwd, 'config', 'core.autocrlf', 'true')
    write(cwd, 'crlf.txt', 'one\r\ntwo\r\n')
    git(cwd, 'add', 'crlf.txt')
    const snapshot = await files.snapshot(cwd)
    expect(seedRefs(cwd)).toEqual([])
    expect(await contentAt(files, snapshot.tree, 'crlf.txt')).toBe('one\r\ntwo\r\n')
    expect(setsConversionAttributes('*.png binary\n* -text\n')).toBe(false)
    expect(setsConversionAttributes('# c\n* text=auto\n')).toBe(true)
    expect(setsConversionAttributes('*.lfs filter=lfs diff=lfs\n')).toBe(true)
  })

  it('keeps gc working when the project that lent the objects is deleted', async () => {
    const { root, files } = setup()
    const cwd = makeRepository(path.join(root, 'project'), { 'a.txt': 'a\n' })
    const seeded = await files.snapshot(cwd)
    const plain = path.join(root, 'plain')
    write(plain, 'p.txt', 'p\n')
    const kept = await files.snapshot(plain)
    rmSync(cwd, { recursive: true, force: true })
    await files.gc()
    expect(await files.repository.hasTree(kept.tree)).toBe(true)
    expect(await files.repository.hasTree(seeded.tree)).toBe(false)
    expect(readFileSync(path.join(files.repository.gitDir, 'objects', 'info', 'alternates'), 'utf8')).toBe('')
  })
})
