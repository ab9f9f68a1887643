import { execSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import {
  canMountTmpfs,
  deadPid,
  git,
  makeRepository,
  mountTmpfs,
  read,
  TempDirectories,
  write,
} from './fixture.test-helper.js'
import { runGit } from './git.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

function setup() {
  const root = temps.make()
  const home = path.join(root, 'home')
  return { root, home, files: new FileState({ home }) }
}

describe('FileState.createWorktree', () => {
  it('forks a git project into a worktree on tangent/<id> holding the fork point, not HEAD', async () => {
    const { root, home, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), {
      'tracked.txt': 'committed\n',
      'deleted.txt': 'committed\n',
      'gone/only.txt': 'committed\n',
      '.gitignore': '*.log\n',
    })
    write(repo, 'tracked.txt', 'uncommitted edit\n')
    write(repo, 'untracked.txt', 'new file\n')
    rmSync(path.join(repo, 'deleted.txt'))
    rmSync(path.join(repo, 'gone'), { recursive: true })
    const forkPoint = await files.snapshot(repo)

    const child = await files.createWorktree({ cwd: repo, tree: forkPoint.tree, sessionId: 'child1' })
    expect(child).toMatchObject({ kind: 'git-worktree', branch: 'tangent/child1' })
    expect(child.path).toBe(path.join(home, 'worktrees', 'child1'))
    expect(read(child.path, 'tracked.txt')).toBe('uncommitted edit\n')
    expect(read(child.path, 'untracked.txt')).toBe('new file\n')
    expect(existsSync(path.join(child.path, 'deleted.txt'))).toBe(false)
    expect(existsSync(path.join(child.path, 'gone'))).toBe(false)
    expect(git(repo, 'branch', '--list', 'tangent/child1')).toContain('tangent/child1')
    expect(git(repo, 'worktree', 'list')).toContain(child.path)

    // The parent goes on changing its files; the child keeps the fork point's content.
    write(repo, 'tracked.txt', 'parent moved on\n')
    write(repo, 'untracked.txt', 'parent again\n')
    expect(read(child.path, 'tracked.txt')).toBe('uncommitted edit\n')
    expect(read(child.path, 'untracked.txt')).toBe('new file\n')
    // The user can commit the child's work on its branch.
    git(child.path, 'add', '-A')
    git(child.path, 'commit', '--quiet', '-m', 'child work')
    expect(git(repo, 'show', 'tangent/child1:tracked.txt')).toBe('uncommitted edit\n')
  })

  it('gives a child of a subdirectory the same subdirectory inside the worktree', async () => {
    const { root, home, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'pkg/a.txt': 'a\n', 'top.txt': 'top\n' })
    write(repo, 'pkg/a.txt', 'edited\n')
    const child = await files.createWorktree({ cwd: path.join(repo, 'pkg'), tree: null, sessionId: 'sub' })
    expect(child.root).toBe(path.join(home, 'worktrees', 'sub'))
    expect(child.path).toBe(path.join(child.root, 'pkg'))
    expect(read(child.path, 'a.txt')).toBe('edited\n')
    expect(read(child.root, 'top.txt')).toBe('top\n')
  })

  it('copies a directory that is not in a git repository', async () => {
    const { root, home, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    write(cwd, 'dir/b.txt', 'b\n')
    const forkPoint = await files.snapshot(cwd)
    write(cwd, 'a.txt', 'after the fork\n')
    const child = await files.createWorktree({ cwd, tree: forkPoint.tree, sessionId: 'copy1' })
    expect(child).toEqual({
      kind: 'copy',
      path: path.join(home, 'worktrees', 'copy1'),
      root: path.join(home, 'worktrees', 'copy1'),
      tree: forkPoint.tree,
      leftOut: [],
    })
    expect(read(child.path, 'a.txt')).toBe('a\n')
    expect(read(child.path, 'dir/b.txt')).toBe('b\n')
    expect(await files.diffDirectories(cwd, child.path)).toMatchObject([
      { path: 'a.txt', status: 'modified' },
    ])
  })

  it("a new worktree's first snapshot lists only what changed in it since the fork point (git and copy)", async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const plain = path.join(root, 'plain')
    write(plain, 'a.txt', 'a\n')
    write(plain, 'b.txt', 'b\n')
    for (const [cwd, id] of [
      [repo, 'firstgit'],
      [plain, 'firstcopy'],
    ] as const) {
      const forkPoint = await files.snapshot(cwd)
      const child = await files.createWorktree({ cwd, tree: forkPoint.tree, sessionId: id })
      expect((await files.snapshot(child.path)).changed).toEqual([]) // untouched: nothing changed
      write(child.path, 'c.txt', 'c\n')
      expect((await files.snapshot(child.path)).changed).toEqual(['c.txt'])
    }
  })

  it('refuses an existing session id', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    await files.createWorktree({ cwd, tree: null, sessionId: 'twice' })
    await expect(files.createWorktree({ cwd, tree: null, sessionId: 'twice' })).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'worktree-exists'),
    )
  })
})

