// Snapshots hold the content of the user's projects, worktrees their files: everything Tangent
// keeps under TANGENT_HOME/snapshots and TANGENT_HOME/worktrees is the user's alone (folders
// 0700, files without group or other bits), whatever the umask.
import { chmodSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { SessionStore } from '@tangent/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { makeRepository, modesUnder, TempDirectories, write } from './fixture.test-helper.js'

const temps = new TempDirectories()
let umask = 0
beforeEach(() => {
  umask = process.umask(0o022)
})
afterEach(() => {
  process.umask(umask)
  temps.removeAll()
})

/** Entries under `root` that group or others may read, write or enter. */
function notPrivate(root: string): string[] {
  return modesUnder(root)
    .filter((entry) => (entry.directory ? entry.mode !== 0o700 : (entry.mode & 0o077) !== 0))
    .map((entry) => `${entry.mode.toString(8)} ${path.relative(root, entry.path)}`)
}

/** Snapshots, a restore (journal, scratch index), worktree forks of both kinds and gc. */
async function useEverything(root: string, files: FileState) {
  const cwd = path.join(root, 'project')
  write(cwd, 'a.txt', 'a\n')
  const base = await files.snapshot(cwd)
  const session = new SessionStore().create(undefined, { meta: { cwd, baseTree: base.tree } })
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text: 'edit' }] })
  write(cwd, 'a.txt', 'a2\n')
  write(cwd, 'b/new.txt', 'new\n')
  session.append('snapshot/taken', await files.snapshot(cwd))
  session.append('turn/end', { reason: 'completed' })
  await files.restore({
    cwd,
    events: session.events,
    inheritedEventCount: 0,
    baseTree: base.tree,
    toSeq: 0,
  })
  await files.createWorktree({ cwd, tree: null, sessionId: 'copy' })
  const repo = makeRepository(path.join(root, 'repo'), { 'r.txt': 'r\n' })
  await files.createWorktree({ cwd: repo, tree: null, sessionId: 'branch' })
  await files.gc()
  await files.reconcileWorktrees((id) => id === 'copy' || id === 'branch')
  return cwd
}

describe('private data under TANGENT_HOME', () => {
  it('makes snapshots, journals, indexes, worktree records and the worktrees folder owner-only under umask 022', async () => {
    const root = temps.make()
    const home = path.join(root, 'home')
    const files = new FileState({ home })
    const cwd = await useEverything(root, files)

    expect(notPrivate(path.join(home, 'snapshots'))).toEqual([])
    const worktrees = path.join(home, 'worktrees')
    expect(statSync(worktrees).mode & 0o777).toBe(0o700)
    for (const record of ['copy.json', 'branch.json']) {
      expect(statSync(path.join(worktrees, record)).mode & 0o777).toBe(0o600)
    }
    // The worktrees hold the user's project files: those keep the modes a checkout gives them.
    expect(statSync(path.join(worktrees, 'copy', 'a.txt')).mode & 0o777).toBe(0o644)
    expect(statSync(path.join(cwd, 'a.txt')).mode & 0o777).toBe(0o644)
  })

  it('makes a store from before this rule private at its first use', async () => {
    const root = temps.make()
    const home = path.join(root, 'home')
    await useEverything(root, new FileState({ home }))
    // As an older version left it: readable by everyone.
    rmSync(path.join(home, 'snapshots', 'objects.git', 'tangent', 'private'))
    for (const entry of modesUnder(path.join(home, 'snapshots'))) {
      chmodSync(entry.path, entry.directory ? 0o755 : 0o644)
    }
    chmodSync(path.join(home, 'worktrees'), 0o755)
    chmodSync(path.join(home, 'worktrees', 'copy.json'), 0o644)

    const files = new FileState({ home })
    await files.snapshot(path.join(root, 'project'))
    await files.reconcileWorktrees((id) => id === 'copy' || id === 'branch')
    expect(notPrivate(path.join(home, 'snapshots'))).toEqual([])
    expect(statSync(path.join(home, 'worktrees')).mode & 0o777).toBe(0o700)
    expect(statSync(path.join(home, 'worktrees', 'copy.json')).mode & 0o777).toBe(0o600)
  })
})
