// Importing a 100 MB Claude Code session (issue 31): `tangent import FILE` into a fresh data
// directory against `tangent show ID` of a Tangent session of 100k events (about the same bytes),
// each a whole process of its own, so its wall time and its peak RSS (getrusage, peak-rss.ts) are
// that command's alone. The file is real records repeated (claude-session-fixture.ts). Target:
// the import within 2× the load, in time and in peak memory. TANGENT_BENCH_CLI_BEFORE, the
// `packages/cli/dist/main.js` of another build, adds that build's import, interleaved (before/after).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'
import { inProcessApi, Runtime } from '@tangent/runtime'
import { JsonlStore } from '@tangent/store-jsonl'
import { writeClaudeSession } from './claude-session-fixture.js'
import { turnEvents } from './store.bench.js'
import { type BenchRow, type BenchSuite, median } from './table.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const tangentCli = path.join(here, '../../packages/cli/dist/main.js')
const beforeCli = process.env.TANGENT_BENCH_CLI_BEFORE
const peakRss = path.join(here, 'peak-rss.js')
const fileBytes = Number(process.env.TANGENT_BENCH_IMPORT_BYTES ?? 100 * 1024 * 1024)
const loadEvents = 100_000
const iterations = 3

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

/**
 * A Tangent session of `count` events (turns of 10, a 10 KB tool output each), as the store writes
 * it. `dashes`: each text and tool output also holds an em dash, as real agent text does (88% of the
 * Claude Code file's bytes are in lines with a character outside ASCII): the same kind of text as
 * the import's, which V8 keeps in two-byte strings, slower to decode, parse and print.
 */
function writeTangentSession(home: string, id: string, cwd: string, count: number, dashes = false): number {
  fs.mkdirSync(path.join(home, 'sessions'), { recursive: true, mode: 0o700 })
  const file = path.join(home, 'sessions', `${id}.jsonl`)
  const header = {
    type: 'session',
    version: 1,
    id,
    createdAt: 1_700_000_000_000,
    cwd,
    inheritedEventCount: 0,
  }
  const fd = fs.openSync(file, 'w', 0o600)
  fs.writeSync(fd, `${JSON.stringify({ ...header, seed: 'inline', origin: 'user' })}\n`)
  let lines: string[] = []
  for (let seq = 0; seq < count; ) {
    for (const event of turnEvents(seq / 10)) {
      const data = dashes ? withDashes(event.data) : event.data
      lines.push(JSON.stringify({ seq, time: 1_700_000_000_000 + seq, type: event.type, data }))
      seq++
    }
    if (lines.length >= 1000) {
      fs.writeSync(fd, `${lines.join('\n')}\n`)
      lines = []
    }
  }
  if (lines.length > 0) fs.writeSync(fd, `${lines.join('\n')}\n`)
  fs.fsyncSync(fd)
  fs.closeSync(fd)
  return fs.statSync(file).size
}

/** `value` with " — " after every `text` and `output` string in it. */
function withDashes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withDashes)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      (key === 'text' || key === 'output') && typeof inner === 'string' ? `${inner} — ` : withDashes(inner),
    ]),
  )
}

interface Measured {
  ms: number
  peakRss: number
  stdout: string
}

