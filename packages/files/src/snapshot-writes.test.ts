// The step snapshot that stages only the files the step's tools named (FileState.snapshotAfterWrites,
// snapshot.ts snapshotWrites): what it books, what it leaves to the next turn's start, and each
// case where it must fall back to the full walk.
import { symlinkSync, unlinkSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { git, makeRepository, TempDirectories, write } from './fixture.test-helper.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

async function start(options: { maxFileBytes?: number; repository?: boolean } = {}) {
  const root = temps.make()
  const files = new FileState({ home: path.join(root, 'home'), maxFileBytes: options.maxFileBytes })
  const cwd = path.join(root, 'project')
  if (options.repository) makeRepository(cwd, { 'a.txt': 'a\n', '.gitignore': 'ignored/\n' })
  else {
    write(cwd, 'a.txt', 'a\n')
    write(cwd, '.gitignore', 'ignored/\n')
  }
  const first = await files.snapshot(cwd)
  return { files, cwd, since: { tree: first.tree, skipped: first.skipped } }
}

async function treeFiles(files: FileState, tree: string): Promise<string[]> {
  const listing = await files.repository.git(['ls-tree', '-r', '--name-only', '-z', tree])
  return listing.stdout.toString('utf8').split('\0').filter(Boolean)
}

describe('FileState.snapshotAfterWrites', () => {
  it('books the named files only: a change made beside them is left for the next full snapshot', async () => {
    for (const repository of [false, true]) {
      const { files, cwd, since } = await start({ repository })
      write(cwd, 'agent.txt', 'by the agent\n')
      write(cwd, 'a.txt', 'by the person\n')
      const step = await files.snapshotAfterWrites(cwd, ['agent.txt'], since)
      expect(step.changed).toEqual(['agent.txt'])
      expect(await treeFiles(files, step.tree)).toEqual(['.gitignore', 'a.txt', 'agent.txt'])
      const blob = await files.repository.git(['rev-parse', `${step.tree}:a.txt`])
      const original = await files.repository.git(['rev-parse', `${since.tree}:a.txt`])
      expect(blob.stdout.toString()).toBe(original.stdout.toString())
      // The next full snapshot (a turn's start) finds the person's change, and only it.
      const next = await files.snapshot(cwd)
      expect(next.changed).toEqual(['a.txt'])
    }
  })

  it('a step that wrote nothing keeps the tree without reading the directory', async () => {
    const { files, cwd, since } = await start()
    write(cwd, 'a.txt', 'changed beside a read-only step\n')
    const step = await files.snapshotAfterWrites(cwd, [], since)
    expect(step).toEqual({ tree: since.tree, changed: [], skipped: [] })
    expect((await files.snapshot(cwd)).changed).toEqual(['a.txt'])
  })

  it('an edit that restores a file to its snapshot content books nothing; a rewrite of an existing file is modified', async () => {
    const { files, cwd, since } = await start()
    write(cwd, 'a.txt', 'a\n')
    expect((await files.snapshotAfterWrites(cwd, ['a.txt'], since)).changed).toEqual([])
    write(cwd, 'a.txt', 'a2\n')
    const step = await files.snapshotAfterWrites(cwd, ['a.txt', 'a.txt'], since)
    expect(step.changed).toEqual(['a.txt'])
  })

  it('walks the whole tree when staging the named files alone would be wrong', async () => {
    const cases: [string, (cwd: string) => string[]][] = [
      [
        'an ignored file',
        (cwd) => {
          write(cwd, 'ignored/x.txt', 'x\n')
          return ['ignored/x.txt']
        },
      ],
      [
        'a file over the size limit',
        (cwd) => {
          write(cwd, 'big.bin', 'x'.repeat(64))
          return ['big.bin']
        },
      ],
      ['a name that never existed', () => ['nowhere.txt']],
      ['a path leaving the folder', () => ['../outside.txt']],
      ['an absolute path', () => ['/etc/passwd']],
      [
        'a path beyond a link to a folder outside',
        (cwd) => {
          write(path.dirname(cwd), 'elsewhere/x.txt', 'outside\n')
          symlinkSync(path.join(path.dirname(cwd), 'elsewhere'), path.join(cwd, 'out'))
          return ['out/x.txt']
        },
      ],
      [
        'a path in git metadata',
        (cwd) => {
          write(cwd, '.git/hooks/post-commit', 'echo pwned\n')
          return ['.git/hooks/post-commit']
        },
      ],
      [
        'a folder',
        (cwd) => {
          write(cwd, 'dir/inner.txt', 'i\n')
          return ['dir']
        },
      ],
    ]
    for (const [what, act] of cases) {
      const { files, cwd, since } = await start({ maxFileBytes: 32 })
      write(cwd, 'beside.txt', 'made beside the step\n')
      const named = act(cwd)
      const step = await files.snapshotAfterWrites(cwd, named, since)
      // The full walk ran: it found the file made beside the step too.
      expect(step.changed, what).toContain('beside.txt')
      expect(await treeFiles(files, step.tree), what).not.toContain('ignored/x.txt')
      expect(await treeFiles(files, step.tree), what).not.toContain('big.bin')
      // Nothing through the link, from git's metadata or from outside the folder.
      expect(
        (await treeFiles(files, step.tree)).filter((file) => /^(out|\.git|etc)\//.test(file)),
        what,
      ).toEqual([])
    }
  })

  it('walks the whole tree when the session is not the directory’s latest writer', async () => {
    const { files, cwd, since } = await start()
    write(cwd, 'other.txt', 'another session snapshotted this\n')
    await files.snapshot(cwd) // another session's snapshot moved the directory's ref
    write(cwd, 'agent.txt', 'by the agent\n')
    write(cwd, 'beside.txt', 'beside\n')
    const step = await files.snapshotAfterWrites(cwd, ['agent.txt'], since)
    expect(step.changed).toEqual(['agent.txt', 'beside.txt'])
    expect(await files.snapshotAfterWrites(cwd, ['agent.txt'], null)).toEqual({
      tree: step.tree,
      changed: [],
      skipped: [],
    })
  })

  it('never stages a named path inside the data directory when it lies in the folder', async () => {
    const root = temps.make()
    const cwd = path.join(root, 'project')
    write(cwd, 'a.txt', 'a\n')
    const files = new FileState({ home: path.join(cwd, '.tangent') })
    const first = await files.snapshot(cwd)
    write(cwd, '.tangent/planted.txt', 'planted\n')
    write(cwd, 'beside.txt', 'beside\n')
    const step = await files.snapshotAfterWrites(cwd, ['.tangent/planted.txt'], {
      tree: first.tree,
      skipped: first.skipped,
    })
    // The full walk ran instead (it found beside.txt) and left the data directory out.
    expect(step.changed).toEqual(['beside.txt'])
    expect(await treeFiles(files, step.tree)).toEqual(['a.txt', 'beside.txt'])
  })

  it('stages a link the tool replaced, and a tracked file removed', async () => {
    const { files, cwd, since } = await start({ repository: true })
    symlinkSync('a.txt', path.join(cwd, 'link'))
    unlinkSync(path.join(cwd, 'a.txt'))
    const step = await files.snapshotAfterWrites(cwd, ['link', 'a.txt'], since)
    expect(step.changed).toEqual(['a.txt', 'link'])
    expect(await treeFiles(files, step.tree)).toEqual(['.gitignore', 'link'])
    expect(git(cwd, 'status', '--porcelain')).toContain('a.txt') // the user's repository untouched
  })
})
