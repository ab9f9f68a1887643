// Tangent against a peer, side by side on the same generated histories (issue 16): pi's
// SessionManager (@mariozechner/pi-coding-agent, a devDependency; nothing is installed at run
// time). Fork, cold load at 4 / 1k / 10k / 100k messages, a list of 10,000 sessions and appends
// in this process; the first load in a new process at 4 and 1k messages; `tangent show` and
// `tangent sessions --json` against a small script over pi's SessionManager as whole processes;
// `tangent --version` and `tangent sessions` on an empty home against pi's own executable (issue
// 33's cold paths). pi is the baseline of every row: ratio < 1 is Tangent ahead. (opencode's figures come from a manual run, docs/benchmarks.md: its binary is too heavy.)
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'
import { JsonlStore } from '@tangent/store-jsonl'
import {
  loadPiSessionManager,
  type PiMessage,
  type PiSessionManager,
  type PiSessionManagerClass,
} from './pi-session-manager.js'
import { type BenchRow, type BenchSuite, median } from './table.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const tangentCli = path.join(here, '../../packages/cli/dist/main.js')
const piCli = path.join(here, 'pi-session-cli.js')
const coldLoadChild = path.join(here, 'cold-load-child.js')
/** pi's own executable (its package's bin), for the empty-home rows. */
const piBin = path.join(here, '../../node_modules/@mariozechner/pi-coding-agent/dist/cli.js')
const cwd = '/bench/project'

const text = (n: number, bytes: number) => `message ${n} `.padEnd(bytes, 'lorem ipsum dolor sit amet ')

/**
 * The generated history, four messages a turn: a user message (300 B), an assistant tool call,
 * its result (1 KB) and an assistant answer (400 B) — about 450 bytes a message, as a coding
 * session's are. `messages` is a multiple of 4 (4 = one turn).
 */
function turnOf(n: number, time: number) {
  const callId = `call-${n}`
  const usage = { input: 1200, output: 80, cacheRead: 0, cacheWrite: 0, totalTokens: 1280 }
  return {
    callId,
    user: text(n, 300),
    input: { path: `src/file-${n}.ts` },
    output: text(n, 1024),
    answer: text(n, 400),
    usage,
    time,
  }
}

/** pi's four messages of turn `n` (its AgentMessage shapes). */
function piMessages(n: number, time: number): PiMessage[] {
  const turn = turnOf(n, time)
  const usage = {
    ...turn.usage,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  }
  const assistant = { api: 'openai-responses', provider: 'openai', model: 'gpt-4.1', usage, timestamp: time }
  return [
    { role: 'user', content: [{ type: 'text', text: turn.user }], timestamp: time },
    {
      role: 'assistant',
      content: [{ type: 'toolCall', id: turn.callId, name: 'read', arguments: turn.input }],
      stopReason: 'toolUse',
      ...assistant,
    },
    {
      role: 'toolResult',
      toolCallId: turn.callId,
      toolName: 'read',
      content: [{ type: 'text', text: turn.output }],
      isError: false,
      timestamp: time,
    },
    { role: 'assistant', content: [{ type: 'text', text: turn.answer }], stopReason: 'stop', ...assistant },
  ]
}

/** Tangent's ten events of the same turn (docs/architecture.md §2). */
function tangentEvents(n: number, time: number): { type: string; data: unknown }[] {
  const turn = turnOf(n, time)
  const usage = { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 }
  return [
    { type: 'turn/start', data: {} },
    { type: 'user/message', data: { content: [{ type: 'text', text: turn.user }] } },
    { type: 'step/start', data: {} },
    {
      type: 'assistant/message',
      data: {
        content: [{ type: 'tool-call', toolCallId: turn.callId, toolName: 'read', input: turn.input }],
      },
    },
    {
      type: 'tool/result',
      data: { callId: turn.callId, toolName: 'read', output: turn.output, isError: false },
    },
    { type: 'step/end', data: { finishReason: 'tool-calls', usage } },
    { type: 'step/start', data: {} },
    { type: 'assistant/message', data: { content: [{ type: 'text', text: turn.answer }] } },
    { type: 'step/end', data: { finishReason: 'stop', usage } },
    { type: 'turn/end', data: { reason: 'completed' } },
  ]
}

