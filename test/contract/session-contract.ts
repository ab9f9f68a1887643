// The contract of every session operation (docs/architecture.md §11), written once and run
// against every front-end: the runtime in-process (runtime.contract.ts) and a real Host over
// JSON-RPC on a WebSocket (host.contract.ts). A front-end that grows its own version of an
// operation fails here.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { type SessionGetResult, SessionSummary } from '@tangent/protocol'
import type { Runtime, SessionApi } from '@tangent/runtime'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir as makeTempDir, removeLater, removeTempDirs } from '../temp-dirs.js'
import { runAttachedMcpContract } from './attached-mcp-contract.js'
import { fileSourceContract } from './file-source-contract.js'
import { runHooksContract } from './hooks-contract.js'
import { importContract } from './import-contract.js'
import { importFromContract } from './import-from-contract.js'

export interface ContractFixture {
  api: SessionApi
  /** TANGENT_HOME of the runtime. */
  home: string
  /** The runtime's start folder (cwd of sessions made without one). */
  start: string
  /** Where `~` points for this runtime. */
  homeDir: string
  /**
   * The runtime's importTree behind the front-end (a Host's own runtime): trees come from files a
   * Host or the CLI reads, so no client sends one; what it makes is then used through `api`.
   */
  importTree?: Runtime['importTree']
  /** A second client of the same runtime (another connection to the Host); the test closes it. */
  connect(): Promise<SessionApi>
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
  /**
   * Opens a fresh runtime (demo model, streaming delay `demoDelayMs`) behind the front-end under
   * test, with `env` in its environment: a provider key so a model without image input can be
   * chosen (its server is never contacted).
   */
  open(options: {
    home: string
    start: string
    homeDir: string
    demoDelayMs: number
    /** How long a file source may take to answer a read (RuntimeOptions `fileSourceTimeoutMs`). */
    fileSourceTimeoutMs: number
    env: Record<string, string>
  }): Promise<ContractFixture>
  /** How to damage the storage of `home` (default: JSONL files); opening `home` again reopens it. */
  damage?: (home: string) => StorageDamage
}

/** The contract files' temp dirs, default-named `tangent-contract-…`. */
export function tempDir(prefix = 'tangent-contract-'): string {
  return makeTempDir(prefix)
}
export { removeTempDirs }

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

/** Short, so a silent source costs the suite little; long enough for a loaded machine's answers. */
const fileSourceTimeoutMs = 1500

const longPrompt = `Tell me a story about ${'forks and branches '.repeat(10)}`

declare module 'vitest' {
  interface TaskMeta {
    /** The test acts on a turn while it streams: its demo model pauses before each delta. */
    whileStreaming?: boolean
  }
}

/**
 * The options of a test that acts on a turn while it streams (finds it running, aborts it, forks
 * or restores inside it, sees two turns overlap): its demo model pauses 4 ms before each delta,
 * so a turn lasts long enough to be caught. Every other test streams at once (still delta by
 * delta): those pauses were a third of this suite's time (runtime.contract 229 s → 128 s here).
 */
const whileStreaming = { meta: { whileStreaming: true } }