describe('FileState.removeWorktree', () => {
  it('refuses to remove a git worktree with uncommitted changes unless forced', async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    write(repo, 'a.txt', 'fork point content\n')
    const child = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'dirty' })
    write(child.path, 'work.txt', 'the child session wrote this\n')
    const refused = await files.removeWorktree(child.path)
    expect(refused.removed).toBe(false)
    expect(refused.dirty).toEqual(['work.txt'])
    expect(refused.reason).toContain('work.txt')
    expect(existsSync(path.join(child.path, 'work.txt'))).toBe(true)

    const forced = await files.removeWorktree(child.path, { force: true })
    expect(forced).toEqual({ removed: true })
    expect(existsSync(child.path)).toBe(false)
    expect(git(repo, 'worktree', 'list')).not.toContain(child.path)
    // The branch had no commit of its own: it goes too.
    expect(git(repo, 'branch', '--list', 'tangent/dirty')).toBe('')
  })

  it('says how to remove a dirty worktree by hand, and those commands remove it (git worktree and branch, or a copy)', async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const plain = path.join(root, 'plain folder')
    write(plain, 'p.txt', 'p\n')
    for (const [cwd, sessionId] of [
      [repo, 'by-hand-git'],
      [plain, 'by-hand-copy'],
    ] as const) {
      const child = await files.createWorktree({ cwd, tree: null, sessionId })
      write(child.path, 'work.txt', 'unsaved\n')
      expect((await files.worktreeChanges(child.path)).dirty).toEqual(['work.txt'])
      const refused = await files.removeWorktree(child.path)
      expect(refused.removed).toBe(false)
      const commands = /remove it with its changes: (.*)$/.exec(refused.reason ?? '')?.[1]
      expect(commands).toBeDefined()
      execSync(commands!, { cwd: root, stdio: 'pipe' })
      expect(existsSync(child.path)).toBe(false)
      if (cwd === repo) {
        expect(git(repo, 'worktree', 'list')).not.toContain(child.path)
        expect(git(repo, 'branch', '--list', `tangent/${sessionId}`)).toBe('')
      }
    }
  })

  it('judges changes against a later tree given as `since`: what the history of a session holds is not lost', async () => {
    const { root, files } = setup()
    const plain = path.join(root, 'plain')
    write(plain, 'p.txt', 'p\n')
    const child = await files.createWorktree({ cwd: plain, tree: null, sessionId: 'since' })
    write(child.path, 'recorded.txt', 'in a snapshot\n')
    const recorded = (await files.snapshot(child.path)).tree
    expect((await files.worktreeChanges(child.path)).dirty).toEqual(['recorded.txt'])
    expect((await files.worktreeChanges(child.path, { since: recorded })).dirty).toEqual([])
    write(child.path, 'later.txt', 'by hand\n')
    expect((await files.removeWorktree(child.path, { since: recorded })).dirty).toEqual(['later.txt'])
    rmSync(path.join(child.path, 'later.txt'))
    expect(await files.removeWorktree(child.path, { since: recorded })).toEqual({ removed: true })
    expect(existsSync(child.path)).toBe(false)
  })

  it('removes an untouched worktree (the materialised fork point is not a change) and keeps a branch with commits', async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    write(repo, 'a.txt', 'uncommitted in the parent\n')
    const untouched = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'clean' })
    expect(await files.removeWorktree(untouched.path)).toEqual({ removed: true })

    const committed = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'committed' })
    write(committed.path, 'b.txt', 'b\n')
    git(committed.path, 'add', '-A')
    git(committed.path, 'commit', '--quiet', '-m', 'work')
    expect(await files.removeWorktree(committed.path)).toEqual({
      removed: true,
      keptBranch: 'tangent/committed',
    })
    expect(git(repo, 'show', 'tangent/committed:b.txt')).toBe('b\n')
  })

  it('refuses to remove a copy changed since the fork unless forced', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    const child = await files.createWorktree({ cwd, tree: null, sessionId: 'copy2' })
    write(child.path, 'a.txt', 'changed in the copy\n')
    expect(await files.removeWorktree(child.path)).toMatchObject({ removed: false, dirty: ['a.txt'] })
    expect(await files.removeWorktree(child.path, { force: true })).toEqual({ removed: true })
    expect(existsSync(child.path)).toBe(false)
  })

  it('refuses a directory Tangent did not create', async () => {
    const { root, files } = setup()
    const elsewhere = path.join(root, 'elsewhere')
    write(elsewhere, 'a.txt', 'a\n')
    await expect(files.removeWorktree(elsewhere, { force: true })).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'not-a-worktree'),
    )
    expect(existsSync(path.join(elsewhere, 'a.txt'))).toBe(true)
  })
})