/** A pi session of `messages` messages, written through its own API; returns its file. */
function writePiSession(SessionManager: PiSessionManagerClass, dir: string, messages: number): string {
  const manager = SessionManager.create(cwd, dir)
  for (let n = 0; n < messages / 4; n++)
    for (const message of piMessages(n, 1_700_000_000_000 + n)) manager.appendMessage(message)
  return manager.getSessionFile()!
}

/**
 * A Tangent session of the same history, in the store's format (docs/architecture.md §4): the
 * header line, then one event a line, fsynced, as the store writes them. Returns the file.
 */
function writeTangentSession(home: string, id: string, messages: number): string {
  const dir = path.join(home, 'sessions')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = path.join(dir, `${id}.jsonl`)
  const header = { type: 'session', version: 1, id, createdAt: 1_700_000_000_000, cwd }
  const fd = fs.openSync(file, 'w', 0o600)
  fs.writeSync(
    fd,
    `${JSON.stringify({ ...header, inheritedEventCount: 0, seed: 'inline', origin: 'user' })}\n`,
  )
  let seq = 0
  let lines: string[] = []
  for (let n = 0; n < messages / 4; n++) {
    for (const event of tangentEvents(n, 1_700_000_000_000 + n))
      lines.push(JSON.stringify({ seq: seq++, time: 1_700_000_000_000 + n, ...event }))
    if (lines.length >= 1000) {
      fs.writeSync(fd, `${lines.join('\n')}\n`)
      lines = []
    }
  }
  if (lines.length > 0) fs.writeSync(fd, `${lines.join('\n')}\n`)
  fs.fsyncSync(fd)
  fs.closeSync(fd)
  return file
}

/** A valid session id (a ULID) for the n-th generated Tangent session. */
function sessionId(n: number): string {
  return `01J${n.toString(32).toUpperCase().padStart(23, '0')}`
}

function gcFunction(): () => void {
  v8.setFlagsFromString('--expose-gc')
  return vm.runInNewContext('gc') as () => void
}

