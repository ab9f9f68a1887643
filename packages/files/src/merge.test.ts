import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { TempDirectories, write } from './fixture.test-helper.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

const lines = (n: number, change: Record<number, string> = {}) =>
  `${Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n')}\n`

async function setup() {
  const files = new FileState({ home: temps.make() })
  const dir = temps.make()
  const tree = async (content: Record<string, string>) => {
    for (const [file, text] of Object.entries(content)) write(dir, file, text)
    return (await files.snapshot(dir)).tree
  }
  return { files, tree }
}

describe('mergeTrees', () => {
  it('brings a branch’s changes over its parent’s own changes when they touch other lines or files', async () => {
    const { files, tree } = await setup()
    const base = await tree({ 'a.txt': lines(20), 'b.txt': 'b\n' })
    const ours = await tree({ 'a.txt': lines(20, { 2: 'parent edit' }), 'c.txt': 'parent file\n' })
    const theirs = await tree({
      'a.txt': lines(20, { 18: 'branch edit' }),
      'b.txt': 'branch b\n',
      'c.txt': 'parent file\n',
    })
    const merged = await files.mergeTrees({ base, ours, theirs })
    expect(merged.conflicts).toEqual([])
    expect(merged.changed.sort()).toEqual(['a.txt', 'b.txt'])
    expect((await files.readFile(merged.tree, 'a.txt'))!.toString()).toBe(
      lines(20, { 2: 'parent edit', 18: 'branch edit' }),
    )
    expect((await files.readFile(merged.tree, 'b.txt'))!.toString()).toBe('branch b\n')
    expect(await files.readFile(merged.tree, 'missing.txt')).toBeNull()
  })

  it('reports a conflict when both sides changed the same lines, and changes nothing', async () => {
    const { files, tree } = await setup()
    const base = await tree({ 'a.txt': lines(5) })
    const ours = await tree({ 'a.txt': lines(5, { 3: 'parent' }) })
    const theirs = await tree({ 'a.txt': lines(5, { 3: 'branch' }) })
    const merged = await files.mergeTrees({ base, ours, theirs })
    expect(merged.conflicts).toEqual(['a.txt'])
    expect(merged.changed).toEqual([])
  })

  it('is the branch’s tree when the parent did not move, and the parent’s when the branch changed nothing', async () => {
    const { files, tree } = await setup()
    const base = await tree({ 'a.txt': 'a\n' })
    const theirs = await tree({ 'a.txt': 'b\n' })
    expect(await files.mergeTrees({ base, ours: base, theirs })).toEqual({
      tree: theirs,
      conflicts: [],
      changed: ['a.txt'],
    })
    expect(await files.mergeTrees({ base, ours: theirs, theirs: base })).toEqual({
      tree: theirs,
      conflicts: [],
      changed: [],
    })
  })
})
