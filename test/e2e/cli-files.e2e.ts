// File state from the CLI (issue 5): snapshots, a worktree fork, diff between branches,
// and restore that refuses to overwrite someone else's change unless forced.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox, removeSandbox, type Sandbox, tangent, tangentInProcess } from './cli-harness.js'

let sandbox: Sandbox
beforeAll(() => {
  sandbox = createSandbox()
})
afterAll(() => removeSandbox(sandbox))

async function json<T>(args: string[]): Promise<T> {
  const result = await tangentInProcess(sandbox, [...args, '--json'])
  if (result.code !== 0) throw new Error(`tangent ${args.join(' ')}: ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

describe('tangent snapshots, fork --files worktree, diff, restore', () => {
  let parent: string
  let firstSnapshot: number
  let child: string
  const notes = () => fs.readFileSync(path.join(sandbox.cwd, 'notes.txt'), 'utf8')

  it('snapshots lists the seq and changed paths of the baseline and of each step that ran a tool', async () => {
    const run = await json<{ sessionId: string }>(['run', 'write notes.txt: first'])
    parent = run.sessionId
    await json(['run', '--session', parent, 'write notes.txt: second'])
    const snapshots = await json<{ seq: number; tree: string; changed: string[] }[]>(['snapshots', parent])
    // The first turn's baseline (files as the session found them), then one per tool step.
    expect(snapshots.map((snapshot) => snapshot.changed)).toEqual([[], ['notes.txt'], ['notes.txt']])
    const baseline = snapshots[0]!.seq
    firstSnapshot = snapshots[1]!.seq
    const listed = await tangent(sandbox, ['snapshots', parent])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`^\\s*${baseline}\\s+[0-9a-f]{12}\\s+\\(no changes\\)$`, 'm'))
    expect(listed.stdout).toMatch(new RegExp(`^\\s*${firstSnapshot}\\s+[0-9a-f]{12}\\s+notes\\.txt$`, 'm'))
  })

  it('fork --files worktree gives the child its own directory at the fork point', async () => {
    const fork = await json<{ session: { id: string; cwd: string; files: { mode: string; path: string } } }>([
      'fork',
      parent,
      '--at',
      String(firstSnapshot),
      '--files',
      'worktree',
    ])
    child = fork.session.id
    expect(fork.session.files.mode).toBe('worktree')
    expect(fork.session.cwd).toBe(fork.session.files.path)
    expect(fork.session.cwd).not.toBe(fs.realpathSync(sandbox.cwd))
    expect(fs.readFileSync(path.join(fork.session.cwd, 'notes.txt'), 'utf8')).toContain('first')
    expect(notes()).toContain('second')
  })

  it('diff shows the common ancestor, both sides and the file diff', async () => {
    const result = await tangentInProcess(sandbox, ['diff', parent, child])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`Common ancestor ${parent}`)
    expect(result.stdout).toMatch(/modified notes\.txt/)
    expect(result.stdout).toMatch(/^-second$/m)
    expect(result.stdout).toMatch(/^\+first$/m)
    const data = await json<{ ancestor: string; forkSeq: number; files: { path: string }[] }>([
      'diff',
      parent,
      child,
    ])
    expect(data.ancestor).toBe(parent)
    expect(data.files.map((file) => file.path)).toEqual(['notes.txt'])
  })

  it('restore refuses when another writer changed the file, and --force rewinds it', async () => {
    fs.writeFileSync(path.join(sandbox.cwd, 'notes.txt'), 'edited by hand\n')
    const refused = await tangentInProcess(sandbox, ['restore', parent, '--to', String(firstSnapshot)])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error\[files-conflict\]: .*notes\.txt/)
    expect(notes()).toBe('edited by hand\n')

    const forced = await json<{ restored: string[]; undoTree: string }>([
      'restore',
      parent,
      '--to',
      String(firstSnapshot),
      '--force',
    ])
    expect(forced.restored).toEqual(['notes.txt'])
    expect(forced.undoTree).toMatch(/^[0-9a-f]+$/)
    expect(notes()).toContain('first')
  })

  it('a restore that changes nothing says so and records nothing, so the next undo takes back the last real one', async () => {
    const events = async () =>
      (await json<{ events: { type: string }[] }>(['show', parent])).events.filter(
        (event) => event.type === 'files/restored',
      ).length
    const before = await events()
    const again = await tangentInProcess(sandbox, ['restore', parent, '--to', String(firstSnapshot)])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(
      new RegExp(
        `^Nothing to restore: the files this session changed after seq ${firstSnapshot} are already as they were there\\.$`,
        'm',
      ),
    )
    expect(again.stdout).toMatch(/^Nothing was recorded\.$/m)
    expect(again.stdout).not.toMatch(/Recorded at seq/)
    const quiet = await json<{ restored: string[]; seq?: number }>([
      'restore',
      parent,
      '--to',
      String(firstSnapshot),
    ])
    expect(quiet).toMatchObject({ restored: [] })
    expect(quiet.seq).toBeUndefined()
    expect(await events()).toBe(before)
    expect(notes()).toContain('first')
  })

  it('a restore is in the session’s history, and restore --undo puts the files back as they were before it', async () => {
    const shown = await tangent(sandbox, ['show', parent])
    expect(shown.stdout).toMatch(new RegExp(`restore\\s+Restored files to #${firstSnapshot}: notes\\.txt`))
    const undone = await tangentInProcess(sandbox, ['restore', parent, '--undo'])
    expect(undone.code).toBe(0)
    expect(undone.stdout).toMatch(/Undid the restore: put back 1 path\(s\): notes\.txt/)
    // The hand edit the forced restore overwrote is what its undo tree holds.
    expect(notes()).toBe('edited by hand\n')
    const again = await tangentInProcess(sandbox, ['restore', parent, '--undo'])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^error\[not-a-restore\]: .*no restore to undo/)
    const usage = await tangentInProcess(sandbox, ['restore', parent])
    expect(usage.code).toBe(2)
    expect((await tangent(sandbox, ['show', parent])).stdout).toMatch(
      /restore\s+Undid the restore at #\d+: notes\.txt/,
    )
  })

  it('delete of a worktree session with uncommitted work refuses, deleting nothing; --worktree keep deletes it and keeps the directory', async () => {
    const worktree = (await json<{ session: { cwd: string } }>(['show', child])).session.cwd
    await json(['run', '--session', child, 'write extra.txt: work in the worktree'])
    const refused = await tangentInProcess(sandbox, ['delete', child])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /^error\[worktree-dirty\]: Session (\S+) was not deleted: .*extra\.txt.*`tangent delete \1 --worktree keep`.*`--worktree force`/,
    )
    expect((await tangent(sandbox, ['show', child])).code).toBe(0)
    // The advice works: the session is still there to delete with --worktree keep (or force).
    const usage = await tangentInProcess(sandbox, ['delete', child, '--to', 'somewhere'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--to needs --worktree keep')
    const deleted = await tangentInProcess(sandbox, ['delete', child, '--worktree', 'keep'])
    expect(deleted.code).toBe(0)
    expect(deleted.stdout).toContain(`Deleted ${child}`)
    // A plain copy kept on purpose leaves the data directory: beside the project, and said where.
    const keptAt = `${fs.realpathSync(sandbox.cwd)}-tangent-${child}`
    expect(deleted.stdout).toContain(`Moved its worktree to ${keptAt} (kept as asked;`)
    expect(fs.existsSync(path.join(keptAt, 'extra.txt'))).toBe(true)
    expect(fs.existsSync(worktree)).toBe(false)
  })

  it('delete --worktree keep --to DIR moves the kept copy there and says so in --json', async () => {
    const fork = await json<{ session: { id: string; cwd: string } }>(['fork', parent, '--files', 'worktree'])
    const to = path.join(path.dirname(sandbox.home), 'kept-here')
    const deleted = await json<{ worktree: { path: string; removed: boolean; keptAt: string } }>([
      'delete',
      fork.session.id,
      '--worktree',
      'keep',
      '--to',
      path.relative(sandbox.cwd, to),
    ])
    expect(deleted.worktree).toMatchObject({ path: fork.session.cwd, removed: false, keptAt: to })
    expect(fs.existsSync(path.join(to, 'notes.txt'))).toBe(true)
  })
})