async function ms(fn: () => unknown): Promise<number> {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${bytes} B`
}

/**
 * Runs a whole process with stdout to a file; its wall time in ms. `status` is the exit code it
 * must end with (pi's session lookup ends with 1 when nothing matches); `stderr` what its stderr
 * must contain, so a row cannot time a process that failed early.
 */
function runProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: string,
  expect: { cwd?: string; status?: number; stderr?: string } = {},
): number {
  const fd = fs.openSync(out, 'w')
  try {
    const start = process.hrtime.bigint()
    const result = spawnSync(process.execPath, args, {
      env,
      stdio: ['ignore', fd, 'pipe'],
      ...(expect.cwd ? { cwd: expect.cwd } : {}),
    })
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6
    const stderr = result.stderr.toString()
    if (result.status !== (expect.status ?? 0) || (expect.stderr && !stderr.includes(expect.stderr)))
      throw new Error(`${args.join(' ')} exited ${result.status}: ${stderr.slice(0, 500)}`)
    return elapsed
  } finally {
    fs.closeSync(fd)
  }
}

interface Fixture {
  messages: number
  /** Tangent's data directory and session id. */
  home: string
  id: string
  /** pi's session directory and file. */
  piDir: string
  piFile: string
}

export async function fixture(root: string, pi: PiSessionManagerClass, messages: number): Promise<Fixture> {
  const home = path.join(root, `tangent-${messages}`)
  const id = sessionId(messages)
  writeTangentSession(home, id, messages)
  await (await JsonlStore.open({ dir: home })).close() // the catalog, as after any write
  const piDir = path.join(root, `pi-${messages}`)
  const piFile = writePiSession(pi, piDir, messages)
  return { messages, home, id, piDir, piFile }
}

function label(messages: number): string {
  return messages >= 1000 ? `${messages / 1000}k` : String(messages)
}

/** Open + load against SessionManager.open, interleaved; medians. */
async function loadRow(f: Fixture, pi: PiSessionManagerClass, gc: () => void): Promise<BenchRow> {
  const iterations = f.messages >= 100_000 ? 5 : f.messages >= 10_000 ? 9 : f.messages >= 1000 ? 21 : 51
  const tangent: number[] = []
  const peer: number[] = []
  for (let i = 0; i < iterations + 1; i++) {
    gc()
    let events = 0
    let db: JsonlStore | null = null
    const t = await ms(async () => {
      db = await JsonlStore.open({ dir: f.home, readOnly: true })
      events = (await db.load(f.id)).events.length
    })
    await (db as JsonlStore | null)?.close()
    gc()
    let entries = 0
    const p = await ms(() => {
      entries = pi.open(f.piFile).getEntries().length
    })
    if (events !== (f.messages / 4) * 10 || entries !== f.messages)
      throw new Error(`loaded ${events} events / ${entries} pi entries for ${f.messages} messages`)
    if (i === 0) continue // warm-up
    tangent.push(t)
    peer.push(p)
  }
  const ratio = median(tangent) / median(peer)
  return {
    name: `cold load in-process (open + load, reader), ${label(f.messages)} messages`,
    medianMs: median(tangent),
    baseline: { name: 'pi SessionManager.open', medianMs: median(peer) },
    extra: {
      'Tangent / pi file': `${size(fs.statSync(path.join(f.home, 'sessions', `${f.id}.jsonl`)).size)} / ${size(fs.statSync(f.piFile).size)}`,
    },
    target: { text: '≤ 1.0× pi', met: ratio <= 1 },
  }
}

/**
 * The first load of a session in a new Node process, as a reader opening it after start-up does
 * (issue 33's cold path): each run is a new process (bench/cold-load-child.ts) that imports one
 * side's reader, then times only its open + load — Tangent's `JsonlStore.open({readOnly: true})` +
 * `load(id)`, pi's `SessionManager.open(file).getEntries()`. Both sides alternate; medians. The
 * issue's target is at 1k messages; at 4 messages the row is shown without one (what it weighs
 * is the first run of each function of the read path, not the reading: a figure no one meets
 * alone — the whole-process `show` rows are the person's).
 */
export function freshProcessLoadRow(f: Fixture, withTarget: boolean): BenchRow {
  const runs = 31
  const tangent: number[] = []
  const peer: number[] = []
  const child = (args: string[]): { ms: number; count: number } => {
    const result = spawnSync(process.execPath, [coldLoadChild, ...args], { encoding: 'utf8' })
    if (result.status !== 0)
      throw new Error(`cold-load-child ${args[0]} exited ${result.status}: ${result.stderr}`)
    return JSON.parse(result.stdout) as { ms: number; count: number }
  }
  for (let i = 0; i <= runs; i++) {
    const t = child(['tangent', f.home, f.id])
    const p = child(['pi', f.piFile])
    if (t.count !== (f.messages / 4) * 10 || p.count !== f.messages)
      throw new Error(`loaded ${t.count} events / ${p.count} pi entries for ${f.messages} messages`)
    if (i === 0) continue // warm-up: the files into the page cache
    tangent.push(t.ms)
    peer.push(p.ms)
  }
  return {
    name: `first load in a new process (open + load, reader; imports not counted), ${label(f.messages)} messages`,
    medianMs: median(tangent),
    baseline: { name: 'pi SessionManager.open, first call in a new process', medianMs: median(peer) },
    ...(withTarget ? { target: { text: '≤ 1.1× pi', met: median(tangent) <= 1.1 * median(peer) } } : {}),
  }
}

/**
 * The 4-message load again without a collection before each: the cold row's collection clears
 * V8's caches (docs/benchmarks.md, peers), and the two sides pay for that unevenly. Shown for
 * reference, with no target: the cold row is the issue's.
 */
async function warmLoadRow(f: Fixture, pi: PiSessionManagerClass): Promise<BenchRow> {
  const { tangent, peer } = await pairedLoads(f, pi, { readOnly: true }, 1000)
  return {
    name: `load in-process, warm (open + load, reader, no collection between loads), ${label(f.messages)} messages`,
    medianMs: median(tangent),
    baseline: { name: 'pi SessionManager.open', medianMs: median(peer) },
  }
}

/** The writer's open (lock, repair, catalog) + load, for reference: pi's open is a writer too, without a lock. */
async function writerLoadRow(f: Fixture, pi: PiSessionManagerClass): Promise<BenchRow> {
  const { tangent, peer } = await pairedLoads(f, pi, { readOnly: false }, 30)
  return {
    name: `open + load in-process as the writer (lock file, repair), ${label(f.messages)} messages`,
    medianMs: median(tangent),
    baseline: { name: 'pi SessionManager.open', medianMs: median(peer) },
  }
}

/** `count` open + loads of each side in turn (after one of each not counted), with no collection between. */
async function pairedLoads(
  f: Fixture,
  pi: PiSessionManagerClass,
  options: { readOnly: boolean },
  count: number,
): Promise<{ tangent: number[]; peer: number[] }> {
  const tangent: number[] = []
  const peer: number[] = []
  for (let i = 0; i <= count; i++) {
    let db: JsonlStore | null = null
    const t = await ms(async () => {
      db = await JsonlStore.open({ dir: f.home, readOnly: options.readOnly })
      await db.load(f.id)
    })
    await (db as JsonlStore | null)?.close()
    const p = await ms(() => pi.open(f.piFile).getEntries())
    if (i === 0) continue
    tangent.push(t)
    peer.push(p)
  }
  return { tangent, peer }
}

async function forkRow(f: Fixture, pi: PiSessionManagerClass): Promise<BenchRow> {
  const db = await JsonlStore.open({ dir: f.home })
  const parent = await db.load(f.id)
  const tangent: number[] = []
  let tangentBytes = 0
  for (let i = 0; i < 11; i++) {
    let childId = ''
    const t = await ms(async () => {
      const child = db.store.fork(parent)
      childId = child.id
      await db.flush(child.id)
    })
    tangentBytes = fs.statSync(path.join(f.home, 'sessions', `${childId}.jsonl`)).size
    if (i > 0) tangent.push(t)
  }
  await db.close()
  const manager: PiSessionManager = pi.open(f.piFile)
  const leaf = manager.getLeafId()!
  const peer: number[] = []
  let peerBytes = 0
  for (let i = 0; i < 3; i++) {
    let file = ''
    peer.push(
      await ms(() => {
        file = manager.createBranchedSession(leaf)!
      }),
    )
    peerBytes = fs.statSync(file).size
    fs.rmSync(file)
  }
  const ratio = median(tangent) / median(peer)
  return {
    name: `fork at the last turn, ${label(f.messages)} messages (Tangent: fork + flush, fsynced)`,
    medianMs: median(tangent),
    baseline: { name: 'pi createBranchedSession (no fsync)', medianMs: median(peer) },
    extra: { 'bytes written (Tangent / pi)': `${size(tangentBytes)} / ${size(peerBytes)}` },
    target: { text: '≥ 100× faster than pi', met: ratio <= 0.01 },
  }
}

async function appendRow(root: string, pi: PiSessionManagerClass): Promise<BenchRow> {
  const messages = 1000
  const home = path.join(root, 'append')
  const piDir = path.join(root, 'pi-append')
  const tangent: number[] = []
  const peer: number[] = []
  for (let round = 0; round < 6; round++) {
    const db = await JsonlStore.open({ dir: home })
    const t = await ms(async () => {
      const session = db.store.create(undefined, { meta: { cwd } })
      for (let n = 0; n < messages / 4; n++)
        for (const event of tangentEvents(n, Date.now())) session.append(event.type, event.data)
      await db.flush(session.id)
    })
    await db.close()
    const p = await ms(() => writePiSession(pi, piDir, messages))
    if (round === 0) continue
    tangent.push(t)
    peer.push(p)
  }
  return {
    name: `append ${label(messages)} messages (Tangent: validated, one fsync at the end)`,
    medianMs: median(tangent),
    baseline: { name: 'pi appendMessage (appendFileSync each, no fsync)', medianMs: median(peer) },
  }
}

export async function listFixture(root: string, pi: PiSessionManagerClass, count: number) {
  const home = path.join(root, 'tangent-many')
  for (let n = 0; n < count; n++) writeTangentSession(home, sessionId(1_000_000 + n), 4)
  await (await JsonlStore.open({ dir: home })).close() // builds the catalog once
  const piDir = path.join(root, 'pi-many')
  for (let n = 0; n < count; n++) writePiSession(pi, piDir, 4)
  return { home, piDir }
}

export async function listRow(
  many: { home: string; piDir: string },
  pi: PiSessionManagerClass,
  count: number,
): Promise<BenchRow> {
  const tangent: number[] = []
  const peer: number[] = []
  for (let i = 0; i < 6; i++) {
    let listed = 0
    const t = await ms(async () => {
      const db = await JsonlStore.open({ dir: many.home, readOnly: true })
      listed = (await db.list()).length
      await db.close()
    })
    let piListed = 0
    const p = await ms(async () => {
      piListed = (await pi.list(many.piDir, many.piDir)).length
    })
    if (listed !== count || piListed !== count) throw new Error(`listed ${listed} / ${piListed} of ${count}`)
    if (i === 0) continue
    tangent.push(t)
    peer.push(p)
  }
  const ratio = median(tangent) / median(peer)
  return {
    name: `list ${label(count)} sessions in-process (open + list, reader)`,
    medianMs: median(tangent),
    baseline: { name: 'pi SessionManager.list', medianMs: median(peer) },
    target: { text: '≥ 10× faster than pi', met: ratio <= 0.1 },
  }
}

export function processRows(
  root: string,
  fixtures: Fixture[],
  many: { home: string; piDir: string },
): BenchRow[] {
  const rows: BenchRow[] = []
  const out = path.join(root, 'stdout.txt')
  const envFor = (home: string): NodeJS.ProcessEnv => ({ ...process.env, TANGENT_HOME: home, NO_COLOR: '1' })
  for (const f of fixtures) {
    const tangent: number[] = []
    const peer: number[] = []
    let tangentBytes = 0
    let peerBytes = 0
    for (let i = 0; i < 16; i++) {
      const t = runProcess([tangentCli, 'show', f.id], envFor(f.home), out)
      tangentBytes = fs.statSync(out).size
      const p = runProcess([piCli, 'show', f.piFile], process.env, out)
      peerBytes = fs.statSync(out).size
      if (i === 0) continue
      tangent.push(t)
      peer.push(p)
    }
    rows.push({
      name: `whole process: \`tangent show ID\`, ${label(f.messages)} messages (stdout to a file)`,
      medianMs: median(tangent),
      baseline: { name: 'node script: pi SessionManager.open + print', medianMs: median(peer) },
      extra: { 'output (Tangent / pi)': `${size(tangentBytes)} / ${size(peerBytes)}` },
      target: { text: '≤ 1.0× pi', met: median(tangent) <= median(peer) },
    })
  }
  const tangent: number[] = []
  const peer: number[] = []
  for (let i = 0; i < 6; i++) {
    const t = runProcess([tangentCli, 'sessions', '--json'], envFor(many.home), out)
    const p = runProcess([piCli, 'list', many.piDir], process.env, out)
    if (i === 0) continue
    tangent.push(t)
    peer.push(p)
  }
  rows.push({
    name: 'whole process: `tangent sessions --json`, 10k sessions',
    medianMs: median(tangent),
    baseline: { name: 'node script: pi SessionManager.list + print', medianMs: median(peer) },
    target: { text: '≥ 5× faster than pi', met: median(tangent) * 5 <= median(peer) },
  })
  return rows
}

