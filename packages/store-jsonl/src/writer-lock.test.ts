import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonlStore } from './jsonl-store.js'
import { distEntry, removeTempDataDirs, tempDataDir } from './test-support.js'

const open: JsonlStore[] = []
afterEach(async () => {
  for (const db of open.splice(0)) await db.close()
  removeTempDataDirs()
})

/**
 * A child that sleeps until `startAt`, tries to open `dir`, prints what happened, and
 * holds the lock until the file `done` appears (so every racer meets a held lock).
 */
const racer = `
import fs from 'node:fs'
import { JsonlStore } from ${JSON.stringify(distEntry)}
const [dir, startAt, done] = process.argv.slice(2)
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())))
let db
try {
  db = await JsonlStore.open({ dir })
  console.log(JSON.stringify({ ok: true, pid: process.pid }))
} catch (error) {
  console.log(JSON.stringify({ ok: false, pid: process.pid, code: error.code, data: error.data, message: error.message }))
}
while (!fs.existsSync(done)) await new Promise((resolve) => setTimeout(resolve, 20))
await db?.close()
`

interface RaceResult {
  ok: boolean
  pid: number
  code?: string
  data?: { pid: number }
  message?: string
}

async function race(dir: string, count: number): Promise<RaceResult[]> {
  const scripts = tempDataDir()
  const done = path.join(scripts, 'done')
  const script = path.join(scripts, 'racer.mjs')
  fs.writeFileSync(script, racer)
  const startAt = String(Date.now() + 500)
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, [script, dir, startAt, done], { stdio: ['ignore', 'pipe', 'inherit'] }),
  )
  const results = await Promise.all(
    children.map(
      (child) =>
        new Promise<RaceResult>((resolve, reject) => {
          let out = ''
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString()
            if (out.includes('\n')) resolve(JSON.parse(out) as RaceResult)
          })
          child.on('exit', (code) => reject(new Error(`racer exited (${code}) before reporting`)))
        }),
    ),
  )
  fs.writeFileSync(done, '')
  await Promise.all(children.map((child) => new Promise((resolve) => child.on('exit', resolve))))
  return results
}

function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', ''])
    child.on('exit', () => resolve(child.pid!))
  })
}

describe('writer lock', () => {
  it('two processes race for the lock: one wins, the other gets store-locked naming the winner', async () => {
    const dir = tempDataDir()
    const results = await race(dir, 2)
    const winners = results.filter((r) => r.ok)
    const losers = results.filter((r) => !r.ok)
    expect(winners).toHaveLength(1)
    expect(losers).toHaveLength(1)
    expect(losers[0]).toMatchObject({ code: 'store-locked', data: { pid: winners[0]!.pid } })
    expect(losers[0]!.message).toContain(String(winners[0]!.pid))
    expect(fs.existsSync(path.join(dir, 'lock'))).toBe(false)
  })

  it('a second open in the same process is refused; close releases the lock', async () => {
    const dir = tempDataDir()
    const first = await JsonlStore.open({ dir })
    const lock = JSON.parse(fs.readFileSync(path.join(dir, 'lock'), 'utf8'))
    expect(lock).toMatchObject({ pid: process.pid, hostname: os.hostname() })
    expect(typeof lock.startedAt).toBe('number')
    await expect(JsonlStore.open({ dir })).rejects.toMatchObject({
      code: 'store-locked',
      data: { pid: process.pid },
    })
    await first.close()
    expect(fs.existsSync(path.join(dir, 'lock'))).toBe(false)
    open.push(await JsonlStore.open({ dir }))
  })

  it('takes over a lock left by a dead process, and rescans logs that changed', async () => {
    const dir = tempDataDir()
    const db = await JsonlStore.open({ dir })
    const session = db.store.create('s', { meta: { cwd: '/' } })
    session.append('session/title', { title: 'before' })
    await db.close()
    // A writer died: it appended after the catalog was written and left its lock behind.
    const pid = await deadPid()
    fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid, hostname: os.hostname(), startedAt: 1 }))
    fs.appendFileSync(
      path.join(dir, 'sessions', 's.jsonl'),
      `${JSON.stringify({ seq: 1, time: 5, type: 'session/title', data: { title: 'after' } })}\n`,
    )
    const again = await JsonlStore.open({ dir })
    open.push(again)
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'lock'), 'utf8')).pid).toBe(process.pid)
    expect(await again.get('s')).toMatchObject({ title: 'after', eventCount: 2 })
  })

  it('processes racing for a stale lock: exactly one takes it over', async () => {
    for (let round = 0; round < 2; round++) {
      const dir = tempDataDir()
      fs.mkdirSync(path.join(dir, 'sessions'))
      const pid = await deadPid()
      fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid, hostname: os.hostname(), startedAt: 1 }))
      const results = await race(dir, 3)
      const winners = results.filter((r) => r.ok)
      expect(winners).toHaveLength(1)
      for (const loser of results.filter((r) => !r.ok))
        expect(loser).toMatchObject({ code: 'store-locked', data: { pid: winners[0]!.pid } })
    }
  })

  it('a lock held on another host is never taken over', async () => {
    const dir = tempDataDir()
    fs.writeFileSync(
      path.join(dir, 'lock'),
      JSON.stringify({ pid: 12345, hostname: `not-${os.hostname()}`, startedAt: 1 }),
    )
    await expect(JsonlStore.open({ dir })).rejects.toMatchObject({
      code: 'store-locked',
      data: { pid: 12345 },
    })
  })
})
