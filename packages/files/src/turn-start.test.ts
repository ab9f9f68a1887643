// Attribution by turn (docs/architecture.md §5): what changes between a session's turns is
// recorded at the next turn's start as `outside`, never as the turn's own change, and a restore
// overwrites it only when forced. Real temporary git repositories, as the agent records them.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { type Session, SessionStore, TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FileState } from './file-state.js'
import { makeRepository, TempDirectories, write } from './fixture.test-helper.js'
import { treeAt } from './timeline.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

/** Bytes a text-mode round trip would change: CRLF, a lone CR, NUL, invalid UTF-8. */
const precious = Buffer.from([0x6d, 0x79, 0x0d, 0x0a, 0x0d, 0x00, 0xff, 0xfe, 0x0a])

function project(): { cwd: string; files: FileState; store: SessionStore } {
  const root = temps.make()
  const cwd = makeRepository(path.join(root, 'p'), { 'base.txt': 'base\n' })
  return { cwd, files: new FileState({ home: path.join(root, 'home') }), store: new SessionStore() }
}

/** One turn as the agent records it: the turn-start snapshot (when one is due), `edit`, a step snapshot. */
async function turn(files: FileState, session: Session, edit: () => void) {
  const start = session.append('turn/start', {}).seq
  session.append('user/message', { content: [{ type: 'text', text: 'edit' }] })
  const since = treeAt(session.events, session.lastSeq)
  const found = await files.snapshotTurnStart(session.header.cwd, since)
  const turnStart = found ? session.append('snapshot/taken', found) : null
  edit()
  const step = await files.snapshot(session.header.cwd)
  session.append('snapshot/taken', step)
  const end = session.append('turn/end', { reason: 'completed' }).seq
  return { start, end, turnStart: found, turnStartSeq: turnStart?.seq ?? null, step }
}

function restoreTo(files: FileState, session: Session, toSeq: number, force = false) {
  return files.restore({
    cwd: session.header.cwd,
    events: session.events,
    inheritedEventCount: session.inheritedEventCount,
    toSeq,
    force,
  })
}

async function conflictOf(promise: Promise<unknown>): Promise<TangentError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  if (!TangentError.isInstance(error)) throw new Error(`expected a TangentError, got ${String(error)}`)
  return error
}

