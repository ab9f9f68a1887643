// A crash between recording a restore (`files/restored`, durable) and removing its journal
// leaves both: the next start must finish it, not roll back files the log says were restored.
// A crash after the files are written and before the record leaves the journal alone: the next
// start must roll it back, even when the log holds the record of an earlier restore with the
// same undo tree (docs/architecture.md §5). The kill itself is in
// test/e2e/prove-files-restore-crash.e2e.ts; here the state it leaves is made by hand.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Runtime } from './runtime.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-recovery-')

const journalOf = (home: string, cwd: string) => {
  const journalDir = path.join(home, 'snapshots', 'journal')
  fs.mkdirSync(journalDir, { recursive: true })
  return path.join(journalDir, `${createHash('sha256').update(cwd).digest('hex').slice(0, 24)}.json`)
}

describe('a restore not recorded before a crash', () => {
  it('is rolled back at the next start, though an earlier restore with the same undo tree is recorded', async () => {
    const home = temp()
    const start = temp()
    const open = (reports: string[]) =>
      Runtime.open({ home, startFolder: start, env: {}, report: (message) => reports.push(String(message)) })
    const runtime = await open([])
    const session = await runtime.createSession({})
    await runtime.prompt({ sessionId: session.id, text: 'write a.txt: one' })
    const first = (await runtime.getSession({ sessionId: session.id })).events.findLast(
      (event) => event.type === 'turn/end',
    )!.seq
    await runtime.prompt({ sessionId: session.id, text: 'write a.txt: two' })
    const restored = await runtime.restore({ sessionId: session.id, seq: first })
    await runtime.undoRestore({ sessionId: session.id })
    const logged = (await runtime.getSession({ sessionId: session.id })).events
    await runtime.close()
    expect(fs.readFileSync(path.join(start, 'a.txt'), 'utf8')).toBe('two\n')
    const record = logged.find((event) => event.seq === restored.seq)!.data as { tree: string }

    // The same restore again, killed after writing its files and before its record: the
    // directory as it wrote it, its journal (the same undo tree as the first), no record.
    fs.writeFileSync(path.join(start, 'a.txt'), 'one\n')
    const journal = journalOf(home, start)
    fs.writeFileSync(
      journal,
      JSON.stringify({
        version: 1,
        id: 'the-interrupted-restore',
        cwd: start,
        paths: restored.restored,
        undoTree: restored.undoTree,
        targetTree: record.tree,
        pid: spawnSync('true').pid,
        hostname: os.hostname(),
        startedAt: new Date().toISOString(),
      }),
    )
    const reports: string[] = []
    const again = await open(reports)
    const after = (await again.getSession({ sessionId: session.id })).events
    await again.close()
    expect(reports.filter((line) => line.includes('interrupted'))).toEqual([
      expect.stringContaining(`a restore in ${start} was interrupted by a crash: rolled back`),
    ])
    expect(fs.existsSync(journal)).toBe(false)
    // Where the log says the files are: after the undo.
    expect(fs.readFileSync(path.join(start, 'a.txt'), 'utf8')).toBe('two\n')
    expect(after.filter((event) => event.type === 'files/restored')).toHaveLength(2)
  })

  it('a record names its journal: the restore just done is found by its id', async () => {
    const home = temp()
    const start = temp()
    const runtime = await Runtime.open({ home, startFolder: start, env: {}, report: () => {} })
    const session = await runtime.createSession({})
    const first = await runtime.prompt({ sessionId: session.id, text: 'write a.txt: one' })
    await runtime.prompt({ sessionId: session.id, text: 'write a.txt: two' })
    const restored = await runtime.restore({ sessionId: session.id, seq: first.turnEndSeq })
    const events = (await runtime.getSession({ sessionId: session.id })).events
    await runtime.close()
    const data = events.find((event) => event.seq === restored.seq)!.data as { journalId?: unknown }
    expect(data.journalId).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('a restore recorded before a crash', () => {
  it('is finished at the next start (files kept as restored, journal removed), and says so', async () => {
    const home = temp()
    const start = temp()
    const open = (reports: string[]) =>
      Runtime.open({ home, startFolder: start, env: {}, report: (message) => reports.push(String(message)) })
    const runtime = await open([])
    const session = await runtime.createSession({})
    await runtime.prompt({ sessionId: session.id, text: 'write a.txt: one' })
    const first = (await runtime.getSession({ sessionId: session.id })).events.findLast(
      (event) => event.type === 'turn/end',
    )!.seq
    await runtime.prompt({ sessionId: session.id, text: 'write a.txt: two' })
    const restored = await runtime.restore({ sessionId: session.id, seq: first })
    await runtime.close()
    expect(fs.readFileSync(path.join(start, 'a.txt'), 'utf8')).toBe('one\n')

    // The journal as the restore wrote it, of a process that is gone.
    const journalDir = path.join(home, 'snapshots', 'journal')
    fs.mkdirSync(journalDir, { recursive: true })
    const journal = path.join(
      journalDir,
      `${createHash('sha256').update(start).digest('hex').slice(0, 24)}.json`,
    )
    const { events } = (await Runtime.open({
      home,
      startFolder: start,
      env: {},
      readOnly: true,
      report: () => {},
    }).then(async (reader) => {
      const got = await reader.getSession({ sessionId: session.id })
      await reader.close()
      return got
    }))!
    const record = events.find((event) => event.seq === restored.seq)!.data as { tree: string }
    fs.writeFileSync(
      journal,
      JSON.stringify({
        version: 1,
        cwd: start,
        paths: restored.restored,
        undoTree: restored.undoTree,
        targetTree: record.tree,
        pid: spawnSync('true').pid,
        hostname: os.hostname(),
        startedAt: new Date().toISOString(),
      }),
    )
    const reports: string[] = []
    const again = await open(reports)
    await again.close()
    expect(reports.filter((line) => line.includes('interrupted'))).toEqual([
      expect.stringContaining(`a restore in ${start} was interrupted by a crash: finished`),
    ])
    expect(fs.existsSync(journal)).toBe(false)
    expect(fs.readFileSync(path.join(start, 'a.txt'), 'utf8')).toBe('one\n')
  })
})
