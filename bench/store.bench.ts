// @tangent/store-jsonl benchmarks (issue 2 §4): fork + flush against a copy-based fork,
// open + load against read + JSON.parse, buffered appends with group commit, and (issue 16)
// the bytes a fork, rename or archive writes in a store of 10,000 sessions (the catalog).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'
import { SessionStore } from '@tangent/core'
import { JsonlStore } from '@tangent/store-jsonl'
import { type BenchRow, type BenchSuite, median } from './table.js'

const sizes = [1_000, 10_000, 100_000]
const text = (n: number, bytes: number) => `message ${n} `.padEnd(bytes, 'lorem ipsum dolor sit amet ')

/** A realistic turn of 10 events: texts of a few hundred bytes, one tool output (~10 KB by default). */
export function turnEvents(n: number, toolOutputBytes = 10_000): { type: string; data: unknown }[] {
  const callId = `call-${n}`
  return [
    { type: 'turn/start', data: {} },
    { type: 'user/message', data: { content: [{ type: 'text', text: text(n, 300) }] } },
    { type: 'step/start', data: {} },
    {
      type: 'assistant/message',
      data: {
        content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read', input: { path: `f${n}.ts` } }],
      },
    },
    {
      type: 'tool/result',
      data: { callId, toolName: 'read', output: text(n, toolOutputBytes), isError: false },
    },
    { type: 'step/end', data: { finishReason: 'tool-calls' } },
    { type: 'step/start', data: {} },
    { type: 'assistant/message', data: { content: [{ type: 'text', text: text(n, 400) }] } },
    { type: 'step/end', data: { finishReason: 'stop' } },
    { type: 'turn/end', data: { reason: 'completed' } },
  ]
}

/** Writes a session log of `count` events directly (no store), as the store would. */
function writeLog(dir: string, id: string, count: number): number {
  fs.mkdirSync(path.join(dir, 'sessions'), { recursive: true })
  const file = path.join(dir, 'sessions', `${id}.jsonl`)
  const header = { type: 'session', version: 1, id, createdAt: 1, cwd: '/bench', inheritedEventCount: 0 }
  const fd = fs.openSync(file, 'w')
  fs.writeSync(fd, `${JSON.stringify({ ...header, seed: 'inline', origin: 'user' })}\n`)
  let lines: string[] = []
  for (let seq = 0; seq < count; ) {
    for (const event of turnEvents(seq / 10)) {
      lines.push(JSON.stringify({ seq, time: 1_700_000_000_000 + seq, type: event.type, data: event.data }))
      seq++
    }
    if (lines.length >= 1000) {
      fs.writeSync(fd, `${lines.join('\n')}\n`)
      lines = []
    }
  }
  if (lines.length > 0) fs.writeSync(fd, `${lines.join('\n')}\n`)
  fs.fsyncSync(fd) // durable like a real parent, so the fork's fsync does not flush it
  fs.closeSync(fd)
  return fs.statSync(file).size
}

function gcFunction(): () => void {
  v8.setFlagsFromString('--expose-gc')
  return vm.runInNewContext('gc') as () => void
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint()
  const value = await fn()
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value }
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** Copy-based fork, what peers do: read the prefix, write it into a new file, fsync. */
async function copyFork(source: string, target: string): Promise<number> {
  const data = await fs.promises.readFile(source)
  const handle = await fs.promises.open(target, 'w')
  await handle.writeFile(data)
  await handle.sync()
  await handle.close()
  return data.length
}