describe('turn-start snapshots', () => {
  it('book a change made between turns as outside, and only the agent’s writes as the turn’s', async () => {
    const { cwd, files, store } = project()
    const session = store.create(undefined, { meta: { cwd } })
    const first = await turn(files, session, () => write(cwd, 'a.txt', 'agent A\n'))
    expect(first.turnStart).toMatchObject({ changed: [] })
    expect(first.turnStart?.outside).toBeUndefined()
    expect(first.step.changed).toEqual(['a.txt'])

    write(cwd, 'mine.txt', precious)
    const second = await turn(files, session, () => write(cwd, 'c.txt', 'agent C\n'))
    expect(second.turnStart).toMatchObject({ changed: [], outside: ['mine.txt'] })
    expect(second.step.changed).toEqual(['c.txt'])

    // Nothing changed between turns: no turn-start event at all.
    const third = await turn(files, session, () => write(cwd, 'd.txt', 'agent D\n'))
    expect(third.turnStart).toBeNull()
    expect(third.step.changed).toEqual(['d.txt'])
  })

  it('make a restore refuse to overwrite the person’s file; forced it does, and undo brings it back byte for byte', async () => {
    const { cwd, files, store } = project()
    const session = store.create(undefined, { meta: { cwd } })
    const first = await turn(files, session, () => write(cwd, 'a.txt', 'agent A\n'))
    write(cwd, 'mine.txt', precious)
    await turn(files, session, () => write(cwd, 'c.txt', 'agent C\n'))

    const refused = await conflictOf(restoreTo(files, session, first.end))
    expect(refused.code).toBe('files-conflict')
    expect(refused.data).toMatchObject({ paths: ['mine.txt'] })
    expect(readFileSync(path.join(cwd, 'mine.txt'))).toEqual(precious)
    expect(existsSync(path.join(cwd, 'c.txt'))).toBe(true)

    const forced = await restoreTo(files, session, first.end, true)
    expect(forced.restored).toEqual(['c.txt', 'mine.txt'])
    expect(existsSync(path.join(cwd, 'mine.txt'))).toBe(false)

    // The undo tree is the directory before the restore: the person's bytes are in it.
    await files.restoreTree({
      cwd,
      tree: forced.undoTree,
      paths: forced.restored,
      expectTree: forced.snapshot.tree,
    })
    expect(readFileSync(path.join(cwd, 'mine.txt'))).toEqual(precious)
    expect(readFileSync(path.join(cwd, 'c.txt'), 'utf8')).toBe('agent C\n')
  })

  it('keep a hand edit to a file the agent changed earlier: refused at the turn before, untouched at the turn’s start', async () => {
    const { cwd, files, store } = project()
    const session = store.create(undefined, { meta: { cwd } })
    const first = await turn(files, session, () => write(cwd, 'a.txt', 'agent A\n'))
    write(cwd, 'a.txt', 'fixed by hand\n')
    const second = await turn(files, session, () => write(cwd, 'c.txt', 'agent C\n'))
    expect(second.turnStart?.outside).toEqual(['a.txt'])
    expect(second.step.changed).toEqual(['c.txt'])

    // Back to turn 1's end would put the agent's a.txt over the person's fix.
    const refused = await conflictOf(restoreTo(files, session, first.end))
    expect(refused.data).toMatchObject({ paths: ['a.txt'] })
    expect(await conflictOf(restoreTo(files, session, first.turnStartSeq!))).toMatchObject({
      data: { paths: ['a.txt'] },
    })

    // Back to the start of turn 2 (after its turn-start snapshot): only the agent's c.txt goes.
    const undone = await restoreTo(files, session, second.turnStartSeq!)
    expect(undone.restored).toEqual(['c.txt'])
    expect(readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('fixed by hand\n')
  })

  it('do not refuse for a path changed between turns that is as the target has it again', async () => {
    const { cwd, files, store } = project()
    const session = store.create(undefined, { meta: { cwd } })
    const first = await turn(files, session, () => write(cwd, 'a.txt', 'agent A\n'))
    write(cwd, 'scratch.txt', 'tmp\n')
    await turn(files, session, () => write(cwd, 'c.txt', 'agent C\n'))
    write(cwd, 'base.txt', 'base\n') // unchanged content: not a change
    rmSync(path.join(cwd, 'scratch.txt'))
    await turn(files, session, () => write(cwd, 'd.txt', 'agent D\n'))

    const restored = await restoreTo(files, session, first.end)
    expect(restored.restored).toEqual(['c.txt', 'd.txt'])
  })

  it('see another session’s files in the same folder as outside, and a restore never deletes them unless forced', async () => {
    const { cwd, files, store } = project()
    const a = store.create(undefined, { meta: { cwd } })
    const b = store.create(undefined, { meta: { cwd } })
    const firstOfA = await turn(files, a, () => write(cwd, 'a.txt', 'from A\n'))
    const firstOfB = await turn(files, b, () => write(cwd, 'b.txt', 'from B\n'))
    // B's first tree is where it started (A's a.txt included), not a change of its own.
    expect(firstOfB.turnStart?.outside).toBeUndefined()
    expect(firstOfB.step.changed).toEqual(['b.txt'])

    const secondOfA = await turn(files, a, () => write(cwd, 'a2.txt', 'from A again\n'))
    expect(secondOfA.turnStart?.outside).toEqual(['b.txt'])
    expect(secondOfA.step.changed).toEqual(['a2.txt'])

    for (const toSeq of [firstOfA.end, firstOfA.turnStartSeq!]) {
      const refused = await conflictOf(restoreTo(files, a, toSeq))
      expect(refused.data).toMatchObject({ paths: ['b.txt'] })
      expect(readFileSync(path.join(cwd, 'b.txt'), 'utf8')).toBe('from B\n')
    }
    // Before A's turns, B's file did not exist: forced, A goes back there entirely.
    const forced = await restoreTo(files, a, firstOfA.turnStartSeq!, true)
    expect(forced.restored).toEqual(['a.txt', 'a2.txt', 'b.txt'])
  })
})
