// Files travelling through the store's snapshot objects (docs/architecture.md §4, "Where snapshot
// objects live"), against an in-memory SnapshotObjectStore: two TANGENT_HOMEs stand for two
// machines. The PostgreSQL table itself is tested in @tangent/store-postgres, and both together
// in @tangent/runtime (snapshot-objects.test.ts).
import {
  chmodSync,
  cpSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import path from 'node:path'
import type { SnapshotObject, SnapshotObjectStore } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { modesUnder, TempDirectories, write } from './fixture.test-helper.js'
import { gitObjectId } from './object-mirror.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

/** A store in memory that counts its calls and what it was given. */
class MemoryObjects implements SnapshotObjectStore {
  readonly objects = new Map<string, SnapshotObject>()
  calls = { has: 0, put: 0, get: 0 }
  putIds: string[] = []

  async has(ids: readonly string[]): Promise<Set<string>> {
    this.calls.has += 1
    return new Set(ids.filter((id) => this.objects.has(id)))
  }
  async put(objects: readonly SnapshotObject[]): Promise<void> {
    this.calls.put += 1
    for (const object of objects) {
      if (this.objects.has(object.id)) continue
      this.putIds.push(object.id)
      this.objects.set(object.id, { ...object, data: Uint8Array.from(object.data) })
    }
  }
  async get(ids: readonly string[]): Promise<SnapshotObject[]> {
    this.calls.get += 1
    return ids.flatMap((id) => {
      const object = this.objects.get(id)
      return object ? [object] : []
    })
  }
  async collect() {
    return { removed: 0, bytesBefore: 0, bytesAfter: 0 }
  }
  async bytes() {
    return [...this.objects.values()].reduce((sum, object) => sum + object.data.byteLength, 0)
  }
  reset(): void {
    this.calls = { has: 0, put: 0, get: 0 }
    this.putIds = []
  }
}

/** Every entry under `root`: a file's content and executable bit, a symlink's target, a directory. */
function contentsOf(root: string): Record<string, string> {
  const found: Record<string, string> = {}
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(root, relative)).sort()) {
      const child = relative === '' ? name : `${relative}/${name}`
      const info = lstatSync(path.join(root, child))
      if (info.isSymbolicLink()) found[child] = `link → ${readlinkSync(path.join(root, child))}`
      else if (info.isDirectory()) walk(child)
      else
        found[child] =
          `${info.mode & 0o100 ? 'x ' : ''}${readFileSync(path.join(root, child)).toString('base64')}`
    }
  }
  walk('')
  return found
}

/** Two machines (homes) sharing one store; the project lives on A only. */
function twoMachines() {
  const root = temps.make()
  const objects = new MemoryObjects()
  const a = new FileState({ home: path.join(root, 'home-a'), objects })
  const b = new FileState({ home: path.join(root, 'home-b'), objects })
  const project = path.join(root, 'project')
  write(project, 'README.md', '# app\n')
  write(project, 'src/index.ts', 'export const x = 1\n')
  write(project, 'src/deep/nested/data.bin', Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]))
  write(project, 'run.sh', '#!/bin/sh\necho hi\n')
  chmodSync(path.join(project, 'run.sh'), 0o755)
  symlinkSync('src/index.ts', path.join(project, 'link'))
  return { root, objects, a, b, project }
}