async function forkRows(root: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  /** Per size (1k first): fork + flush median and the bytes the fork wrote. */
  const forkMedians: number[] = []
  const forkSizes: number[] = []
  for (const count of sizes) {
    const dir = path.join(root, `fork-${count}`)
    const fileBytes = writeLog(dir, 'parent', count)
    const db = await JsonlStore.open({ dir })
    const parent = await db.load('parent')
    const forkTimes: number[] = []
    const callTimes: number[] = []
    let forkBytes = 0
    for (let i = 0; i < 15; i++) {
      const { ms, value: child } = await timed(async () => {
        const start = process.hrtime.bigint()
        const child = db.store.fork(parent)
        callTimes.push(Number(process.hrtime.bigint() - start) / 1e6)
        await db.flush(child.id)
        return child
      })
      forkTimes.push(ms)
      forkBytes = fs.statSync(path.join(dir, 'sessions', `${child.id}.jsonl`)).size
    }
    await db.close()
    const copyTimes: number[] = []
    for (let i = 0; i < (count >= 100_000 ? 3 : 7); i++) {
      const target = path.join(dir, `copy-${i}.jsonl`)
      copyTimes.push((await timed(() => copyFork(path.join(dir, 'sessions', 'parent.jsonl'), target))).ms)
      fs.rmSync(target)
    }
    const forkMs = median(forkTimes)
    const copyMs = median(copyTimes)
    // The synchronous part (store.fork and queueing the header) shows the CPU cost without
    // the disk: the rest of the median is two fsyncs (file, directory), whatever the history.
    // (core's in-memory fork copies the parent's array of event references, O(history) pointers,
    // so that column grows a little; it writes nothing.)
    forkMedians.push(forkMs)
    forkSizes.push(forkBytes)
    const row: BenchRow = {
      name: `fork + flush @ ${count / 1000}k events`,
      medianMs: forkMs,
      baseline: { name: 'copy prefix + fsync', medianMs: copyMs },
      extra: {
        'bytes written': `${forkBytes} B (copy: ${mb(fileBytes)})`,
        'fork() call': `${(median(callTimes) * 1000).toFixed(0)} µs`,
      },
    }
    if (count === 100_000) {
      // Constant = what a fork writes and waits for does not grow with the history: the
      // header grows only by the digits of its counts, and fork + flush (two fsyncs) stays
      // within disk noise of the 1k row (3×, or +2 ms), while a copy grows 100× over the same range.
      const bytesConstant = forkSizes[2]! - forkSizes[0]! <= 16
      const timeConstant = forkMedians[2]! <= Math.max(3 * forkMedians[0]!, forkMedians[0]! + 2)
      row.target = {
        text: `≥50× faster than copy, header-only, bytes and fork + flush time constant vs 1k (${(copyMs / forkMs).toFixed(0)}×; ${forkSizes[0]} → ${forkSizes[2]} B, ${forkMedians[0]!.toFixed(2)} → ${forkMedians[2]!.toFixed(2)} ms)`,
        met: copyMs / forkMs >= 50 && forkBytes < 1024 && bytesConstant && timeConstant,
      }
    } else row.target = { text: 'bytes = header only (< 1 KB)', met: forkBytes < 1024 }
    rows.push(row)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return rows
}

async function loadRows(root: string): Promise<BenchRow[]> {
  const gc = gcFunction()
  // What a loaded session retains, after a full GC: V8 heap plus memory outside it. (RSS is
  // not used: pages freed by the GC stay resident, so it counts garbage too.)
  const memory = () => {
    const usage = process.memoryUsage()
    return usage.heapUsed + usage.external
  }
  const rows: BenchRow[] = []
  for (const count of sizes) {
    const dir = path.join(root, `load-${count}`)
    const fileBytes = writeLog(dir, 's', count)
    const file = path.join(dir, 'sessions', 's.jsonl')
    await (await JsonlStore.open({ dir })).close() // builds the catalog once
    const iterations = count >= 100_000 ? 3 : 7
    const baseTimes: number[] = []
    const baselineOnce = async () => {
      gc()
      const { ms, value } = await timed(async () =>
        (await fs.promises.readFile(file, 'utf8'))
          .split('\n')
          .filter((line) => line.length > 0)
          .map((line) => JSON.parse(line) as unknown),
      )
      if (value.length !== count + 1) throw new Error('baseline parsed the wrong number of lines')
      return ms
    }
    const openTimes: number[] = []
    const loadTimes: number[] = []
    const deltas: number[] = []
    // One load per call: when it returns, nothing of that load stays reachable from this frame.
    // ArrayBuffers are released after a GC on a background thread: settle before reading.
    const settled = async () => {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 100))
      gc()
      return memory()
    }
    const measureOnce = async () => {
      const before = await settled()
      const opened = await timed(() => JsonlStore.open({ dir }))
      const loaded = await timed(() => opened.value.load('s'))
      const after = await settled()
      if (loaded.value.events.length !== count) throw new Error('loaded the wrong number of events')
      await opened.value.close()
      return {
        openMs: opened.ms,
        loadMs: loaded.ms,
        delta: after - before,
      }
    }
    // Interleaved with the baseline, so both see the same load on a shared machine.
    for (let i = 0; i < iterations; i++) {
      baseTimes.push(await baselineOnce())
      const { openMs, loadMs, delta } = await measureOnce()
      openTimes.push(openMs)
      loadTimes.push(loadMs)
      deltas.push(delta)
    }
    const totals = openTimes.map((ms, i) => ms + loadTimes[i]!)
    const totalMs = median(totals)
    const baseMs = median(baseTimes)
    const delta = median(deltas)
    rows.push({
      name: `open + load @ ${count / 1000}k events (${mb(fileBytes)})`,
      medianMs: totalMs,
      baseline: { name: 'readFile + JSON.parse per line', medianMs: baseMs },
      extra: {
        'open / load': `${median(openTimes).toFixed(1)} / ${median(loadTimes).toFixed(1)} ms`,
        'memory delta': `${mb(delta)} (${(delta / fileBytes).toFixed(2)}× file)`,
      },
      target: {
        text: '≤ 1.5× the floor, memory < 3× file size',
        met: totalMs <= 1.5 * baseMs && delta < 3 * fileBytes,
      },
    })
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return rows
}

