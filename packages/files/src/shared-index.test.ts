// Split private indexes (shared-index.ts): the `link` extension read from indexes real git wrote
// in each version, snapshots that stay the same whether the index is split or not, the sweep of
// shared indexes no index names, git never expiring one an idle folder still needs, and a
// private index git cannot read (corrupt, or its shared index gone) rebuilt by the next snapshot.
import { execFileSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { resolveDirectory } from './directory.js'
import { FileState } from './file-state.js'
import { git, makeRepository, TempDirectories, write } from './fixture.test-helper.js'
import { sharedIndexOf, sweepSharedIndexes } from './shared-index.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

const sharedIn = (gitDir: string) => readdirSync(gitDir).filter((name) => name.startsWith('sharedindex.'))

function indexOf(root: string): Buffer {
  return readFileSync(path.join(root, '.git', 'index'))
}

function ago(file: string, ms: number): void {
  const when = new Date(Date.now() - ms)
  utimesSync(file, when, when)
}

const hour = 60 * 60 * 1000

/** A FileState whose private indexes are split from the first write (the threshold is 1 byte). */
function splitting(home: string) {
  return new FileState({ home, splitIndexBytes: 1 })
}

async function privateIndex(files: FileState, cwd: string): Promise<string> {
  return (await resolveDirectory(files.repository, cwd)).indexFile
}

/** A two-file project whose private index is split: snapshotted, a.txt edited, snapshotted again. */
async function splitProject() {
  const root = temps.make()
  const cwd = path.join(root, 'project')
  makeRepository(cwd, { 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const files = splitting(path.join(root, 'home'))
  await files.snapshot(cwd)
  write(cwd, 'a.txt', 'edited\n')
  return { root, cwd, files, edited: await files.snapshot(cwd) }
}

describe('sharedIndexOf', () => {
  it('reads the shared index a split index names, in index versions 2, 3 and 4', async () => {
    for (const version of ['2', '3', '4']) {
      const root = temps.make()
      // Names of many lengths (v2/v3 pad each entry to eight bytes), one long one, and in v3 an
      // entry with extended flags (intent to add).
      const files: Record<string, string> = { 'a.txt': 'a\n', '.gitignore': 'x\n' }
      for (let i = 0; i < 12; i++) files[`${'d'.repeat(i)}/f${'n'.repeat(i)}.ts`] = `${i}\n`
      files[`${'long/'.repeat(60)}name.txt`] = 'long\n'
      makeRepository(root, files)
      write(root, 'added-later.txt', 'later\n')
      git(root, 'add', '-N', 'added-later.txt')
      git(root, 'update-index', '--index-version', version)
      expect(await sharedIndexOf(indexOf(root))).toBeNull()
      git(root, '-c', 'splitIndex.sharedIndexExpire=never', 'update-index', '--split-index')
      const shared = sharedIn(path.join(root, '.git'))
      expect(shared).toHaveLength(1)
      expect(`sharedindex.${await sharedIndexOf(indexOf(root))}`).toBe(shared[0])
      // The shared index itself is a whole index, not split.
      expect(await sharedIndexOf(readFileSync(path.join(root, '.git', shared[0]!)))).toBeNull()
      // A split index with entries of its own (a file changed since the split).
      write(root, 'a.txt', 'changed\n')
      git(root, 'add', 'a.txt')
      expect(`sharedindex.${await sharedIndexOf(indexOf(root))}`).toBe(shared[0])
    }
  })

  it('reads an index holding the same path three times (a merge conflict: v4 names with nothing new)', async () => {
    const root = temps.make()
    makeRepository(root, { 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const blob = git(root, 'rev-parse', 'HEAD:a.txt').trim()
    git(root, 'update-index', '--index-version', '4')
    execFileSync('git', ['update-index', '--index-info'], {
      cwd: root,
      input: `0 ${'0'.repeat(40)}\ta.txt\n${[1, 2, 3].map((stage) => `100644 ${blob} ${stage}\ta.txt\n`).join('')}`,
    })
    expect(git(root, 'ls-files', '--stage', 'a.txt').trim().split('\n')).toHaveLength(3)
    git(root, '-c', 'splitIndex.sharedIndexExpire=never', 'update-index', '--split-index')
    expect(`sharedindex.${await sharedIndexOf(indexOf(root))}`).toBe(sharedIn(path.join(root, '.git'))[0])
  })

  it('says it cannot tell for bytes that are not an index it knows', async () => {
    const root = temps.make()
    makeRepository(root, { 'a.txt': 'a\n' })
    const index = indexOf(root)
    expect(await sharedIndexOf(Buffer.from('not an index at all, but long enough to read'))).toBeUndefined()
    expect(await sharedIndexOf(index.subarray(0, index.length - 30))).toBeUndefined()
    const otherVersion = Buffer.from(index)
    otherVersion.writeUInt32BE(5, 4)
    expect(await sharedIndexOf(otherVersion)).toBeUndefined()
    const tooManyEntries = Buffer.from(index)
    tooManyEntries.writeUInt32BE(1000, 8)
    expect(await sharedIndexOf(tooManyEntries)).toBeUndefined()
  })
})

describe('split private indexes', () => {
  it('give the same trees as whole ones, through edits, additions, removals and named writes', async () => {
    const root = temps.make()
    const cwd = path.join(root, 'project')
    makeRepository(cwd, { 'a.txt': 'a\n', 'dir/b.txt': 'b\n', 'dir/c.txt': 'c\n' })
    const split = splitting(path.join(root, 'split-home'))
    const whole = new FileState({ home: path.join(root, 'whole-home') })
    const both = async () => {
      const [one, two] = [await split.snapshot(cwd), await whole.snapshot(cwd)]
      expect(one.tree).toBe(two.tree)
      expect(one.changed).toEqual(two.changed)
      return one
    }
    const first = await both()
    write(cwd, 'a.txt', 'edited\n')
    write(cwd, 'new/d.txt', 'd\n')
    rmSync(path.join(cwd, 'dir', 'b.txt'))
    expect((await both()).changed).toEqual(['a.txt', 'dir/b.txt', 'new/d.txt'])
    const index = await privateIndex(split, cwd)
    const named = await sharedIndexOf(readFileSync(index))
    expect(named).toMatch(/^[0-9a-f]{40}$/)
    expect(sharedIn(split.repository.gitDir)).toContain(`sharedindex.${named}`)
    // Private like the rest of the store: it holds every path and blob id of the project.
    expect(statSync(path.join(split.repository.gitDir, `sharedindex.${named}`)).mode & 0o777).toBe(0o600)
    // The whole index stays whole under the default threshold.
    expect(await sharedIndexOf(readFileSync(await privateIndex(whole, cwd)))).toBeNull()
    // A tool's named write, staged without a walk.
    const since = await split.snapshot(cwd)
    write(cwd, 'dir/c.txt', 'written by a tool\n')
    const step = await split.snapshotAfterWrites(cwd, ['dir/c.txt'], { tree: since.tree, skipped: [] })
    expect(step.changed).toEqual(['dir/c.txt'])
    expect(step.tree).toBe((await whole.snapshot(cwd)).tree)
    expect(step.tree).not.toBe(first.tree)
  })

  it('git never expires the shared index of a folder left idle while another folder writes a new one', async () => {
    const root = temps.make()
    const idle = path.join(root, 'idle')
    const busy = path.join(root, 'busy')
    makeRepository(idle, { 'a.txt': 'a\n', 'b.txt': 'b\n' })
    makeRepository(busy, { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' })
    const files = splitting(path.join(root, 'home'))
    await files.snapshot(idle)
    write(idle, 'a.txt', 'idle edit\n')
    const idleTree = (await files.snapshot(idle)).tree
    const idleShared = `sharedindex.${await sharedIndexOf(readFileSync(await privateIndex(files, idle)))}`
    // Three weeks untouched: past git's default expiry (two weeks).
    ago(path.join(files.repository.gitDir, idleShared), 21 * 24 * hour)
    await files.snapshot(busy)
    for (let i = 0; i < 3; i++) {
      write(busy, 'a.txt', `busy ${i}\n`)
      write(busy, 'b.txt', `busy ${i}\n`)
      await files.snapshot(busy)
    }
    const busyShared = `sharedindex.${await sharedIndexOf(readFileSync(await privateIndex(files, busy)))}`
    expect(busyShared).not.toBe(idleShared)
    expect(sharedIn(files.repository.gitDir)).toContain(idleShared)
    // The idle folder's index still reads as it was: nothing changed, the same tree.
    const again = await files.snapshot(idle)
    expect(again).toMatchObject({ tree: idleTree, changed: [] })
    expect(`sharedindex.${await sharedIndexOf(readFileSync(await privateIndex(files, idle)))}`).toBe(
      idleShared,
    )
  })

  it('gc removes the shared indexes no index names once an hour old, and keeps every named one', async () => {
    const { cwd, files, edited } = await splitProject()
    const tree = edited.tree
    const gitDir = files.repository.gitDir
    const named = `sharedindex.${await sharedIndexOf(readFileSync(await privateIndex(files, cwd)))}`
    const oldUnnamed = `sharedindex.${'1'.repeat(40)}`
    const newUnnamed = `sharedindex.${'2'.repeat(40)}`
    const oldTemporary = 'sharedindex_Ab12Cd'
    for (const name of [oldUnnamed, newUnnamed, oldTemporary]) {
      copyFileSync(path.join(gitDir, named), path.join(gitDir, name))
    }
    for (const name of [named, oldUnnamed, oldTemporary]) ago(path.join(gitDir, name), 2 * hour)
    await files.gc()
    expect(sharedIn(gitDir).sort()).toEqual([named, newUnnamed].sort())
    expect(existsSync(path.join(gitDir, oldTemporary))).toBe(false)
    // The folder's index still reads: the next snapshot finds nothing changed.
    expect(await files.snapshot(cwd)).toMatchObject({ tree, changed: [] })
  })

  it('the sweep removes nothing while an index file cannot be read as one', async () => {
    const { files } = await splitProject()
    const gitDir = files.repository.gitDir
    const unnamed = `sharedindex.${'3'.repeat(40)}`
    writeFileSync(path.join(gitDir, unnamed), 'old\n')
    ago(path.join(gitDir, unnamed), 2 * hour)
    writeFileSync(
      path.join(files.repository.indexDirectory, 'unknown'),
      'not an index, so it could name any\n',
    )
    expect(await sweepSharedIndexes(gitDir, [files.repository.indexDirectory])).toEqual([])
    expect(sharedIn(gitDir)).toContain(unnamed)
    rmSync(path.join(files.repository.indexDirectory, 'unknown'))
    expect(await sweepSharedIndexes(gitDir, [files.repository.indexDirectory])).toEqual([unnamed])
  })
})

describe('a private index git cannot read', () => {
  const cases = [
    {
      name: 'its shared index gone',
      spoil: async (index: string, gitDir: string) => {
        const named = await sharedIndexOf(readFileSync(index))
        expect(named).toMatch(/^[0-9a-f]{40}$/)
        rmSync(path.join(gitDir, `sharedindex.${named}`))
      },
    },
    {
      name: 'corrupt',
      spoil: async (index: string) => writeFileSync(index, Buffer.alloc(4096, 7)),
    },
  ]
  for (const { name, spoil } of cases) {
    it(`is rebuilt by the next snapshot (${name}), which books what changed since the last one`, async () => {
      for (const step of ['full snapshot', 'named write'] as const) {
        const { root, cwd, files, edited: before } = await splitProject()
        await spoil(await privateIndex(files, cwd), files.repository.gitDir)
        write(cwd, 'b.txt', 'edited after\n')
        const after =
          step === 'full snapshot'
            ? await files.snapshot(cwd)
            : await files.snapshotAfterWrites(cwd, ['b.txt'], { tree: before.tree, skipped: [] })
        expect(after.changed).toEqual(['b.txt'])
        const fresh = await new FileState({ home: path.join(root, 'fresh-home') }).snapshot(cwd)
        expect(after.tree).toBe(fresh.tree)
        // And the index works again: nothing changed since.
        expect(await files.snapshot(cwd)).toMatchObject({ tree: after.tree, changed: [] })
      }
    })
  }
})
