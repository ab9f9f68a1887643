// Folders watched between snapshots (docs/architecture.md §5): a turn's start snapshot reads only
// what the watch saw change, and must give the tree a full walk gives — whatever happened in the
// folder meanwhile (new trees, renames, links, nested repositories, ignore rules, floods). Each
// case compares with a walk by a second FileState that does not watch, and says whether the watch
// was used: real folders, real git, real inotify.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { makeRepository, TempDirectories, write } from './fixture.test-helper.js'
import { FolderWatch, WatchBarrier } from './folder-watch.js'

const temps = new TempDirectories()
const open: FileState[] = []
afterEach(() => {
  for (const files of open.splice(0)) files.close()
  temps.removeAll()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Watched {
  root: string
  cwd: string
  files: FileState
  /** Full walks (a `diff-files` of the whole folder) since the last call. */
  walks: () => number
  tree: string
}

/**
 * A repository, a watching FileState that has taken a session's first turn (two walks: the
 * watch starts after the second), and the turn-start snapshot that takes its first mark.
 */
async function watched(
  files: Record<string, string> = { 'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n', 'top.txt': 't\n' },
  options: { cwdBelow?: string; maxFileBytes?: number } = {},
): Promise<Watched> {
  const root = temps.make()
  const top = makeRepository(path.join(root, 'p'), files)
  const cwd = options.cwdBelow ? path.join(top, options.cwdBelow) : top
  // Ignore rules written just now would (rightly) stop the watch from starting: its listing of
  // ignored folders could be older than them.
  await sleep(150)
  const state = new FileState({
    home: path.join(root, 'home'),
    watch: true,
    ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}),
  })
  open.push(state)
  let walks = 0
  const git = state.repository.git.bind(state.repository)
  state.repository.git = (args, gitOptions) => {
    if (args[0] === 'diff-files' && args.includes('.')) walks++
    return git(args, gitOptions)
  }
  let tree = (await state.snapshotTurnStart(cwd, null))?.tree ?? ''
  tree = (await state.snapshot(cwd)).tree
  expect(await state.watchState(cwd)).toMatchObject({ watching: true, broken: null })
  // The watch's first mark: this walk is the last one.
  tree = (await state.snapshotTurnStart(cwd, tree))?.tree ?? tree
  const result: Watched = {
    root,
    cwd,
    files: state,
    tree,
    walks: () => {
      const counted = walks
      walks = 0
      return counted
    },
  }
  result.walks()
  return result
}

/** The tree a full walk gives of `cwd` (a FileState of its own, which does not watch). */
async function walkedTree(w: Watched): Promise<{ tree: string; skipped: string[] }> {
  const fresh = new FileState({
    home: path.join(w.root, `walk-${Math.random().toString(36).slice(2)}`),
    maxFileBytes: w.files.maxFileBytes,
  })
  const snapshot = await fresh.snapshot(w.cwd)
  return { tree: snapshot.tree, skipped: snapshot.skipped }
}

/** The next turn's start: its tree, `outside`, and whether it walked. */
async function nextTurn(w: Watched) {
  const found = await w.files.snapshotTurnStart(w.cwd, w.tree)
  if (found) w.tree = found.tree
  return { tree: w.tree, outside: found?.outside ?? [], skipped: found?.skipped ?? [], walked: w.walks() }
}