async function appendRows(root: string): Promise<BenchRow[]> {
  const dir = path.join(root, 'append')
  const db = await JsonlStore.open({ dir })
  const count = 100_000
  const turns = Array.from({ length: count / 10 }, (_, n) => turnEvents(n))
  const appendTimes: number[] = []
  const totalTimes: number[] = []
  const coreTimes: number[] = []
  let rawMs = 0
  for (let round = 0; round < 5; round++) {
    // The same appends to a bare core SessionStore (no persistence): what the store adds.
    const bare = new SessionStore().create(undefined, { meta: { cwd: '/bench' } })
    const coreStart = process.hrtime.bigint()
    for (const turn of turns) for (const event of turn) bare.append(event.type, event.data)
    coreTimes.push(Number(process.hrtime.bigint() - coreStart) / 1e6)
    const session = db.store.create(undefined, { meta: { cwd: '/bench' } })
    const start = process.hrtime.bigint()
    for (const turn of turns) for (const event of turn) session.append(event.type, event.data)
    appendTimes.push(Number(process.hrtime.bigint() - start) / 1e6)
    await db.flush(session.id)
    totalTimes.push(Number(process.hrtime.bigint() - start) / 1e6)
    db.store.dispose(session.id)
  }
  await db.close()
  // Raw appends: the same lines written by one process with one fsync, no store at all.
  const rawFile = path.join(dir, 'raw.jsonl')
  {
    const start = process.hrtime.bigint()
    const handle = await fs.promises.open(rawFile, 'w')
    let seq = 0
    const lines: string[] = []
    for (const turn of turns)
      for (const event of turn) lines.push(JSON.stringify({ seq: seq++, time: Date.now(), ...event }))
    await handle.writeFile(`${lines.join('\n')}\n`)
    await handle.sync()
    await handle.close()
    rawMs = Number(process.hrtime.bigint() - start) / 1e6
  }
  fs.rmSync(dir, { recursive: true, force: true })
  const appendMs = median(appendTimes)
  const totalMs = median(totalTimes)
  const perSecond = (ms: number) => Math.round((count / ms) * 1000)
  return [
    {
      name: `append ${count / 1000}k events (buffered, group commit)`,
      medianMs: appendMs,
      baseline: { name: 'core SessionStore.append alone', medianMs: median(coreTimes) },
      extra: { 'events/s': perSecond(appendMs).toLocaleString('en-US') },
      target: { text: '≥ 100,000 events/s buffered', met: perSecond(appendMs) >= 100_000 },
    },
    {
      name: `append ${count / 1000}k events + flush (durable)`,
      medianMs: totalMs,
      baseline: { name: 'raw stringify + write + fsync', medianMs: rawMs },
      extra: { 'events/s': perSecond(totalMs).toLocaleString('en-US') },
    },
  ]
}

