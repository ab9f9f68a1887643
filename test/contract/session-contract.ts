// The contract of every session operation (docs/architecture.md §11), written once and run
// against every front-end: the runtime in-process (runtime.contract.ts) and a real Host over
// JSON-RPC on a WebSocket (host.contract.ts). A front-end that grows its own version of an
// operation fails here.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { SessionSummary } from '@tangent/protocol'
import type { SessionApi } from '@tangent/runtime'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'

export interface ContractFixture {
  api: SessionApi
  /** TANGENT_HOME of the runtime. */
  home: string
  /** The runtime's start folder (cwd of sessions made without one). */
  start: string
  /** Where `~` points for this runtime. */
  homeDir: string
  close(): Promise<void>
}

/** Damages stored sessions behind the engine's back (while no front-end is open). */
export interface StorageDamage {
  /** The session's log (or rows) goes. */
  lose(id: string): Promise<void>
  /** The session's event `seq` no longer parses. */
  corrupt(id: string, seq: number): Promise<void>
}

/** The JSONL engine's damage: files under `home/sessions`. */
function jsonlDamage(home: string): StorageDamage {
  const logOf = (id: string) => path.join(home, 'sessions', `${id}.jsonl`)
  return {
    async lose(id) {
      fs.renameSync(logOf(id), path.join(home, `${id}.moved-away`))
    },
    async corrupt(id, seq) {
      const lines = fs.readFileSync(logOf(id), 'utf8').split('\n')
      lines[seq + 1] = '{not json' // after the header line
      fs.writeFileSync(logOf(id), lines.join('\n'))
    },
  }
}

export interface ContractOptions {
  /** Opens a fresh runtime (demo model, streaming delay `demoDelayMs`) behind the front-end under test. */
  open(options: {
    home: string
    start: string
    homeDir: string
    demoDelayMs: number
  }): Promise<ContractFixture>
  /** How to damage the storage of `home` (default: JSONL files); opening `home` again reopens it. */
  damage?: (home: string) => StorageDamage
}

const temps: string[] = []
/** Removes the directories tempDir made (after a suite). */
export function removeTempDirs(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

export function tempDir(prefix = 'tangent-contract-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  temps.push(dir)
  return dir
}

/** The stable code of what `promise` rejected with (a TangentError on either front-end). */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; data: Record<string, unknown> }> {
  try {
    await promise
  } catch (error) {
    if (TangentError.isInstance(error)) return { code: error.code, data: error.data }
    throw error
  }
  throw new Error('expected the call to fail')
}

/** The MCP test server from npm (a devDependency), run over stdio from node_modules. */
const everythingServer = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'),
  ),
  'dist',
  'index.js',
)

export async function waitFor<T>(probe: () => Promise<T | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== false) return value
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A git repository with one commit (a.txt), and a function that runs git in it. */
export function gitProject(): { repo: string; git: (...args: string[]) => string } {
  const repo = tempDir('tangent-repo-')
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' })
  git('init', '-q')
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n')
  git('add', '.')
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init')
  return { repo, git }
}

const longPrompt = `Tell me a story about ${'forks and branches '.repeat(10)}`