describe('FileState.removeWorktree: a directory other sessions use', () => {
  it('keeps a worktree that other sessions work in, even with force, and says which', async () => {
    const { root, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    const child = await files.createWorktree({ cwd, tree: null, sessionId: 'owner' })
    const kept = await files.removeWorktree(child.path, { force: true, inUseBy: ['s2', 's1', 's2'] })
    expect(kept).toEqual({
      removed: false,
      reason: expect.stringContaining('used by sessions s1, s2'),
      inUseBy: ['s1', 's2'],
    })
    expect(read(child.path, 'a.txt')).toBe('a\n')
    // Once nobody else uses it, it goes.
    expect(await files.removeWorktree(child.path, { inUseBy: [] })).toEqual({ removed: true })
    expect(existsSync(child.path)).toBe(false)
  })

  it('reconcile keeps an orphan worktree that sessions still use', async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const orphan = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'gone' })
    const result = await files.reconcileWorktrees(() => false, {
      usersOf: (worktreeRoot) => (worktreeRoot === orphan.root ? ['shared-fork'] : []),
    })
    expect(result.removed).toEqual([])
    expect(result.kept).toEqual([{ path: orphan.root, reason: expect.stringContaining('shared-fork') }])
    expect(existsSync(orphan.path)).toBe(true)
  })
})

describe('a vanished directory', () => {
  it('is reported as gone, not as git missing from PATH', async () => {
    const { root } = setup()
    const gone = path.join(root, 'was-here')
    const error = await runGit(['status'], { cwd: gone }).catch((caught: unknown) => caught)
    expect(TangentError.hasCode(error, 'not-a-directory'), String(error)).toBe(true)
    expect((error as TangentError).message).toContain(`${gone} is gone`)
    expect((error as TangentError).message).not.toContain('not installed')
  })

  it("removes a clean worktree whose user's repository was removed meanwhile", async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const child = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'orphaned' })
    rmSync(repo, { recursive: true })
    expect(await files.removeWorktree(child.path)).toEqual({ removed: true })
    expect(existsSync(child.root)).toBe(false)
  })
})

