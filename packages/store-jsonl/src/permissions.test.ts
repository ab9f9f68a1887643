// Session logs are private data: every directory the store creates is 0700 and every file
// 0600 (logs, catalog, .torn, lock, markers, rewritten logs), whatever the umask; an existing
// data directory that other users can read is reported.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonlStore } from './jsonl-store.js'
import { appendTurn, logFile, removeTempDataDirs, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
afterEach(async () => {
  for (const db of open.splice(0)) await db.close()
  removeTempDataDirs()
})

function modeOf(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8)
}

/** Runs `task` with the process umask set to `mask`. */
async function withUmask<T>(mask: number, task: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask)
  try {
    return await task()
  } finally {
    process.umask(previous)
  }
}

describe('private files', () => {
  for (const mask of [0o000, 0o022, 0o277]) {
    it(`creates directories 0700 and files 0600 with umask ${mask.toString(8).padStart(3, '0')}`, async () => {
      const home = path.join(tempDataDir(), 'home')
      await withUmask(mask, async () => {
        const db = await JsonlStore.open({ dir: home })
        open.push(db)
        const parent = db.store.create('p', { meta: { cwd: '/' } })
        appendTurn(parent, 'one')
        const child = db.store.fork(parent, undefined, 'c')
        appendTurn(child, 'two')
        await db.flush()
        await db.setArchived('c', true)
        expect(modeOf(path.join(home, 'lock'))).toBe('600')
        await db.delete('p') // rewrites the child with its prefix inline
        await db.close()
        open.splice(0)
        // A torn tail: crash repair writes .torn.
        fs.appendFileSync(logFile(home, 'c'), '{"seq":')
        const again = await JsonlStore.open({ dir: home })
        open.push(again)
        await again.load('c')
        await again.close()
        open.splice(0)
      })
      expect(modeOf(home)).toBe('700')
      expect(modeOf(path.join(home, 'sessions'))).toBe('700')
      const files = [
        logFile(home, 'c'),
        `${logFile(home, 'c')}.torn`,
        path.join(home, 'sessions', 'c.archived'),
        path.join(home, 'catalog.json'),
        path.join(home, 'catalog.clean'),
      ]
      for (const file of files)
        expect([path.basename(file), modeOf(file)]).toEqual([path.basename(file), '600'])
    })
  }

  it('reports an existing data directory that other users can read (writer and reader), and leaves its mode alone', async () => {
    const home = tempDataDir()
    fs.chmodSync(home, 0o755)
    const warnings: unknown[] = []
    const db = await JsonlStore.open({ dir: home, onWarning: (warning) => warnings.push(warning) })
    open.push(db)
    const expected = expect.objectContaining({
      kind: 'open-permissions',
      file: home,
      message: expect.stringContaining('chmod 700'),
    })
    expect(db.warnings()).toEqual([expected])
    expect(warnings).toEqual([expected])
    expect(modeOf(home)).toBe('755')
    expect(modeOf(path.join(home, 'sessions'))).toBe('700')
    await db.close()
    open.splice(0)
    const reader = await JsonlStore.open({ dir: home, readOnly: true })
    open.push(reader)
    expect(reader.warnings()).toEqual([expected])
    fs.chmodSync(home, 0o700)
    const quiet = await JsonlStore.open({ dir: home, readOnly: true })
    open.push(quiet)
    expect(quiet.warnings()).toEqual([])
  })
})