describe('FileState with the store’s snapshot objects', () => {
  it('a tree taken on A is materialised exactly on B, which never saw the project', async () => {
    const { root, a, b, project } = twoMachines()
    const taken = await a.snapshot(project)
    await b.repository.ensure()
    expect(await b.repository.hasTree(taken.tree)).toBe(false)
    await b.ensureTrees([taken.tree, null])
    expect(await b.repository.hasTree(taken.tree)).toBe(true)
    const copy = await b.createWorktree({ cwd: null, tree: taken.tree, sessionId: 'elsewhere' })
    expect(copy.kind).toBe('copy')
    expect(copy.path).toBe(path.join(root, 'home-b', 'worktrees', 'elsewhere'))
    expect(copy.leftOut).toEqual([])
    expect(contentsOf(copy.path)).toEqual(contentsOf(project))
    // The copy is a directory of B's like any other: its snapshot is the same tree.
    expect((await b.snapshot(copy.path)).tree).toBe(taken.tree)
    // What B fetched is private, as everything in the shadow repository.
    for (const entry of modesUnder(path.join(b.repository.gitDir, 'objects')))
      expect(entry.mode & 0o077).toBe(0)
  })

  it('createWorktree fetches the tree itself, and needs one without a folder', async () => {
    const { a, b, project } = twoMachines()
    const taken = await a.snapshot(project)
    const copy = await b.createWorktree({ cwd: null, tree: taken.tree, sessionId: 'direct' })
    expect(readFileSync(path.join(copy.path, 'src/index.ts'), 'utf8')).toBe('export const x = 1\n')
    await expect(b.createWorktree({ cwd: null, tree: null, sessionId: 'none' })).rejects.toMatchObject({
      code: 'snapshot-unavailable',
    })
  })

  it('B diffs, merges and reads two trees A took, fetching them on demand', async () => {
    const { a, b, project } = twoMachines()
    const first = await a.snapshot(project)
    write(project, 'src/index.ts', 'export const x = 2\n')
    write(project, 'src/added.ts', 'new\n')
    rmSync(path.join(project, 'README.md'))
    const second = await a.snapshot(project)
    const diffs = await b.diffTrees(first.tree, second.tree)
    expect(diffs.map(({ path, status }) => ({ path, status }))).toEqual([
      { path: 'README.md', status: 'deleted' },
      { path: 'src/added.ts', status: 'added' },
      { path: 'src/index.ts', status: 'modified' },
    ])
    expect(diffs[2]?.patch).toContain('-export const x = 1\n+export const x = 2\n')
    expect(await b.diffTrees(first.tree, second.tree)).toEqual(await a.diffTrees(first.tree, second.tree))
    expect((await b.readFile(second.tree, 'src/added.ts'))?.toString()).toBe('new\n')
    const merge = await b.mergeTrees({ base: first.tree, ours: first.tree, theirs: second.tree })
    expect(merge.conflicts).toEqual([])
  })

  it('uploads each object once: an unchanged tree costs no call, a changed file its blob and the trees on its path', async () => {
    const { objects, a, project } = twoMachines()
    const first = await a.snapshot(project)
    const all = new Set(objects.putIds)
    // Root, src, src/deep, src/deep/nested; five blobs (the symlink's target is a blob).
    expect(all.size).toBe(9)
    expect(all.has(first.tree)).toBe(true)
    objects.reset()
    expect((await a.snapshot(project)).tree).toBe(first.tree)
    expect(objects.calls).toEqual({ has: 0, put: 0, get: 0 })
    write(project, 'src/deep/nested/data.bin', 'changed')
    const changed = await a.snapshot(project)
    expect(new Set(objects.putIds)).toEqual(
      new Set([
        changed.tree,
        gitObjectId('blob', Buffer.from('changed')),
        ...(await treesOnPath(a, changed.tree, ['src', 'src/deep', 'src/deep/nested'])),
      ]),
    )
    expect(objects.putIds).toHaveLength(5)
  })

  it('the undo and after trees of a restore, and a worktree’s tree, are in the store when they return', async () => {
    const { objects, a, b, project } = twoMachines()
    const before = await a.snapshot(project)
    write(project, 'src/index.ts', 'export const x = 3\n')
    const after = await a.snapshot(project)
    const result = await a.restoreTree({ cwd: project, tree: before.tree, paths: ['src/index.ts'] })
    for (const tree of [result.undoTree, result.snapshot.tree, after.tree])
      expect(objects.objects.has(tree)).toBe(true)
    // B undoes nothing of A's, but can read every tree A's restore recorded.
    expect((await b.readFile(result.undoTree, 'src/index.ts'))?.toString()).toBe('export const x = 3\n')
    const fork = await a.createWorktree({ cwd: project, tree: null, sessionId: 'fork-a' })
    expect(objects.objects.has(fork.tree)).toBe(true)
  })

  it('the turn-start comparison on B works against a tree A took, fetched for it', async () => {
    const { root, a, b, project } = twoMachines()
    const since = await a.snapshot(project)
    // The same project checked out on B, with one file changed there between turns.
    const clone = path.join(root, 'clone')
    cpSync(project, clone, { recursive: true, verbatimSymlinks: true })
    write(clone, 'src/index.ts', 'export const x = 42\n')
    const start = await b.snapshotTurnStart(clone, since.tree)
    expect(start?.outside).toEqual(['src/index.ts'])
    expect(start?.changed).toEqual([])
  })

  it('B restores a path of its checkout to the content of a tree A took', async () => {
    const { root, a, b, project } = twoMachines()
    const taken = await a.snapshot(project)
    const clone = path.join(root, 'clone')
    cpSync(project, clone, { recursive: true, verbatimSymlinks: true })
    write(clone, 'src/index.ts', 'edited on B\n')
    const result = await b.restoreTree({ cwd: clone, tree: taken.tree, paths: ['src/index.ts'] })
    expect(result.restored).toEqual(['src/index.ts'])
    expect(readFileSync(path.join(clone, 'src/index.ts'), 'utf8')).toBe('export const x = 1\n')
    expect(result.snapshot.tree).toBe(taken.tree)
  })

  it('refuses an object whose content does not hash to its id, writing nothing of the tree', async () => {
    const { objects, a, b, project } = twoMachines()
    const taken = await a.snapshot(project)
    const readme = gitObjectId('blob', Buffer.from('# app\n'))
    // A hostile database: README.md's id now holds other content.
    objects.objects.set(readme, { id: readme, type: 'blob', data: Buffer.from('rm -rf /\n') })
    await expect(b.ensureTrees([taken.tree])).rejects.toMatchObject({ code: 'snapshot-unavailable' })
    expect(await b.repository.hasTree(taken.tree)).toBe(false)
    const planted = await b.repository.git(['cat-file', '-e', readme], { allowedExitCodes: [1, 128] })
    expect(planted.exitCode).not.toBe(0)
    await expect(
      b.createWorktree({ cwd: null, tree: taken.tree, sessionId: 'hostile' }),
    ).rejects.toMatchObject({
      code: 'snapshot-unavailable',
    })
    // A blob offered as the tree of that id is refused too.
    objects.objects.set(taken.tree, { id: taken.tree, type: 'blob', data: Buffer.from('x') })
    await expect(b.ensureTrees([taken.tree])).rejects.toMatchObject({ code: 'snapshot-unavailable' })
  })

  it('a tree in neither place is the usual snapshot-unavailable', async () => {
    const { b } = twoMachines()
    const unknown = 'a'.repeat(40)
    await b.ensureTrees([unknown])
    await expect(b.diffTrees(null, unknown)).rejects.toMatchObject({
      code: 'snapshot-unavailable',
      data: { trees: [unknown] },
    })
  })
})

describe('FileState without snapshot objects (the JSONL engine)', () => {
  it('keeps trees in its own shadow repository: another home still cannot read them', async () => {
    const { root, project } = twoMachines()
    const a = new FileState({ home: path.join(root, 'home-a') })
    const b = new FileState({ home: path.join(root, 'home-b') })
    const taken = await a.snapshot(project)
    await b.ensureTrees([taken.tree])
    await b.repository.ensure()
    expect(await b.repository.hasTree(taken.tree)).toBe(false)
    await expect(b.diffTrees(null, taken.tree)).rejects.toMatchObject({ code: 'snapshot-unavailable' })
    const gc = await a.gc()
    expect(gc.objects).toBeUndefined()
  })
})

async function treesOnPath(files: FileState, tree: string, paths: readonly string[]): Promise<string[]> {
  const ids: string[] = []
  for (const relative of paths) {
    const result = await files.repository.git(['rev-parse', `${tree}:${relative}`])
    ids.push(result.stdout.toString('utf8').trim())
  }
  return ids
}
