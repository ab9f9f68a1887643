// Crash repair counts bytes, never decoded text: junk after a log's acknowledged lines (bytes
// that are not UTF-8, NULs, a lone CR, part of a JSON line) is cut exactly where the good lines
// end, kept in .torn, and the log takes appends again. A seeded fuzz run proves it on many
// shapes of junk; TANGENT_PROVE_SEED=<n> replays one run.
import { isUtf8 } from 'node:buffer'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { proveSeed, seededRandom } from '../../../test/soak/lib.mjs'
import { JsonlStore } from './jsonl-store.js'
import { readLines } from './line-reader.js'
import { appendTurn, logFile, logLines, removeTempDataDirs, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
async function openStore(dir: string): Promise<JsonlStore> {
  const db = await JsonlStore.open({ dir })
  open.push(db)
  return db
}
afterEach(async () => {
  for (const db of open.splice(0)) await db.close()
  removeTempDataDirs()
})

function tornOf(dir: string, id: string): string {
  return path.join(dir, 'sessions', `${id}.jsonl.torn`)
}

/** Every line of the log is JSON, and the events' seqs are dense from the header's start. */
function expectWholeLog(dir: string, id: string, events: number): void {
  const bytes = fs.readFileSync(logFile(dir, id))
  expect(bytes.at(-1)).toBe(10)
  expect(isUtf8(bytes)).toBe(true)
  const lines = logLines(dir, id).map((line) => JSON.parse(line))
  expect(lines).toHaveLength(1 + events)
  expect(lines.slice(1).map((line) => line.seq)).toEqual(lines.slice(1).map((_, i) => i))
}

describe('crash repair counts bytes, not decoded text', () => {
  it('invalid UTF-8 after the last acknowledged line is cut exactly there, kept, and the next append stays whole', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    appendTurn(session, 'ünïcode ✓ 🌿')
    const count = session.events.length
    await db.close()
    open.splice(0)
    const acknowledged = fs.readFileSync(logFile(dir, 's'))
    // Each 0xff decodes to U+FFFD (3 bytes): an offset taken from the text would cut 16 bytes
    // into the acknowledged last line.
    const junk = Buffer.concat([Buffer.alloc(8, 0xff), Buffer.from('\n')])
    fs.appendFileSync(logFile(dir, 's'), junk)

    const again = await openStore(dir)
    const loaded = await again.load('s')
    expect(loaded.events).toHaveLength(count)
    expect(fs.readFileSync(logFile(dir, 's'))).toEqual(acknowledged)
    expect(fs.readFileSync(tornOf(dir, 's'))).toEqual(junk)
    loaded.append('session/title', { title: 'after the repair' })
    await again.close()
    open.splice(0)

    const third = await openStore(dir)
    expect((await third.load('s')).events).toHaveLength(count + 1)
    expectWholeLog(dir, 's', count + 1)
    expect(fs.readFileSync(tornOf(dir, 's'))).toEqual(junk)
  })

  it('a middle line that is not UTF-8 is corrupt-log (never silently read as U+FFFD), and the file is left alone', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    session.append('session/title', { title: 'AAAA' })
    session.append('session/title', { title: 'last' })
    await db.close()
    open.splice(0)
    const bytes = fs.readFileSync(logFile(dir, 's'))
    const at = bytes.indexOf('AAAA')
    bytes[at] = 0xff // the line stays JSON once decoded ("\uFFFDAAA"), but it is not what was written
    fs.writeFileSync(logFile(dir, 's'), bytes)
    const again = await openStore(dir)
    await expect(again.load('s')).rejects.toMatchObject({ code: 'corrupt-log', data: { line: 2 } })
    expect(fs.readFileSync(logFile(dir, 's'))).toEqual(bytes)
  })

  it('reads byte offsets of a line carried across chunks, and says which lines are not UTF-8', async () => {
    const file = path.join(tempDataDir(), 'big.jsonl')
    // 18 MiB of two-byte characters: longer than one 16 MiB read, so the line is carried over.
    const first = Buffer.from(`${'ü'.repeat(9 * 1024 * 1024)}\n`)
    const second = Buffer.from([0xff, 0xfe, 0x41, 10])
    fs.writeFileSync(file, Buffer.concat([first, second, Buffer.from('tail')]))
    const seen: [number, boolean][] = []
    const read = await readLines(file, (text, line, utf8) => {
      seen.push([line, utf8])
      if (line === 1) expect(text.length).toBe(9 * 1024 * 1024)
      return undefined
    })
    expect(seen).toEqual([
      [1, true],
      [2, false],
    ])
    expect(read.consumedBytes).toBe(first.length + second.length)
    expect(read.lastLineStart).toBe(first.length)
    expect(read.tail.toString()).toBe('tail')
    const stopped = await readLines(file, (_text, line) => line < 2)
    expect(stopped).toMatchObject({ stopped: true, consumedBytes: first.length + second.length })
    expect(stopped.lastLineStart).toBe(first.length)
  })
})

