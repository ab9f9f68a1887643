// A log longer than one synchronous read chunk (and decode block) is read chunk by chunk into one
// small buffer: every line comes out whole, numbered, with its UTF-8 verdict, wherever the chunk
// boundaries fall, and every offset is in bytes of the file.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonlStore } from './jsonl-store.js'
import { decodeBlockBytes, readLines, syncChunkBytes } from './line-reader.js'
import { appendTurn, logFile, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
afterEach(async () => {
  for (const db of open.splice(0)) await db.close()
})

describe('readLines over many chunks', () => {
  it('hands out every line whole across chunk and block boundaries, with byte offsets', async () => {
    const file = path.join(tempDataDir(), 'many.jsonl')
    const lines: Buffer[] = []
    // Lines of varied lengths, with multi-byte characters so that bytes and characters differ.
    for (let i = 0; i < 400; i++) lines.push(Buffer.from(`${i} ${'ü✓'.repeat(i % 97)}${'x'.repeat(i * 7)}`))
    // Longer than a chunk and a block: carried across chunks and read again whole.
    lines.push(Buffer.from(`long ${'🌿'.repeat((3 * Math.max(syncChunkBytes, decodeBlockBytes)) / 4)}`))
    lines.push(Buffer.from([0xff, 0xfe, 0x41])) // not UTF-8, in a late chunk
    for (let i = 0; i < 50; i++) lines.push(Buffer.from(`after ${i}`))
    const tail = Buffer.from('{"torn')
    const body = Buffer.concat(lines.flatMap((line) => [line, Buffer.from('\n')]))
    fs.writeFileSync(file, Buffer.concat([body, tail]))
    expect(body.length).toBeGreaterThan(4 * syncChunkBytes)

    const seen: { text: string; line: number; utf8: boolean }[] = []
    const read = await readLines(file, (text, line, utf8) => {
      seen.push({ text, line, utf8 })
      return undefined
    })
    expect(seen.map((entry) => entry.line)).toEqual(lines.map((_, i) => i + 1))
    for (let i = 0; i < lines.length; i++) {
      const utf8 = i !== 401
      expect(seen[i]!.utf8).toBe(utf8)
      if (utf8) expect(seen[i]!.text).toBe(lines[i]!.toString('utf8'))
    }
    expect(read.consumedBytes).toBe(body.length)
    expect(read.lastLineStart).toBe(body.length - lines.at(-1)!.length - 1)
    expect(read.tail).toEqual(tail)
    expect(read.stopped).toBe(false)

    // Stopping at a line in a late chunk: consumed ends just past that line.
    const stopAt = 430
    const stopped = await readLines(file, (_text, line) => line < stopAt)
    const through = lines.slice(0, stopAt).reduce((sum, line) => sum + line.length + 1, 0)
    expect(stopped).toMatchObject({ stopped: true, consumedBytes: through })
    expect(stopped.lastLineStart).toBe(through - lines[stopAt - 1]!.length - 1)
  })

  it('a log of many chunks loads the events it was written with; a bad line in a late chunk is named', async () => {
    const dir = tempDataDir()
    const db = await JsonlStore.open({ dir })
    open.push(db)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    for (let i = 0; i < 300; i++) appendTurn(session, `turn ${i} ✓ ${'lorem ipsum '.repeat(i % 40)}`)
    const written = session.events.map((event) => ({ type: event.type, data: event.data }))
    await db.close()
    open.splice(0)
    const bytes = fs.readFileSync(logFile(dir, 's'))
    expect(bytes.length).toBeGreaterThan(4 * syncChunkBytes)

    const reader = await JsonlStore.open({ dir, readOnly: true })
    open.push(reader)
    const loaded = await reader.load('s')
    expect(loaded.events.map((event) => ({ type: event.type, data: event.data }))).toEqual(written)

    // Line 2000's seq made wrong (same length): the store names that line, far past the first chunk.
    const text = bytes.toString('utf8').split('\n')
    const line = 2000
    const seq = line - 2
    text[line - 1] = text[line - 1]!.replace(`"seq":${seq},`, `"seq":${seq + 1},`)
    fs.writeFileSync(logFile(dir, 's'), text.join('\n'))
    const again = await JsonlStore.open({ dir, readOnly: true })
    open.push(again)
    await expect(again.load('s')).rejects.toMatchObject({ code: 'corrupt-log', data: { line } })
  })
})