describe('a folder watched between turns', () => {
  it('reads only what changed, and the tree is the one a walk gives', async () => {
    const w = await watched()
    const unchanged = await nextTurn(w)
    expect(unchanged).toMatchObject({ outside: [], walked: 0 })

    write(w.cwd, 'src/a.txt', 'edited by the person\n')
    write(w.cwd, 'src/new/deeper/c.txt', 'a new tree\n')
    rmSync(path.join(w.cwd, 'top.txt'))
    const changed = await nextTurn(w)
    expect(changed.walked).toBe(0)
    expect(changed.outside.sort()).toEqual(['src/a.txt', 'src/new/deeper/c.txt', 'top.txt'])
    expect(changed.tree).toBe((await walkedTree(w)).tree)
  })

  it('sees writes made the moment before the snapshot (the barrier), however many', async () => {
    const w = await watched()
    for (let i = 0; i < 200; i++) write(w.cwd, `src/burst/f${i}.txt`, `${i}\n`)
    const turn = await nextTurn(w)
    expect(turn.walked).toBe(0)
    expect(turn.outside).toHaveLength(200)
    expect(turn.tree).toBe((await walkedTree(w)).tree)
  })

  it('follows folders renamed, replaced and turned into files, and new ones filled at once', async () => {
    const w = await watched({ 'a/x.txt': 'x\n', 'c/y.txt': 'y\n', 'f/z.txt': 'z\n', 'plain.txt': 'p\n' })
    // A folder moved, another moved into its place, then files written in both at once.
    renameSync(path.join(w.cwd, 'a'), path.join(w.cwd, 'b'))
    renameSync(path.join(w.cwd, 'c'), path.join(w.cwd, 'a'))
    write(w.cwd, 'b/x.txt', 'written in the moved folder\n')
    write(w.cwd, 'a/y.txt', 'written in the folder moved into its place\n')
    // A file replaced by a folder, a folder by a file.
    rmSync(path.join(w.cwd, 'plain.txt'))
    write(w.cwd, 'plain.txt/inner.txt', 'now a folder\n')
    rmSync(path.join(w.cwd, 'f'), { recursive: true })
    write(w.cwd, 'f', 'now a file\n')
    const first = await nextTurn(w)
    expect(first.walked).toBe(0)
    expect(first.tree).toBe((await walkedTree(w)).tree)

    // The watches follow the folders' new names: later writes under them are seen too.
    write(w.cwd, 'b/x.txt', 'again, in the moved folder\n')
    write(w.cwd, 'a/y.txt', 'again, in the folder moved into its place\n')
    write(w.cwd, 'plain.txt/inner.txt', 'again, in the new folder\n')
    const second = await nextTurn(w)
    expect(second.walked).toBe(0)
    expect(second.outside.sort()).toEqual(['a/y.txt', 'b/x.txt', 'plain.txt/inner.txt'])
    expect(second.tree).toBe((await walkedTree(w)).tree)
  })

  it('records a link and never what lies beyond it, even when written through it', async () => {
    const w = await watched()
    const outside = temps.make()
    write(outside, 'secret.txt', 'outside the folder\n')
    symlinkSync(outside, path.join(w.cwd, 'link'))
    const linked = await nextTurn(w)
    expect(linked.walked).toBe(0)
    expect(linked.outside).toEqual(['link'])
    // Written through the link: the file is outside the folder, and so is its event.
    writeFileSync(path.join(w.cwd, 'link', 'secret.txt'), 'changed through the link\n')
    const through = await nextTurn(w)
    expect(through).toMatchObject({ outside: [], walked: 0 })
    expect(through.tree).toBe((await walkedTree(w)).tree)
    const listed = execFileSync('git', ['ls-tree', '-r', '--name-only', through.tree], {
      cwd: path.join(w.root, 'home', 'snapshots', 'objects.git'),
      encoding: 'utf8',
    })
    expect(listed).not.toContain('secret.txt')
  })

  it('skips what a walk skips: big files, nested repositories, special files', async () => {
    const w = await watched(undefined, { maxFileBytes: 1024 })
    write(w.cwd, 'big.bin', Buffer.alloc(4096, 1))
    makeRepository(path.join(w.cwd, 'vendor', 'nested'), { 'inside.txt': 'its own\n' })
    execFileSync('mkfifo', [path.join(w.cwd, 'pipe')])
    write(w.cwd, 'notes.txt', 'a file a snapshot takes\n')
    const first = await nextTurn(w)
    expect(first.walked).toBe(0)
    const walked = await walkedTree(w)
    expect(first.tree).toBe(walked.tree)
    expect(first.outside).toEqual(['notes.txt'])
    // Git never lists a FIFO: no snapshot names it, and none opens it (that would block).
    expect(first.skipped).toEqual(['big.bin', 'vendor/nested/'])
    expect(walked.skipped).toEqual(first.skipped)

    // The big file shrinks under the limit: it comes in, the others stay skipped.
    truncateSync(path.join(w.cwd, 'big.bin'), 10)
    write(w.cwd, 'vendor/nested/inside.txt', 'still its own\n')
    const second = await nextTurn(w)
    expect(second.walked).toBe(0)
    expect(second.outside).toEqual(['big.bin'])
    expect(second.skipped).toEqual(['vendor/nested/'])
    expect(second.tree).toBe((await walkedTree(w)).tree)
  })

  it('leaves Tangent’s data directory out when it lies in the folder', async () => {
    const root = temps.make()
    const cwd = makeRepository(path.join(root, 'p'), { 'a.txt': 'a\n' })
    await sleep(150)
    const files = new FileState({ home: path.join(cwd, '.tangent'), watch: true })
    open.push(files)
    let tree = (await files.snapshotTurnStart(cwd, null))?.tree ?? ''
    tree = (await files.snapshot(cwd)).tree
    expect(await files.watchState(cwd)).toMatchObject({ watching: true })
    tree = (await files.snapshotTurnStart(cwd, tree))?.tree ?? tree
    write(cwd, '.tangent/sessions/forged.jsonl', '{}\n')
    write(cwd, 'a.txt', 'edited\n')
    const found = await files.snapshotTurnStart(cwd, tree)
    expect(found?.outside).toEqual(['a.txt'])
  })

  it('walks again when ignore rules change, and takes the files they no longer ignore', async () => {
    const w = await watched({ '.gitignore': 'build/\n', 'src/a.txt': 'a\n', 'build/keep.txt': 'k\n' })
    write(w.cwd, 'build/out.o', 'ignored\n')
    const ignored = await nextTurn(w)
    expect(ignored).toMatchObject({ outside: [], walked: 0 })

    write(w.cwd, '.gitignore', '# nothing ignored now\n')
    const rules = await nextTurn(w)
    expect(rules.walked).toBe(1)
    // build/keep.txt was never committed: the rule kept it out of the repository too.
    expect(rules.outside.sort()).toEqual(['.gitignore', 'build/keep.txt', 'build/out.o'])
    expect(rules.tree).toBe((await walkedTree(w)).tree)
    expect((await w.files.watchState(w.cwd)).watching).toBe(false)
  })

  it('walks again when a .gitignore above the folder changes', async () => {
    const w = await watched({ '.gitignore': '*.log\n', 'pkg/a.txt': 'a\n' }, { cwdBelow: 'pkg' })
    write(w.cwd, 'run.log', 'ignored\n')
    expect(await nextTurn(w)).toMatchObject({ outside: [], walked: 0 })
    write(path.dirname(w.cwd), '.gitignore', '*.tmp\n')
    const rules = await nextTurn(w)
    expect(rules.walked).toBe(1)
    expect(rules.outside).toEqual(['run.log'])
    expect(rules.tree).toBe((await walkedTree(w)).tree)
  })

  it('is set up again two walks after it broke, and never again after its third break', async () => {
    const w = await watched({ '.gitignore': 'build/\n', 'src/a.txt': 'a\n' })
    for (let round = 1; round <= 3; round++) {
      write(w.cwd, '.gitignore', `build/\n# round ${round}\n`)
      // The rules moved: the watch broke, and the turn's start walks (the first walk since).
      expect((await nextTurn(w)).walked, `round ${round}`).toBe(1)
      expect((await w.files.watchState(w.cwd)).watching, `round ${round}`).toBe(false)
      // A .gitignore changed within 100 ms of the ignored folders' listing stops a set-up.
      await sleep(150)
      await w.files.snapshot(w.cwd)
      expect((await w.files.watchState(w.cwd)).watching, `round ${round}`).toBe(round < 3)
      if (round < 3) {
        // Watched again: after one more walk (its first mark), a turn's start reads what changed.
        await w.files.snapshot(w.cwd)
        w.walks()
        write(w.cwd, 'src/a.txt', `round ${round}\n`)
        expect(await nextTurn(w), `round ${round}`).toMatchObject({ outside: ['src/a.txt'], walked: 0 })
      }
      w.walks()
    }
    for (let walk = 0; walk < 3; walk++) await w.files.snapshot(w.cwd)
    expect(await w.files.watchState(w.cwd)).toMatchObject({ watching: false })
    w.walks()
    write(w.cwd, 'src/a.txt', 'changed\n')
    expect(await nextTurn(w)).toMatchObject({ outside: ['src/a.txt'], walked: 1 })
  })

  it('skips a nested repository that appears, as a walk does', async () => {
    const w = await watched()
    makeRepository(path.join(w.cwd, 'src', 'vendored'), { 'lib.txt': 'its own\n' })
    write(w.cwd, 'src/mine.txt', 'beside it\n')
    const nested = await nextTurn(w)
    expect(nested.walked).toBe(0)
    expect(nested.outside).toEqual(['src/mine.txt'])
    expect(nested.skipped).toEqual(['src/vendored/'])
    expect(nested.tree).toBe((await walkedTree(w)).tree)
  })

  it('walks after a restore, another writer or a session elsewhere moved the snapshot', async () => {
    const w = await watched()
    // Another FileState (another process) snapshots the folder between turns: its ref moves.
    const other = new FileState({ home: path.join(w.root, 'home') })
    write(w.cwd, 'src/a.txt', 'changed, seen by the other\n')
    await other.snapshot(w.cwd)
    const turn = await nextTurn(w)
    expect(turn.walked).toBe(1)
    expect(turn.tree).toBe((await walkedTree(w)).tree)
    // The walk took a new mark: the watch vouches again from there.
    write(w.cwd, 'src/a.txt', 'changed again\n')
    expect(await nextTurn(w)).toMatchObject({ outside: ['src/a.txt'], walked: 0 })
  })

  it('is not used for a step: a step walks (what the agent did is read from the disk itself)', async () => {
    const w = await watched()
    write(w.cwd, 'src/a.txt', 'the agent wrote this\n')
    const step = await w.files.snapshot(w.cwd)
    expect(w.walks()).toBe(1)
    expect(step.changed).toEqual(['src/a.txt'])
  })

  it('starts only for a folder walked twice, and never for one walked once', async () => {
    const root = temps.make()
    const cwd = makeRepository(path.join(root, 'p'), { 'a.txt': 'a\n' })
    const files = new FileState({ home: path.join(root, 'home'), watch: true })
    open.push(files)
    await files.snapshot(cwd)
    expect(await files.watchState(cwd)).toEqual({ watching: false, folders: 0, broken: null })
    const off = new FileState({ home: path.join(root, 'home2') })
    await off.snapshot(cwd)
    await off.snapshot(cwd)
    expect((await off.watchState(cwd)).watching).toBe(false)
  })
})