describe('FileState.keepWorktree', () => {
  it('records a kept git worktree, which reconcile then neither removes nor reports; its record goes once it is gone', async () => {
    const { root, home, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const child = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'kept' })
    write(child.path, 'work.txt', 'worth keeping\n')
    const kept = await files.keepWorktree(child.path)
    expect(kept).toEqual({
      path: child.path,
      moved: false,
      removeBy: expect.stringContaining('worktree remove'),
    })
    expect(await files.reconcileWorktrees(() => false)).toEqual({ removed: [], kept: [] })
    expect(read(child.path, 'work.txt')).toBe('worth keeping\n')
    // The user removes it by hand: its record is dropped, silently.
    git(repo, 'worktree', 'remove', '--force', child.path)
    expect(await files.reconcileWorktrees(() => false)).toEqual({ removed: [], kept: [] })
    expect(existsSync(path.join(home, 'worktrees', 'kept.json'))).toBe(false)
  })

  it('moves a kept copy out of the data directory, beside its project or where asked', async () => {
    const { root, home, files } = setup()
    const project = path.join(root, 'project')
    write(project, 'a.txt', 'a\n')
    const child = await files.createWorktree({ cwd: project, tree: null, sessionId: 'copy' })
    write(child.path, 'work.txt', 'mine\n')
    // A fork of that copy still goes beside the project, not into the data directory.
    const grandchild = await files.createWorktree({ cwd: child.path, tree: null, sessionId: 'copy2' })
    expect(await files.keepWorktree(grandchild.path)).toEqual({
      path: `${project}-tangent-copy2`,
      moved: true,
    })
    const chosen = path.join(root, 'chosen')
    expect(await files.keepWorktree(child.path, { to: chosen })).toEqual({ path: chosen, moved: true })
    expect(read(chosen, 'work.txt')).toBe('mine\n')
    expect(read(`${project}-tangent-copy2`, 'work.txt')).toBe('mine\n')
    expect(existsSync(child.root) || existsSync(grandchild.root)).toBe(false)
    expect(readdirSync(path.join(home, 'worktrees'))).toEqual([])
  })

  it('names special files a worktree could not bring, unless an ignore rule covers them', async () => {
    const { root, files } = setup()
    const project = path.join(root, 'special')
    write(project, '.gitignore', '*.sock\nignored/\n')
    write(project, 'ignored/x.txt', 'x\n')
    for (const fifo of ['pipe', 'dir/inner', 'skip.sock', 'ignored/fifo']) {
      execSync(`mkdir -p "$(dirname '${path.join(project, fifo)}')" && mkfifo '${path.join(project, fifo)}'`)
    }
    const child = await files.createWorktree({ cwd: project, tree: null, sessionId: 'special' })
    expect(child.leftOut).toEqual(['dir/inner', 'pipe'])
  })
})

describe('FileState.reconcileWorktrees', () => {
  it('removes worktrees no session owns (also half-made ones) and keeps those with changes or owners', async () => {
    const { root, home, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const owned = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'owned' })
    const clean = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'clean' })
    const dirty = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'dirty' })
    write(dirty.path, 'work.txt', 'kept: somebody worked here\n')
    // A crash mid-fork: the record says `creating` and the content is half written.
    const half = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'half' })
    const record = path.join(home, 'worktrees', 'half.json')
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), state: 'creating' }))
    write(half.path, 'partial.txt', 'half-materialised\n')

    const result = await files.reconcileWorktrees((id) => id === 'owned')
    expect(result.removed.sort()).toEqual([clean.root, half.root].sort())
    expect(result.kept.map((k) => k.path)).toEqual([dirty.root])
    expect(result.kept[0]!.reason).toContain('work.txt')
    expect(existsSync(owned.path) && existsSync(dirty.path)).toBe(true)
    expect(existsSync(clean.path) || existsSync(half.path)).toBe(false)
    const branches = git(repo, 'branch', '--list', 'tangent/*')
    expect(branches).toContain('tangent/owned')
    expect(branches).toContain('tangent/dirty')
    expect(branches).not.toContain('tangent/clean')
    expect(branches).not.toContain('tangent/half')
  })

  it("removes a registration a kill inside `git worktree add` left: locked 'initializing', no directory yet", async () => {
    const { root, home, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const cut = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'cut' })
    // What git leaves when killed between making its admin folder and the worktree's folder.
    const record = path.join(home, 'worktrees', 'cut.json')
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), state: 'creating' }))
    const admin = git(cut.path, 'rev-parse', '--git-dir').trim()
    writeFileSync(path.join(admin, 'locked'), 'initializing\n')
    rmSync(cut.root, { recursive: true, force: true })
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(cut.root)

    const result = await files.reconcileWorktrees(() => false)
    expect(result.removed).toEqual([cut.root])
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(cut.root)
    expect(git(repo, 'branch', '--list', 'tangent/*')).toBe('')
    expect(existsSync(record)).toBe(false)
  })

  it('removes what a record write cut short left: temp files of dead writers and empty records', async () => {
    const { root, home, files } = setup()
    const cwd = path.join(root, 'plain')
    write(cwd, 'a.txt', 'a\n')
    const kept = await files.createWorktree({ cwd, tree: null, sessionId: 'kept' })
    const worktrees = path.join(home, 'worktrees')
    // An older version's write on a full disk: an empty record and no directory.
    writeFileSync(path.join(worktrees, 'cut.json'), '')
    const temp = `ready.json.${deadPid()}.${randomUUID()}.tmp`
    const liveTemp = `live.json.${process.pid}.${randomUUID()}.tmp`
    writeFileSync(path.join(worktrees, temp), '{"sessionId":')
    writeFileSync(path.join(worktrees, liveTemp), '{"sessionId":')
    const result = await files.reconcileWorktrees((id) => id === 'kept')
    expect(result).toEqual({
      removed: [],
      kept: [],
      cleaned: [path.join(worktrees, 'cut.json'), path.join(worktrees, temp)].sort(),
    })
    expect(readdirSync(worktrees).sort()).toEqual(['kept', 'kept.json', liveTemp].sort())
    expect(existsSync(kept.path)).toBe(true)
    // The next start has nothing to say.
    rmSync(path.join(worktrees, liveTemp))
    expect(await files.reconcileWorktrees((id) => id === 'kept')).toEqual({ removed: [], kept: [] })
  })

  it('leaves records created after the cut-off alone (a fork in progress)', async () => {
    const { root, files } = setup()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const cutoff = Date.now() - 60_000
    const fresh = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'fresh' })
    const result = await files.reconcileWorktrees(() => false, { createdBefore: cutoff })
    expect(result).toEqual({ removed: [], kept: [] })
    expect(existsSync(fresh.path)).toBe(true)
  })
})

