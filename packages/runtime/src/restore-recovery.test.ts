// A crash between recording a restore (`files/restored`, durable) and removing its journal
// leaves both: the next start must finish it, not roll back files the log says were restored
// (docs/architecture.md §5). The kill itself is in test/e2e/prove-files-restore-crash.e2e.ts;
// here the state it leaves is made by hand.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Runtime } from './runtime.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-recovery-')

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
