import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonlStore } from './jsonl-store.js'
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

/** A flushed and closed log of a session with a few turns, ending with a unicode title. */
async function writeSession(dir: string, id: string): Promise<unknown[]> {
  const db = await JsonlStore.open({ dir })
  const session = db.store.create(id, { meta: { cwd: '/' } })
  appendTurn(session, 'one')
  appendTurn(session, 'two — ünïcode ✓')
  session.append('session/title', { title: 'Tïtle ✓ 🌿' })
  const events = JSON.parse(JSON.stringify(session.events))
  await db.close()
  return events
}

describe('crash repair', () => {
  it('survives a log truncated at every byte offset of its last two lines', async () => {
    const source = tempDataDir()
    const events = await writeSession(source, 'src')
    const bytes = fs.readFileSync(logFile(source, 'src'))
    const headerEnd = bytes.indexOf(10) + 1
    const header = JSON.parse(bytes.subarray(0, headerEnd).toString())
    const body = bytes.subarray(headerEnd)
    const lastStart = body.lastIndexOf(10, body.length - 2) + 1
    const secondLastStart = body.lastIndexOf(10, lastStart - 2) + 1
    // One data dir, one log per cut: the same events after a header naming the cut.
    const dir = tempDataDir()
    fs.mkdirSync(path.join(dir, 'sessions'))
    const cuts: number[] = []
    for (let cut = secondLastStart; cut < body.length; cut++) {
      cuts.push(cut)
      const id = `cut${cut}`
      const head = Buffer.from(`${JSON.stringify({ ...header, id })}\n`)
      fs.writeFileSync(logFile(dir, id), Buffer.concat([head, body.subarray(0, cut)]))
    }
    expect(cuts.length).toBeGreaterThan(100)
    const db = await openStore(dir)
    for (const cut of cuts) {
      const id = `cut${cut}`
      const kept = body.subarray(0, cut)
      const complete = kept.lastIndexOf(10) + 1
      const acknowledged = kept.subarray(0, complete).toString().split('\n').filter(Boolean).length
      const session = await db.load(id)
      // The acknowledged prefix is intact…
      expect(JSON.parse(JSON.stringify(session.events.slice(0, acknowledged)))).toEqual(
        events.slice(0, acknowledged),
      )
      // …the torn bytes are kept, byte for byte…
      const torn = path.join(dir, 'sessions', `${id}.jsonl.torn`)
      if (complete < cut) {
        const tail = kept.subarray(complete)
        expect(fs.readFileSync(torn)).toEqual(Buffer.concat([tail, Buffer.from('\n')]))
      } else expect(fs.existsSync(torn)).toBe(false)
      // …and the repaired log is whole: no open turn, every line valid.
      expect(session.isTurnOpen).toBe(false)
      expect(logLines(dir, id)).toHaveLength(1 + session.events.length)
    }
    await db.close()
    const again = await openStore(dir)
    for (const cut of cuts) expect((await again.load(`cut${cut}`)).isTurnOpen).toBe(false)
  })

  it('moves an unparsable final line (with its newline) to .torn', async () => {
    const dir = tempDataDir()
    const events = await writeSession(dir, 's')
    fs.appendFileSync(logFile(dir, 's'), '{"seq":25,"time":1,"ty\n')
    const db = await openStore(dir)
    const session = await db.load('s')
    expect(session.events).toHaveLength(events.length)
    expect(fs.readFileSync(path.join(dir, 'sessions', 's.jsonl.torn'), 'utf8')).toBe(
      '{"seq":25,"time":1,"ty\n',
    )
  })

  it('refuses a damaged middle line with corrupt-log naming file and line, and changes nothing', async () => {
    const dir = tempDataDir()
    await writeSession(dir, 's')
    const lines = fs.readFileSync(logFile(dir, 's'), 'utf8').split('\n')
    lines[5] = 'garbage{'
    fs.writeFileSync(logFile(dir, 's'), lines.join('\n'))
    const before = fs.readFileSync(logFile(dir, 's'))
    const db = await openStore(dir)
    const error = await db.load('s').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'corrupt-log', data: { file: logFile(dir, 's'), line: 6 } })
    expect((error as Error).message).toContain('line 6')
    expect(fs.readFileSync(logFile(dir, 's'))).toEqual(before)
    expect(fs.existsSync(path.join(dir, 'sessions', 's.jsonl.torn'))).toBe(false)
  })

  it('refuses a middle line with the wrong seq or an event that breaks the grammar', async () => {
    const dir = tempDataDir()
    await writeSession(dir, 's')
    const lines = fs.readFileSync(logFile(dir, 's'), 'utf8').split('\n')
    const badSeq = [...lines]
    badSeq[3] = JSON.stringify({ ...JSON.parse(badSeq[3]!), seq: 7 })
    fs.writeFileSync(logFile(dir, 's'), badSeq.join('\n'))
    const db = await openStore(dir)
    await expect(db.load('s')).rejects.toMatchObject({ code: 'corrupt-log', data: { line: 4 } })
    const badGrammar = [...lines]
    badGrammar[4] = JSON.stringify({ ...JSON.parse(badGrammar[4]!), type: 'turn/start', data: {} })
    fs.writeFileSync(logFile(dir, 's'), badGrammar.join('\n'))
    await expect(db.load('s')).rejects.toMatchObject({ code: 'corrupt-log', data: { line: 5 } })
  })

  it('closes a dangling open turn with synthetic events written to the log', async () => {
    const dir = tempDataDir()
    const db = await openStore(dir)
    const session = db.store.create('s', { meta: { cwd: '/' } })
    appendTurn(session, 'one')
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'run it' }] })
    session.append('step/start', {})
    session.append('assistant/message', {
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: {} },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: {} },
      ],
    })
    session.append('tool/result', { callId: 'c1', toolName: 'bash', output: 'ok', isError: false })
    const openCount = session.events.length
    await db.close()
    open.splice(0)
    const again = await openStore(dir)
    const loaded = await again.load('s')
    expect(loaded.events.slice(openCount).map((e) => [e.type, e.data])).toEqual([
      ['tool/result', expect.objectContaining({ callId: 'c2', toolName: 'read', isError: true })],
      ['step/end', expect.objectContaining({ finishReason: 'error' })],
      ['turn/end', expect.objectContaining({ reason: 'interrupted' })],
    ])
    expect(logLines(dir, 's')).toHaveLength(1 + loaded.events.length)
    const child = again.store.fork(loaded, undefined, 'child')
    await again.flush('child')
    expect(child.inheritedEventCount).toBe(loaded.events.length)
  })

  it('removes temp files left by an interrupted atomic write', async () => {
    const dir = tempDataDir()
    await writeSession(dir, 's')
    const temp = path.join(dir, 'sessions', '.s.jsonl.tmp-123-abcd')
    fs.writeFileSync(temp, 'half a rewrite')
    fs.writeFileSync(path.join(dir, '.catalog.json.tmp-123-abcd'), '{')
    const db = await openStore(dir)
    expect(fs.existsSync(temp)).toBe(false)
    expect(fs.existsSync(path.join(dir, '.catalog.json.tmp-123-abcd'))).toBe(false)
    expect((await db.load('s')).events.length).toBeGreaterThan(0)
  })

  it('a log without even a complete header is moved to .torn and is not a session', async () => {
    const dir = tempDataDir()
    fs.mkdirSync(path.join(dir, 'sessions'), { recursive: true })
    fs.writeFileSync(logFile(dir, 'h'), '{"type":"session","vers')
    const db = await openStore(dir)
    expect(await db.list()).toEqual([])
    expect(fs.existsSync(logFile(dir, 'h'))).toBe(false)
    expect(fs.readFileSync(path.join(dir, 'sessions', 'h.jsonl.torn'), 'utf8')).toBe(
      '{"type":"session","vers\n',
    )
    await expect(db.load('h')).rejects.toMatchObject({ code: 'session-not-found' })
  })
})