/** Bytes this process has passed to write(2) so far (files, pipes, sockets: nothing else runs here). */
function writtenBytes(): number {
  const io = fs.readFileSync('/proc/self/io', 'utf8')
  return Number(/^wchar:\s*(\d+)/m.exec(io)?.[1] ?? Number.NaN)
}

/** Every file under `dir` with its inode, size and change time. */
function fileStates(dir: string): Map<string, { ino: number; size: number; ctimeMs: number }> {
  const states = new Map<string, { ino: number; size: number; ctimeMs: number }>()
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    const stats = fs.statSync(file)
    states.set(file, { ino: stats.ino, size: stats.size, ctimeMs: stats.ctimeMs })
  }
  return states
}

/**
 * What the data directory gained between two states: a new or replaced file counts whole, a
 * file that grew in place counts its growth (logs and the catalog journal only append).
 */
function bytesAdded(before: ReturnType<typeof fileStates>, after: ReturnType<typeof fileStates>): number {
  let bytes = 0
  for (const [file, state] of after) {
    const old = before.get(file)
    if (!old || old.ino !== state.ino) bytes += state.size
    else if (old.ctimeMs !== state.ctimeMs) bytes += Math.max(0, state.size - old.size)
  }
  return bytes
}

function kb(bytes: number): string {
  return bytes < 10_240 ? `${bytes} B` : `${(bytes / 1024).toFixed(0)} KB`
}