/** Bytes a crash (or a bad disk) could leave after the good lines; never a newline inside. */
function randomJunk(random: ReturnType<typeof seededRandom>, nextLine: Buffer | null): Buffer {
  const parts: Buffer[] = []
  const pieces = random.int(1, 4)
  for (let i = 0; i < pieces; i++) {
    switch (random.pick(['invalid', 'nul', 'cr', 'partial', 'bytes', 'split-char'] as const)) {
      case 'invalid': // continuation bytes, overlong starts, 0xfe/0xff: each one U+FFFD when decoded
        parts.push(Buffer.from(Array.from({ length: random.int(1, 16) }, () => random.int(0x80, 0xff))))
        break
      case 'nul': // a file system that extended the file but never wrote the block
        parts.push(Buffer.alloc(random.pick([1, 7, 512, 4096]), 0))
        break
      case 'cr':
        parts.push(Buffer.from('\r'))
        break
      case 'partial': // the start of the line that was being written (never all of it)
        if (nextLine && nextLine.length > 2)
          parts.push(nextLine.subarray(0, random.int(1, nextLine.length - 2)))
        break
      case 'bytes':
        parts.push(
          Buffer.from(Array.from({ length: random.pick([1, 5, 60, 3000]) }, () => random.int(0, 255))),
        )
        break
      case 'split-char': // a multi-byte character cut in the middle
        parts.push(Buffer.from('✓🌿ü').subarray(0, random.int(1, 8)))
        break
    }
  }
  let junk = Buffer.concat(parts)
  junk = Buffer.from(junk.map((byte) => (byte === 10 ? 0x20 : byte)))
  if (random.chance(0.5)) {
    // A complete final line: still junk unless it happens to be JSON, which is made impossible.
    if (isUtf8(junk) && parsesAsJson(junk)) junk = Buffer.concat([Buffer.from([0xff]), junk])
    junk = Buffer.concat([junk, Buffer.from('\n')])
  }
  return junk
}

function parsesAsJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString())
    return true
  } catch {
    return false
  }
}

describe('crash repair fuzz (seeded)', () => {
  it('junk at random tail positions: acknowledged bytes never change, the cut is kept in .torn, the log loads and takes appends', async () => {
    const seed = proveSeed('store-jsonl torn-tail fuzz', 0x5eed_70)
    const random = seededRandom(seed)
    // One real log written by the store, with multi-byte text in many lines.
    const source = tempDataDir()
    const db = await openStore(source)
    const session = db.store.create('src', { meta: { cwd: '/' } })
    for (let i = 0; i < 5; i++) appendTurn(session, `turn ${i} — ünïcödé ✓ 🌿`, { tool: i % 2 === 0 })
    session.append('session/title', { title: 'Tïtle ✓ 🌿' })
    const sourceEvents = JSON.parse(JSON.stringify(session.events))
    await db.close()
    open.splice(0)
    const bytes = fs.readFileSync(logFile(source, 'src'))
    const headerEnd = bytes.indexOf(10) + 1
    const header = JSON.parse(bytes.subarray(0, headerEnd).toString())
    const body = bytes.subarray(headerEnd)
    const lineEnds: number[] = []
    for (let at = body.indexOf(10); at >= 0; at = body.indexOf(10, at + 1)) lineEnds.push(at + 1)

    const dir = tempDataDir()
    fs.mkdirSync(path.join(dir, 'sessions'))
    const cases = Array.from({ length: 160 }, (_, n) => {
      const id = `fuzz${n}`
      // Acknowledged: the header and the first `kept` events (complete lines, fsynced).
      const kept = random.int(0, lineEnds.length)
      const ackEnd = kept === 0 ? 0 : lineEnds[kept - 1]!
      const acknowledged = Buffer.concat([
        Buffer.from(`${JSON.stringify({ ...header, id })}\n`),
        body.subarray(0, ackEnd),
      ])
      // Sometimes the next line of the batch made it whole before the crash: it is a good line.
      const whole = kept < lineEnds.length && random.chance(0.2) ? 1 : 0
      const goodEnd = whole ? lineEnds[kept]! : ackEnd
      const next = kept + whole < lineEnds.length ? body.subarray(goodEnd, lineEnds[kept + whole]! - 1) : null
      const junk = random.chance(0.1) ? Buffer.alloc(0) : randomJunk(random, next)
      const good = Buffer.concat([acknowledged, body.subarray(ackEnd, goodEnd)])
      fs.writeFileSync(logFile(dir, id), Buffer.concat([good, junk]))
      return { id, good, events: kept + whole, junk }
    })

    const store = await openStore(dir)
    const counts = new Map<string, number>()
    for (const c of cases) {
      const where = `${c.id} (seed ${seed})`
      const loaded = await store.load(c.id)
      // The good lines are all there, byte for byte (repair may add closing events after them).
      expect(fs.readFileSync(logFile(dir, c.id)).subarray(0, c.good.length), where).toEqual(c.good)
      expect(JSON.parse(JSON.stringify(loaded.events.slice(0, c.events))), where).toEqual(
        sourceEvents.slice(0, c.events),
      )
      // The cut bytes are kept, exactly (a newline closes each cut).
      if (c.junk.length > 0) {
        const record = c.junk.at(-1) === 10 ? c.junk : Buffer.concat([c.junk, Buffer.from('\n')])
        expect(fs.readFileSync(tornOf(dir, c.id)), where).toEqual(record)
      } else expect(fs.existsSync(tornOf(dir, c.id)), where).toBe(false)
      expect(loaded.isTurnOpen, where).toBe(false)
      expectWholeLog(dir, c.id, loaded.events.length)
      loaded.append('session/title', { title: `after ${c.id} ✓` })
      counts.set(c.id, loaded.events.length)
    }
    await store.close()
    open.splice(0)

    // After a restart every log loads as written, with the append after the repair.
    const again = await openStore(dir)
    for (const c of cases) {
      const loaded = await again.load(c.id)
      expect(loaded.events.length, `${c.id} (seed ${seed})`).toBe(counts.get(c.id))
      expect(loaded.title).toBe(`after ${c.id} ✓`)
      expectWholeLog(dir, c.id, loaded.events.length)
    }
  })
})
