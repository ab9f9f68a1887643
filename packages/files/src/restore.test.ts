import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { type Session, SessionStore, TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { makeRepository, read, TempDirectories, write } from './fixture.test-helper.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

interface World {
  cwd: string
  files: FileState
  store: SessionStore
  session: Session
  baseTree: string
}

/** A directory with a.txt, b.txt, c.txt and a session whose header records the base tree. */
async function world(): Promise<World> {
  const root = temps.make()
  const cwd = path.join(root, 'project')
  write(cwd, 'a.txt', 'a1\n')
  write(cwd, 'b.txt', 'b1\n')
  write(cwd, 'c.txt', 'c1\n')
  const files = new FileState({ home: path.join(root, 'home') })
  const baseTree = (await files.snapshot(cwd)).tree
  const store = new SessionStore()
  const session = store.create(undefined, { meta: { cwd, baseTree } })
  return { cwd, files, store, session, baseTree }
}

/** A turn in which `edit` changes files, followed by the snapshot the agent would record. */
async function turn(w: World, edit: () => void): Promise<{ start: number; end: number }> {
  const start = w.session.append('turn/start', {}).seq
  w.session.append('user/message', { content: [{ type: 'text', text: 'edit' }] })
  edit()
  w.session.append('snapshot/taken', await w.files.snapshot(w.cwd))
  const end = w.session.append('turn/end', { reason: 'completed' }).seq
  return { start, end }
}

function restore(w: World, toSeq: number, force = false) {
  return w.files.restore({
    cwd: w.cwd,
    events: w.session.events,
    inheritedEventCount: w.session.inheritedEventCount,
    baseTree: w.baseTree,
    toSeq,
    force,
  })
}

describe('FileState.restore', () => {
  it('rewinds the paths changed after toSeq: edits undone, added files removed, removed files back', async () => {
    const w = await world()
    const first = await turn(w, () => {
      write(w.cwd, 'a.txt', 'a2\n')
      write(w.cwd, 'added/new.txt', 'new\n')
      rmSync(path.join(w.cwd, 'c.txt'))
    })
    await turn(w, () => write(w.cwd, 'b.txt', 'b2\n'))

    const partial = await restore(w, first.end)
    expect(partial.restored).toEqual(['b.txt'])
    expect(read(w.cwd, 'b.txt')).toBe('b1\n')
    expect(read(w.cwd, 'a.txt')).toBe('a2\n')
    w.session.append('snapshot/taken', partial.snapshot)

    const full = await restore(w, first.start)
    // b.txt is as it was there already (the partial restore put it back): not written again.
    expect(full.restored).toEqual(['a.txt', 'added/new.txt', 'c.txt'])
    expect(read(w.cwd, 'a.txt')).toBe('a1\n')
    expect(read(w.cwd, 'c.txt')).toBe('c1\n')
    expect(existsSync(path.join(w.cwd, 'added'))).toBe(false)
    expect(full.snapshot.tree).toBe(w.baseTree)
    w.session.append('snapshot/taken', full.snapshot)

    // Once more to the same point: nothing differs, nothing is written.
    const again = await restore(w, first.start)
    expect(again.restored).toEqual([])
    expect(again.undoTree).toBe(w.baseTree)
  })

  it('never touches paths the session did not change', async () => {
    const w = await world()
    const first = await turn(w, () => write(w.cwd, 'a.txt', 'a2\n'))
    // Another writer, after the session's latest snapshot.
    write(w.cwd, 'b.txt', 'someone else\n')
    write(w.cwd, 'theirs.txt', 'theirs\n')
    const result = await restore(w, first.start)
    expect(result.restored).toEqual(['a.txt'])
    expect(read(w.cwd, 'a.txt')).toBe('a1\n')
    expect(read(w.cwd, 'b.txt')).toBe('someone else\n')
    expect(read(w.cwd, 'theirs.txt')).toBe('theirs\n')
  })

  it('refuses with files-conflict when another writer changed a path since, and writes with force', async () => {
    const w = await world()
    const first = await turn(w, () => {
      write(w.cwd, 'a.txt', 'a2\n')
      write(w.cwd, 'b.txt', 'b2\n')
    })
    write(w.cwd, 'a.txt', 'another session wrote this\n')
    const refused = await restore(w, first.start).catch((error: unknown) => error)
    expect(TangentError.hasCode(refused, 'files-conflict')).toBe(true)
    expect((refused as TangentError).data.paths).toEqual(['a.txt'])
    // Nothing was written.
    expect(read(w.cwd, 'a.txt')).toBe('another session wrote this\n')
    expect(read(w.cwd, 'b.txt')).toBe('b2\n')

    const forced = await restore(w, first.start, true)
    expect(forced.restored).toEqual(['a.txt', 'b.txt'])
    expect(read(w.cwd, 'a.txt')).toBe('a1\n')
    expect(read(w.cwd, 'b.txt')).toBe('b1\n')
  })

  it('can be undone by restoring the undo tree', async () => {
    const w = await world()
    const first = await turn(w, () => {
      write(w.cwd, 'a.txt', 'a2\n')
      write(w.cwd, 'new.txt', 'new\n')
      rmSync(path.join(w.cwd, 'c.txt'))
    })
    const result = await restore(w, first.start)
    expect(existsSync(path.join(w.cwd, 'new.txt'))).toBe(false)
    const undone = await w.files.restoreTree({
      cwd: w.cwd,
      tree: result.undoTree,
      paths: result.restored,
      expectTree: result.snapshot.tree,
    })
    expect(undone.restored).toEqual(['a.txt', 'c.txt', 'new.txt'])
    expect(read(w.cwd, 'a.txt')).toBe('a2\n')
    expect(read(w.cwd, 'new.txt')).toBe('new\n')
    expect(existsSync(path.join(w.cwd, 'c.txt'))).toBe(false)
    expect(undone.snapshot.tree).toBe(result.undoTree)
  })

  it('refuses an undo that would overwrite a later change, unless forced', async () => {
    const w = await world()
    const first = await turn(w, () => write(w.cwd, 'a.txt', 'a2\n'))
    const result = await restore(w, first.start)
    write(w.cwd, 'a.txt', 'later\n')
    const undo = {
      cwd: w.cwd,
      tree: result.undoTree,
      paths: result.restored,
      expectTree: result.snapshot.tree,
    }
    await expect(w.files.restoreTree(undo)).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'files-conflict'),
    )
    expect(read(w.cwd, 'a.txt')).toBe('later\n')
    await w.files.restoreTree({ ...undo, force: true })
    expect(read(w.cwd, 'a.txt')).toBe('a2\n')
  })

  it('rewinds only the child own changes after a fork', async () => {
    const w = await world()
    await turn(w, () => write(w.cwd, 'a.txt', 'parent\n'))
    const forkSeq = w.session.events.length - 1
    const childBase = w.files.treeAt(w.session.events, forkSeq, w.baseTree)
    const child = w.store.fork(w.session, forkSeq, undefined, { meta: { baseTree: childBase } })
    const childWorld: World = { ...w, session: child, baseTree: childBase ?? w.baseTree }
    const childTurn = await turn(childWorld, () => write(w.cwd, 'b.txt', 'child\n'))
    expect(w.files.timeline(child).map((entry) => entry.seq)).toEqual([childTurn.start + 2])
    const result = await restore(childWorld, forkSeq)
    expect(result.restored).toEqual(['b.txt'])
    expect(read(w.cwd, 'b.txt')).toBe('b1\n')
    expect(read(w.cwd, 'a.txt')).toBe('parent\n')
  })

  it('throws snapshot-unavailable when no tree is known at toSeq', async () => {
    const w = await world()
    const first = await turn(w, () => write(w.cwd, 'a.txt', 'a2\n'))
    const error = await w.files
      .restore({ cwd: w.cwd, events: w.session.events, inheritedEventCount: 0, toSeq: first.start })
      .catch((caught: unknown) => caught)
    expect(TangentError.hasCode(error, 'snapshot-unavailable')).toBe(true)
    expect(read(w.cwd, 'a.txt')).toBe('a2\n')
  })

  it('writes back the exact bytes, whatever the .gitattributes say', async () => {
    const root = temps.make()
    const crlf = 'line one\r\nline two\r\n'
    const cwd = makeRepository(path.join(root, 'repo'), { '.gitattributes': '* text=auto eol=lf\n' })
    write(cwd, 'windows.txt', crlf)
    const files = new FileState({ home: path.join(root, 'home') })
    const base = await files.snapshot(cwd)
    write(cwd, 'windows.txt', 'rewritten\n')
    const after = await files.snapshot(cwd)
    await files.restoreTree({ cwd, tree: base.tree, paths: after.changed })
    expect(readFileSync(path.join(cwd, 'windows.txt'), 'utf8')).toBe(crlf)
  })

  it('handles file names with spaces, glob characters, a leading colon and non-ASCII letters', async () => {
    const w = await world()
    const names = ['sp ace.txt', 'star*[1].txt', ':colon.txt', 'ünïcode/ñ.txt']
    const first = await turn(w, () => {
      for (const name of names) write(w.cwd, name, `${name}\n`)
    })
    expect([...(w.files.timeline(w.session)[0]?.changed ?? [])].sort()).toEqual([...names].sort())
    write(w.cwd, 'star1.txt', "not the glob one, and not the session's\n")
    const result = await restore(w, first.start)
    expect(result.restored.sort()).toEqual([...names].sort())
    for (const name of names) expect(existsSync(path.join(w.cwd, name))).toBe(false)
    expect(read(w.cwd, 'star1.txt')).toBe("not the glob one, and not the session's\n")
  })

  it('never deletes a file that was only left out of the target snapshot for its size', async () => {
    const root = temps.make()
    const cwd = path.join(root, 'project')
    write(cwd, 'data.bin', Buffer.alloc(4000, 1))
    const files = new FileState({ home: path.join(root, 'home'), maxFileBytes: 1000 })
    const store = new SessionStore()
    const session = store.create(undefined, { meta: { cwd } })
    const w: World = { cwd, files, store, session, baseTree: (await files.snapshot(cwd)).tree }
    const first = await turn(w, () => undefined)
    expect(files.timeline(session)[0]?.skipped).toEqual(['data.bin'])
    // The file shrinks under the limit: to the snapshots it looks added.
    await turn(w, () => write(cwd, 'data.bin', 'small now\n'))
    const result = await restore(w, first.end)
    expect(result.restored).toEqual([])
    expect(result.kept).toEqual(['data.bin'])
    expect(read(cwd, 'data.bin')).toBe('small now\n')
  })

  it('refuses, even with force, to write through a parent folder the user replaced with a symlink', async () => {
    const w = await world()
    const first = await turn(w, () => write(w.cwd, 'sub/x.txt', 'x1\n'))
    await turn(w, () => write(w.cwd, 'sub/x.txt', 'x2 by the session\n'))
    // The user moves the folder out of the project and links it back.
    const outside = temps.make()
    write(outside, 'theirs.txt', 'the user keeps this folder elsewhere\n')
    rmSync(path.join(w.cwd, 'sub'), { recursive: true })
    symlinkSync(outside, path.join(w.cwd, 'sub'))
    for (const force of [false, true]) {
      const refused = await restore(w, first.end, force).catch((error: unknown) => error)
      expect(TangentError.hasCode(refused, 'files-conflict'), String(refused)).toBe(true)
      expect((refused as TangentError).data.paths).toEqual(['sub/x.txt'])
      expect((refused as TangentError).data.undoTree).toEqual(expect.any(String))
    }
    // Nothing written: the link is the user's, the folder it points to is untouched.
    expect(lstatSync(path.join(w.cwd, 'sub')).isSymbolicLink()).toBe(true)
    expect(readdirSync(outside)).toEqual(['theirs.txt'])
    const journals = path.join(w.files.home, 'snapshots', 'journal')
    expect(existsSync(journals) ? readdirSync(journals) : []).toEqual([])
  })

  it('refuses, even with force, to replace a file that now stands where a parent folder was', async () => {
    const w = await world()
    const first = await turn(w, () => write(w.cwd, 'sub/x.txt', 'x1\n'))
    await turn(w, () => write(w.cwd, 'sub/x.txt', 'x2 by the session\n'))
    rmSync(path.join(w.cwd, 'sub'), { recursive: true })
    write(w.cwd, 'sub', 'a file of the user\n')
    const refused = await restore(w, first.end, true).catch((error: unknown) => error)
    expect(TangentError.hasCode(refused, 'files-conflict'), String(refused)).toBe(true)
    expect((refused as TangentError).data.paths).toEqual(['sub/x.txt'])
    expect(read(w.cwd, 'sub')).toBe('a file of the user\n')
  })

  it('leaves alone (kept) a folder that now stands where a file is to be restored', async () => {
    const w = await world()
    const first = await turn(w, () => write(w.cwd, 'a.txt', 'a2\n'))
    await turn(w, () => write(w.cwd, 'a.txt', 'a3\n'))
    rmSync(path.join(w.cwd, 'a.txt'))
    write(w.cwd, 'a.txt/user.txt', 'the user made a folder here\n')
    const result = await restore(w, first.end, true)
    expect(result.restored).toEqual([])
    expect(result.kept).toEqual(['a.txt'])
    expect(read(w.cwd, 'a.txt/user.txt')).toBe('the user made a folder here\n')
  })

  it("still swaps a file and a folder back when both were the session's own change", async () => {
    const w = await world()
    const first = await turn(w, () => write(w.cwd, 'p', 'p is a file\n'))
    await turn(w, () => {
      rmSync(path.join(w.cwd, 'p'))
      write(w.cwd, 'p/inner.txt', 'p is a folder now\n')
    })
    const back = await restore(w, first.end)
    expect(back.restored).toEqual(['p', 'p/inner.txt'])
    expect(read(w.cwd, 'p')).toBe('p is a file\n')
    w.session.append('snapshot/taken', back.snapshot)
    const undone = await w.files.restoreTree({
      cwd: w.cwd,
      tree: back.undoTree,
      paths: back.restored,
      expectTree: back.snapshot.tree,
    })
    expect(undone.restored).toEqual(['p', 'p/inner.txt'])
    expect(read(w.cwd, 'p/inner.txt')).toBe('p is a folder now\n')
    // The snapshots taken after writing are the directory as it is.
    expect(undone.snapshot.tree).toBe(back.undoTree)
    expect((await w.files.snapshot(w.cwd)).changed).toEqual([])
  })

  it('refuses paths that leave the directory', async () => {
    const w = await world()
    await expect(
      w.files.restoreTree({ cwd: w.cwd, tree: w.baseTree, paths: ['../outside.txt'] }),
    ).rejects.toSatisfy((error) => TangentError.hasCode(error, 'invalid-path'))
  })
})
