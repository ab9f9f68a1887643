import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonlStore } from './jsonl-store.js'
import { distEntry, logLines, removeTempDataDirs, tempDataDir } from './test-support.js'

/**
 * A writer that appends turns in a loop (big tool outputs, so kills land mid-write),
 * flushes at points inside and at the end of turns, and prints `flushed <count>` after
 * each flush resolves: every event below that count was acknowledged.
 */
const writer = `
import { JsonlStore } from ${JSON.stringify(distEntry)}
const [dir, id, fresh] = process.argv.slice(2)
setTimeout(() => process.exit(3), 30000).unref()
const db = await JsonlStore.open({ dir })
const s = fresh === '1' ? db.store.create(id, { meta: { cwd: '/' } }) : await db.load(id)
const pad = 'x'.repeat(2000)
const flush = async () => {
  const count = s.events.length
  await db.flush(id)
  process.stdout.write('flushed ' + count + '\\n')
}
for (let n = 0; ; n++) {
  s.append('turn/start', {})
  s.append('user/message', { content: [{ type: 'text', text: 'message ' + n + ' ' + pad }] })
  s.append('step/start', {})
  s.append('assistant/message', { content: [{ type: 'tool-call', toolCallId: 'c' + n, toolName: 'bash', input: { n } }] })
  if (n % 3 === 0) await flush()
  s.append('tool/result', { callId: 'c' + n, toolName: 'bash', output: pad.repeat(1 + (n % 5)), isError: false })
  s.append('step/end', { finishReason: 'tool-calls' })
  s.append('turn/end', { reason: 'completed' })
  if (n % 2 === 0) await flush()
  else await new Promise((resolve) => setImmediate(resolve))
}
`

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  removeTempDataDirs()
})

function startWriter(dir: string, id: string, fresh: boolean) {
  const script = path.join(dir, 'writer.mjs')
  fs.writeFileSync(script, writer)
  const child = spawn(process.execPath, [script, path.join(dir, 'data'), id, fresh ? '1' : '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  let flushed = 0
  let reports = 0
  const waiters: { reports: number; resolve: () => void }[] = []
  let buffered = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    const lines = buffered.split('\n')
    buffered = lines.pop()!
    for (const line of lines) {
      flushed = Math.max(flushed, Number(line.split(' ')[1]))
      reports++
    }
    for (const waiter of waiters.filter((w) => reports >= w.reports)) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  })
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  )
  return {
    get flushed() {
      return flushed
    },
    /** Resolves after `count` more flush reports. */
    reports(count: number): Promise<void> {
      return new Promise((resolve) => waiters.push({ reports: reports + count, resolve }))
    },
    async kill(): Promise<number> {
      child.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')
      return flushed // nothing is read after the kill: this is what was acknowledged
    },
  }
}

describe('a writer killed with SIGKILL', () => {
  it('loses nothing it acknowledged, and the log reopens valid (several kills)', async () => {
    const dir = tempDataDir()
    // Deterministic kill points, spread over early and late moments of the loop.
    const killAfter = [3, 11, 7, 19]
    let previous: unknown[] = []
    for (const [round, reports] of killAfter.entries()) {
      const child = startWriter(dir, 'k', round === 0)
      await child.reports(reports)
      const acknowledged = await child.kill()
      const db = await JsonlStore.open({ dir: path.join(dir, 'data') })
      const session = await db.load('k')
      expect(session.events.length).toBeGreaterThanOrEqual(acknowledged)
      expect(session.isTurnOpen).toBe(false)
      // Earlier rounds' events are untouched.
      expect(JSON.parse(JSON.stringify(session.events.slice(0, previous.length)))).toEqual(previous)
      expect(logLines(path.join(dir, 'data'), 'k')).toHaveLength(1 + session.events.length)
      previous = JSON.parse(JSON.stringify(session.events))
      await db.close()
    }
  })
})

describe('a read-only reader', () => {
  it('reads a consistent, growing log while a writer appends', async () => {
    const dir = tempDataDir()
    const child = startWriter(dir, 'r', true)
    await child.reports(2)
    let previous: unknown[] = []
    for (let i = 0; i < 12; i++) {
      const acknowledged = child.flushed
      const reader = await JsonlStore.open({ dir: path.join(dir, 'data'), readOnly: true })
      const session = await reader.load('r')
      expect(session.events.length).toBeGreaterThanOrEqual(acknowledged)
      expect(session.events.length).toBeGreaterThanOrEqual(previous.length)
      expect(JSON.parse(JSON.stringify(session.events.slice(0, previous.length)))).toEqual(previous)
      expect((await reader.get('r'))?.id).toBe('r')
      previous = JSON.parse(JSON.stringify(session.events))
      await reader.close()
      await child.reports(1)
    }
    await child.kill()
    expect(fs.existsSync(path.join(dir, 'data', 'sessions', 'r.jsonl.torn'))).toBe(false)
  })
})