describe('a file too big to snapshot', () => {
  it('run and show name it, so nobody expects a restore or a fork to bring it back', async () => {
    const own = createSandbox()
    try {
      const ran = await tangent(own, [
        'run',
        'run: head -c 3000000 /dev/zero > big.bin; echo small > small.txt',
      ])
      expect(ran.code, ran.stderr).toBe(0)
      expect(ran.stdout).toMatch(/not snapshotted \(too big to keep\): big\.bin/)
      const id = JSON.parse((await tangent(own, ['sessions', '--json'])).stdout)[0].id as string
      const shown = await tangent(own, ['show', id])
      expect(shown.stdout).toMatch(/files\s+not snapshotted: big\.bin/)
      // A worktree fork says what it could not bring: the big file, and a FIFO (git never lists one).
      execFileSync('mkfifo', [path.join(own.cwd, 'pipe')])
      const forked = await tangent(own, ['fork', id, '--files', 'worktree'])
      expect(forked.code, forked.stderr).toBe(0)
      expect(forked.stderr).toMatch(
        /left out of its worktree \(too big to snapshot, or not a regular file\): big\.bin, pipe/,
      )
      const json = await tangent(own, ['fork', id, '--files', 'worktree', '--json'])
      const fork = JSON.parse(json.stdout) as { session: { cwd: string }; worktree: unknown }
      expect(fork.worktree).toEqual({ path: fork.session.cwd, leftOut: ['big.bin', 'pipe'] })
    } finally {
      removeSandbox(own)
    }
  })
})