export function runSessionContract(options: ContractOptions): void {
  let f: ContractFixture
  let start: string
  let opened: Parameters<ContractOptions['open']>[0]

  beforeEach(async ({ task }) => {
    start = tempDir('tangent-start-')
    opened = {
      home: tempDir('tangent-home-'),
      start,
      homeDir: tempDir('tangent-userhome-'),
      demoDelayMs: task.meta.whileStreaming ? 4 : 0,
      fileSourceTimeoutMs,
      env: { DEEPSEEK_API_KEY: 'sk-contract-never-sent', DEEPSEEK_BASE_URL: 'http://127.0.0.1:9/v1' },
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

    it('usage: false pages the same events without usage, from storage too (before any load), and refuses a damaged range as a load does', async () => {
      const parent = SessionSummary.parse(await f.api.call('session.create', {}))
      await turn(parent.id, 'one')
      await turn(parent.id, 'two')
      const fork = await f.api.call('session.fork', { sessionId: parent.id })
      await turn(fork.session.id, 'three')
      const broken = SessionSummary.parse(await f.api.call('session.create', {}))
      await turn(broken.id, 'four')
      await turn(broken.id, 'five')
      const brokenCount = (await f.api.call('session.get', { sessionId: broken.id })).session.eventCount
      const damage = (options.damage ?? jsonlDamage)(f.home)
      // Only on storage now; the damage is inside the tail, not its last event (that would be a torn write).
      await reopen(async () => damage.corrupt(broken.id, brokenCount - 3))
      const pages = (count: number, inherited: number) => [
        { fromSeq: count - 4 },
        { last: 3 },
        { beforeSeq: count - 2, last: 2 },
        { fromSeq: 0 },
        // Across the fork point: the inherited events are in the parent's storage.
        { fromSeq: Math.max(0, inherited - 2) },
        { fromSeq: count },
        { fromSeq: count + 5 },
        { fromSeq: 3, beforeSeq: 1 },
      ]
      // Every lean page first: the sessions are not loaded by any of them (a full get would load).
      const leanPages: { id: string; page: object; lean: SessionGetResult }[] = []
      for (const id of [parent.id, fork.session.id]) {
        const summary = (await f.api.call('session.list', {})).find((entry) => entry.id === id)!
        for (const page of pages(summary.eventCount, summary.inheritedEventCount)) {
          const lean = await f.api.call('session.get', { sessionId: id, ...page, usage: false })
          expect(lean.usage, JSON.stringify(page)).toBeUndefined()
          expect({ ...lean.session, updatedAt: 0 }).toEqual({ ...summary, updatedAt: 0 })
          leanPages.push({ id, page, lean })
          if ('fromSeq' in page && page.fromSeq === summary.eventCount - 4)
            expect(lean.events).toHaveLength(4)
        }
      }
      for (const { id, page, lean } of leanPages) {
        const full = await f.api.call('session.get', { sessionId: id, ...page })
        expect(full.usage).toBeDefined()
        expect(lean.events, `${id} ${JSON.stringify(page)}`).toEqual(full.events)
      }
      // Once loaded, the same answers from the live session.
      for (const { id, page, lean } of leanPages)
        expect((await f.api.call('session.get', { sessionId: id, ...page, usage: false })).events).toEqual(
          lean.events,
        )
      // A range over the damaged line is refused as the load refuses the session.
      expect(
        (
          await failure(
            f.api.call('session.get', { sessionId: broken.id, fromSeq: brokenCount - 5, usage: false }),
          )
        ).code,
      ).toBe('corrupt-log')
      expect((await failure(f.api.call('session.get', { sessionId: broken.id }))).code).toBe('corrupt-log')
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

    it(
      'refuses a second prompt, a rename and a restore while a turn runs (session-busy), and abort ends it',
      whileStreaming,
      async () => {
        const session = await f.api.call('session.create', {})
        const running = turn(session.id, longPrompt)
        await waitFor(
          async () =>
            (await f.api.call('session.get', { sessionId: session.id })).session.status === 'running',
        )
        expect((await failure(turn(session.id, 'again'))).code).toBe('session-busy')
        expect(
          (await failure(f.api.call('session.rename', { sessionId: session.id, title: 'x' }))).code,
        ).toBe('session-busy')
        expect((await failure(f.api.call('snapshot.restore', { sessionId: session.id, seq: 0 }))).code).toBe(
          'session-busy',
        )
        expect((await failure(f.api.call('session.compact', { sessionId: session.id }))).code).toBe(
          'session-busy',
        )
        expect(await f.api.call('session.abort', { sessionId: session.id })).toEqual({ aborted: true })
        expect((await running).reason).toBe('aborted')
        expect(await f.api.call('session.abort', { sessionId: session.id })).toEqual({ aborted: false })
      },
    )

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

  describe('bundles (session.export, session.import)', () => {
    const exportAll = async (sessionId: string, format: 'jsonl' | 'md' | 'html' = 'jsonl', tree = false) => {
      let content = ''
      let cursor: string | undefined
      do {
        const page = await f.api.call('session.export', {
          sessionId,
          format,
          ...(tree ? { tree } : {}),
          ...(cursor ? { cursor } : {}),
        })
        content += page.content
        cursor = page.nextCursor
      } while (cursor !== undefined)
      return content
    }

    it('exports a fork with its ancestor; importing it back is a no-op, and brings back a deleted fork whole', async () => {
      const root = await f.api.call('session.create', { title: 'Root' })
      await turn(root.id, 'first words')
      const fork = (await f.api.call('session.fork', { sessionId: root.id, title: 'Branch' })).session
      await turn(fork.id, 'branch words')
      const bundle = await exportAll(fork.id)
      const kinds = bundle
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { kind?: string; header?: { id: string } })
      expect(kinds.filter((line) => line.kind === 'session').map((line) => line.header!.id)).toEqual([
        root.id,
        fork.id,
      ])
      const again = await f.api.call('session.import', { content: bundle })
      expect(again.sessions.map((item) => [item.id, item.status, item.source])).toEqual([
        [root.id, 'existing', 'tangent'],
        [fork.id, 'existing', 'tangent'],
      ])
      const before = await f.api.call('session.get', { sessionId: fork.id })
      await f.api.call('session.delete', { sessionId: fork.id })
      const back = await f.api.call('session.import', { content: bundle })
      expect(back.sessions.map((item) => item.status)).toEqual(['existing', 'created'])
      expect(back.sessions[1]).toMatchObject({ parentSession: root.id, title: 'Branch' })
      const after = await f.api.call('session.get', { sessionId: fork.id })
      expect(after.events).toEqual(before.events)
      expect(after.session).toMatchObject({ parentSession: root.id, forkedAt: before.session.forkedAt })
      const markdown = await exportAll(fork.id, 'md')
      expect(markdown).toContain('first words')
      expect(markdown).toContain('branch words')
    })

    it('exports HTML: the history alone, or with tree every session of the tree and the links between them', async () => {
      const root = await f.api.call('session.create', { title: 'Root <b>' })
      await turn(root.id, 'first words')
      const fork = (await f.api.call('session.fork', { sessionId: root.id, title: 'Branch' })).session
      await turn(fork.id, 'branch words')
      const other = (await f.api.call('session.fork', { sessionId: root.id, title: 'Other' })).session
      await turn(other.id, 'other words')
      const alone = await exportAll(fork.id, 'html')
      expect(alone).toMatch(/^<!doctype html>/)
      expect(alone).toContain('first words')
      expect(alone).toContain('branch words')
      expect(alone).not.toContain('other words')
      expect(alone).not.toContain('<nav class="tree-nav"')
      const tree = await exportAll(fork.id, 'html', true)
      expect(tree).toContain('<h1>Session tree: Root &lt;b&gt;</h1>')
      for (const id of [root.id, fork.id, other.id])
        expect(tree).toContain(`<section class="session" id="s-${id}"`)
      expect(tree).toContain('other words')
      expect(tree).toContain(`<a href="#s-${fork.id}" aria-current="true">Branch</a>`)
      expect(tree).toContain(`<a href="#s-${root.id}-t1">Root &lt;b&gt;</a>, after turn 1`)
      // Exported from a branch or from the root, the tree is the same sessions.
      const fromRoot = await exportAll(root.id, 'html', true)
      for (const id of [root.id, fork.id, other.id]) expect(fromRoot).toContain(`id="s-${id}"`)
    })

    it('exports a fork as a Claude Code session: its path through the fork, and where Claude Code looks', async () => {
      const root = await f.api.call('session.create', { title: 'Root' })
      await turn(root.id, 'first words')
      const fork = (await f.api.call('session.fork', { sessionId: root.id, title: 'Branch' })).session
      await turn(fork.id, 'branch words')
      await turn(root.id, 'root only words')
      const page = await f.api.call('session.export', { sessionId: fork.id, format: 'claude' })
      expect(page.nextCursor).toBeUndefined()
      const uuid = page.file!.sessionId
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(page.file).toEqual({
        tool: 'claude',
        sessionId: uuid,
        path: `projects/${fork.cwd.replace(/[^a-zA-Z0-9]/g, '-')}/${uuid}.jsonl`,
      })
      const records = page.content
        .trim()
        .split('\n')
        .map(
          (line) => JSON.parse(line) as { type: string; sessionId: string; message?: { content: unknown } },
        )
      expect(records.every((record) => record.sessionId === uuid)).toBe(true)
      const users = records
        .filter((record) => record.type === 'user')
        .map((record) => record.message!.content)
      expect(users).toEqual(['first words', 'branch words'])
      expect(records.filter((record) => record.type === 'assistant')).toHaveLength(2)
      // The same session exports to the same file.
      expect((await f.api.call('session.export', { sessionId: fork.id, format: 'claude' })).content).toBe(
        page.content,
      )
    })

    it('refuses a bundle that contradicts this store, a broken line, and an unknown session', async () => {
      const root = await f.api.call('session.create', {})
      await turn(root.id, 'original')
      const lines = (await exportAll(root.id)).trim().split('\n')
      const index = lines.findIndex((line) => line.includes('"original"'))
      lines[index] = lines[index]!.replace('"original"', '"forged"')
      expect(await failure(f.api.call('session.import', { content: lines.join('\n') }))).toMatchObject({
        code: 'import-conflict',
        data: { sessionId: root.id },
      })
      expect(await failure(f.api.call('session.import', { content: `${lines[0]}\n{oops` }))).toMatchObject({
        code: 'invalid-bundle',
        data: { line: 2 },
      })
      expect((await failure(f.api.call('session.export', { sessionId: 'NOSUCHSESSION' }))).code).toBe(
        'session-not-found',
      )
      expect(
        (await f.api.call('session.get', { sessionId: root.id })).events.some((event) =>
          JSON.stringify(event).includes('forged'),
        ),
      ).toBe(false)
    })

    it('exports a tree as one pi session file: every branch in it, the exported one last; again the same file', async () => {
      const root = await f.api.call('session.create', { title: 'Root' })
      await turn(root.id, 'first words')
      const fork = (await f.api.call('session.fork', { sessionId: root.id, title: 'Branch' })).session
      await turn(root.id, 'root words')
      await turn(fork.id, 'branch words')
      const page = await f.api.call('session.export', { sessionId: fork.id, format: 'pi' })
      expect(page.nextCursor).toBeUndefined()
      expect(page.file).toMatchObject({ tool: 'pi', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) })
      expect(page.file!.path).toMatch(
        new RegExp(`^sessions/--[^/]+--/[^/]+_${page.file!.sessionId}\\.jsonl$`),
      )
      const lines = page.content
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(lines[0]).toMatchObject({ type: 'session', version: 3, id: page.file!.sessionId })
      expect(page.content).toContain('root words')
      expect(JSON.stringify(lines.at(-1))).toContain('branch words')
      const again = await f.api.call('session.export', { sessionId: fork.id, format: 'pi' })
      expect(again).toEqual(page)
    })

    it('exports a fork as a Codex rollout of its whole history, named for Codex; it imports back with the texts', async () => {
      const root = await f.api.call('session.create', { title: 'Root' })
      await turn(root.id, 'first words')
      const fork = (await f.api.call('session.fork', { sessionId: root.id })).session
      await turn(fork.id, 'branch words')
      const page = await f.api.call('session.export', { sessionId: fork.id, format: 'codex' })
      expect(page.nextCursor).toBeUndefined()
      const uuid = page.file!.sessionId
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect(page.file).toEqual({
        tool: 'codex',
        sessionId: uuid,
        path: expect.stringMatching(
          new RegExp(`^sessions/\\d{4}/\\d\\d/\\d\\d/rollout-[0-9T-]+-${uuid}\\.jsonl$`),
        ),
      })
      // The same id and file at every export of the session; another session has its own
      expect((await f.api.call('session.export', { sessionId: fork.id, format: 'codex' })).file).toEqual(
        page.file,
      )
      expect(
        (await f.api.call('session.export', { sessionId: root.id, format: 'codex' })).file!.sessionId,
      ).not.toBe(uuid)
      const records = page.content
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as { type: string; payload: { type?: string; role?: string; id?: string } },
        )
      expect(records[0]).toMatchObject({ type: 'session_meta', payload: { id: uuid } })
      const users = records.filter(
        (record) => record.payload.type === 'message' && record.payload.role === 'user',
      )
      expect(users.map((record) => JSON.stringify(record.payload))).toEqual([
        expect.stringContaining('first words'),
        expect.stringContaining('branch words'),
      ])
      const imported = await f.api.call('session.import', {
        content: page.content,
        fileName: 'rollout.jsonl',
      })
      expect(imported.sessions).toMatchObject([{ source: 'codex', status: 'created' }])
      const texts = async (sessionId: string) =>
        (await f.api.call('session.get', { sessionId })).events
          .filter((event) => event.type === 'user/message' || event.type === 'assistant/message')
          .map((event) => JSON.stringify(event.data))
          .filter((data) => data.includes('"text"'))
      expect(await texts(imported.sessions[0]!.id)).toEqual(await texts(fork.id))
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

    it(
      'refuses an anchor inside a running turn (fork-unavailable), never forking an earlier turn',
      whileStreaming,
      async () => {
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
      },
    )

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
    it(
      'a restore and a prompt of one session sent together: the first wins, the other is session-busy',
      whileStreaming,
      async () => {
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
      },
    )

    it(
      'refuses a restore while another session runs a turn in the same directory, and a turn there while a restore runs',
      whileStreaming,
      async () => {
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
        expect(refused).toMatchObject({
          code: 'session-busy',
          data: { sessionId: a.id, otherSessionId: b.id },
        })
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
      },
    )

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
      removeLater(keptAt)
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

    it(
      'with wait, answers only once every branch turn ended and its check is recorded',
      whileStreaming,
      async () => {
        const parent = await f.api.call('session.create', {})
        await turn(parent.id, 'write base.txt: base')
        const explored = await f.api.call('session.explore', {
          sessionId: parent.id,
          branches: [{ prompt: 'write a.txt: from A' }, { prompt: 'write b.txt: from B' }],
          check: 'test -f b.txt',
          wait: true,
        })
        // Nothing polled: the answer itself comes after the branches' ends.
        expect(explored.sessions.map((session) => session.status)).toEqual(['idle', 'idle'])
        for (const session of explored.sessions) {
          const { events } = await f.api.call('session.get', { sessionId: session.id })
          expect(session.eventCount).toBe(events.length)
          const own = events.slice(session.inheritedEventCount).map((event) => event.type)
          expect([own.includes('turn/end'), own.at(-1)]).toEqual([true, 'check/ran'])
        }
        const board = await f.api.call('session.board', { sessionIds: explored.sessions.map((s) => s.id) })
        expect(board.branches.map((branch) => branch.check?.ok)).toEqual([false, true])
      },
    )

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

    it(
      'a turn delegates two subtasks to subagent forks trimmed to its last completed turn; their answers are its tool results',
      whileStreaming,
      async () => {
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
      },
    )

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

    it('aborting the parent turn aborts its running subagent', whileStreaming, async () => {
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

    it('modes: plan refuses what is not a read, a fork inherits the mode and keeps its own, a bad mode is invalid-params', async () => {
      fs.writeFileSync(path.join(start, 'notes.txt'), 'plan notes\n')
      const session = await f.api.call('session.create', {})
      expect(session.mode).toBe('edit')
      const planned = await f.api.call('session.setMode', { sessionId: session.id, mode: 'plan' })
      expect(planned.mode).toBe('plan')
      // The same again records nothing more.
      const eventCount = planned.eventCount
      expect((await f.api.call('session.setMode', { sessionId: session.id, mode: 'plan' })).eventCount).toBe(
        eventCount,
      )
      expect((await turn(session.id, 'write plan.txt: x\nrun: touch ran.txt\nread notes.txt')).reason).toBe(
        'completed',
      )
      expect(fs.existsSync(path.join(start, 'plan.txt'))).toBe(false)
      expect(fs.existsSync(path.join(start, 'ran.txt'))).toBe(false)
      const [write, bash, read] = await results(session.id)
      for (const refused of [write!, bash!]) {
        expect(refused.isError).toBe(true)
        expect(refused.output).toContain('plan mode')
      }
      expect(read).toMatchObject({ isError: false })
      expect(JSON.stringify(read!.output)).toContain('plan notes')
      const { events: planEvents } = await f.api.call('session.get', { sessionId: session.id })
      expect(planEvents.filter((event) => event.type === 'session/mode').map((event) => event.data)).toEqual([
        { mode: 'plan' },
      ])
      expect(planEvents.some((event) => event.type === 'permission/requested')).toBe(false)

      // A fork inherits the mode; the parent back in edit writes, the fork stays in plan.
      const atPlan = await f.api.call('session.fork', { sessionId: session.id })
      expect(atPlan.session.mode).toBe('plan')
      await f.api.call('session.setMode', { sessionId: session.id, mode: 'edit' })
      expect((await turn(session.id, 'write edited.txt: y')).reason).toBe('completed')
      expect(fs.readFileSync(path.join(start, 'edited.txt'), 'utf8')).toBe('y\n')
      const atEnd = await f.api.call('session.fork', { sessionId: session.id })
      expect(atEnd.session.mode).toBe('edit')
      const listed = await f.api.call('session.list', {})
      expect(listed.find((entry) => entry.id === atPlan.session.id)?.mode).toBe('plan')
      expect(listed.find((entry) => entry.id === session.id)?.mode).toBe('edit')
      expect((await turn(atPlan.session.id, 'write forked.txt: z')).reason).toBe('completed')
      expect(fs.existsSync(path.join(start, 'forked.txt'))).toBe(false)
      expect((await results(atPlan.session.id)).at(-1)!.output).toContain('plan mode')

      // Reopened from storage (the catalog or the database), each still says its mode.
      await reopen(async () => {})
      const again = await f.api.call('session.list', {})
      expect(again.find((entry) => entry.id === atPlan.session.id)?.mode).toBe('plan')
      expect(again.find((entry) => entry.id === atEnd.session.id)?.mode).toBe('edit')
      expect((await f.api.call('session.get', { sessionId: atPlan.session.id })).session.mode).toBe('plan')

      for (const mode of ['yolo', 'PLAN', '', null, 3])
        expect(
          (await failure(f.api.call('session.setMode', { sessionId: session.id, mode } as never))).code,
          String(mode),
        ).toBe('invalid-params')
      expect(
        (await failure(f.api.call('session.setMode', { sessionId: 'no-such-session', mode: 'ask' }))).code,
      ).toBe('session-not-found')
      expect((await f.api.call('session.get', { sessionId: session.id })).session.mode).toBe('edit')
    })

    it('modes: ask makes even the demo model ask before a write; a switch to plan mid-turn refuses the next call; a fork has the mode of its fork point', async () => {
      const session = await f.api.call('session.create', {})
      await f.api.call('session.setMode', { sessionId: session.id, mode: 'ask' })
      // Reads still run unasked.
      fs.writeFileSync(path.join(start, 'r.txt'), 'r\n')
      expect((await turn(session.id, 'read r.txt')).reason).toBe('completed')
      const running = turn(session.id, 'write one.txt: 1\nwrite two.txt: 2')
      const asked = await waitingCall(session.id, 1)
      expect(fs.existsSync(path.join(start, 'one.txt'))).toBe(false)
      // Allowed while the turn runs: counted from the turn's next tool call.
      const switched = await f.api.call('session.setMode', { sessionId: session.id, mode: 'plan' })
      expect(switched).toMatchObject({ mode: 'plan', status: 'running' })
      await f.api.call('session.answerPermission', {
        sessionId: session.id,
        callId: asked.callId,
        decision: 'once',
      })
      expect((await running).reason).toBe('completed')
      expect(fs.readFileSync(path.join(start, 'one.txt'), 'utf8')).toBe('1\n')
      expect(fs.existsSync(path.join(start, 'two.txt'))).toBe(false)
      const last = (await results(session.id)).at(-1)!
      expect(last.isError).toBe(true)
      expect(last.output).toContain('plan mode')
      const { events } = await f.api.call('session.get', { sessionId: session.id })
      expect(events.filter((event) => event.type === 'permission/requested')).toHaveLength(1)
      // The mode of a fork is the one in force at its fork point: ask after the first turn
      // (the switch came inside the second), plan after the second.
      const firstTurnEnd = events.find((event) => event.type === 'turn/end')!.seq
      const afterFirst = await f.api.call('session.fork', { sessionId: session.id, atSeq: firstTurnEnd })
      const afterSecond = await f.api.call('session.fork', { sessionId: session.id })
      expect(afterFirst.session.mode).toBe('ask')
      expect(afterSecond.session.mode).toBe('plan')
      const asking = turn(afterFirst.session.id, 'write three.txt: 3')
      await waitingCall(afterFirst.session.id, 1)
      await f.api.call('session.abort', { sessionId: afterFirst.session.id })
      expect((await asking).reason).toBe('aborted')
      expect(fs.existsSync(path.join(start, 'three.txt'))).toBe(false)
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

  runAttachedMcpContract(() => f)
  runHooksContract(() => f)

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

    it(
      'takes the next prompt sent the moment turn/end is seen (a client that waits for it is never told session-busy)',
      whileStreaming,
      async () => {
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
          async () =>
            (await f.api.call('session.get', { sessionId: session.id })).session.status === 'running',
        )
        expect(await f.api.call('session.abort', { sessionId: session.id })).toEqual({ aborted: true })
        expect((await third).reason).toBe('aborted')
      },
    )
  })

  describe('the list of sessions, followed (onSessionsChanged)', () => {
    it('tells a made, forked, running and deleted session to whoever follows the list', async () => {
      const changes: { kind: string; id: string; status?: string }[] = []
      const off = f.api.onSessionsChanged((change) =>
        changes.push(
          change.kind === 'deleted'
            ? { kind: 'deleted', id: change.sessionId }
            : { kind: change.kind, id: change.session.id, status: change.session.status },
        ),
      )
      try {
        const session = await f.api.call('session.create', { title: 'Followed' })
        await waitFor(async () =>
          changes.some((change) => change.kind === 'created' && change.id === session.id),
        )
        await turn(session.id, 'one')
        // Its turn ran and ended: said as updates, the last one idle.
        await waitFor(async () =>
          changes.some(
            (change) => change.kind === 'updated' && change.id === session.id && change.status === 'running',
          ),
        )
        await waitFor(async () => changes.findLast((change) => change.id === session.id)?.status === 'idle')
        const { session: child } = await f.api.call('session.fork', { sessionId: session.id })
        await waitFor(async () =>
          changes.some((change) => change.kind === 'created' && change.id === child.id),
        )
        await f.api.call('session.delete', { sessionId: child.id })
        await waitFor(async () =>
          changes.some((change) => change.kind === 'deleted' && change.id === child.id),
        )
      } finally {
        off()
      }
      // Unsubscribed: nothing more arrives.
      const count = changes.length
      await f.api.call('session.create', { title: 'Not followed' })
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(changes).toHaveLength(count)
    })
  })

  describe('images', () => {
    // A real 1x1 PNG (70 bytes) and GIF (42 bytes).
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    const gif = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
    /** PNG-headed bytes of `bytes` in all, as base64. */
    const pngOf = (bytes: number) =>
      Buffer.concat([Buffer.from(png, 'base64'), Buffer.alloc(bytes - 70)]).toString('base64')
    const prompt = (sessionId: string, text: string, images: { mediaType: string; data: string }[]) =>
      f.api.call('session.prompt', { sessionId, text, images })
    const lastText = (events: readonly { type: string; data: unknown }[]) =>
      (
        events.findLast((event) => event.type === 'assistant/message')!.data as {
          content: { text?: string }[]
        }
      ).content
        .map((part) => part.text ?? '')
        .join('')

    it('a prompt with images logs them as file parts of its user/message, and the model receives them', async () => {
      const session = await f.api.call('session.create', {})
      // 2 MiB: over the 1 MiB of an ordinary message, which a prompt with images may pass.
      const large = pngOf(2 * 1024 * 1024)
      const result = await prompt(session.id, 'what are these?', [
        { mediaType: 'image/png', data: large },
        { mediaType: 'image/gif', data: gif },
      ])
      expect(result.reason).toBe('completed')
      const { events } = await f.api.call('session.get', { sessionId: session.id })
      expect(events.find((event) => event.type === 'user/message')!.data).toEqual({
        content: [
          { type: 'text', text: 'what are these?' },
          { type: 'file', mediaType: 'image/png', data: large },
          { type: 'file', mediaType: 'image/gif', data: gif },
        ],
      })
      expect(lastText(events)).toBe(
        `Turn 1: you said "what are these?". Received 2 images: image/png (${2 * 1024 * 1024} bytes), image/gif (42 bytes).`,
      )
      // Text may be empty when there are images, and a fork keeps the images of its prefix.
      await prompt(session.id, '', [{ mediaType: 'image/png', data: png }])
      const fork = await f.api.call('session.fork', { sessionId: session.id })
      const child = await f.api.call('session.get', { sessionId: fork.session.id })
      const messages = child.events.filter((event) => event.type === 'user/message')
      expect(messages.at(-1)!.data).toEqual({
        content: [{ type: 'file', mediaType: 'image/png', data: png }],
      })
      expect(lastText(child.events)).toBe('Turn 2: Received 1 image: image/png (70 bytes).')
    })

    it('refuses images to a model that does not take them (images-unsupported); the log is unchanged', async () => {
      // host.info says which models take images, as the prompt decides.
      const listed = (await f.api.call('host.info', {})).models
      expect(listed.find((model) => model.id === 'demo:scripted')?.images).toBe(true)
      expect(listed.find((model) => model.id === 'openai:gpt-4.1')?.images).toBe(true)
      expect(listed.find((model) => model.id === 'deepseek:deepseek-chat')?.images).toBe(false)
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      await f.api.call('session.setModel', { sessionId: session.id, model: 'deepseek:deepseek-chat' })
      const before = await f.api.call('session.get', { sessionId: session.id })
      const refused = await failure(prompt(session.id, 'look', [{ mediaType: 'image/png', data: png }]))
      expect(refused.code).toBe('images-unsupported')
      expect(refused.data).toMatchObject({ model: 'deepseek:deepseek-chat', images: 1 })
      const after = await f.api.call('session.get', { sessionId: session.id })
      expect(after.events).toEqual(before.events)
      expect(after.session.status).toBe('idle')
    })

    it('refuses what is not an image it takes, or too much, with invalid-params; nothing is logged', async () => {
      const session = await f.api.call('session.create', {})
      await turn(session.id, 'one')
      const before = await f.api.call('session.get', { sessionId: session.id })
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString(
        'base64',
      )
      const third = pngOf(2.6 * 1024 * 1024)
      const attacks: [string, { mediaType: string; data: string }[], string][] = [
        ['wrong magic bytes', [{ mediaType: 'image/jpeg', data: png }], 'image/jpeg'],
        ['text named a PNG', [{ mediaType: 'image/png', data: Buffer.from('hello').toString('base64') }], ''],
        ['bad base64', [{ mediaType: 'image/png', data: `${png.slice(0, 20)}!!${png.slice(22)}` }], ''],
        ['a data: URL', [{ mediaType: 'image/png', data: `data:image/png;base64,${png}` }], ''],
        ['SVG', [{ mediaType: 'image/svg+xml', data: svg }], ''],
        ['one image over 3.75 MiB', [{ mediaType: 'image/png', data: pngOf(4 * 1024 * 1024) }], ''],
        ['7.8 MiB together', [third, third, third].map((data) => ({ mediaType: 'image/png', data })), ''],
        ['1000 tiny images', Array.from({ length: 1000 }, () => ({ mediaType: 'image/gif', data: gif })), ''],
        ['an empty image', [{ mediaType: 'image/png', data: '' }], ''],
      ]
      for (const [what, images] of attacks) {
        const refused = await failure(prompt(session.id, 'look', images))
        expect(refused.code, what).toBe('invalid-params')
      }
      // No text and no image is no prompt.
      expect((await failure(prompt(session.id, '', []))).code).toBe('invalid-params')
      expect((await failure(f.api.call('session.prompt', { sessionId: session.id, text: '' }))).code).toBe(
        'invalid-params',
      )
      const after = await f.api.call('session.get', { sessionId: session.id })
      expect(after.events).toEqual(before.events)
      expect(after.session.status).toBe('idle')
      // The session still takes a good prompt.
      expect((await prompt(session.id, 'fine', [{ mediaType: 'image/gif', data: gif }])).reason).toBe(
        'completed',
      )
    })
  })

  fileSourceContract({ fixture: () => f, tempDir, timeoutMs: fileSourceTimeoutMs })

  importContract(() => {
    const importTree = f.importTree
    if (!importTree) throw new Error('this front-end fixture gives no importTree')
    return { api: f.api, importTree }
  }, tempDir)

  importFromContract(() => ({ api: f.api, homeDir: f.homeDir }), tempDir)

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