/** A store of `count` small sessions (title, model, one turn), written directly like the store would. */
function writeManySessions(dir: string, count: number): string[] {
  const sessions = path.join(dir, 'sessions')
  fs.mkdirSync(sessions, { recursive: true, mode: 0o700 })
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const id = `s-${String(i).padStart(6, '0')}`
    const createdAt = 1_700_000_000_000 + i * 1000
    const header = {
      type: 'session',
      version: 1,
      id,
      createdAt,
      cwd: `/home/user/project-${i % 50}`,
      workspaceId: `w-${i % 50}`,
      inheritedEventCount: 0,
      seed: 'inline',
      origin: 'user',
    }
    const events = [
      { type: 'model/selection', data: { provider: 'anthropic', model: 'claude-sonnet-4' } },
      { type: 'session/title', data: { title: `Session ${i}: refactor the parser` } },
      { type: 'turn/start', data: {} },
      { type: 'user/message', data: { content: [{ type: 'text', text: text(i, 200) }] } },
      { type: 'step/start', data: {} },
      { type: 'assistant/message', data: { content: [{ type: 'text', text: text(i, 300) }] } },
      { type: 'step/end', data: { finishReason: 'stop' } },
      { type: 'turn/end', data: { reason: 'completed' } },
    ]
    const lines = [JSON.stringify(header)]
    events.forEach((event, seq) => {
      lines.push(JSON.stringify({ seq, time: createdAt + seq, type: event.type, data: event.data }))
    })
    fs.writeFileSync(path.join(sessions, `${id}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 })
    ids.push(id)
  }
  return ids
}

/**
 * Issue 16: in a store of 10,000 sessions, what a fork (a writer's whole life: open, fork,
 * close) and the next read-only listing write to the data directory, counted twice: the
 * bytes this process passed to write(2) (/proc/self/io wchar) and what the directory gained.
 */
async function catalogRows(
  root: string,
  Store: typeof JsonlStore = JsonlStore,
  label = '',
): Promise<BenchRow[]> {
  const count = 10_000
  const dir = path.join(root, 'catalog')
  const ids = writeManySessions(dir, count)
  const rebuild = await timed(async () => {
    const reader = await Store.open({ dir, readOnly: true })
    const listed = await reader.list()
    await reader.close()
    return listed.length
  })
  if (rebuild.value !== count) throw new Error(`listed ${rebuild.value} of ${count} sessions`)
  const again = await timed(async () => {
    const reader = await Store.open({ dir, readOnly: true })
    const listed = await reader.list()
    await reader.close()
    return listed.length
  })
  await (await Store.open({ dir })).close() // a writer's clean close: the catalog is trusted
  const catalogBytes = fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('catalog'))
    .reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0)
  const measure = async (change: (db: JsonlStore, id: string) => Promise<void>, rounds: number) => {
    const wrote: number[] = []
    const added: number[] = []
    const times: number[] = []
    for (let i = 0; i < rounds; i++) {
      const id = ids[(i * 997) % count]!
      const before = fileStates(dir)
      const start = process.hrtime.bigint()
      const written = writtenBytes()
      const db = await Store.open({ dir })
      await change(db, id)
      await db.close()
      const reader = await Store.open({ dir, readOnly: true })
      const listed = await reader.list()
      await reader.close()
      wrote.push(writtenBytes() - written)
      times.push(Number(process.hrtime.bigint() - start) / 1e6)
      added.push(bytesAdded(before, fileStates(dir)))
      if (listed.length < count) throw new Error('the listing lost sessions')
    }
    return { wrote: median(wrote), added: median(added), ms: median(times) }
  }
  const fork = await measure(async (db, id) => {
    const child = db.store.fork(await db.load(id))
    await db.flush(child.id)
  }, 7)
  const rename = await measure(async (db, id) => {
    ;(await db.load(id)).append('session/title', { title: 'Renamed' })
    await db.flush(id)
  }, 7)
  const archive = await measure(async (db, id) => {
    await db.setArchived(id, true)
  }, 7)
  fs.rmSync(dir, { recursive: true, force: true })
  const limit = 8 * 1024
  const row = (name: string, m: { wrote: number; added: number; ms: number }): BenchRow => ({
    name: `${label}${name}`,
    medianMs: m.ms,
    extra: { 'bytes written': `${kb(m.wrote)} (directory gained ${kb(m.added)})` },
    target: { text: '≤ 8 KB written in all', met: m.wrote <= limit && m.added <= limit },
  })
  return [
    {
      name: `${label}read-only open + list, ${count / 1000}k sessions, no catalog (rebuild)`,
      medianMs: rebuild.ms,
      baseline: { name: 'the next read-only open + list', medianMs: again.ms },
      extra: { 'bytes written': `catalog ${mb(catalogBytes)}` },
    },
    row(`fork in a ${count / 1000}k-session store (writer open → fork → close) + next read-only list`, fork),
    row(`rename in a ${count / 1000}k-session store (open → title → close) + next read-only list`, rename),
    row(
      `archive in a ${count / 1000}k-session store (open → archive → close) + next read-only list`,
      archive,
    ),
  ]
}

/**
 * The same catalog rows for an older build of the store, in this run, when
 * TANGENT_BENCH_STORE_BEFORE names its `dist/index.js` (docs/benchmarks.md: before and after).
 */
async function beforeCatalogRows(root: string): Promise<BenchRow[]> {
  const before = process.env.TANGENT_BENCH_STORE_BEFORE
  if (!before) return []
  const url = pathToFileURL(path.resolve(before)).href
  const { JsonlStore: Before } = (await import(url)) as { JsonlStore: typeof JsonlStore }
  return catalogRows(root, Before, 'before: ')
}

export const suite: BenchSuite = {
  title: '@tangent/store-jsonl: fork, load, append, catalog writes',
  async run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-'))
    try {
      return [
        ...(await forkRows(root)),
        ...(await loadRows(root)),
        ...(await appendRows(root)),
        ...(await catalogRows(root)),
        ...(await beforeCatalogRows(root)),
      ]
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