/** One whole `tangent` process: its wall time and peak RSS; stdout kept in a file, returned. */
function runTangent(args: string[], home: string, root: string, cli = tangentCli): Measured {
  const out = path.join(root, 'stdout.txt')
  const rssFile = path.join(root, 'peak-rss.txt')
  fs.rmSync(rssFile, { force: true })
  const fd = fs.openSync(out, 'w')
  const env = { ...process.env, TANGENT_HOME: home, NO_COLOR: '1', TANGENT_BENCH_PEAK_RSS: rssFile }
  try {
    const start = process.hrtime.bigint()
    const result = spawnSync(process.execPath, ['--import', peakRss, cli, ...args], {
      env,
      stdio: ['ignore', fd, 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    if (result.status !== 0)
      throw new Error(
        `tangent ${args.join(' ')} exited ${result.status}: ${result.stderr.toString().slice(0, 800)}`,
      )
    return { ms, peakRss: Number(fs.readFileSync(rssFile, 'utf8')), stdout: fs.readFileSync(out, 'utf8') }
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * `tangent sessions` with the 100k-event session against one of 10 events: the listing reads the
 * tail of each log for its last status, so a huge log must cost what a small one does.
 */
function listingRow(big: Measured[], small: Measured[], bytes: number): BenchRow {
  const ms = median(big.map((m) => m.ms))
  const smallMs = median(small.map((m) => m.ms))
  const rss = median(big.map((m) => m.peakRss))
  const smallRss = median(small.map((m) => m.peakRss))
  return {
    name: `whole process: \`tangent sessions\`, one session of ${loadEvents / 1000}k events (${mb(bytes)})`,
    medianMs: ms,
    baseline: { name: '`tangent sessions`, one session of 10 events', medianMs: smallMs },
    extra: { 'peak RSS (huge / small)': `${mb(rss)} / ${mb(smallRss)} (${(rss / smallRss).toFixed(2)}×)` },
    target: {
      text: '≤ 1.5× the small listing, in time and in peak RSS',
      met: ms <= 1.5 * smallMs && rss <= 1.5 * smallRss,
    },
  }
}

/** Reads the file and imports it, keeping nothing of its text: this frame ends with the call. */
async function importText(api: ReturnType<typeof inProcessApi>, file: string, cwd: string) {
  const content = (await fs.promises.readFile(file)).toString('utf8')
  return api.call('session.import', { content, fileName: path.basename(file), cwd })
}

/**
 * In this process: what the heap holds once the file is read into a tree and the sessions are
 * being written (after a full GC). The text of the file is not among it: only the tree (the
 * records the sessions keep) — not the text, nor a second copy of it.
 */
async function heapWhileWriting(root: string, file: string, cwd: string, bytes: number): Promise<BenchRow> {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc') as () => void
  const heap = () => {
    gc()
    gc()
    const usage = process.memoryUsage()
    return usage.heapUsed + usage.external
  }
  const home = path.join(root, 'in-process-home')
  const runtime = await Runtime.open({ home, startFolder: cwd, homeDir: home, report: () => {} })
  try {
    const base = heap()
    let writing = Number.NaN
    const importTree = runtime.importTree.bind(runtime)
    // The tree is read; the sessions are written from the next turn of the event loop on.
    runtime.importTree = (tree, options) => {
      setImmediate(() => {
        writing = heap() - base
      })
      return importTree(tree, options)
    }
    const start = process.hrtime.bigint()
    const result = await importText(inProcessApi(runtime), file, cwd)
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    if (result.sessions.length === 0 || Number.isNaN(writing)) throw new Error('the import wrote nothing')
    return {
      name: 'in-process `session.import`: heap held while the sessions are written (after a full GC)',
      medianMs: ms,
      extra: { 'heap held': `${mb(writing)} (${(writing / bytes).toFixed(2)}× file)` },
      target: { text: '< 2.5× the file: the tree alone, not the text too', met: writing < 2.5 * bytes },
    }
  } finally {
    await runtime.close()
  }
}

export const suite: BenchSuite = {
  title: 'Import a 100 MB Claude Code session (issue 31) against loading a 100k-event Tangent session',
  async run(): Promise<BenchRow[]> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-import-bench-'))
    try {
      const project = path.join(root, 'project')
      fs.mkdirSync(project)
      const claude = writeClaudeSession(path.join(root, `${'1'.repeat(8)}.jsonl`), fileBytes)
      const loadHome = path.join(root, 'load-home')
      const id = `01J${'0'.repeat(22)}1`
      const sessionBytes = writeTangentSession(loadHome, id, project, loadEvents)
      await (await JsonlStore.open({ dir: loadHome })).close() // the catalog, as after any write
      const dashHome = path.join(root, 'dash-home')
      const dashBytes = writeTangentSession(dashHome, id, project, loadEvents, true)
      await (await JsonlStore.open({ dir: dashHome })).close()
      // `tangent sessions` reads how each session's last turn went: of a small one, the baseline.
      const smallHome = path.join(root, 'small-home')
      writeTangentSession(smallHome, id, project, 10)
      await (await JsonlStore.open({ dir: smallHome })).close()

      const imports: Measured[] = []
      const befores: Measured[] = []
      const loads: Measured[] = []
      const dashLoads: Measured[] = []
      const bigLists: Measured[] = []
      const smallLists: Measured[] = []
      let imported: { sessions: { id: string; events: number; status: string }[] } | undefined
      const importWith = (cli: string, i: number) => {
        const home = path.join(root, `import-home-${i}`)
        const run = runTangent(['import', claude.file, '--cwd', project, '--json'], home, root, cli)
        fs.rmSync(home, { recursive: true, force: true })
        return run
      }
      // Interleaved, one warm-up each (the page cache, the compile cache), so all see the same machine.
      for (let i = 0; i <= iterations; i++) {
        const run = importWith(tangentCli, i)
        imported = JSON.parse(run.stdout)
        const before = beforeCli ? importWith(beforeCli, i) : undefined
        const load = runTangent(['show', id], loadHome, root)
        const dashLoad = runTangent(['show', id], dashHome, root)
        if (!load.stdout.includes('message 9999 '))
          throw new Error('`tangent show` did not print the last turn')
        const bigList = runTangent(['sessions'], loadHome, root)
        const smallList = runTangent(['sessions'], smallHome, root)
        for (const list of [bigList, smallList])
          if (!/ ok\s*$/.test(list.stdout)) throw new Error(`\`tangent sessions\` printed ${list.stdout}`)
        if (i === 0) continue
        imports.push(run)
        if (before) befores.push(before)
        loads.push(load)
        dashLoads.push(dashLoad)
        bigLists.push(bigList)
        smallLists.push(smallList)
      }
      const sessions = imported?.sessions ?? []
      const events = sessions.reduce((sum, session) => sum + session.events, 0)
      if (sessions.length !== 1 + claude.branches || sessions.some((s) => s.status !== 'created'))
        throw new Error(`the import made ${JSON.stringify(sessions).slice(0, 400)}`)
      const importMs = median(imports.map((m) => m.ms))
      const loadMs = median(loads.map((m) => m.ms))
      const importRss = median(imports.map((m) => m.peakRss))
      const loadRss = median(loads.map((m) => m.peakRss))
      const dashMs = median(dashLoads.map((m) => m.ms))
      const dashRss = median(dashLoads.map((m) => m.peakRss))
      const beforeRss = median(befores.map((m) => m.peakRss))
      const beforeRows: BenchRow[] = beforeCli
        ? [
            {
              name: `before: the same import with ${beforeCli}`,
              medianMs: median(befores.map((m) => m.ms)),
              baseline: { name: 'the same `tangent show ID` (em dashes)', medianMs: dashMs },
              extra: {
                'peak RSS (import / show)': `${mb(beforeRss)} / ${mb(dashRss)} (${(beforeRss / dashRss).toFixed(2)}×)`,
              },
            },
          ]
        : []
      const importName = `whole process: \`tangent import FILE\`, Claude Code ${mb(claude.bytes)} (${claude.lines.toLocaleString('en-US')} records, ${claude.branches} rewinds) → ${sessions.length} sessions, ${events.toLocaleString('en-US')} events`
      return [
        {
          name: importName,
          medianMs: importMs,
          baseline: {
            name: `\`tangent show ID\`, ${loadEvents / 1000}k events (${mb(dashBytes)}) whose texts hold an em dash, like the file's, stdout to a file`,
            medianMs: dashMs,
          },
          extra: {
            'peak RSS (import / show)': `${mb(importRss)} / ${mb(dashRss)} (${(importRss / dashRss).toFixed(2)}×)`,
            'import peak / file': `${(importRss / claude.bytes).toFixed(2)}×`,
          },
          target: {
            text: '≤ 2× the load, in time and in peak RSS',
            met: importMs <= 2 * dashMs && importRss <= 2 * dashRss,
          },
        },
        {
          name: 'the same import, against a session of plain ASCII text',
          medianMs: importMs,
          baseline: {
            name: `\`tangent show ID\`, ${loadEvents / 1000}k events (${mb(sessionBytes)}), all ASCII, stdout to a file`,
            medianMs: loadMs,
          },
          extra: {
            'peak RSS (import / show)': `${mb(importRss)} / ${mb(loadRss)} (${(importRss / loadRss).toFixed(2)}×)`,
          },
        },
        ...beforeRows,
        listingRow(bigLists, smallLists, sessionBytes),
        await heapWhileWriting(root, claude.file, project, claude.bytes),
      ]
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
