// A restore a crash or a failure interrupted is rolled back, not left half-done
// (restore-journal.ts). The SIGKILL of a real process mid-restore is in
// test/e2e/prove-files-restore-crash.e2e.ts; here the states it leaves are made by hand.
import { randomUUID } from 'node:crypto'
import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { type Session, SessionStore, TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { canMountTmpfs, deadPid, mountTmpfs, read, TempDirectories, write } from './fixture.test-helper.js'
import { journalFile, type RecoveredRestore, writeJournal } from './restore-journal.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

const names = Array.from({ length: 30 }, (_, i) => `src/f${String(i).padStart(2, '0')}.txt`)

interface World {
  home: string
  cwd: string
  files: FileState
  session: Session
  baseTree: string
}

async function world(cwd = path.join(temps.make(), 'project'), maxFileBytes?: number): Promise<World> {
  const home = path.join(temps.make(), 'home')
  for (const name of names) write(cwd, name, `${name} v1\n`)
  const real = realpathSync(cwd)
  const files = new FileState({ home, ...(maxFileBytes ? { maxFileBytes } : {}) })
  const baseTree = (await files.snapshot(real)).tree
  const session = new SessionStore().create(undefined, { meta: { cwd: real, baseTree } })
  return { home, cwd: real, files, session, baseTree }
}

async function turn(w: World, edit: () => void): Promise<{ start: number; end: number }> {
  const start = w.session.append('turn/start', {}).seq
  w.session.append('user/message', { content: [{ type: 'text', text: 'edit' }] })
  edit()
  w.session.append('snapshot/taken', await w.files.snapshot(w.cwd))
  const end = w.session.append('turn/end', { reason: 'completed' }).seq
  return { start, end }
}

function restore(
  w: World,
  files: FileState,
  toSeq: number,
  force = false,
  commit?: Parameters<FileState['restore']>[0]['commit'],
) {
  return files.restore({
    cwd: w.cwd,
    events: w.session.events,
    inheritedEventCount: w.session.inheritedEventCount,
    baseTree: w.baseTree,
    toSeq,
    force,
    ...(commit ? { commit } : {}),
  })
}

/** A turn that rewrites every file, adds one and removes one: the restore to undo. */
async function editEverything(w: World) {
  return turn(w, () => {
    for (const name of names) write(w.cwd, name, `${name} v2 by the session\n`)
    write(w.cwd, 'src/added.txt', 'added by the session\n')
    rmSync(path.join(w.cwd, names.at(-1)!))
  })
}

/**
 * What a kill in the middle of restoring `editEverything` to the base leaves: the journal, the
 * first half of the files back at v1, one removed (git unlinks before it writes) and one cut short.
 */
async function crashMidRestore(w: World): Promise<string[]> {
  const paths = [...names, 'src/added.txt'].sort()
  const undoTree = (await w.files.snapshot(w.cwd)).tree
  await writeJournal(w.files.repository, { cwd: w.cwd, paths, undoTree, targetTree: w.baseTree })
  for (const name of names.slice(0, 12)) write(w.cwd, name, `${name} v1\n`)
  rmSync(path.join(w.cwd, names[12]!))
  write(w.cwd, names[13]!, 'src/f1')
  rmSync(path.join(w.cwd, 'src/added.txt'))
  return paths
}

function expectSessionState(w: World) {
  for (const name of names.slice(0, -1)) expect(read(w.cwd, name)).toBe(`${name} v2 by the session\n`)
  expect(existsSync(path.join(w.cwd, names.at(-1)!))).toBe(false)
  expect(read(w.cwd, 'src/added.txt')).toBe('added by the session\n')
}

describe('FileState.recoverInterrupted', () => {
  it('rolls an interrupted restore back, reports it, and a restore again then works without force', async () => {
    const w = await world()
    const edited = await editEverything(w)
    const paths = await crashMidRestore(w)

    // The next start.
    const files = new FileState({ home: w.home })
    const recovered = await files.recoverInterrupted()
    expect(recovered).toEqual<RecoveredRestore[]>([
      {
        cwd: w.cwd,
        action: 'rolled-back',
        paths,
        rewritten: [...names.slice(0, 14), 'src/added.txt'].sort(),
        kept: [],
        foundTree: expect.any(String),
      },
    ])
    expectSessionState(w)
    expect(existsSync(journalFile(files.repository, w.cwd))).toBe(false)
    expect(await files.recoverInterrupted()).toEqual([])

    // The log has no restore and the directory is where the log says: no "other writer".
    const again = await restore(w, files, edited.start)
    expect(again.restored).toEqual(paths)
    for (const name of names) expect(read(w.cwd, name)).toBe(`${name} v1\n`)
    expect(existsSync(path.join(w.cwd, 'src/added.txt'))).toBe(false)
  })

  it('finishes, not rolls back, a restore whose record made it into a log before the crash', async () => {
    const w = await world()
    const edited = await editEverything(w)
    // The restore ran to the end and was recorded; the crash came before the journal was removed.
    let journalAtCommit = ''
    const done = await restore(w, w.files, edited.start, false, async () => {
      journalAtCommit = readFileSync(journalFile(w.files.repository, w.cwd), 'utf8')
    })
    expect(existsSync(journalFile(w.files.repository, w.cwd))).toBe(false)
    const journal = JSON.parse(journalAtCommit) as { undoTree: string; pid: number }
    expect(journal.undoTree).toBe(done.undoTree)
    // What a kill between the record and the journal's removal leaves: the journal, of a dead process.
    writeFileSync(journalFile(w.files.repository, w.cwd), JSON.stringify({ ...journal, pid: deadPid() }))
    const asked: string[] = []
    const files = new FileState({
      home: w.home,
      isRecorded: async (found) => {
        asked.push(found.undoTree)
        return found.undoTree === done.undoTree
      },
    })
    const recovered = await files.recoverInterrupted()
    expect(recovered).toEqual([
      { cwd: w.cwd, action: 'finished', paths: done.restored, rewritten: [], kept: [] },
    ])
    expect(asked).toEqual([done.undoTree])
    for (const name of names) expect(read(w.cwd, name)).toBe(`${name} v1\n`)
    expect(existsSync(journalFile(files.repository, w.cwd))).toBe(false)
  })

  it('rolls the files back and fails when the record cannot be made', async () => {
    const w = await world()
    const edited = await editEverything(w)
    const failed = await restore(w, w.files, edited.start, false, async () => {
      throw new TangentError('store-write-failed', 'the log could not be written')
    }).catch((error: unknown) => error)
    expect(TangentError.isInstance(failed) && failed.code).toBe('store-write-failed')
    expectSessionState(w)
    expect(existsSync(journalFile(w.files.repository, w.cwd))).toBe(false)
  })

  it('rolls back at the next operation on the directory when it was missing at start', async () => {
    const w = await world()
    await editEverything(w)
    await crashMidRestore(w)
    const away = `${w.cwd}-unmounted`
    renameSync(w.cwd, away)
    const seen: RecoveredRestore[] = []
    const files = new FileState({ home: w.home, onRecovered: (recovered) => seen.push(recovered) })
    expect(await files.recoverInterrupted()).toMatchObject([{ cwd: w.cwd, action: 'deferred' }])
    expect(existsSync(journalFile(files.repository, w.cwd))).toBe(true)

    renameSync(away, w.cwd)
    const snapshot = await files.snapshot(w.cwd)
    expect(seen).toMatchObject([{ cwd: w.cwd, action: 'rolled-back' }])
    expectSessionState(w)
    expect(snapshot.changed).toEqual([])
    expect(existsSync(journalFile(files.repository, w.cwd))).toBe(false)
  })

  it('leaves alone the journal of a restore another running process is doing', async () => {
    const w = await world()
    await editEverything(w)
    await crashMidRestore(w)
    const file = journalFile(w.files.repository, w.cwd)
    // The parent of this test process is running.
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), pid: process.ppid }))
    const files = new FileState({ home: w.home })
    expect(await files.recoverInterrupted()).toEqual([])
    expect(existsSync(file)).toBe(true)
    expect(read(w.cwd, names[0]!)).toBe(`${names[0]} v1\n`)
  })

  it('removes the throwaway indexes a killed process left in the store, keeping those of live ones', async () => {
    const w = await world()
    const scratch = w.files.repository.scratchDirectory
    const dead = deadPid()
    const leftovers = [`${dead}-${randomUUID()}.index`, `${dead}-${randomUUID()}.index.lock`]
    const live = `${process.pid}-${randomUUID()}.index`
    for (const name of [...leftovers, live]) write(scratch, name, 'DIRC')
    await new FileState({ home: w.home }).recoverInterrupted()
    expect(readdirSync(scratch)).toEqual([live])
  })
})

