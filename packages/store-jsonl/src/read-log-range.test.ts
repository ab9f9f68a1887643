import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonlStore } from './jsonl-store.js'
import { readLogRange } from './read-log-range.js'
import { appendTurn, logFile, removeTempDataDirs, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
async function openStore(dir: string, readOnly = false): Promise<JsonlStore> {
  const db = await JsonlStore.open({ dir, readOnly })
  open.push(db)
  return db
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close()
  removeTempDataDirs()
})

const plain = (events: readonly unknown[]) => JSON.parse(JSON.stringify(events))

/**
 * A data dir with `s1` (turns whose lines hold `outputBytes` of text in characters of two to
 * four bytes, so reads from the end cut them), and `s2` a fork of it by reference.
 */
async function writtenStore(turns: number, outputBytes: number): Promise<string> {
  const dir = tempDataDir()
  const db = await JsonlStore.open({ dir })
  const session = db.store.create('s1', { meta: { cwd: '/work' } })
  // Each turn's text is in three of its lines (the message, the tool's output, the answer).
  for (let turn = 0; turn < turns; turn++) appendTurn(session, `${turn} ${'é€😀'.repeat(outputBytes / 9)}`)
  const fork = db.store.fork(session, undefined, 's2')
  appendTurn(fork, 'after the fork')
  await db.close()
  return dir
}

describe('readLogRange', () => {
  it('answers any range of a long log as the load does, reading from its end', async () => {
    // ~100 KB lines: more than the first read, so reads grow and cut lines and characters.
    const dir = await writtenStore(8, 100_000)
    const db = await openStore(dir, true)
    const whole = plain((await openStore(dir, true).then((other) => other.load('s1'))).events)
    const count = whole.length
    for (const [fromSeq, beforeSeq] of [
      [count - 1, count],
      [count - 40, count],
      [0, count],
      [5, 9],
      [count - 3, count - 1],
    ] as const) {
      const events = await db.readEventRange('s1', { fromSeq, beforeSeq, eventCount: count })
      expect(plain(events!), `${fromSeq}–${beforeSeq}`).toEqual(whole.slice(fromSeq, beforeSeq))
    }
    expect(await db.readEventRange('s1', { fromSeq: count, beforeSeq: count, eventCount: count })).toEqual([])
    // Read, not loaded: the session is not live in the store that read it.
    expect(db.store.get('s1')).toBeUndefined()
  })

  it("a fork's own events come from its log; its inherited ones only from a load (null)", async () => {
    const dir = await writtenStore(2, 100)
    const db = await openStore(dir, true)
    const fork = plain((await (await openStore(dir, true)).load('s2')).events)
    const inherited = fork.length - 10
    const own = await db.readEventRange('s2', {
      fromSeq: inherited,
      beforeSeq: fork.length,
      eventCount: fork.length,
    })
    expect(plain(own!)).toEqual(fork.slice(inherited))
    expect(
      await db.readEventRange('s2', {
        fromSeq: inherited - 1,
        beforeSeq: fork.length,
        eventCount: fork.length,
      }),
    ).toBeNull()
  })

  it('answers null for what only a load may judge: a torn tail, a bad line, a count that disagrees, a live session', async () => {
    const dir = await writtenStore(3, 100)
    const file = logFile(dir, 's1')
    const text = fs.readFileSync(file, 'utf8')
    const lines = text.split('\n').slice(0, -1)
    const count = lines.length - 1
    const range = { fromSeq: count - 5, beforeSeq: count, lastSeq: count - 1 }
    expect(await readLogRange(file, range)).toHaveLength(5)

    fs.writeFileSync(file, `${text}{"seq":${count},"ti`)
    expect(await readLogRange(file, range)).toBeNull()
    fs.writeFileSync(file, `${[...lines.slice(0, -3), '{not json', ...lines.slice(-2)].join('\n')}\n`)
    expect(await readLogRange(file, range)).toBeNull()
    // Damage before the range is not read (a load reports it).
    expect(await readLogRange(file, { ...range, fromSeq: count - 2 })).toHaveLength(2)
    fs.writeFileSync(file, text)
    expect(await readLogRange(file, { ...range, lastSeq: count })).toBeNull()
    expect(await readLogRange(file, { ...range, lastSeq: count - 2 })).toBeNull()
    // From the first event: the whole log, the header line not taken for an event.
    expect(await readLogRange(file, { ...range, fromSeq: 0, lastSeq: count - 1 })).toHaveLength(count)

    const db = await openStore(dir)
    const live = await db.load('s1')
    expect(
      await db.readEventRange('s1', { fromSeq: 0, beforeSeq: count, eventCount: live.events.length }),
    ).toBeNull()
  })
})
