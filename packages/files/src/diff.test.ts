import { chmodSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { TempDirectories, write } from './fixture.test-helper.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

describe('FileState.diffTrees', () => {
  it('reports added, deleted and modified files with unified patches', async () => {
    const root = temps.make()
    const files = new FileState({ home: path.join(root, 'home') })
    const cwd = path.join(root, 'project')
    write(cwd, 'edit.txt', 'one\ntwo\nthree\n')
    write(cwd, 'gone.txt', 'bye\n')
    const before = await files.snapshot(cwd)
    write(cwd, 'edit.txt', 'one\nTWO\nthree\n')
    write(cwd, 'dir/new.txt', 'hello\n')
    rmSync(path.join(cwd, 'gone.txt'))
    const after = await files.snapshot(cwd)

    const diffs = await files.diffTrees(before.tree, after.tree)
    expect(diffs.map(({ path, status }) => ({ path, status }))).toEqual([
      { path: 'dir/new.txt', status: 'added' },
      { path: 'edit.txt', status: 'modified' },
      { path: 'gone.txt', status: 'deleted' },
    ])
    const edit = diffs[1]?.patch ?? ''
    expect(edit).toMatch(/^diff --git a\/edit.txt b\/edit.txt\n/)
    expect(edit).toContain('--- a/edit.txt\n+++ b/edit.txt\n')
    expect(edit).toContain('-two\n+TWO\n')
    expect(diffs[0]?.patch).toContain('+hello\n')
    expect(diffs[2]?.patch).toContain('-bye\n')

    expect(await files.diffTrees(after.tree, after.tree)).toEqual([])
    expect((await files.diffTrees(null, before.tree)).map((d) => d.status)).toEqual(['added', 'added'])
  })

  it('reports a file that became a symlink, and a mode change, as modified', async () => {
    const root = temps.make()
    const files = new FileState({ home: path.join(root, 'home') })
    const cwd = path.join(root, 'project')
    write(cwd, 'link', 'a file first\n')
    write(cwd, 'script.sh', 'echo hi\n')
    const before = await files.snapshot(cwd)
    rmSync(path.join(cwd, 'link'))
    symlinkSync('script.sh', path.join(cwd, 'link'))
    chmodSync(path.join(cwd, 'script.sh'), 0o755)
    const after = await files.snapshot(cwd)
    const diffs = await files.diffTrees(before.tree, after.tree)
    expect(diffs.map(({ path, status }) => ({ path, status }))).toEqual([
      { path: 'link', status: 'modified' },
      { path: 'script.sh', status: 'modified' },
    ])
    expect(diffs[0]?.patch).toContain('-a file first')
    expect(diffs[0]?.patch).toContain('+script.sh')
    expect(diffs[1]?.patch).toContain('new mode 100755')
  })

  it('compares trees of different directories of the same home', async () => {
    const root = temps.make()
    const files = new FileState({ home: path.join(root, 'home') })
    write(path.join(root, 'left'), 'same.txt', 'same\n')
    write(path.join(root, 'left'), 'f.txt', 'left\n')
    write(path.join(root, 'right'), 'same.txt', 'same\n')
    write(path.join(root, 'right'), 'f.txt', 'right\n')
    const diffs = await files.diffDirectories(path.join(root, 'left'), path.join(root, 'right'))
    expect(diffs).toHaveLength(1)
    expect(diffs[0]?.patch).toContain('-left\n+right\n')
  })

  it('throws snapshot-unavailable for a tree the store does not hold', async () => {
    const root = temps.make()
    const files = new FileState({ home: path.join(root, 'home') })
    await expect(files.diffTrees(null, '0123456789012345678901234567890123456789')).rejects.toSatisfy(
      (error) => TangentError.hasCode(error, 'snapshot-unavailable'),
    )
  })
})
