// The step snapshot that reads only the files the step's tools named (FileState.snapshotAfterWrites,
// snapshot.ts snapshotChanges): what it books, what it leaves to the next turn's start, the walk's
// rules applied to the named paths alone, and each case where it must fall back to the full walk.
import { rmSync, symlinkSync, unlinkSync } from 'node:fs'
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

  it('applies the walk’s rules to a named path it cannot stage as it is, without walking the rest: the tree a full walk gives', async () => {
    // Before, each of these walked the whole tree (then booking beside.txt to the step). Now the
    // named path alone is staged or walked (snapshot.ts snapshotChanges, as at a watched turn's
    // start), the rest is the previous tree — and the tree must be the one a full walk gives.
    const cases: {
      what: string
      /** Made before the session's latest snapshot. */
      before?: (cwd: string) => void
      act: (cwd: string) => string[]
      changed: string[]
      skipped: string[]
    }[] = [
      {
        what: 'an ignored file (git refuses it by name: left out, as the walk leaves it)',
        act: (cwd) => {
          write(cwd, 'ignored/x.txt', 'x\n')
          return ['ignored/x.txt']
        },
        changed: [],
        skipped: [],
      },
      {
        what: 'a file over the size limit (the walk of that path skips it)',
        act: (cwd) => {
          write(cwd, 'big.bin', 'x'.repeat(64))
          return ['big.bin']
        },
        changed: [],
        skipped: ['big.bin'],
      },
      {
        what: 'a name that never existed (nothing to stage)',
        act: () => ['nowhere.txt'],
        changed: [],
        skipped: [],
      },
      {
        what: 'a folder (the walk of that folder stages what is in it)',
        act: (cwd) => {
          write(cwd, 'dir/inner.txt', 'i\n')
          return ['dir']
        },
        changed: ['dir/inner.txt'],
        skipped: [],
      },
      {
        what: 'a path beyond a link to a folder outside (git refuses it; the walk of it finds nothing)',
        before: (cwd) => {
          write(path.dirname(cwd), 'elsewhere/x.txt', 'outside\n')
          symlinkSync(path.join(path.dirname(cwd), 'elsewhere'), path.join(cwd, 'out'))
        },
        act: (cwd) => {
          write(cwd, 'out/x.txt', 'written through the link\n')
          return ['out/x.txt']
        },
        changed: [],
        skipped: [],
      },
      {
        what: 'a file in a nested repository made in the step (the walk of its folder skips it whole)',
        act: (cwd) => {
          write(cwd, 'sub/f.txt', 'nested\n')
          git(path.join(cwd, 'sub'), 'init', '-q')
          return ['sub/f.txt']
        },
        changed: [],
        skipped: ['sub/'],
      },
      {
        what: 'a file in a nested repository skipped before',
        before: (cwd) => {
          write(cwd, 'sub/f.txt', 'nested\n')
          git(path.join(cwd, 'sub'), 'init', '-q')
        },
        act: (cwd) => {
          write(cwd, 'sub/g.txt', 'nested too\n')
          return ['sub/g.txt']
        },
        changed: [],
        skipped: ['sub/'],
      },
    ]
    for (const { what, before, act, changed, skipped } of cases) {
      const root = temps.make()
      const cwd = path.join(root, 'project')
      write(cwd, 'a.txt', 'a\n')
      write(cwd, '.gitignore', 'ignored/\n')
      before?.(cwd)
      const files = new FileState({ home: path.join(root, 'home'), maxFileBytes: 32 })
      const first = await files.snapshot(cwd)
      write(cwd, 'beside.txt', 'made beside the step\n')
      const step = await files.snapshotAfterWrites(cwd, act(cwd), {
        tree: first.tree,
        skipped: first.skipped,
      })
      // No full walk: the file made beside the step is not booked to it.
      expect(step.changed, what).toEqual(changed)
      expect(step.skipped, what).toEqual(skipped)
      const listed = await treeFiles(files, step.tree)
      expect(listed, what).not.toContain('beside.txt')
      expect(listed, what).not.toContain('ignored/x.txt')
      expect(listed, what).not.toContain('big.bin')
      // Nothing through the link, from git's metadata, from a nested repository or from outside.
      expect(
        listed.filter((file) => /^(out|\.git|sub|etc)\//.test(file)),
        what,
      ).toEqual([])
      // Without the file made beside, a full walk by a FileState that takes no shortcut (a store
      // of its own) gives the very same tree and skipped paths; and this one's next walk finds
      // nothing the step left out.
      unlinkSync(path.join(cwd, 'beside.txt'))
      const walked = await new FileState({ home: path.join(root, 'other-home'), maxFileBytes: 32 }).snapshot(
        cwd,
      )
      expect({ tree: step.tree, skipped: step.skipped }, what).toEqual({
        tree: walked.tree,
        skipped: walked.skipped,
      })
      expect(await files.snapshot(cwd), what).toEqual({ tree: step.tree, changed: [], skipped: step.skipped })
    }
  })

  it('a tracked file is staged as git add would, and one whose folder became a link stages nothing from beyond it', async () => {
    for (const repository of [false, true]) {
      const { files, cwd, since } = await start({ repository })
      write(cwd, 'd/f.txt', 'tracked\n')
      const tracked = await files.snapshotAfterWrites(cwd, ['d/f.txt'], since)
      expect(tracked.changed).toEqual(['d/f.txt'])
      // Edited: the index holds it, so update-index stages it (the fast way); same tree as a walk.
      write(cwd, 'd/f.txt', 'edited\n')
      const edited = await files.snapshotAfterWrites(cwd, ['d/f.txt'], { tree: tracked.tree, skipped: [] })
      expect(edited.changed).toEqual(['d/f.txt'])
      const blob = await files.repository.git(['cat-file', 'blob', `${edited.tree}:d/f.txt`])
      expect(blob.stdout.toString('utf8')).toBe('edited\n')
      // Its folder replaced by a link to a folder outside holding a file of that name: git refuses
      // the path as beyond a link, and no byte from outside reaches the tree.
      const outside = path.join(path.dirname(cwd), `outside-${String(repository)}`)
      write(outside, 'f.txt', 'outside secret\n')
      rmSync(path.join(cwd, 'd'), { recursive: true })
      symlinkSync(outside, path.join(cwd, 'd'))
      const linked = await files.snapshotAfterWrites(cwd, ['d/f.txt'], { tree: edited.tree, skipped: [] })
      const listing = await files.repository.git(['ls-tree', '-r', '-z', linked.tree])
      const blobs = listing.stdout
        .toString('utf8')
        .split('\0')
        .filter(Boolean)
        .map((line) => line.split(/\s/)[2] as string)
      for (const id of blobs) {
        const content = await files.repository.git(['cat-file', '-p', id])
        expect(content.stdout.toString('utf8')).not.toContain('outside secret')
      }
    }
  })

  it('walks the whole tree for a name that is not a path in the folder to stage', async () => {
    const cases: [string, (cwd: string) => string[]][] = [
      ['a path leaving the folder', () => ['../outside.txt']],
      ['an absolute path', () => ['/etc/passwd']],
      [
        'a path in git metadata',
        (cwd) => {
          write(cwd, '.git/hooks/post-commit', 'echo pwned\n')
          return ['.git/hooks/post-commit']
        },
      ],
      ['the folder itself', () => ['.']],
      [
        'a name with an empty part',
        (cwd) => {
          write(cwd, 'd/x.txt', 'x\n')
          return ['d//x.txt']
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
      // Nothing from git's metadata or from outside the folder.
      expect(
        (await treeFiles(files, step.tree)).filter((file) => /^(\.git|etc)\//.test(file)),
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