/**
 * `tangent --version` and `tangent sessions` as whole processes on an empty home (a new HOME, no
 * TANGENT_HOME or XDG dirs, each run its own) against pi's own executable: `pi --version`, and
 * for the listing `pi --session <id matching nothing>` — pi has no command that lists sessions
 * and exits (its `--resume` picker needs a terminal); resolving a session id lists the project's
 * sessions and then all sessions (SessionManager.list + listAll), and exits 1 when none matches.
 * pi runs with PI_OFFLINE=1 (no network; neither path would use it). The listing is also shown
 * against the bench's script over pi's SessionManager module alone (no target): pi's executable
 * loads its whole agent and TUI first, the script is the least pi's code could take.
 */
export function emptyHomeRows(root: string): BenchRow[] {
  const out = path.join(root, 'stdout-empty.txt')
  const homes = path.join(root, 'empty-homes')
  fs.mkdirSync(homes, { recursive: true })
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('XDG_') && !key.startsWith('TANGENT_') && !key.startsWith('PI_'),
    ),
  )
  let n = 0
  const freshHome = (): { cwd: string; env: NodeJS.ProcessEnv } => {
    const home = fs.mkdtempSync(path.join(homes, `${n++}-`))
    return { cwd: home, env: { ...base, HOME: home, NO_COLOR: '1', PI_OFFLINE: '1' } }
  }
  const noMatch = '01J0000000000000000NOMATCH'
  const pairs: {
    name: string
    tangent: (h: { cwd: string; env: NodeJS.ProcessEnv }) => number
    baseline: string
    peer: (h: { cwd: string; env: NodeJS.ProcessEnv }) => number
    target?: boolean
  }[] = [
    {
      name: 'whole process: `tangent --version`, empty home',
      tangent: (h) => runProcess([tangentCli, '--version'], h.env, out, { cwd: h.cwd }),
      baseline: '`pi --version`',
      peer: (h) => runProcess([piBin, '--version'], h.env, out, { cwd: h.cwd }),
      target: true,
    },
    {
      name: 'whole process: `tangent sessions`, empty home',
      tangent: (h) => runProcess([tangentCli, 'sessions'], h.env, out, { cwd: h.cwd }),
      baseline: `\`pi --session ID\` (lists the sessions, none matches, exits 1)`,
      peer: (h) =>
        runProcess([piBin, '--session', noMatch], h.env, out, {
          cwd: h.cwd,
          status: 1,
          stderr: 'No session found',
        }),
      target: true,
    },
    {
      name: "whole process: `tangent sessions`, empty home (reference: pi's module alone)",
      tangent: (h) => runProcess([tangentCli, 'sessions'], h.env, out, { cwd: h.cwd }),
      baseline: 'node script: pi SessionManager.list of an empty folder + print',
      peer: (h) => runProcess([piCli, 'list', path.join(h.cwd, 'sessions')], h.env, out, { cwd: h.cwd }),
    },
  ]
  const rows: BenchRow[] = []
  for (const pair of pairs) {
    const tangent: number[] = []
    const peer: number[] = []
    for (let i = 0; i <= 15; i++) {
      const t = pair.tangent(freshHome())
      const p = pair.peer(freshHome())
      if (i === 0) continue
      tangent.push(t)
      peer.push(p)
    }
    rows.push({
      name: pair.name,
      medianMs: median(tangent),
      baseline: { name: pair.baseline, medianMs: median(peer) },
      ...(pair.target ? { target: { text: '≤ 1.0× pi', met: median(tangent) <= median(peer) } } : {}),
    })
  }
  return rows
}

export const suite: BenchSuite = {
  title: 'Tangent vs pi (@mariozechner/pi-coding-agent SessionManager): the same histories',
  async run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-peers-'))
    try {
      const pi = await loadPiSessionManager()
      const gc = gcFunction()
      const rows: BenchRow[] = []
      const fixtures: Fixture[] = []
      for (const messages of [4, 1000, 10_000, 100_000]) {
        const f = await fixture(root, pi, messages)
        fixtures.push(f)
        rows.push(await loadRow(f, pi, gc))
        if (messages === 4) rows.push(await warmLoadRow(f, pi), await writerLoadRow(f, pi))
        if (messages <= 1000) rows.push(freshProcessLoadRow(f, messages === 1000))
        if (messages === 100_000) rows.push(await forkRow(f, pi))
      }
      rows.push(await appendRow(root, pi))
      const count = 10_000
      const many = await listFixture(root, pi, count)
      rows.push(await listRow(many, pi, count))
      rows.push(...processRows(root, fixtures.slice(0, 2), many))
      rows.push(...emptyHomeRows(root))
      return rows
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