describe('FolderWatch', () => {
  async function watchOf(root: string, options: Partial<ConstructorParameters<typeof FolderWatch>[1]> = {}) {
    const barrier = new WatchBarrier(path.join(temps.make(), 'barrier'))
    const watch = new FolderWatch(root, {
      skip: new Set(),
      barrier,
      rulesListedAt: Date.now(),
      ancestors: [],
      ...options,
    })
    const started = await watch.started
    return { watch, barrier, started }
  }

  it('vouches for nothing once more events arrived than the queue could hold', async () => {
    const root = temps.make()
    mkdirSync(path.join(root, 'd'))
    const { watch, barrier, started } = await watchOf(root, { eventLimit: 50 })
    expect(started).toBe(true)
    const token = watch.token()
    if (token === null) throw new Error('no token')
    for (let i = 0; i < 60; i++) writeFileSync(path.join(root, 'd', `f${i}`), `${i}`)
    expect(await watch.changesSince(token)).toBeNull()
    // A new period is vouched for again.
    const next = watch.token()
    if (next === null) throw new Error('no token')
    writeFileSync(path.join(root, 'd', 'f1'), 'again')
    expect(await watch.changesSince(next)).toEqual(['d/f1'])
    watch.close()
    barrier.close()
  })

  it('breaks on more folders than it may watch, and on a folder name that is not UTF-8', async () => {
    const root = temps.make()
    for (let i = 0; i < 5; i++) mkdirSync(path.join(root, `d${i}`))
    const many = await watchOf(root, { maxFolders: 3 })
    expect(many.started).toBe(false)
    expect(many.watch.broken).toMatch(/more than 3 folders/)
    expect(many.watch.token()).toBeNull()

    const other = temps.make()
    mkdirSync(Buffer.concat([Buffer.from(`${other}/`), Buffer.from([0x66, 0xff, 0x66])]))
    const bytes = await watchOf(other)
    expect(bytes.started).toBe(false)
    expect(bytes.watch.broken).toMatch(/not UTF-8/)
    many.barrier.close()
    bytes.barrier.close()
  })

  it('breaks when the folder itself is moved away', async () => {
    const parent = temps.make()
    const root = path.join(parent, 'watched')
    mkdirSync(root)
    const { watch, barrier } = await watchOf(root)
    const token = watch.token()
    if (token === null) throw new Error('no token')
    renameSync(root, path.join(parent, 'moved'))
    expect(await watch.changesSince(token)).toBeNull()
    expect(watch.broken).not.toBeNull()
    barrier.close()
  })

  it('does not start when a .gitignore changed after its ignored folders were listed', async () => {
    const root = temps.make()
    const listedAt = Date.now()
    writeFileSync(path.join(root, '.gitignore'), 'dist/\n')
    const { watch, started, barrier } = await watchOf(root, { rulesListedAt: listedAt })
    expect(started).toBe(false)
    expect(watch.broken).toMatch(/changed while the watch started/)
    barrier.close()
  })

  it('leaves no barrier files behind', async () => {
    const folder = path.join(temps.make(), 'barrier')
    const barrier = new WatchBarrier(folder)
    expect(await barrier.sync()).toBe(true)
    expect(await barrier.sync()).toBe(true)
    expect(readdirSync(folder)).toEqual([])
    barrier.close()
  })
})
