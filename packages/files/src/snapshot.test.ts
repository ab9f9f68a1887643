import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { git, makeRepository, TempDirectories, write } from './fixture.test-helper.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

function setup(options: { maxFileBytes?: number } = {}) {
  const root = temps.make()
  const home = path.join(root, 'home')
  const files = new FileState({ home, ...options })
  return { root, home, files }
}

async function treeFiles(files: FileState, tree: string): Promise<string[]> {
  const listing = await files.repository.git(['ls-tree', '-r', '--name-only', '-z', tree])
  return listing.stdout.toString('utf8').split('\0').filter(Boolean)
}

describe('FileState.snapshot', () => {
  it('snapshots a directory that is not a git project', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    write(cwd, 'dir/b.txt', 'b\n')
    const first = await files.snapshot(cwd)
    expect(first.changed).toEqual(['a.txt', 'dir/b.txt'])
    expect(await treeFiles(files, first.tree)).toEqual(['a.txt', 'dir/b.txt'])
    const again = await files.snapshot(cwd)
    expect(again).toEqual({ tree: first.tree, changed: [], skipped: [] })
  })

  it('finds the previous tree in a loose ref, in packed-refs after a gc, and after both change', async () => {
    const { root, home, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    const first = await files.snapshot(cwd)
    await files.gc() // packs the refs: the directory's latest is in packed-refs now
    const refs = path.join(home, 'snapshots', 'objects.git')
    expect(readFileSync(path.join(refs, 'packed-refs'), 'utf8')).toContain(first.tree)
    write(cwd, 'b.txt', 'b\n')
    const second = await files.snapshot(cwd)
    // Only b.txt: the previous tree was read from packed-refs (not taken as "none").
    expect(second.changed).toEqual(['b.txt'])
    write(cwd, 'a.txt', 'a2\n')
    // A loose ref written since wins over the packed one.
    expect((await files.snapshot(cwd)).changed).toEqual(['a.txt'])
  })

  it('lists exactly the added, modified and deleted paths in changed', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'keep.txt', 'keep\n')
    write(cwd, 'edit.txt', 'v1\n')
    write(cwd, 'gone/old.txt', 'old\n')
    await files.snapshot(cwd)
    write(cwd, 'edit.txt', 'v2\n')
    write(cwd, 'new/added.txt', 'new\n')
    rmSync(path.join(cwd, 'gone'), { recursive: true })
    const next = await files.snapshot(cwd)
    expect(next.changed.sort()).toEqual(['edit.txt', 'gone/old.txt', 'new/added.txt'])
  })

  it('leaves the user repository untouched but for the seed ref: status, HEAD, branches and index bytes', async () => {
    const { root, files } = setup()
    const cwd = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n', 'b.txt': 'b\n' })
    write(cwd, 'a.txt', 'changed\n')
    write(cwd, 'untracked.txt', 'u\n')
    git(cwd, 'add', 'a.txt')
    write(cwd, 'b.txt', 'unstaged\n')
    const before = {
      status: git(cwd, 'status', '--porcelain'),
      head: git(cwd, 'rev-parse', 'HEAD'),
      refs: git(cwd, 'for-each-ref'),
      index: readFileSync(path.join(cwd, '.git', 'index')),
    }
    const snapshot = await files.snapshot(cwd)
    write(cwd, 'b.txt', 'unstaged\n')
    await files.snapshot(cwd)
    expect(git(cwd, 'status', '--porcelain')).toBe(before.status)
    expect(git(cwd, 'rev-parse', 'HEAD')).toBe(before.head)
    // One ref more, and only that (docs/architecture.md §5, seeded snapshots): a tree ref under
    // refs/tangent/seeds/ keeping the objects the snapshots borrow; `git log --all` ignores it.
    const seedRefs = git(cwd, 'for-each-ref', 'refs/tangent/').trim().split('\n')
    expect(seedRefs).toHaveLength(1)
    expect(seedRefs[0]).toMatch(/^([0-9a-f]{40}) tree\trefs\/tangent\/seeds\/[0-9a-f]{24}\/\1$/)
    expect(git(cwd, 'for-each-ref').replace(`${seedRefs[0]}\n`, '')).toBe(before.refs)
    expect(git(cwd, 'log', '--all', '--format=%H')).toBe(git(cwd, 'log', '--format=%H', 'HEAD'))
    expect(readFileSync(path.join(cwd, '.git', 'index')).equals(before.index)).toBe(true)
    // The working files are what was snapshotted, and nothing of .git is.
    expect(await treeFiles(files, snapshot.tree)).toEqual(['a.txt', 'b.txt', 'untracked.txt'])
  })

  it('honours .gitignore files: nested ones, and those above cwd in the repository', async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { '.gitignore': 'node_modules/\n*.log\n' })
    write(repo, 'pkg/src/index.ts', 'export {}\n')
    write(repo, 'pkg/node_modules/dep/index.js', 'dep\n')
    write(repo, 'pkg/debug.log', 'log\n')
    write(repo, 'pkg/.gitignore', 'secret.txt\n')
    write(repo, 'pkg/secret.txt', 'secret\n')
    write(repo, 'pkg/deep/.gitignore', '*.tmp\n')
    write(repo, 'pkg/deep/x.tmp', 'tmp\n')
    write(repo, 'pkg/deep/kept.txt', 'kept\n')
    const fromRoot = await files.snapshot(repo)
    expect(await treeFiles(files, fromRoot.tree)).toEqual([
      '.gitignore',
      'pkg/.gitignore',
      'pkg/deep/.gitignore',
      'pkg/deep/kept.txt',
      'pkg/src/index.ts',
    ])
    // Snapshotting the subdirectory alone still applies the repository root's .gitignore.
    const fromSub = await files.snapshot(path.join(repo, 'pkg'))
    expect(await treeFiles(files, fromSub.tree)).toEqual([
      '.gitignore',
      'deep/.gitignore',
      'deep/kept.txt',
      'src/index.ts',
    ])
  })

  it('skips files over the limit, names them, and picks them up again when they shrink', async () => {
    const { root, files } = setup({ maxFileBytes: 1000 })
    const cwd = makeRepository(path.join(root, 'repo'), { 'small.txt': 'small\n', 'grows.txt': 'tiny\n' })
    write(cwd, 'big.bin', Buffer.alloc(5000, 7))
    const first = await files.snapshot(cwd)
    expect(first.skipped).toEqual(['big.bin'])
    expect(await treeFiles(files, first.tree)).toEqual(['grows.txt', 'small.txt'])
    // A file already in the snapshots that grows past the limit leaves them.
    write(cwd, 'grows.txt', 'x'.repeat(2000))
    const grown = await files.snapshot(cwd)
    expect(grown.skipped).toEqual(['big.bin', 'grows.txt'])
    expect(grown.changed).toEqual(['grows.txt'])
    expect(await treeFiles(files, grown.tree)).toEqual(['small.txt'])
    write(cwd, 'grows.txt', 'small again\n')
    const shrunk = await files.snapshot(cwd)
    expect(shrunk.skipped).toEqual(['big.bin'])
    expect(await treeFiles(files, shrunk.tree)).toEqual(['grows.txt', 'small.txt'])
  })

  it('answers an unchanged directory without staging, and still sees a same-size edit, a removal and a new file beside a skipped one', async () => {
    const { root, files } = setup({ maxFileBytes: 1000 })
    const cwd = makeRepository(path.join(root, 'repo'), { 'a.txt': 'aaaa\n', 'b.txt': 'bbbb\n' })
    write(cwd, 'big.bin', Buffer.alloc(5000, 7))
    const first = await files.snapshot(cwd)
    expect(await files.snapshot(cwd)).toEqual({ tree: first.tree, changed: [], skipped: ['big.bin'] })
    // Same size, most likely within the same second as the index: git's racy-clean check.
    write(cwd, 'a.txt', 'AAAA\n')
    expect(await files.snapshot(cwd)).toMatchObject({ changed: ['a.txt'], skipped: ['big.bin'] })
    rmSync(path.join(cwd, 'b.txt'))
    expect((await files.snapshot(cwd)).changed).toEqual(['b.txt'])
    write(cwd, 'c.txt', 'c\n')
    const added = await files.snapshot(cwd)
    expect(added).toMatchObject({ changed: ['c.txt'], skipped: ['big.bin'] })
    expect(await files.snapshot(cwd)).toEqual({ tree: added.tree, changed: [], skipped: ['big.bin'] })
  })

  it('never snapshots TANGENT_HOME into itself when it lies inside cwd', async () => {
    const root = temps.make()
    const cwd = path.join(root, 'project')
    write(cwd, 'a.txt', 'a\n')
    const files = new FileState({ home: path.join(cwd, '.tangent') })
    const first = await files.snapshot(cwd)
    write(cwd, 'b.txt', 'b\n')
    const second = await files.snapshot(cwd)
    expect(second.changed).toEqual(['b.txt'])
    expect(await treeFiles(files, first.tree)).toEqual(['a.txt'])
    expect(await treeFiles(files, second.tree)).toEqual(['a.txt', 'b.txt'])
  })

  it('refuses to snapshot TANGENT_HOME itself', async () => {
    const root = temps.make()
    const files = new FileState({ home: root })
    await expect(files.snapshot(root)).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'snapshot-failed'),
    )
  })

  it('reports a nested repository as skipped instead of recording a foreign commit', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'outer')
    write(cwd, 'a.txt', 'a\n')
    makeRepository(path.join(cwd, 'vendor', 'lib'), { 'lib.txt': 'lib\n' })
    const snapshot = await files.snapshot(cwd)
    expect(snapshot.skipped).toEqual(['vendor/lib/'])
    expect(await treeFiles(files, snapshot.tree)).toEqual(['a.txt'])
  })

  it('snapshots an empty directory as the empty tree', async () => {
    const { root, files } = setup()
    const cwd = path.join(makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' }), 'empty')
    mkdirSync(cwd)
    const snapshot = await files.snapshot(cwd)
    expect(snapshot).toEqual({ tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', changed: [], skipped: [] })
  })

  it('serialises concurrent snapshots of one directory', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    const results = await Promise.all([files.snapshot(cwd), files.snapshot(cwd), files.snapshot(cwd)])
    expect(new Set(results.map((r) => r.tree)).size).toBe(1)
    expect(results.map((r) => r.changed)).toEqual([['a.txt'], [], []])
  })

  it('throws not-a-directory for a missing path or a file', async () => {
    const { root, files } = setup()
    write(root, 'file.txt', 'x')
    await expect(files.snapshot(path.join(root, 'missing'))).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'not-a-directory'),
    )
    await expect(files.snapshot(path.join(root, 'file.txt'))).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'not-a-directory'),
    )
  })
})

describe('FileState.gc', () => {
  it('keeps every snapshot tree and prunes unreferenced objects', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'plain')
    const trees: string[] = []
    for (let i = 0; i < 3; i++) {
      write(cwd, 'a.txt', `version ${i}\n`)
      trees.push((await files.snapshot(cwd)).tree)
    }
    const junk = (
      await files.repository.git(['hash-object', '-w', '--stdin'], { input: 'unreferenced junk\n' })
    ).stdout
      .toString('utf8')
      .trim()
    const result = await files.gc()
    expect(result.bytesAfter).toBeLessThanOrEqual(result.bytesBefore)
    for (const tree of trees) expect(await files.repository.hasTree(tree)).toBe(true)
    expect((await files.diffTrees(trees[0] ?? null, trees[2] ?? null))[0]?.patch).toContain('+version 2')
    const probe = await files.repository.git(['cat-file', '-e', junk], { allowedExitCodes: [1, 128] })
    expect(probe.exitCode).not.toBe(0)
  })
})