describe('a restore that fails midway', () => {
  it.skipIf(!canMountTmpfs())(
    'is rolled back at once and reported as disk-full when the disk fills up',
    async () => {
      const disk = mountTmpfs(temps, '1m')!
      try {
        const w = await world(path.join(disk.dir, 'project'), 4 * 1024 * 1024)
        const big = 'z'.repeat(700 * 1024)
        const added = await turn(w, () => write(w.cwd, 'z-big.txt', big))
        await turn(w, () => {
          write(w.cwd, names[0]!, 'small now\n')
          rmSync(path.join(w.cwd, 'z-big.txt'))
        })
        // Someone else fills the disk: the restore would write 700 KiB back, after src/f00.txt.
        write(w.cwd, 'filler.bin', Buffer.alloc(600 * 1024, 1))
        const failed = await restore(w, w.files, added.end).catch((error: unknown) => error)
        expect(TangentError.hasCode(failed, 'disk-full')).toBe(true)
        expect((failed as TangentError).data.rolledBack).toBe(true)
        expect((failed as TangentError).message).toContain('rolled back')
        expect(read(w.cwd, names[0]!)).toBe('small now\n')
        expect(existsSync(path.join(w.cwd, 'z-big.txt'))).toBe(false)
        expect(existsSync(journalFile(w.files.repository, w.cwd))).toBe(false)

        // With room again, the same restore works, without force.
        rmSync(path.join(w.cwd, 'filler.bin'))
        const done = await restore(w, w.files, added.end)
        expect(done.restored).toEqual([names[0]!, 'z-big.txt'])
        expect(read(w.cwd, 'z-big.txt')).toBe(big)
      } finally {
        disk.unmount()
      }
    },
  )
})
