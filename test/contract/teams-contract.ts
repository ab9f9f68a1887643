// Teams across machines (issue 29; docs/architecture.md §4 "Files stay with a machine; they travel
// by fork"): two front-ends on one shared store, each with its own data directory and
// TANGENT_MACHINE, as two machines of a team. Run against the runtime in-process and a real Host
// (postgres.contract.ts, host-postgres.contract.ts); JSONL has no other machine, so it does not apply.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { SessionApi } from '@tangent/runtime'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type ContractFixture,
  failure,
  gitProject,
  removeTempDirs,
  tempDir,
  waitFor,
} from './session-contract.js'

type Opened = { home: string; start: string; homeDir: string; demoDelayMs: number }

export interface TeamsOptions {
  /** A fresh shared store (a database URL) for one test: both machines of the test open it. */
  newStore(): Promise<string>
  /** Opens a front-end on `store` with data directory `opened.home`, as machine `machine`. */
  open(opened: Opened, machine: string, store: string): Promise<ContractFixture>
}

const turnOn = (api: SessionApi, sessionId: string, text: string) =>
  api.call('session.prompt', { sessionId, text })

export function runTeamsContract(options: TeamsOptions): void {
  describe('teams across machines', () => {
    let store = ''
    let openedA: Opened
    let a: ContractFixture
    /** Machine B: its own data directory on the same store; closed after each test. */
    let b: ContractFixture | null = null
    const opened = (prefix: string): Opened => ({
      home: tempDir(`tangent-home-${prefix}-`),
      start: tempDir(`tangent-start-${prefix}-`),
      homeDir: tempDir(`tangent-userhome-${prefix}-`),
      demoDelayMs: 4,
    })
    beforeEach(async () => {
      store = await options.newStore()
      openedA = opened('a')
      a = await options.open(openedA, 'machine-a', store)
    })
    afterEach(async () => {
      await b?.close()
      b = null
      await a.close()
    })
    afterAll(removeTempDirs)
    let homeB = ''
    const onB = async () => {
      const openedB = opened('b')
      homeB = openedB.home
      b = await options.open(openedB, 'machine-b', store)
      return b
    }
    /** Closes machine A, runs `meanwhile`, and opens it again on the same data directory. */
    const reopenA = async (meanwhile: () => Promise<void>) => {
      await a.close()
      await meanwhile()
      a = await options.open(openedA, 'machine-a', store)
    }

    it('B forks A’s session (shared and worktree, one child per requestId), its worktree holds the fork point’s files, and B runs it', async () => {
      const work = tempDir('tangent-work-a-')
      const notes = path.join(work, 'notes.txt')
      const session = await a.api.call('session.create', { cwd: work })
      const first = await turnOn(a.api, session.id, 'write notes.txt: one')
      await turnOn(a.api, session.id, 'write notes.txt: two')
      const machineB = await onB()

      // Where the folder is, as each side sees it.
      const onA = (await a.api.call('session.get', { sessionId: session.id })).session.files
      expect(onA).toMatchObject({ machine: 'machine-a', path: work })
      expect(onA.elsewhere).toBeUndefined()
      const seen = (await machineB.api.call('session.get', { sessionId: session.id })).session.files
      expect(seen).toMatchObject({ machine: 'machine-a', elsewhere: true, path: work })
      expect((await machineB.api.call('host.info', {})).machine).toBe('machine-b')

      // Prompting it on B says where it runs and how to continue here.
      const refused = await failure(turnOn(machineB.api, session.id, 'hello'))
      expect(refused.code).toBe('session-elsewhere')
      expect(refused.data).toMatchObject({ machine: 'machine-a', cwd: work })

      // A shared fork stays on A's machine, in no workspace here; twice with one requestId: one child.
      const shared = await machineB.api.call('session.fork', {
        sessionId: session.id,
        atSeq: first.turnEndSeq,
        requestId: 'shared-1',
      })
      expect(shared.session).toMatchObject({
        workspaceId: null,
        files: { mode: 'shared', machine: 'machine-a', elsewhere: true },
      })
      const again = await machineB.api.call('session.fork', {
        sessionId: session.id,
        atSeq: first.turnEndSeq,
        requestId: 'shared-1',
      })
      expect(again.session.id).toBe(shared.session.id)

      // A worktree fork brings the fork point's files from the store: notes.txt as it was then.
      const fork = await machineB.api.call('session.fork', {
        sessionId: session.id,
        atSeq: first.turnEndSeq,
        files: 'worktree',
        requestId: 'worktree-1',
      })
      const child = fork.session
      expect(child.files).toMatchObject({ mode: 'worktree', machine: 'machine-b' })
      expect(child.files.elsewhere).toBeUndefined()
      expect(child.workspaceId).toBeNull()
      expect(child.cwd.startsWith(work)).toBe(false)
      expect(fs.readFileSync(path.join(child.cwd, 'notes.txt'), 'utf8')).toBe('one\n')
      expect(fs.readdirSync(child.cwd).sort()).toEqual(['notes.txt'])
      const retried = await machineB.api.call('session.fork', {
        sessionId: session.id,
        atSeq: first.turnEndSeq,
        files: 'worktree',
        requestId: 'worktree-1',
      })
      expect(retried.session.id).toBe(child.id)
      // A sees the child as B's.
      const childOnA = (
        await waitFor(async () => {
          const listed = await a.api.call('session.list', {})
          return listed.find((row) => row.id === child.id) ?? false
        })
      ).files
      expect(childOnA).toMatchObject({ machine: 'machine-b', elsewhere: true })

      // B runs the child; its turn writes on B's side only.
      await turnOn(machineB.api, child.id, 'write notes.txt: three')
      expect(fs.readFileSync(path.join(child.cwd, 'notes.txt'), 'utf8')).toBe('three\n')
      expect(fs.readFileSync(notes, 'utf8')).toBe('two\n')
      // A goes on undisturbed.
      await turnOn(a.api, session.id, 'write more.txt: four')
      expect(fs.readFileSync(path.join(work, 'more.txt'), 'utf8')).toBe('four\n')
      expect(fs.existsSync(path.join(child.cwd, 'more.txt'))).toBe(false)

      // Compare works from both sides: the same files either way.
      const fromA = await a.api.call('session.compare', { a: session.id, b: child.id })
      const fromB = await machineB.api.call('session.compare', { a: session.id, b: child.id })
      expect(fromA.files.map((file) => [file.path, file.status])).toEqual([
        ['more.txt', 'deleted'],
        ['notes.txt', 'modified'],
      ])
      expect(fromB.files).toEqual(fromA.files)
    })

    it('after A’s Host is gone and its data directory deleted, B still forks A’s session with its files', async () => {
      const work = tempDir('tangent-work-a-')
      const session = await a.api.call('session.create', { cwd: work })
      await turnOn(a.api, session.id, 'write keep.txt: kept')
      await reopenA(async () => {
        fs.rmSync(openedA.home, { recursive: true, force: true })
        fs.rmSync(work, { recursive: true, force: true })
      })
      const machineB = await onB()
      const fork = await machineB.api.call('session.fork', { sessionId: session.id, files: 'worktree' })
      expect(fs.readFileSync(path.join(fork.session.cwd, 'keep.txt'), 'utf8')).toBe('kept\n')
      await turnOn(machineB.api, fork.session.id, 'write keep.txt: changed on b')
      expect(fs.readFileSync(path.join(fork.session.cwd, 'keep.txt'), 'utf8')).toBe('changed on b\n')
    })

    it('a worktree fork into B’s clone of the git project is a git worktree of B’s repository', async () => {
      const { repo, git } = gitProject()
      const session = await a.api.call('session.create', { cwd: repo })
      await turnOn(a.api, session.id, 'write b.txt: b')
      const clone = tempDir('tangent-clone-b-')
      execFileSync('git', ['clone', '-q', repo, clone])
      const machineB = await onB()
      // B's folder of the project, named: a git worktree of it on the child's branch.
      const fork = await machineB.api.call('session.fork', {
        sessionId: session.id,
        files: 'worktree',
        folder: clone,
      })
      const branch = `tangent/${fork.session.id}`
      expect(execFileSync('git', ['branch', '--list', branch], { cwd: clone, encoding: 'utf8' })).toContain(
        branch,
      )
      expect(git('branch', '--list', branch)).toBe('')
      expect(fs.readFileSync(path.join(fork.session.cwd, 'b.txt'), 'utf8')).toBe('b\n')
      expect(fs.readFileSync(path.join(fork.session.cwd, 'a.txt'), 'utf8')).toBe('a\n')
      // `folder` is only for a worktree fork of a session from elsewhere.
      const own = await machineB.api.call('session.create', { cwd: clone })
      const wrong = await failure(
        machineB.api.call('session.fork', { sessionId: own.id, files: 'worktree', folder: clone }),
      )
      expect(wrong.code).toBe('invalid-params')
      // Never a folder inside a data directory (B's own, here: its snapshot store and worktrees).
      const inData = await failure(
        machineB.api.call('session.fork', { sessionId: session.id, files: 'worktree', folder: homeB }),
      )
      expect(inData.code).toBe('invalid-params')
      const forks = (await machineB.api.call('session.list', {})).filter(
        (row) => row.parentSession === session.id,
      )
      expect(forks.map((row) => row.id)).toEqual([fork.session.id])
    })

    it('a mode set on A is what B lists, what a fork made on B starts in, and B’s change reaches A', async () => {
      const work = tempDir('tangent-work-mode-')
      const session = await a.api.call('session.create', { cwd: work })
      await a.api.call('session.setMode', { sessionId: session.id, mode: 'plan' })
      await turnOn(a.api, session.id, 'write plan.txt: x')
      expect(fs.existsSync(path.join(work, 'plan.txt'))).toBe(false)
      const machineB = await onB()
      const listedOnB = async (id: string) =>
        (await machineB.api.call('session.list', {})).find((entry) => entry.id === id)?.mode
      expect(await listedOnB(session.id)).toBe('plan')
      const fork = await machineB.api.call('session.fork', { sessionId: session.id, files: 'worktree' })
      expect(fork.session.mode).toBe('plan')
      await turnOn(machineB.api, fork.session.id, 'write forked.txt: y')
      expect(fs.existsSync(path.join(fork.session.files.path, 'forked.txt'))).toBe(false)
      // B changes the mode of A's session (a log write, no files): A's list follows.
      await machineB.api.call('session.setMode', { sessionId: session.id, mode: 'ask' })
      await waitFor(async () => {
        const entry = (await a.api.call('session.list', {})).find((listed) => listed.id === session.id)
        return entry?.mode === 'ask' || false
      })
      expect((await a.api.call('session.get', { sessionId: session.id })).session.mode).toBe('ask')
    })

    it('one requestId forks once across Hosts: B’s retry of A’s fork answers A’s child', async () => {
      const session = await a.api.call('session.create', { cwd: tempDir('tangent-work-a-') })
      await turnOn(a.api, session.id, 'one')
      const onA = await a.api.call('session.fork', { sessionId: session.id, requestId: 'across-1' })
      const machineB = await onB()
      const onBFork = await machineB.api.call('session.fork', {
        sessionId: session.id,
        requestId: 'across-1',
      })
      expect(onBFork.session.id).toBe(onA.session.id)
      const children = (await machineB.api.call('session.list', {})).filter(
        (row) => row.parentSession === session.id,
      )
      expect(children.map((row) => row.id)).toEqual([onA.session.id])
    })
  })
}