describe('FileState.createWorktree on a full disk', () => {
  /** A project of 6 MiB that stores in a few KiB (repeated bytes), and a home on a 2 MiB disk. */
  function fullDiskSetup(disk: { dir: string }, asRepository: boolean) {
    const root = temps.make()
    const home = path.join(disk.dir, 'home')
    const files: Record<string, string> = {}
    for (let i = 0; i < 6; i++) files[`big${i}.txt`] = String(i).repeat(1024 * 1024)
    const cwd = path.join(root, 'project')
    if (asRepository) makeRepository(cwd, files)
    else for (const [name, content] of Object.entries(files)) write(cwd, name, content)
    return { cwd, home, files: new FileState({ home, maxFileBytes: 4 * 1024 * 1024 }) }
  }

  function expectNothingHalfMade(home: string) {
    expect(readdirSync(path.join(home, 'worktrees'))).toEqual([])
  }

  it.skipIf(!canMountTmpfs())('fails with disk-full and leaves no copy and no record', async () => {
    const disk = mountTmpfs(temps, '2m')!
    try {
      const { cwd, home, files } = fullDiskSetup(disk, false)
      const error = await files
        .createWorktree({ cwd, tree: null, sessionId: 'copy' })
        .catch((caught: unknown) => caught)
      expect(TangentError.hasCode(error, 'disk-full'), String(error)).toBe(true)
      expectNothingHalfMade(home)
      expect(await files.reconcileWorktrees(() => false)).toEqual({ removed: [], kept: [] })
    } finally {
      disk.unmount()
    }
  })

  it.skipIf(!canMountTmpfs())(
    'fails with disk-full and leaves no git worktree, branch or record',
    async () => {
      const disk = mountTmpfs(temps, '2m')!
      try {
        const { cwd, home, files } = fullDiskSetup(disk, true)
        const error = await files
          .createWorktree({ cwd, tree: null, sessionId: 'branch' })
          .catch((caught: unknown) => caught)
        expect(TangentError.hasCode(error, 'disk-full'), String(error)).toBe(true)
        expectNothingHalfMade(home)
        expect(git(cwd, 'branch', '--list', 'tangent/*')).toBe('')
        expect(git(cwd, 'worktree', 'list', '--porcelain')).not.toContain(home)
      } finally {
        disk.unmount()
      }
    },
  )

  it.skipIf(!canMountTmpfs())('leaves no empty record when not even the record fits', async () => {
    const disk = mountTmpfs(temps, '2m')!
    try {
      const { cwd, home, files } = fullDiskSetup(disk, false)
      const { tree } = await files.snapshot(cwd)
      // Fill the disk to the last byte.
      const filler = path.join(disk.dir, 'filler')
      for (let size = 1024 * 1024; size >= 1; size = Math.floor(size / 2)) {
        try {
          for (;;) writeFileSync(`${filler}-${size}-${randomUUID()}`, Buffer.alloc(size))
        } catch {
          // Full for this size: try smaller ones.
        }
      }
      const error = await files
        .createWorktree({ cwd, tree, sessionId: 'norecord' })
        .catch((caught: unknown) => caught)
      expect(TangentError.hasCode(error, 'disk-full'), String(error)).toBe(true)
      expectNothingHalfMade(home)
    } finally {
      disk.unmount()
    }
  })
})
