// Tangent's own git calls in a folder the agent could write (docs/architecture.md §12): no hook,
// no fsmonitor, and no git command at all where the metadata was redirected by a planted
// `commondir`. Real git, real repositories; a marker file says whether a planted program ran.
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { git, makeRepository, TempDirectories, write } from './fixture.test-helper.js'
import { assertGitMetadataIntact } from './git.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

/** An executable script that creates `marker` when anything runs it. */
function plantProgram(file: string, marker: string): void {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\nexit 0\n`)
  chmodSync(file, 0o755)
}

describe("Tangent's git calls in the user's repository", () => {
  it('run no hook and no fsmonitor the repository configures (worktree fork, dirty check, removal)', async () => {
    const root = temps.make()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const marker = path.join(root, 'ran')
    plantProgram(path.join(repo, '.git', 'hooks', 'post-checkout'), marker)
    plantProgram(path.join(root, 'monitor.sh'), marker)
    git(repo, 'config', 'core.fsmonitor', path.join(root, 'monitor.sh'))
    // The planted programs work: the user's own git runs them (so the test can fail).
    git(repo, 'status', '--porcelain')
    expect(existsSync(marker)).toBe(true)
    rmSync(marker)

    const files = new FileState({ home: path.join(root, 'home') })
    const child = await files.createWorktree({ cwd: repo, tree: null, sessionId: 'hooked' })
    expect(child.kind).toBe('git-worktree')
    write(child.path, 'b.txt', 'b\n')
    // The dirty check runs `git status` in the worktree, which shares the repository's config.
    expect((await files.worktreeChanges(child.path)).dirty).toEqual(['b.txt'])
    expect((await files.removeWorktree(child.path, { force: true })).removed).toBe(true)
    expect(existsSync(marker)).toBe(false)
  })

  it('refuse a repository whose .git names another common directory (a planted commondir)', async () => {
    const root = temps.make()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const evil = makeRepository(path.join(root, 'evil'), { 'x.txt': 'x\n' })
    const marker = path.join(root, 'ran')
    plantProgram(path.join(evil, '.git', 'hooks', 'post-checkout'), marker)
    writeFileSync(path.join(repo, '.git', 'commondir'), path.join(evil, '.git'))

    await expect(assertGitMetadataIntact(repo)).rejects.toThrow(/points elsewhere/)
    const files = new FileState({ home: path.join(root, 'home') })
    const refused = await files
      .createWorktree({ cwd: repo, tree: null, sessionId: 'redirected' })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(TangentError)
    expect((refused as TangentError).code).toBe('git-failed')
    expect((refused as TangentError).message).toContain('commondir')
    expect(existsSync(marker)).toBe(false)
  })

  it("refuse a linked worktree whose commondir was pointed away from its repository's", async () => {
    const root = temps.make()
    const repo = makeRepository(path.join(root, 'repo'), { 'a.txt': 'a\n' })
    const evil = makeRepository(path.join(root, 'evil'), { 'x.txt': 'x\n' })
    git(repo, 'worktree', 'add', '--quiet', path.join(root, 'linked'))
    await expect(assertGitMetadataIntact(path.join(root, 'linked'))).resolves.toBeUndefined()
    await expect(assertGitMetadataIntact(repo)).resolves.toBeUndefined()
    writeFileSync(path.join(repo, '.git', 'worktrees', 'linked', 'commondir'), path.join(evil, '.git'))
    await expect(assertGitMetadataIntact(path.join(root, 'linked'))).rejects.toThrow(/points elsewhere/)
  })

  it('accept a folder outside any repository', async () => {
    const root = temps.make()
    mkdirSync(path.join(root, 'plain'))
    await expect(assertGitMetadataIntact(path.join(root, 'plain'))).resolves.toBeUndefined()
  })
})