describe('a file made by hand between turns (issue 26)', () => {
  it('run lists only the agent’s files, show names the hand-made one as changed outside Tangent, and restore refuses to delete it', async () => {
    const own = createSandbox()
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: own.cwd, encoding: 'utf8' })
      fs.writeFileSync(path.join(own.cwd, 'base.txt'), 'base\n')
      git('init', '-q')
      git('add', '-A')
      git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'i')
      const first = await tangent(own, ['run', 'write a.txt: agent A'])
      expect(first.code, first.stderr).toBe(0)
      fs.writeFileSync(path.join(own.cwd, 'mine.txt'), 'my precious work\n')
      const second = await tangent(own, ['run', '-c', 'write c.txt: agent C'])
      expect(second.code, second.stderr).toBe(0)
      expect(second.stdout).toMatch(/^\s*files changed: c\.txt$/m)
      expect(second.stdout).not.toContain('mine.txt')

      const id = JSON.parse((await tangent(own, ['sessions', '--json'])).stdout)[0].id as string
      const shown = await tangent(own, ['show', id])
      expect(shown.stdout).toMatch(/files\s+changed outside Tangent: mine\.txt/)
      expect(shown.stdout).not.toMatch(/files\s+c\.txt, mine\.txt/)

      const snapshots = JSON.parse((await tangent(own, ['snapshots', id, '--json'])).stdout) as {
        seq: number
        changed: string[]
      }[]
      const afterA = snapshots.find((snapshot) => snapshot.changed.includes('a.txt'))!.seq
      const refused = await tangent(own, ['restore', id, '--to', String(afterA)])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(/^error\[files-conflict\]: .*mine\.txt/)
      expect(fs.readFileSync(path.join(own.cwd, 'mine.txt'), 'utf8')).toBe('my precious work\n')
    } finally {
      removeSandbox(own)
    }
  })
})