export function runSessionContract(options: ContractOptions): void {
  let f: ContractFixture
  let start: string
  let opened: Parameters<ContractOptions['open']>[0]

  beforeEach(async () => {
    start = tempDir('tangent-start-')
    opened = {
      home: tempDir('tangent-home-'),
      start,
      homeDir: tempDir('tangent-userhome-'),
      demoDelayMs: 4,
    }
    f = await options.open(opened)
  })
  /** Closes the front-end, runs `meanwhile`, and opens a new one on the same storage. */
  const reopen = async (meanwhile: () => Promise<void>) => {
    await f.close()
    await meanwhile()
    f = await options.open(opened)
  }
  afterEach(async () => {
    await f.close()
  })
  afterAll(removeTempDirs)

  const turn = (sessionId: string, text: string) => f.api.call('session.prompt', { sessionId, text })

  describe('sessions', () => {
    it('create, prompt, get and list describe one session the same way', async () => {
      const created = SessionSummary.parse(await f.api.call('session.create', { title: 'Plan' }))
      expect(created).toMatchObject({ title: 'Plan', cwd: start, status: 'idle', origin: 'user' })
      expect(created.model).toEqual({ provider: 'demo', model: 'scripted' })
      const result = await turn(created.id, 'hello')
      expect(result.reason).toBe('completed')
      const got = await f.api.call('session.get', { sessionId: created.id })
      expect(got.events[result.turnStartSeq]?.type).toBe('turn/start')
      expect(got.events.at(-1)).toMatchObject({ seq: result.turnEndSeq, type: 'turn/end' })
      const listed = (await f.api.call('session.list', {})).find((item) => item.id === created.id)
      // One summary builder: list and get agree on everything but the clock of the last write.
      expect({ ...listed, updatedAt: 0 }).toEqual({ ...got.session, updatedAt: 0 })
      expect(got.session.eventCount).toBe(got.events.length)
    })

    it('pages a log: the tail with last, the page before a seq with beforeSeq, and an empty range', async () => {
      const created = SessionSummary.parse(await f.api.call('session.create', {}))
      await turn(created.id, 'one')
      await turn(created.id, 'two')
      const whole = await f.api.call('session.get', { sessionId: created.id })
      const count = whole.events.length
      expect(count).toBeGreaterThan(6)
      const seqs = (events: readonly { seq: number }[]) => events.map((event) => event.seq)
      const tail = await f.api.call('session.get', { sessionId: created.id, last: 3 })
      expect(seqs(tail.events)).toEqual([count - 3, count - 2, count - 1])
      expect(tail.session.eventCount).toBe(count)
      expect(tail.usage).toEqual(whole.usage)
      const before = await f.api.call('session.get', { sessionId: created.id, beforeSeq: count - 3, last: 2 })
      expect(seqs(before.events)).toEqual([count - 5, count - 4])
      const range = await f.api.call('session.get', { sessionId: created.id, fromSeq: 1, beforeSeq: 3 })
      expect(seqs(range.events)).toEqual([1, 2])
      // `last` beyond the start, fromSeq past beforeSeq, beforeSeq past the end: clipped, never an error.
      expect(
        seqs((await f.api.call('session.get', { sessionId: created.id, beforeSeq: 2, last: 50 })).events),
      ).toEqual([0, 1])
      expect(
        (await f.api.call('session.get', { sessionId: created.id, fromSeq: 5, beforeSeq: 2 })).events,
      ).toEqual([])
      expect(
        (await f.api.call('session.get', { sessionId: created.id, beforeSeq: count + 10 })).events,
      ).toHaveLength(count)
      expect((await failure(f.api.call('session.get', { sessionId: created.id, last: 0 }))).code).toBe(
        'invalid-params',
      )
    })

    it('refuses unknown ids with session-not-found in every operation, and malformed params with invalid-params', async () => {
      const ghost = 'NOSUCHSESSION'
      // Thunks: each call is made (and its rejection handled) one at a time.
      const calls: (() => Promise<unknown>)[] = [
        () => f.api.call('session.get', { sessionId: ghost }),
        () => f.api.call('session.prompt', { sessionId: ghost, text: 'hi' }),
        () => f.api.call('session.abort', { sessionId: ghost }),
        () => f.api.call('session.fork', { sessionId: ghost }),
        () => f.api.call('session.rename', { sessionId: ghost, title: 'x' }),
        () => f.api.call('session.archive', { sessionId: ghost, archived: true }),
        () => f.api.call('session.delete', { sessionId: ghost }),
        () => f.api.call('session.setModel', { sessionId: ghost, model: 'demo:scripted' }),
        () => f.api.call('session.compare', { a: ghost, b: ghost }),
        () => f.api.call('session.compact', { sessionId: ghost }),
        () => f.api.call('snapshot.list', { sessionId: ghost }),
        () => f.api.call('snapshot.restore', { sessionId: ghost, seq: 0 }),
        () => f.api.call('snapshot.undoRestore', { sessionId: ghost }),
      ]
      for (const call of calls) {
        const error = await failure(call())
        expect(error.code).toBe('session-not-found')
        expect(error.data.sessionId).toBe(ghost)
      }
      expect((await failure(f.api.call('session.get', { sessionId: '../etc' }))).code).toBe('invalid-params')
      expect((await failure(f.api.call('session.fork', { sessionId: 'a', atSeq: -1 }))).code).toBe(
        'invalid-params',
      )
      expect((await failure(f.api.call('session.create', { model: 'nope:x' }))).code).toBe('invalid-model')
      // A known provider with a closed list of models: an unknown one is refused before anything is made.
      expect((await failure(f.api.call('session.create', { model: 'demo:nonexistent' }))).code).toBe(
        'invalid-model',
      )
      expect((await failure(f.api.call('session.create', { workspaceId: 'nope' }))).code).toBe(
        'workspace-not-found',
      )
      // Nothing was created by any of it.
      expect(await f.api.call('session.list', { includeArchived: true })).toEqual([])
    })

    it('refuses a second prompt, a rename and a restore while a turn runs (session-busy), and abort ends it', async () => {
      const session = await f.api.call('session.create', {})
      const running = turn(session.id, longPrompt)
      await waitFor(
        async () => (await f.api.call('session.get', { sessionId: session.id })).session.status === 'running',
      )
      expect((await failure(turn(session.id, 'again'))).code).toBe('session-busy')
      expect((await failure(f.api.call('session.rename', { sessionId: session.id, title: 'x' }))).code).toBe(
        'session-busy',
      )
      expect((await failure(f.api.call('snapshot.restore', { sessionId: session.id, seq: 0 }))).code).toBe(
        'session-busy',
      )
      expect((await failure(f.api.call('session.compact', { sessionId: session.id }))).code).toBe(
        'session-busy',
      )
      expect(await f.api.call('session.abort', { sessionId: session.id })).toEqual({ aborted: true })
      expect((await running).reason).toBe('aborted')
      expect(await f.api.call('session.abort', { sessionId: session.id })).toEqual({ aborted: false })
    })

    it('renames, archives and deletes; a deleted parent leaves its forks whole', async () => {
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      expect((await f.api.call('session.rename', { sessionId: session.id, title: 'Named' })).title).toBe(
        'Named',
      )
      // A title needs a visible character; a refused one changes nothing.
      for (const title of ['', '   ', '\t\n']) {
        const refused = await failure(f.api.call('session.rename', { sessionId: session.id, title }))
        expect(refused.code).toBe('invalid-params')
        expect(refused.data.issues).toEqual([
          expect.objectContaining({ path: ['title'], message: 'a title needs a visible character' }),
        ])
      }
      expect((await f.api.call('session.get', { sessionId: session.id })).session.title).toBe('Named')
      const badModel = await failure(
        f.api.call('session.setModel', { sessionId: session.id, model: 'demo:nonexistent' }),
      )
      expect(badModel.code).toBe('invalid-model')
      const fork = await f.api.call('session.fork', { sessionId: session.id })
      const archived = await f.api.call('session.archive', { sessionId: session.id, archived: true })
      expect(archived.archived).toBe(true)
      expect((await f.api.call('session.list', {})).map((item) => item.id)).toEqual([fork.session.id])
      await f.api.call('session.archive', { sessionId: session.id, archived: false })
      const before = await f.api.call('session.get', { sessionId: fork.session.id })
      const deleted = await f.api.call('session.delete', { sessionId: session.id })
      expect(deleted).toEqual({ deleted: true, materialized: [fork.session.id] })
      expect((await f.api.call('session.get', { sessionId: fork.session.id })).events).toEqual(before.events)
      expect((await failure(f.api.call('session.get', { sessionId: session.id }))).code).toBe(
        'session-not-found',
      )
    })

    it('resolves a whole id or a unique prefix in any case, names the candidates of an ambiguous one, and forgets deleted sessions', async () => {
      const first = await f.api.call('session.create', { title: 'First' })
      const second = await f.api.call('session.create', { title: 'Second' })
      const resolve = (id: string) => f.api.call('session.resolve', { id })
      expect(await resolve(first.id)).toEqual({ sessionId: first.id })
      expect(await resolve(first.id.toLowerCase())).toEqual({ sessionId: first.id })
      // ULIDs made a moment apart share their time characters: the shortest unique prefix is longer.
      let common = 0
      while (first.id[common] === second.id[common]) common++
      expect(await resolve(second.id.slice(0, Math.max(common + 1, 4)).toLowerCase())).toEqual({
        sessionId: second.id,
      })
      const ambiguous = await failure(resolve(first.id.slice(0, Math.max(common, 4))))
      expect(ambiguous.code).toBe('ambiguous-id')
      expect(ambiguous.data.candidates).toEqual([
        { id: first.id, title: 'First' },
        { id: second.id, title: 'Second' },
      ])
      expect((await failure(resolve(first.id.slice(0, 3)))).code).toBe('session-not-found')
      await f.api.call('session.archive', { sessionId: first.id, archived: true })
      expect(await resolve(first.id.slice(0, common + 1))).toEqual({ sessionId: first.id })
      await f.api.call('session.delete', { sessionId: second.id })
      expect((await failure(resolve(second.id))).code).toBe('session-not-found')
      expect(await resolve(first.id.slice(0, 4))).toEqual({ sessionId: first.id })
    })
  })

  describe('fork', () => {
    it('forks at the last completed turn by default, at an anchor, or before a turn; titles tell the branches apart', async () => {
      const session = await f.api.call('session.create', { title: 'Refactor' })
      const first = await turn(session.id, 'one')
      const second = await turn(session.id, 'two')
      const latest = await f.api.call('session.fork', { sessionId: session.id })
      expect(latest.boundary).toBe(second.turnEndSeq)
      expect(latest.session).toMatchObject({
        parentSession: session.id,
        forkedAt: second.turnEndSeq,
        inheritedEventCount: second.turnEndSeq + 1,
        origin: 'fork',
        title: 'Refactor · fork 1',
      })
      const atFirst = await f.api.call('session.fork', {
        sessionId: session.id,
        atSeq: first.turnStartSeq + 1,
      })
      expect(atFirst.boundary).toBe(first.turnEndSeq)
      expect(atFirst.session.title).toBe('Refactor · fork 2')
      const before = await f.api.call('session.fork', {
        sessionId: session.id,
        atSeq: second.turnStartSeq + 1,
        before: true,
        title: 'Edit',
      })
      expect(before.boundary).toBe(second.turnStartSeq - 1)
      expect(before.session.title).toBe('Edit')
      // Seqs continue: the child's prefix is the parent's.
      const parent = await f.api.call('session.get', { sessionId: session.id })
      const child = await f.api.call('session.get', { sessionId: latest.session.id })
      expect(child.events.slice(0, latest.boundary + 1)).toEqual(parent.events.slice(0, latest.boundary + 1))
    })

    it('is idempotent per requestId, and a requestId names one source', async () => {
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      const [a, b] = await Promise.all([
        f.api.call('session.fork', { sessionId: session.id, requestId: 'r-1' }),
        f.api.call('session.fork', { sessionId: session.id, requestId: 'r-1' }),
      ])
      expect(b.session.id).toBe(a.session.id)
      const again = await f.api.call('session.fork', { sessionId: session.id, requestId: 'r-1' })
      expect(again.session.id).toBe(a.session.id)
      const other = await f.api.call('session.create', {})
      await turn(other.id, 'x')
      expect(
        (await failure(f.api.call('session.fork', { sessionId: other.id, requestId: 'r-1' }))).code,
      ).toBe('invalid-params')
      const forks = (await f.api.call('session.list', {})).filter((item) => item.parentSession === session.id)
      expect(forks.map((item) => item.id)).toEqual([a.session.id])
    })

    it('gives the child the source’s latest model, chosen after the fork point too', async () => {
      const session = await f.api.call('session.create', {})
      const first = await turn(session.id, 'one')
      await turn(session.id, 'two')
      await f.api.call('session.setModel', {
        sessionId: session.id,
        model: 'demo:scripted',
        reasoningEffort: 'high',
      })
      const fork = await f.api.call('session.fork', { sessionId: session.id, atSeq: first.turnStartSeq })
      expect(fork.boundary).toBe(first.turnEndSeq)
      expect(fork.session.model).toEqual({ provider: 'demo', model: 'scripted', reasoningEffort: 'high' })
    })

    it('refuses an anchor inside a running turn (fork-unavailable), never forking an earlier turn', async () => {
      const session = await f.api.call('session.create', {})
      const done = await turn(session.id, 'one')
      const running = turn(session.id, longPrompt)
      const during = await waitFor(async () => {
        const got = await f.api.call('session.get', { sessionId: session.id })
        return got.session.status === 'running' && got.events.length > done.turnEndSeq + 3 && got
      })
      const refused = await failure(
        f.api.call('session.fork', { sessionId: session.id, atSeq: during.events.length - 1 }),
      )
      expect(refused.code).toBe('fork-unavailable')
      const atDone = await f.api.call('session.fork', { sessionId: session.id })
      expect(atDone.boundary).toBe(done.turnEndSeq)
      await f.api.call('session.abort', { sessionId: session.id })
      await running
    })

    it('refuses a fork point past the end of the session (invalid-boundary naming its last seq), creating nothing', async () => {
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      const lastSeq = (await f.api.call('session.get', { sessionId: session.id })).events.length - 1
      const before = (await f.api.call('session.list', {})).length
      for (const params of [{ atSeq: 9999 }, { atSeq: lastSeq + 1 }, { atSeq: 9999, before: true }]) {
        const refused = await failure(f.api.call('session.fork', { sessionId: session.id, ...params }))
        expect(refused.code).toBe('invalid-boundary')
        expect(refused.data).toMatchObject({ sessionId: session.id, atSeq: params.atSeq, lastSeq })
      }
      expect(await f.api.call('session.list', {})).toHaveLength(before)
      // The last seq itself is a fork point.
      const atLast = await f.api.call('session.fork', { sessionId: session.id, atSeq: lastSeq })
      expect(atLast.boundary).toBe(lastSeq)
    })

    it('gives a worktree fork its own directory at the fork point', async () => {
      const work = tempDir('tangent-work-')
      const session = await f.api.call('session.create', { cwd: work })
      await turn(session.id, 'write notes.txt: first')
      await turn(session.id, 'write notes.txt: second')
      const timeline = await f.api.call('snapshot.list', { sessionId: session.id })
      const firstWrite = timeline.find((entry) => entry.changed.includes('notes.txt'))
      const fork = await f.api.call('session.fork', {
        sessionId: session.id,
        atSeq: firstWrite?.seq,
        files: 'worktree',
      })
      expect(fork.session.files.mode).toBe('worktree')
      expect(fork.session.cwd).not.toBe(work)
      expect(fs.readFileSync(path.join(fork.session.cwd, 'notes.txt'), 'utf8')).toBe('first\n')
      expect(fs.readFileSync(path.join(work, 'notes.txt'), 'utf8')).toBe('second\n')
      const deleted = await f.api.call('session.delete', { sessionId: fork.session.id })
      expect(deleted.worktree).toMatchObject({ path: fork.session.cwd, removed: true })
    })

    it('names the files a worktree fork could not bring (too big, special files), also on a retry', async () => {
      const work = tempDir('tangent-work-')
      fs.writeFileSync(path.join(work, 'big.bin'), Buffer.alloc(3 * 1024 * 1024))
      execFileSync('mkfifo', [path.join(work, 'pipe')])
      const session = await f.api.call('session.create', { cwd: work })
      await turn(session.id, 'write notes.txt: kept')
      const params = { sessionId: session.id, files: 'worktree' as const, requestId: 'left-out-1' }
      const fork = await f.api.call('session.fork', params)
      expect(fork.worktree).toEqual({ path: fork.session.cwd, leftOut: ['big.bin', 'pipe'] })
      expect(fs.readFileSync(path.join(fork.session.cwd, 'notes.txt'), 'utf8')).toBe('kept\n')
      expect(fs.existsSync(path.join(fork.session.cwd, 'big.bin'))).toBe(false)
      // The same request again answers the same child, saying the same.
      expect((await f.api.call('session.fork', params)).worktree).toEqual(fork.worktree)
      // A shared fork makes no worktree and says nothing of one.
      expect((await f.api.call('session.fork', { sessionId: session.id })).worktree).toBeUndefined()
    })
  })

  describe('compare', () => {
    it('compares a session with itself, with its fork, and with a stranger', async () => {
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      const self = await f.api.call('session.compare', { a: session.id, b: session.id })
      const length = (await f.api.call('session.get', { sessionId: session.id })).events.length
      expect(self).toMatchObject({
        ancestor: session.id,
        forkSeq: length - 1,
        a: { events: [] },
        b: { events: [] },
      })
      const fork = await f.api.call('session.fork', { sessionId: session.id })
      await turn(session.id, 'two')
      const pair = await f.api.call('session.compare', { a: session.id, b: fork.session.id })
      expect([pair.ancestor, pair.forkSeq]).toEqual([session.id, fork.boundary])
      expect(pair.a.events[0]?.seq).toBe(fork.boundary + 1)
      const stranger = await f.api.call('session.create', {})
      const none = await f.api.call('session.compare', { a: session.id, b: stranger.id })
      expect([none.ancestor, none.forkSeq]).toEqual([null, null])
    })
  })

  describe('usage', () => {
    it('reports tokens per turn and own vs inherited in session.get, and each side’s spend in session.compare', async () => {
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      const fork = await f.api.call('session.fork', { sessionId: session.id })
      await turn(fork.session.id, 'two')
      const parent = (await f.api.call('session.get', { sessionId: session.id })).usage!
      const child = (await f.api.call('session.get', { sessionId: fork.session.id })).usage!
      // The demo model reports usage (about 4 characters a token) and costs nothing.
      expect(parent.turns).toHaveLength(1)
      expect(parent.turns[0]).toMatchObject({ model: 'demo:scripted', steps: 1, cost: 0 })
      expect(parent.turns[0]!.inputTokens).toBeGreaterThan(0)
      expect(parent.priceSource).toMatch(/^tokenlens \d/)
      expect(child.inherited).toEqual(parent.total)
      expect(child.own.inputTokens).toBeGreaterThan(parent.total.inputTokens)
      expect(child.total.inputTokens).toBe(child.own.inputTokens + child.inherited.inputTokens)
      expect(child.turns[0]).toEqual(parent.turns[0])
      expect(child.turns[1]!.seq).toBeGreaterThan(fork.boundary)
      const last = child.turns[1]!
      expect(child.context).toMatchObject({
        used: last.inputTokens + last.outputTokens,
        window: 4096,
        model: 'demo:scripted',
      })
      expect(child.context.percent).toBeCloseTo(((last.inputTokens + last.outputTokens) / 4096) * 100, 1)
      const pair = await f.api.call('session.compare', { a: session.id, b: fork.session.id })
      expect(pair.a.usage).toMatchObject({ own: { steps: 0 }, inherited: parent.total })
      expect(pair.b.usage).toMatchObject({ own: child.own, inherited: child.inherited, total: child.total })
    })
  })

  describe('compact', () => {
    // The demo model answers "Turn N", N counting the user messages it was sent: a compacted
    // history is one user message (the summary joined to the new question).
    const lastReply = async (sessionId: string) => {
      const { events } = await f.api.call('session.get', { sessionId })
      const message = events.findLast((event) => event.type === 'assistant/message')!
      return (message.data as { content: { text?: string }[] }).content
        .map((part) => part.text ?? '')
        .join('')
    }

    it('summarises the history into an event; a fork after it inherits the summary, a fork before it the full history', async () => {
      const session = await f.api.call('session.create', {})
      expect((await failure(f.api.call('session.compact', { sessionId: session.id }))).code).toBe(
        'nothing-to-compact',
      )
      await turn(session.id, 'one')
      const beforeCompaction = await f.api.call('session.fork', { sessionId: session.id })
      await turn(session.id, 'two')
      const compacted = await f.api.call('session.compact', { sessionId: session.id })
      const { events } = await f.api.call('session.get', { sessionId: session.id })
      expect(events.at(-1)).toMatchObject({ seq: compacted.seq, type: 'context/compacted' })
      expect(compacted).toMatchObject({ throughSeq: compacted.seq - 1, model: 'demo:scripted' })
      expect(compacted.summary).toBe(
        'Summary of the conversation so far:\n- The user said: "one"\n- The user said: "two"',
      )
      expect((await failure(f.api.call('session.compact', { sessionId: session.id }))).code).toBe(
        'nothing-to-compact',
      )
      const afterCompaction = await f.api.call('session.fork', { sessionId: session.id })
      await turn(session.id, 'three')
      expect(await lastReply(session.id)).toBe('Turn 1: you said "three".')
      await turn(afterCompaction.session.id, 'three')
      expect(await lastReply(afterCompaction.session.id)).toBe('Turn 1: you said "three".')
      await turn(beforeCompaction.session.id, 'two, again')
      expect(await lastReply(beforeCompaction.session.id)).toBe('Turn 2: you said "two, again".')
    })
  })

  describe('restore', () => {
    it('records a restore as its own event with its undo tree, and undoes it safely', async () => {
      const work = tempDir('tangent-work-')
      const notes = path.join(work, 'notes.txt')
      const session = await f.api.call('session.create', { cwd: work })
      const first = await turn(session.id, 'write notes.txt: one')
      await turn(session.id, 'write notes.txt: two')
      const restored = await f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq })
      expect(restored.restored).toEqual(['notes.txt'])
      expect(fs.readFileSync(notes, 'utf8')).toBe('one\n')
      const log = await f.api.call('session.get', { sessionId: session.id })
      expect(log.events.at(-1)).toMatchObject({
        seq: restored.seq,
        type: 'files/restored',
        data: { toSeq: first.turnEndSeq, restored: ['notes.txt'], undoTree: restored.undoTree },
      })
      // It is a snapshot of the session's timeline.
      expect((await f.api.call('snapshot.list', { sessionId: session.id })).at(-1)?.seq).toBe(restored.seq)

      // Someone edits the file after the restore: the undo refuses, then force wins.
      fs.writeFileSync(notes, 'by hand\n')
      const conflict = await failure(f.api.call('snapshot.undoRestore', { sessionId: session.id }))
      expect(conflict.code).toBe('files-conflict')
      expect(conflict.data.paths).toEqual(['notes.txt'])
      fs.writeFileSync(notes, 'one\n')
      const undone = await f.api.call('snapshot.undoRestore', { sessionId: session.id, seq: restored.seq })
      expect(undone.restored).toEqual(['notes.txt'])
      expect(fs.readFileSync(notes, 'utf8')).toBe('two\n')
      const after = await f.api.call('session.get', { sessionId: session.id, fromSeq: undone.seq })
      expect(after.events).toMatchObject([{ type: 'files/restored', data: { undoOf: restored.seq } }])
      expect((await failure(f.api.call('snapshot.undoRestore', { sessionId: session.id }))).code).toBe(
        'not-a-restore',
      )
      expect(
        (await failure(f.api.call('snapshot.undoRestore', { sessionId: session.id, seq: first.turnEndSeq })))
          .code,
      ).toBe('not-a-restore')
      // The session goes on: a turn after the undo starts from the undone files.
      await turn(session.id, 'read notes.txt')
      expect(fs.readFileSync(notes, 'utf8')).toBe('two\n')
    })

    it('a restore that changes nothing records nothing and says so; undo takes back the last restore that changed something', async () => {
      const work = tempDir('tangent-work-')
      const notes = path.join(work, 'notes.txt')
      const session = await f.api.call('session.create', { cwd: work })
      const first = await turn(session.id, 'write notes.txt: one')
      await turn(session.id, 'write notes.txt: two')
      const restored = await f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq })
      expect(restored.restored).toEqual(['notes.txt'])
      const restoreRows = async () =>
        (await f.api.call('session.get', { sessionId: session.id })).events.filter(
          (event) => event.type === 'files/restored',
        )
      // Again to the same point: the files are there already.
      const again = await f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq })
      expect(again.restored).toEqual([])
      expect(again.seq).toBeUndefined()
      expect(await restoreRows()).toHaveLength(1)
      // One undo puts back what the restore changed.
      const undone = await f.api.call('snapshot.undoRestore', { sessionId: session.id })
      expect(undone.restored).toEqual(['notes.txt'])
      expect((await restoreRows()).at(-1)).toMatchObject({ data: { undoOf: restored.seq } })
      expect(fs.readFileSync(notes, 'utf8')).toBe('two\n')
    })

    it('refuses a restore that would overwrite another writer’s change, unless forced', async () => {
      const work = tempDir('tangent-work-')
      const session = await f.api.call('session.create', { cwd: work })
      const first = await turn(session.id, 'write notes.txt: one')
      await turn(session.id, 'write notes.txt: two')
      fs.writeFileSync(path.join(work, 'notes.txt'), 'edited\n')
      const refused = await failure(
        f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq }),
      )
      expect(refused).toMatchObject({ code: 'files-conflict', data: { paths: ['notes.txt'] } })
      const log = await f.api.call('session.get', { sessionId: session.id })
      expect(log.events.some((event) => event.type === 'files/restored')).toBe(false)
      await f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq, force: true })
      expect(fs.readFileSync(path.join(work, 'notes.txt'), 'utf8')).toBe('one\n')
    })

    it('books a file made by hand between turns as changed outside Tangent: a restore refuses to delete it, forced it does, undo brings it back byte for byte', async () => {
      const { repo } = gitProject()
      const mine = path.join(repo, 'mine.txt')
      // Bytes a text round trip would change: CRLF, a lone CR, NUL, invalid UTF-8.
      const precious = Buffer.from([0x6d, 0x79, 0x0d, 0x0a, 0x0d, 0x00, 0xff, 0xfe, 0x0a])
      const session = await f.api.call('session.create', { cwd: repo })
      const first = await turn(session.id, 'write a.txt: agent A')
      fs.writeFileSync(mine, precious) // the person works by hand between turns
      const second = await turn(session.id, 'write c.txt: agent C')

      const log = await f.api.call('session.get', { sessionId: session.id, fromSeq: second.turnStartSeq })
      const snapshots = log.events.filter((event) => event.type === 'snapshot/taken')
      expect(snapshots[0]?.data).toMatchObject({ changed: [], outside: ['mine.txt'] })
      expect(snapshots.flatMap((event) => (event.data as { changed: string[] }).changed)).toEqual(['c.txt'])

      const refused = await failure(
        f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq }),
      )
      expect(refused).toMatchObject({ code: 'files-conflict', data: { paths: ['mine.txt'] } })
      expect(fs.readFileSync(mine)).toEqual(precious)
      expect(fs.existsSync(path.join(repo, 'c.txt'))).toBe(true)

      const forced = await f.api.call('snapshot.restore', {
        sessionId: session.id,
        seq: first.turnEndSeq,
        force: true,
      })
      expect(forced.restored).toEqual(['c.txt', 'mine.txt'])
      expect(fs.existsSync(mine)).toBe(false)
      const undone = await f.api.call('snapshot.undoRestore', { sessionId: session.id })
      expect(undone.restored).toEqual(['c.txt', 'mine.txt'])
      expect(fs.readFileSync(mine)).toEqual(precious)
    })

    it('two sessions in one folder: each sees the other’s files as changed outside, and a restore never deletes them unforced', async () => {
      const work = tempDir('tangent-work-')
      const a = await f.api.call('session.create', { cwd: work })
      const b = await f.api.call('session.create', { cwd: work })
      const first = await turn(a.id, 'write a.txt: from A')
      await turn(b.id, 'write b.txt: from B')
      await turn(a.id, 'write a2.txt: from A again')
      const log = await f.api.call('session.get', { sessionId: a.id, fromSeq: first.turnEndSeq + 1 })
      expect(
        log.events.filter((event) => event.type === 'snapshot/taken').map((event) => event.data),
      ).toMatchObject([{ changed: [], outside: ['b.txt'] }, { changed: ['a2.txt'] }])
      const refused = await failure(
        f.api.call('snapshot.restore', { sessionId: a.id, seq: first.turnEndSeq }),
      )
      expect(refused).toMatchObject({ code: 'files-conflict', data: { paths: ['b.txt'] } })
      expect(fs.readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('from B\n')
      expect(fs.existsSync(path.join(work, 'a2.txt'))).toBe(true)
    })
  })

  describe('serialised file changes', () => {
    it('a restore and a prompt of one session sent together: the first wins, the other is session-busy', async () => {
      const work = tempDir('tangent-work-')
      const session = await f.api.call('session.create', { cwd: work })
      const first = await turn(session.id, 'write q.txt: one')
      await turn(session.id, 'write q.txt: two')
      const [restored, prompted] = await Promise.allSettled([
        f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq, force: true }),
        turn(session.id, 'write q.txt: three'),
      ])
      expect(restored.status).toBe('fulfilled')
      expect(prompted.status).toBe('rejected')
      expect(prompted.status === 'rejected' && TangentError.hasCode(prompted.reason, 'session-busy')).toBe(
        true,
      )
      // The files match the log: the restore is the last thing that wrote q.txt.
      expect(fs.readFileSync(path.join(work, 'q.txt'), 'utf8')).toBe('one\n')
      const log = await f.api.call('session.get', { sessionId: session.id })
      expect(log.events.at(-1)?.type).toBe('files/restored')
      // The other order: the turn first, then the restore is refused until it ends.
      const running = turn(session.id, `write q.txt: ${'four '.repeat(40)}`)
      const refused = await failure(
        f.api.call('snapshot.restore', { sessionId: session.id, seq: first.turnEndSeq }),
      )
      expect(refused.code).toBe('session-busy')
      expect((await running).reason).toBe('completed')
    })

    it('refuses a restore while another session runs a turn in the same directory, and a turn there while a restore runs', async () => {
      const work = tempDir('tangent-work-')
      const a = await f.api.call('session.create', { cwd: work })
      const first = await turn(a.id, 'write shared.txt: from a')
      await turn(a.id, 'write shared.txt: again')
      const b = await f.api.call('session.create', { cwd: work })
      const running = turn(b.id, longPrompt)
      await waitFor(
        async () => (await f.api.call('session.get', { sessionId: b.id })).session.status === 'running',
      )
      const refused = await failure(
        f.api.call('snapshot.restore', { sessionId: a.id, seq: first.turnEndSeq }),
      )
      expect(refused).toMatchObject({ code: 'session-busy', data: { sessionId: a.id, otherSessionId: b.id } })
      await f.api.call('session.abort', { sessionId: b.id })
      await running
      const [restored, prompted] = await Promise.allSettled([
        f.api.call('snapshot.restore', { sessionId: a.id, seq: first.turnEndSeq, force: true }),
        turn(b.id, 'write shared.txt: from b'),
      ])
      expect(restored.status).toBe('fulfilled')
      expect(prompted.status === 'rejected' && TangentError.hasCode(prompted.reason, 'session-busy')).toBe(
        true,
      )
      expect(fs.readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('from a\n')
    })

    it('deleting a worktree session keeps the worktree while its shared forks work in it, and says which', async () => {
      const work = tempDir('tangent-work-')
      const root = await f.api.call('session.create', { cwd: work })
      await turn(root.id, 'write a.txt: root')
      const w = await f.api.call('session.fork', { sessionId: root.id, files: 'worktree' })
      await turn(w.session.id, 'write b.txt: in the worktree')
      const c = await f.api.call('session.fork', { sessionId: w.session.id })
      expect(c.session.cwd).toBe(w.session.cwd)
      const deleted = await f.api.call('session.delete', { sessionId: w.session.id, worktree: 'force' })
      expect(deleted.worktree).toMatchObject({ path: w.session.cwd, removed: false })
      expect(deleted.worktree?.reason).toContain(c.session.id)
      expect(fs.existsSync(path.join(w.session.cwd, 'b.txt'))).toBe(true)
      // The fork still works there.
      expect((await turn(c.session.id, 'read b.txt')).reason).toBe('completed')
    })

    it('refuses to delete a session whose worktree has uncommitted changes before deleting anything; keep or force delete it', async () => {
      const work = tempDir('tangent-work-')
      const root = await f.api.call('session.create', { cwd: work })
      await turn(root.id, 'write a.txt: root')
      const w = await f.api.call('session.fork', { sessionId: root.id, files: 'worktree' })
      await turn(w.session.id, 'write w.txt: only here')
      const refused = await failure(f.api.call('session.delete', { sessionId: w.session.id }))
      expect(refused.code).toBe('worktree-dirty')
      expect(refused.data).toMatchObject({ sessionId: w.session.id, path: w.session.cwd, paths: ['w.txt'] })
      // Nothing was deleted: the advice (force) works on the session that is still there.
      expect((await f.api.call('session.get', { sessionId: w.session.id })).session.id).toBe(w.session.id)
      expect(fs.readFileSync(path.join(w.session.cwd, 'w.txt'), 'utf8')).toBe('only here\n')
      const forced = await f.api.call('session.delete', { sessionId: w.session.id, worktree: 'force' })
      expect(forced.worktree).toEqual({ path: w.session.cwd, removed: true })
      expect(fs.existsSync(w.session.cwd)).toBe(false)
      // A clean worktree goes with the default; `keep` leaves a dirty one, as asked.
      const clean = await f.api.call('session.fork', { sessionId: root.id, files: 'worktree' })
      expect((await f.api.call('session.delete', { sessionId: clean.session.id })).worktree).toEqual({
        path: clean.session.cwd,
        removed: true,
      })
      const kept = await f.api.call('session.fork', { sessionId: root.id, files: 'worktree' })
      fs.writeFileSync(path.join(kept.session.cwd, 'hand.txt'), 'by hand\n')
      // A kept plain copy leaves the private data directory: it goes beside its project.
      const keptAt = `${work}-tangent-${kept.session.id}`
      temps.push(keptAt)
      expect(
        (await f.api.call('session.delete', { sessionId: kept.session.id, worktree: 'keep' })).worktree,
      ).toEqual({
        path: kept.session.cwd,
        removed: false,
        reason: `kept as asked: moved out of Tangent's data directory to ${keptAt}; it is yours now`,
        keptAt,
      })
      expect(fs.readFileSync(path.join(keptAt, 'hand.txt'), 'utf8')).toBe('by hand\n')
      expect(fs.existsSync(kept.session.cwd)).toBe(false)
    })

    it('keeps a worktree as asked: a copy moves where asked, a git worktree stays recorded as kept; a bad destination deletes nothing', async () => {
      const work = tempDir('tangent-work-')
      const root = await f.api.call('session.create', { cwd: work })
      await turn(root.id, 'write a.txt: root')
      const copy = await f.api.call('session.fork', { sessionId: root.id, files: 'worktree' })
      const elsewhere = tempDir('tangent-keep-')
      const taken = await failure(
        f.api.call('session.delete', { sessionId: copy.session.id, worktree: 'keep', keepTo: elsewhere }),
      )
      expect(taken.code).toBe('invalid-params')
      expect(
        (
          await failure(
            f.api.call('session.delete', { sessionId: copy.session.id, keepTo: path.join(elsewhere, 'x') }),
          )
        ).code,
      ).toBe('invalid-params')
      expect((await f.api.call('session.get', { sessionId: copy.session.id })).session.id).toBe(
        copy.session.id,
      )
      const to = path.join(elsewhere, 'mine')
      const moved = await f.api.call('session.delete', {
        sessionId: copy.session.id,
        worktree: 'keep',
        keepTo: to,
      })
      expect(moved.worktree).toMatchObject({ path: copy.session.cwd, removed: false, keptAt: to })
      expect(fs.readFileSync(path.join(to, 'a.txt'), 'utf8')).toBe('root\n')
      expect(fs.existsSync(path.join(f.home, 'worktrees', `${copy.session.id}.json`))).toBe(false)

      const { repo, git } = gitProject()
      const project = await f.api.call('session.create', { cwd: repo })
      await turn(project.id, 'write b.txt: b')
      const branch = await f.api.call('session.fork', { sessionId: project.id, files: 'worktree' })
      await turn(branch.session.id, 'write c.txt: work')
      const kept = await f.api.call('session.delete', { sessionId: branch.session.id, worktree: 'keep' })
      expect(kept.worktree).toMatchObject({
        path: branch.session.cwd,
        removed: false,
        keptAt: branch.session.cwd,
      })
      expect(kept.worktree?.reason).toContain(`git -C ${repo} worktree remove --force ${branch.session.cwd}`)
      expect(git('worktree', 'list')).toContain(branch.session.cwd)
      // Recorded as kept: a start of the Host leaves it alone and says nothing of it.
      const record = JSON.parse(
        fs.readFileSync(path.join(f.home, 'worktrees', `${branch.session.id}.json`), 'utf8'),
      ) as { keptAt?: string }
      expect(record.keptAt).toEqual(expect.any(String))
    })

    it('deletes a session that cannot be loaded (a parent log missing, its own log corrupt), refusing while a fork needs its history', async () => {
      const parent = await f.api.call('session.create', {})
      await turn(parent.id, 'one')
      const child = await f.api.call('session.fork', { sessionId: parent.id })
      await turn(child.session.id, 'two')
      const grandchild = await f.api.call('session.fork', { sessionId: child.session.id })
      const broken = await f.api.call('session.create', {})
      await turn(broken.id, 'three')
      const damage = (options.damage ?? jsonlDamage)(f.home)
      await reopen(async () => {
        await damage.lose(parent.id)
        await damage.corrupt(broken.id, 2)
      })
      // JSONL names the missing parent log; PostgreSQL the gap in the chain's rows.
      expect((await failure(f.api.call('session.get', { sessionId: child.session.id }))).code).toMatch(
        /^(parent-log-missing|corrupt-log)$/,
      )
      expect((await failure(f.api.call('session.get', { sessionId: broken.id }))).code).toBe('corrupt-log')
      // The grandchild reads its history through the child, which cannot be read: refused, naming it.
      const refused = await failure(f.api.call('session.delete', { sessionId: child.session.id }))
      expect(refused.code).toBe('parent-log-missing')
      expect(refused.data.sessionId).toBe(grandchild.session.id)
      expect(JSON.stringify(refused)).toContain(grandchild.session.id)
      expect(await f.api.call('session.delete', { sessionId: grandchild.session.id })).toEqual({
        deleted: true,
        materialized: [],
      })
      expect(await f.api.call('session.delete', { sessionId: child.session.id })).toEqual({
        deleted: true,
        materialized: [],
      })
      expect(await f.api.call('session.delete', { sessionId: broken.id })).toEqual({
        deleted: true,
        materialized: [],
      })
      for (const id of [child.session.id, grandchild.session.id, broken.id])
        expect((await failure(f.api.call('session.get', { sessionId: id }))).code).toBe('session-not-found')
      expect((await f.api.call('session.list', { includeArchived: true })).map((s) => s.id)).toEqual([])
    })
  })

  describe('explore and keep', () => {
    /** Waits until every branch is idle and, when it has a check, has recorded one after its turn. */
    const settledBranches = (ids: string[], withCheck: boolean) =>
      waitFor(async () => {
        const board = await f.api.call('session.board', { sessionIds: ids })
        const done = board.branches.every(
          (branch) =>
            branch.session.status === 'idle' && branch.turns === 1 && (!withCheck || branch.check !== null),
        )
        return done ? board : false
      }, 60_000)

    it('explores three ways from one turn in worktrees, runs the check after each, compares and keeps one', async () => {
      const parent = await f.api.call('session.create', { title: 'Auth' })
      await turn(parent.id, 'write base.txt: base')
      const explored = await f.api.call('session.explore', {
        sessionId: parent.id,
        branches: [
          { prompt: 'write a.txt: from A' },
          { prompt: 'write b.txt: from B' },
          { prompt: 'write c.txt: from C' },
        ],
        check: 'test -f b.txt && echo checked',
        requestId: 'try-3',
      })
      expect(explored.sessions.map((session) => session.exploration)).toEqual(
        ['A', 'B', 'C'].map((label) => ({ id: explored.exploration, label })),
      )
      expect(explored.sessions.map((session) => session.files.mode)).toEqual([
        'worktree',
        'worktree',
        'worktree',
      ])
      expect(explored.sessions.map((session) => session.title)).toEqual([
        '…a.txt: from A',
        '…b.txt: from B',
        '…c.txt: from C',
      ])
      // The same requestId: the same exploration, no new branches.
      const again = await f.api.call('session.explore', {
        sessionId: parent.id,
        branches: [
          { prompt: 'write a.txt: from A' },
          { prompt: 'write b.txt: from B' },
          { prompt: 'write c.txt: from C' },
        ],
        check: 'test -f b.txt && echo checked',
        requestId: 'try-3',
      })
      expect(again.exploration).toBe(explored.exploration)
      expect(again.sessions.map((session) => session.id)).toEqual(
        explored.sessions.map((session) => session.id),
      )
      const ids = explored.sessions.map((session) => session.id)
      const board = await settledBranches(ids, true)
      expect(board.ancestor).toBe(parent.id)
      expect(
        board.branches.map((branch) => branch.files.map((file) => [file.path, file.status, file.added])),
      ).toEqual([[['a.txt', 'added', 1]], [['b.txt', 'added', 1]], [['c.txt', 'added', 1]]])
      expect(board.branches.map((branch) => [branch.check!.ok, branch.check!.exitCode])).toEqual([
        [false, 1],
        [true, 0],
        [false, 1],
      ])
      expect(board.branches[1]!.check!.output).toBe('checked\n')
      // The check is history in the branch's log.
      const { events: bEvents } = await f.api.call('session.get', { sessionId: ids[1]! })
      expect(bEvents.at(-1)!.type).toBe('check/ran')
      const across = await f.api.call('session.fileAcross', { sessionIds: ids, path: 'b.txt' })
      expect(across.base.content).toBeNull()
      expect(across.versions.map((version) => version.content)).toEqual([null, 'from B\n', null])

      // The parent's own files moved on meanwhile (another file): keeping B merges cleanly.
      fs.writeFileSync(path.join(start, 'notes.txt'), 'mine\n')
      const kept = await f.api.call('session.keep', { sessionId: ids[1]! })
      expect(kept.files).toEqual({ mode: 'worktree', applied: ['b.txt'], restoreSeq: expect.any(Number) })
      expect(kept.archived.sort()).toEqual([ids[0]!, ids[2]!].sort())
      expect(
        kept.worktrees.map((worktree) => [worktree.sessionId, worktree.removed, worktree.reason]),
      ).toEqual([
        [ids[0], true, undefined],
        [ids[2], true, undefined],
      ])
      for (const worktree of kept.worktrees) expect(fs.existsSync(worktree.path)).toBe(false)
      expect(fs.readFileSync(path.join(start, 'b.txt'), 'utf8')).toBe('from B\n')
      expect(fs.existsSync(path.join(start, 'a.txt'))).toBe(false)
      expect(fs.readFileSync(path.join(start, 'notes.txt'), 'utf8')).toBe('mine\n')
      const listed = (await f.api.call('session.list', {})).map((session) => session.id)
      expect(listed).toContain(ids[1])
      expect(listed).not.toContain(ids[0])
      // The parent's log says which branch was kept; its next turn's model hears the summary.
      const { events } = await f.api.call('session.get', { sessionId: parent.id })
      const keptEvent = events.find((event) => event.seq === kept.seq)!
      expect(keptEvent.type).toBe('branch/kept')
      expect(keptEvent.data).toMatchObject({
        sessionId: ids[1],
        label: 'B',
        applied: ['b.txt'],
        files: 'worktree',
      })
      // The note travels beside the user's words, not in them: the next command is acted on.
      await turn(parent.id, 'write after-keep.txt: acted on')
      expect(fs.readFileSync(path.join(start, 'after-keep.txt'), 'utf8')).toBe('acted on\n')
      const { events: after } = await f.api.call('session.get', { sessionId: parent.id })
      const reply = JSON.stringify(after.filter((event) => event.type === 'assistant/message').at(-1)!.data)
      expect(reply).toContain('was kept')
      // Undo through the restore undo: b.txt goes, the parent's own file stays.
      await f.api.call('snapshot.undoRestore', { sessionId: parent.id, seq: kept.files.restoreSeq! })
      expect(fs.existsSync(path.join(start, 'b.txt'))).toBe(false)
      expect(fs.readFileSync(path.join(start, 'notes.txt'), 'utf8')).toBe('mine\n')
    }, 120_000)

    it('names the files its worktree branches could not be given', async () => {
      const work = tempDir('tangent-work-')
      execFileSync('mkfifo', [path.join(work, 'pipe')])
      const session = await f.api.call('session.create', { cwd: work })
      await turn(session.id, 'write a.txt: a')
      const explored = await f.api.call('session.explore', {
        sessionId: session.id,
        branches: [{ prompt: 'one' }, { prompt: 'two' }],
      })
      expect(explored.leftOut).toEqual(['pipe'])
      for (const branch of explored.sessions)
        await waitFor(
          async () => (await f.api.call('session.get', { sessionId: branch.id })).session.status === 'idle',
        )
    })

    it('refuses an exploration with a model no provider has before forking any branch', async () => {
      const parent = await f.api.call('session.create', {})
      await turn(parent.id, 'hello')
      const refused = await failure(
        f.api.call('session.explore', {
          sessionId: parent.id,
          branches: [{ prompt: 'a' }, { prompt: 'b', model: 'demo:nonexistent' }],
        }),
      )
      expect([refused.code, refused.data.model]).toEqual(['invalid-model', 'demo:nonexistent'])
      const listed = await f.api.call('session.list', { includeArchived: true })
      expect(listed.map((session) => session.id)).toEqual([parent.id])
    })

    it('refuses to keep a branch whose lines the parent changed since the fork, listing the file and writing nothing', async () => {
      const parent = await f.api.call('session.create', {})
      await turn(parent.id, 'write story.txt: once upon a time')
      const explored = await f.api.call('session.explore', {
        sessionId: parent.id,
        branches: [{ prompt: 'write story.txt: a branch ending' }],
      })
      await settledBranches([explored.sessions[0]!.id], false)
      await turn(parent.id, 'write story.txt: the parent ending')
      const before = fs.readFileSync(path.join(start, 'story.txt'), 'utf8')
      const refused = await failure(f.api.call('session.keep', { sessionId: explored.sessions[0]!.id }))
      expect(refused.code).toBe('files-conflict')
      expect(refused.data.paths).toEqual(['story.txt'])
      expect(fs.readFileSync(path.join(start, 'story.txt'), 'utf8')).toBe(before)
      const { events } = await f.api.call('session.get', { sessionId: parent.id })
      expect(events.some((event) => event.type === 'branch/kept')).toBe(false)
      // A shared-directory branch: keeping it is the conversation only, and says so.
      const shared = await f.api.call('session.fork', { sessionId: parent.id })
      const keptShared = await f.api.call('session.keep', { sessionId: shared.session.id })
      expect(keptShared.files).toEqual({ mode: 'shared', applied: [] })
      const note = (await f.api.call('session.get', { sessionId: parent.id })).events.at(-1)!
      expect(String((note.data as { summary: string }).summary)).toContain('worked in this same directory')
    })

    it('removes the worktree of a sibling that changed no file (no snapshot of its own), keeps one with a hand edit, in a folder and in a git project', async () => {
      const { repo, git } = gitProject()
      for (const cwd of [tempDir('tangent-work-'), repo]) {
        const parent = await f.api.call('session.create', { cwd })
        await turn(parent.id, 'write f.txt: base')
        const explored = await f.api.call('session.explore', {
          sessionId: parent.id,
          branches: [{ prompt: 'hello one' }, { prompt: 'hello two' }, { prompt: 'hello three' }],
        })
        const ids = explored.sessions.map((session) => session.id)
        await settledBranches(ids, false)
        const [, untouched, edited] = explored.sessions
        fs.writeFileSync(path.join(edited!.cwd, 'f.txt'), 'by hand\n')
        const kept = await f.api.call('session.keep', { sessionId: ids[0]! })
        expect(kept.worktrees.map((worktree) => [worktree.sessionId, worktree.removed])).toEqual([
          [untouched!.id, true],
          [edited!.id, false],
        ])
        expect(kept.worktrees[0]!.reason).toBeUndefined()
        expect(kept.worktrees[1]!.reason).toContain('f.txt')
        expect(fs.existsSync(untouched!.cwd)).toBe(false)
        expect(fs.readFileSync(path.join(edited!.cwd, 'f.txt'), 'utf8')).toBe('by hand\n')
        if (cwd === repo) {
          expect(git('branch', '--list', `tangent/${untouched!.id}`)).toBe('')
          expect(git('branch', '--list', `tangent/${edited!.id}`)).toContain(edited!.id)
        }
      }
    })

    it('refuses to keep a branch again with nothing new since (already-kept); once it works on, it may be kept again', async () => {
      const parent = await f.api.call('session.create', { cwd: tempDir('tangent-work-') })
      await turn(parent.id, 'write f.txt: base')
      const explored = await f.api.call('session.explore', {
        sessionId: parent.id,
        branches: [{ prompt: 'write g.txt: one' }, { prompt: 'write g.txt: two' }],
      })
      const ids = explored.sessions.map((session) => session.id)
      await settledBranches(ids, false)
      await f.api.call('session.keep', { sessionId: ids[0]!, archiveOthers: false })
      const keptEvents = async () =>
        (await f.api.call('session.get', { sessionId: parent.id })).events.filter(
          (event) => event.type === 'branch/kept',
        )
      const first = (await keptEvents()).at(-1)!
      const again = await failure(f.api.call('session.keep', { sessionId: ids[0]!, archiveOthers: false }))
      expect(again).toEqual({ code: 'already-kept', data: { sessionId: ids[0], seq: first.seq } })
      expect(await keptEvents()).toHaveLength(1)
      await turn(ids[0]!, 'write h.txt: more')
      await f.api.call('session.keep', { sessionId: ids[0]!, archiveOthers: false })
      expect(await keptEvents()).toHaveLength(2)
    })

    it('undoing a keep makes the branch keepable again, and the parent’s next turn is told the keep was undone', async () => {
      const parent = await f.api.call('session.create', { cwd: tempDir('tangent-work-') })
      const g = path.join((await f.api.call('session.get', { sessionId: parent.id })).session.cwd, 'g.txt')
      await turn(parent.id, 'write f.txt: base')
      const explored = await f.api.call('session.explore', {
        sessionId: parent.id,
        branches: [{ prompt: 'write g.txt: one' }, { prompt: 'write g.txt: two' }],
      })
      const ids = explored.sessions.map((session) => session.id)
      await settledBranches(ids, false)
      const lastAnswer = async () => {
        const events = (await f.api.call('session.get', { sessionId: parent.id })).events
        const answer = events.findLast((event) => event.type === 'assistant/message')!
        return (answer.data as { content: { type: string; text?: string }[] }).content
          .map((part) => part.text ?? '')
          .join('')
      }

      const kept = await f.api.call('session.keep', { sessionId: ids[0]!, archiveOthers: false })
      expect(kept.files.restoreSeq).toBeTypeOf('number')
      expect(fs.readFileSync(g, 'utf8')).toBe('one\n')
      const undone = await f.api.call('snapshot.undoRestore', { sessionId: parent.id })
      expect(undone.restored).toEqual(['g.txt'])
      expect(fs.existsSync(g)).toBe(false)
      // Kept and undone before the parent's model heard of it: it hears of the undo, not the keep.
      await turn(parent.id, 'what now?')
      const told = await lastAnswer()
      expect(told).toMatch(/Noted: \[Tangent: branch [^\n]*\(.+\) was kept, then the keep was undone\.\]/)
      expect(told).not.toMatch(/was kept\.\]/)

      // The branch has nothing new, but its keep was undone: it may be kept again.
      const again = await f.api.call('session.keep', { sessionId: ids[0]!, archiveOthers: false })
      expect(again.files.applied).toEqual(['g.txt'])
      expect(fs.readFileSync(g, 'utf8')).toBe('one\n')
      expect(
        (await failure(f.api.call('session.keep', { sessionId: ids[0]!, archiveOthers: false }))).code,
      ).toBe('already-kept')
      await turn(parent.id, 'and now?')
      expect(await lastAnswer()).toMatch(/Noted: \[Tangent: branch [^\n]*was kept\.\]/)
      // Undone after the model read of the keep: the next turn is told of the undo on its own.
      await f.api.call('snapshot.undoRestore', { sessionId: parent.id })
      await turn(parent.id, 'and then?')
      expect(await lastAnswer()).toMatch(/Noted: \[Tangent: the keep of branch [^\n]*was undone\.\]/)
    })
  })

  describe('subagents', () => {
    type ToolResult = { callId: string; toolName: string; output: string; isError: boolean }
    const toolResults = async (sessionId: string) =>
      (await f.api.call('session.get', { sessionId })).events
        .filter((event) => event.type === 'tool/result')
        .map((event) => event.data as ToolResult)
    const childrenOf = async (sessionId: string) =>
      (await f.api.call('session.list', {})).filter((summary) => summary.parentSession === sessionId)
    const lastText = (events: { type: string; data: unknown }[]) => {
      const message = events.findLast((event) => event.type === 'assistant/message')
      const data = message?.data as { content: { type: string; text?: string }[] } | undefined
      return (data?.content ?? []).map((part) => part.text ?? '').join('')
    }

    it('a turn delegates two subtasks to subagent forks trimmed to its last completed turn; their answers are its tool results', async () => {
      const session = await f.api.call('session.create', {})
      const first = await turn(session.id, 'hello')
      const result = await turn(session.id, 'task: count the forks\ntask: name the branches')
      expect(result.reason).toBe('completed')
      const children = await childrenOf(session.id)
      expect(children).toHaveLength(2)
      const results = await toolResults(session.id)
      expect(results.map((r) => [r.toolName, r.isError])).toEqual([
        ['task', false],
        ['task', false],
      ])
      for (const [index, prompt] of ['count the forks', 'name the branches'].entries()) {
        const callId = results[index]!.callId
        const child = children.find((summary) => summary.subagentOf?.callId === callId)!
        // Trimmed to the parent's last completed turn: the delegating turn is not in its prefix.
        expect(child).toMatchObject({
          origin: 'subagent',
          forkedAt: first.turnEndSeq,
          subagentOf: { depth: 1 },
        })
        expect(child.forkedAt).toBe(result.turnStartSeq - 1)
        expect(child.inheritedEventCount).toBe(first.turnEndSeq + 1)
        const { events } = await f.api.call('session.get', { sessionId: child.id })
        // Its own turn answers its prompt (the demo counts the parent's first turn: this is turn 2).
        const own = events.slice(child.inheritedEventCount)
        expect(own.find((event) => event.type === 'user/message')?.data).toEqual({
          content: [{ type: 'text', text: prompt }],
        })
        expect(own.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
        const answer = lastText(own)
        expect(answer).toBe(`Turn 2: you said "${prompt}".`)
        expect(results[index]!.output).toBe(`Subagent session ${child.id} answered:\n${answer}`)
      }
      // They ran in parallel: each child's turn started before the other's ended.
      const spans = await Promise.all(
        children.map(async (child) => {
          const own = (await f.api.call('session.get', { sessionId: child.id })).events
          return [own.find((e) => e.type === 'turn/start')!.time, own.at(-1)!.time] as const
        }),
      )
      expect(spans[0]![0]).toBeLessThan(spans[1]![1])
      expect(spans[1]![0]).toBeLessThan(spans[0]![1])
      // The parent's final answer reports both.
      const parent = await f.api.call('session.get', { sessionId: session.id })
      expect(lastText(parent.events)).toContain('you said "name the branches"')
    })

    it('refuses a subagent beyond the depth limit and past the per-turn limit with a result the model reads', async () => {
      const session = await f.api.call('session.create', {})
      const deep = await turn(session.id, 'task: task: task: too deep')
      expect(deep.reason).toBe('completed')
      const [child] = await childrenOf(session.id)
      const [grandchild] = await childrenOf(child!.id)
      expect(child).toMatchObject({ origin: 'subagent', subagentOf: { depth: 1 } })
      expect(grandchild).toMatchObject({ origin: 'subagent', subagentOf: { depth: 2 } })
      // With no completed turn, the cut is everything before the open turn (the model selection).
      expect(child!.forkedAt).toBe(deep.turnStartSeq - 1)
      expect(await childrenOf(grandchild!.id)).toEqual([])
      const [refused] = await toolResults(grandchild!.id)
      expect(refused).toMatchObject({ toolName: 'task', isError: true })
      expect(refused!.output).toContain('nested 3 deep and the limit is 2')
      // The refusal travels up as each level's answer.
      expect((await toolResults(session.id))[0]!.output).toContain('nested 3 deep')

      const many = await turn(
        session.id,
        Array.from({ length: 5 }, (_, i) => `task: part ${i + 1}`).join('\n'),
      )
      expect(many.reason).toBe('completed')
      const results = (await toolResults(session.id)).slice(1)
      expect(results.filter((r) => !r.isError)).toHaveLength(4)
      expect(results.filter((r) => r.isError).map((r) => r.output)).toEqual([
        expect.stringContaining('already spawned 4 subagents'),
      ])
      expect(await childrenOf(session.id)).toHaveLength(5)
    })

    it('aborting the parent turn aborts its running subagent', async () => {
      const session = await f.api.call('session.create', {})
      const running = turn(session.id, `task: ${longPrompt}`)
      const child = await waitFor(async () => {
        const [found] = await childrenOf(session.id)
        return found?.status === 'running' ? found : false
      })
      expect(await f.api.call('session.abort', { sessionId: session.id })).toEqual({ aborted: true })
      expect((await running).reason).toBe('aborted')
      const childLog = await waitFor(async () => {
        const got = await f.api.call('session.get', { sessionId: child.id })
        return got.session.status === 'idle' ? got : false
      })
      expect(childLog.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
      const [result] = await toolResults(session.id)
      expect(result).toMatchObject({ toolName: 'task', isError: true })
      expect(result!.output).toContain(`Subagent session ${child.id} ended aborted`)
    })
  })

  describe('approvals', () => {
    /** Writes the user config of this runtime (`~/.config/tangent/config.json` of its homeDir). */
    const userConfig = (config: unknown) => {
      const dir = path.join(f.homeDir, '.config', 'tangent')
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config))
    }
    // An MCP server is a process to start first (node on a loaded 2-core machine: seconds).
    const waitingCall = (sessionId: string, count: number, timeoutMs = 10_000) =>
      waitFor(async () => {
        const { events } = await f.api.call('session.get', { sessionId })
        const asked = events.filter((event) => event.type === 'permission/requested')
        return asked.length >= count ? (asked[count - 1]!.data as { callId: string; pattern: string }) : false
      }, timeoutMs)
    const results = async (sessionId: string) =>
      (await f.api.call('session.get', { sessionId })).events
        .filter((event) => event.type === 'tool/result')
        .map((event) => event.data as { output: string; isError: boolean })

    it('an ask pauses the turn until answered; once runs, deny returns a result the model reads, both recorded', async () => {
      userConfig({ permission: { bash: 'ask' } })
      const session = await f.api.call('session.create', {})
      const first = turn(session.id, 'run: echo one > one.txt')
      const asked = await waitingCall(session.id, 1)
      // A redirection to a file is not for a prefix to vouch for: "always" would keep this exact line (§12.1).
      expect(asked.pattern).toBe('exact:echo one > one.txt')
      expect((await f.api.call('session.get', { sessionId: session.id })).session.status).toBe('running')
      expect(fs.existsSync(path.join(start, 'one.txt'))).toBe(false)
      expect(
        await f.api.call('session.answerPermission', {
          sessionId: session.id,
          callId: asked.callId,
          decision: 'once',
        }),
      ).toEqual({ answered: true })
      expect((await first).reason).toBe('completed')
      expect(fs.readFileSync(path.join(start, 'one.txt'), 'utf8')).toBe('one\n')
      // Answering twice, or a call nobody asked about: permission-not-pending.
      const again = await failure(
        f.api.call('session.answerPermission', {
          sessionId: session.id,
          callId: asked.callId,
          decision: 'once',
        }),
      )
      expect(again.code).toBe('permission-not-pending')

      const second = turn(session.id, 'run: echo two > two.txt')
      const denied = await waitingCall(session.id, 2)
      await f.api.call('session.answerPermission', {
        sessionId: session.id,
        callId: denied.callId,
        decision: 'deny',
        reason: 'not now',
      })
      expect((await second).reason).toBe('completed')
      expect(fs.existsSync(path.join(start, 'two.txt'))).toBe(false)
      const last = (await results(session.id)).at(-1)!
      expect(last.isError).toBe(true)
      expect(last.output).toContain('Permission denied by the user')
      expect(last.output).toContain('not now')
      const { events } = await f.api.call('session.get', { sessionId: session.id })
      const answers = events
        .filter((event) => event.type === 'permission/answered')
        .map((event) => event.data)
      expect(answers).toEqual([
        { callId: asked.callId, decision: 'once', by: 'user' },
        { callId: denied.callId, decision: 'deny', reason: 'not now', by: 'user' },
      ])
    })

    it('"always" rules are history: a fork inherits exactly those given before its fork point', async () => {
      userConfig({ permission: { bash: 'ask', write: { '*.md': 'deny' } } })
      const session = await f.api.call('session.create', {})
      const first = turn(session.id, 'run: touch a.txt')
      const asked = await waitingCall(session.id, 1)
      const { events: early } = await f.api.call('session.get', { sessionId: session.id })
      const firstTurnStart = early.find((event) => event.type === 'turn/start')!.seq
      await f.api.call('session.answerPermission', {
        sessionId: session.id,
        callId: asked.callId,
        decision: 'always',
      })
      expect((await first).reason).toBe('completed')
      // The fork point is after the first turn: the child has the `touch` rule.
      const afterRule = await f.api.call('session.fork', { sessionId: session.id })
      // A fork before the first turn has no rule.
      const beforeRule = await f.api.call('session.fork', {
        sessionId: session.id,
        atSeq: firstTurnStart,
        before: true,
      })
      // Same kind again in the parent: runs without asking.
      expect((await turn(session.id, 'run: touch b.txt')).reason).toBe('completed')
      expect(fs.existsSync(path.join(start, 'b.txt'))).toBe(true)
      // A configured deny never asks.
      await turn(session.id, 'write notes.md: hi')
      expect((await results(session.id)).at(-1)!.output).toContain('`write: *.md` is deny')
      expect(fs.existsSync(path.join(start, 'notes.md'))).toBe(false)

      expect((await turn(afterRule.session.id, 'run: touch c.txt')).reason).toBe('completed')
      expect(fs.existsSync(path.join(start, 'c.txt'))).toBe(true)
      const waiting = turn(beforeRule.session.id, 'run: touch d.txt')
      const askedAgain = await waitingCall(beforeRule.session.id, 1)
      expect(fs.existsSync(path.join(start, 'd.txt'))).toBe(false)
      await f.api.call('session.answerPermission', {
        sessionId: beforeRule.session.id,
        callId: askedAgain.callId,
        decision: 'deny',
      })
      expect((await waiting).reason).toBe('completed')
      expect(fs.existsSync(path.join(start, 'd.txt'))).toBe(false)
    })

    it('a project config’s ask and deny always apply, from every folder up; its allow only once the user trusts the project', async () => {
      userConfig({ permission: { bash: 'ask' } })
      fs.mkdirSync(path.join(start, '.tangent'))
      fs.writeFileSync(
        path.join(start, '.tangent', 'config.json'),
        JSON.stringify({ permission: { bash: { touch: 'allow', rm: 'deny' } } }),
      )
      // The session works in a subfolder: the project file above it still binds it.
      const sub = path.join(start, 'pkg')
      fs.mkdirSync(sub)
      const session = await f.api.call('session.create', { cwd: sub })
      const untrusted = turn(session.id, 'run: touch one.txt')
      const asked = await waitingCall(session.id, 1)
      await f.api.call('session.answerPermission', {
        sessionId: session.id,
        callId: asked.callId,
        decision: 'deny',
      })
      expect((await untrusted).reason).toBe('completed')
      expect(fs.existsSync(path.join(sub, 'one.txt'))).toBe(false)

      userConfig({ permission: { bash: 'ask' }, trustProjects: [start] })
      expect((await turn(session.id, 'run: touch two.txt')).reason).toBe('completed')
      expect(fs.existsSync(path.join(sub, 'two.txt'))).toBe(true)
      await turn(session.id, 'run: rm two.txt')
      expect((await results(session.id)).at(-1)!.output).toContain('`bash: rm` is deny')
      expect(fs.existsSync(path.join(sub, 'two.txt'))).toBe(true)
      const { events } = await f.api.call('session.get', { sessionId: session.id })
      expect(events.filter((event) => event.type === 'permission/requested')).toHaveLength(1)
    })

    it('an abort while a call waits ends the turn with the call unrun; an invalid config denies with its path', async () => {
      userConfig({ permission: { bash: 'ask' } })
      const session = await f.api.call('session.create', {})
      const running = turn(session.id, 'run: echo x > x.txt')
      await waitingCall(session.id, 1)
      await f.api.call('session.abort', { sessionId: session.id })
      expect((await running).reason).toBe('aborted')
      expect(fs.existsSync(path.join(start, 'x.txt'))).toBe(false)
      fs.writeFileSync(
        path.join(f.homeDir, '.config', 'tangent', 'config.json'),
        '{"permission": {"bash": "sometimes"}}',
      )
      await turn(session.id, 'run: echo y > y.txt')
      const last = (await results(session.id)).at(-1)!
      expect(last.output).toContain('config.json is not valid')
      expect(fs.existsSync(path.join(start, 'y.txt'))).toBe(false)
    })

    it('an MCP tool of server-everything asks by config, runs once approved, and the log names server and tool', async () => {
      userConfig({
        permission: { 'mcp__everything__*': 'ask' },
        mcp: { servers: { everything: { command: process.execPath, args: [everythingServer, 'stdio'] } } },
      })
      const session = await f.api.call('session.create', {})
      const running = turn(session.id, 'call mcp__everything__echo: {"message": "hello from mcp"}')
      const asked = await waitingCall(session.id, 1, 60_000)
      expect(asked.pattern).toBe('**')
      await f.api.call('session.answerPermission', {
        sessionId: session.id,
        callId: asked.callId,
        decision: 'once',
      })
      expect((await running).reason).toBe('completed')
      const { events } = await f.api.call('session.get', { sessionId: session.id })
      const requested = events.find((event) => event.type === 'permission/requested')!.data
      expect(requested).toMatchObject({
        toolName: 'mcp__everything__echo',
        input: { message: 'hello from mcp' },
      })
      const result = events.find((event) => event.type === 'tool/result')!.data
      expect(result).toMatchObject({
        toolName: 'mcp__everything__echo',
        output: 'Echo: hello from mcp',
        isError: false,
      })
      const reply = events.filter((event) => event.type === 'assistant/message').at(-1)!.data
      expect(JSON.stringify(reply)).toContain('Echo: hello from mcp')
    }, 90_000)
  })

  describe('bad input', () => {
    it('refuses a session directory inside the data directory, and a subscription past the end', async () => {
      const sessionsDir = path.join(f.home, 'sessions')
      fs.mkdirSync(sessionsDir, { recursive: true })
      expect((await failure(f.api.call('session.create', { cwd: sessionsDir }))).code).toBe('invalid-params')
      expect((await failure(f.api.call('session.create', { cwd: f.home }))).code).toBe('invalid-params')
      expect((await failure(f.api.call('workspace.open', { path: f.home }))).code).toBe('invalid-params')
      const session = await f.api.call('session.create', {})
      const length = (await f.api.call('session.get', { sessionId: session.id })).events.length
      const past = await failure(f.api.subscribe(session.id, { fromSeq: length + 5 }, { onEvent: () => {} }))
      expect(past.code).toBe('invalid-params')
      const seen: number[] = []
      const off = await f.api.subscribe(
        session.id,
        { fromSeq: length },
        { onEvent: (event) => seen.push(event.seq) },
      )
      const done = await turn(session.id, 'hi')
      await waitFor(async () => seen.at(-1) === done.turnEndSeq)
      await off()
      expect(seen[0]).toBe(length)
    })
  })

  describe('workspaces', () => {
    it('a session belongs to the workspace whose folder holds its cwd, whenever either was made', async () => {
      const project = tempDir('tangent-project-')
      fs.mkdirSync(path.join(project, 'sub'))
      const early = await f.api.call('session.create', { cwd: path.join(project, 'sub') })
      expect(early.workspaceId).toBeNull()
      const workspace = await f.api.call('workspace.open', { path: project })
      expect((await f.api.call('session.get', { sessionId: early.id })).session.workspaceId).toBe(
        workspace.id,
      )
      expect(
        (await f.api.call('session.list', { workspaceId: workspace.id })).map((item) => item.id),
      ).toEqual([early.id])
      const late = await f.api.call('session.create', { cwd: project })
      expect(late.workspaceId).toBe(workspace.id)
      // A worktree fork lives outside the folder and still belongs to its source's workspace.
      await turn(late.id, 'write a.txt: x')
      const fork = await f.api.call('session.fork', { sessionId: late.id, files: 'worktree' })
      expect(fork.session.workspaceId).toBe(workspace.id)
    })

    it('a worktree fork made before its folder was opened joins the folder’s workspace with its parent, forks of it too', async () => {
      const project = tempDir('tangent-project-')
      const parent = await f.api.call('session.create', { cwd: project })
      await turn(parent.id, 'write a.txt: x')
      const fork = await f.api.call('session.fork', { sessionId: parent.id, files: 'worktree' })
      expect(fork.session.workspaceId).toBeNull()
      await turn(fork.session.id, 'write b.txt: y')
      const grandchild = await f.api.call('session.fork', { sessionId: fork.session.id, files: 'worktree' })
      const shared = await f.api.call('session.fork', { sessionId: fork.session.id })
      const workspace = await f.api.call('workspace.open', { path: project })
      for (const id of [parent.id, fork.session.id, grandchild.session.id, shared.session.id])
        expect((await f.api.call('session.get', { sessionId: id })).session.workspaceId).toBe(workspace.id)
      expect(
        (await f.api.call('session.list', { workspaceId: workspace.id })).map((item) => item.id).sort(),
      ).toEqual([parent.id, fork.session.id, grandchild.session.id, shared.session.id].sort())
      // After a restart too (it is the header that says which folder a fork works for).
      await reopen(async () => {})
      expect(
        (await f.api.call('session.get', { sessionId: grandchild.session.id })).session.workspaceId,
      ).toBe(workspace.id)
    })

    it('opens folders by absolute path, ~ and relative to the start folder; lists the most recent first; browses subfolders', async () => {
      fs.mkdirSync(path.join(start, 'app'))
      fs.mkdirSync(path.join(f.homeDir, 'notes'))
      const app = await f.api.call('workspace.open', { path: 'app' })
      expect(app.path).toBe(path.join(start, 'app'))
      const notes = await f.api.call('workspace.open', { path: '~/notes' })
      expect(notes.path).toBe(path.join(f.homeDir, 'notes'))
      expect((await f.api.call('workspace.list', {})).map((item) => item.id).slice(0, 2)).toEqual([
        notes.id,
        app.id,
      ])
      expect((await failure(f.api.call('workspace.open', { path: 'missing' }))).code).toBe('folder-not-found')
      const listed = await f.api.call('workspace.browse', {})
      expect(listed.path).toBe(start)
      expect(listed.folders.map((folder) => folder.name)).toContain('app')
      const info = await f.api.call('host.info', {})
      expect(info).toMatchObject({ startFolder: start, homeDir: f.homeDir })
      // The bash sandbox extension (docs/architecture.md §12.2): auto by default, never refused then.
      expect(info.sandbox?.mode).toBe('auto')
      expect(['sandboxed', 'unsandboxed']).toContain(info.sandbox?.bash)
    })
  })

  describe('subscriptions', () => {
    it('delivers a backlog from fromSeq and then every live event once, in order', async () => {
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      const seen: number[] = []
      const unsubscribe = await f.api.subscribe(
        session.id,
        { fromSeq: 1 },
        { onEvent: (event) => seen.push(event.seq) },
      )
      const second = await turn(session.id, 'two')
      await waitFor(async () => seen.at(-1) === second.turnEndSeq)
      await unsubscribe()
      expect(seen).toEqual(Array.from({ length: second.turnEndSeq }, (_, index) => index + 1))
    })

    it('takes the next prompt sent the moment turn/end is seen (a client that waits for it is never told session-busy)', async () => {
      const session = await f.api.call('session.create', {})
      let next: Promise<unknown> | null = null
      const unsubscribe = await f.api.subscribe(
        session.id,
        {},
        {
          onEvent: (event) => {
            // The first turn's end: send at once, while its turn/end may still be on its way to disk.
            if (event.type === 'turn/end' && next === null)
              next = turn(session.id, 'two').catch((error) => error)
          },
        },
      )
      const first = await turn(session.id, 'one')
      await waitFor(async () => next !== null)
      const second = await next
      await unsubscribe()
      expect(second).toMatchObject({ reason: 'completed', turnStartSeq: first.turnEndSeq + 1 })
      const log = await f.api.call('session.get', { sessionId: session.id })
      expect(log.events.filter((event) => event.type === 'turn/end')).toHaveLength(2)
      // The second turn's controller is its own: abort still reaches a third turn after both settled.
      const third = turn(session.id, longPrompt)
      await waitFor(
        async () => (await f.api.call('session.get', { sessionId: session.id })).session.status === 'running',
      )
      expect(await f.api.call('session.abort', { sessionId: session.id })).toEqual({ aborted: true })
      expect((await third).reason).toBe('aborted')
    })
  })

  describe('a git project', () => {
    it('a worktree fork of a git project is a git worktree on its own branch', async () => {
      const { repo, git } = gitProject()
      const session = await f.api.call('session.create', { cwd: repo })
      await turn(session.id, 'write b.txt: b')
      const fork = await f.api.call('session.fork', { sessionId: session.id, files: 'worktree' })
      expect(git('branch', '--list', `tangent/${fork.session.id}`)).toContain(`tangent/${fork.session.id}`)
      expect(fs.readFileSync(path.join(fork.session.cwd, 'b.txt'), 'utf8')).toBe('b\n')
    })
  })
}
