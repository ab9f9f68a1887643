// @tangent/sdk (issue 32): a program opens a data dir in-process (`Tangent.open`, which serves it
// to other clients as a command does) and a second one reaches it through that real Host over
// JSON-RPC (`Tangent.connect`); a turn iterated either way yields the same log events. Forks, an
// exploration and a keep, a permission answered while iterating, restores, the same error codes
// on both sides — and examples/explore-keep.ts, run as a user runs it, on the demo model.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { readHostDiscovery } from '@tangent/host'
import { type SessionEvent, Tangent, TangentError, type TangentSession } from '@tangent/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repoRoot = path.resolve(import.meta.dirname, '..', '..')
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-sdk-')))
const home = path.join(root, 'home')
const work = path.join(root, 'work')
/** No provider keys, no user config of this machine; the demo model streams with a small delay. */
const env: Record<string, string | undefined> = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  XDG_CONFIG_HOME: path.join(root, 'config'),
  TANGENT_DEMO_DELAY_MS: '3',
}

let local: Tangent
let remote: Tangent
/** The Host the in-process Tangent serves its data dir with (a command's, docs/architecture.md §9). */
let hostUrl: string
let hostToken: string

beforeAll(async () => {
  fs.mkdirSync(home, { mode: 0o700 })
  fs.mkdirSync(work)
  fs.writeFileSync(path.join(work, 'base.txt'), 'base\n')
  local = await Tangent.open({ home, cwd: work, env, log: () => {} })
  const discovery = await readHostDiscovery(home)
  if (!discovery) throw new Error('Tangent.open did not serve its data dir')
  hostUrl = discovery.url
  hostToken = discovery.token
  // As `tangent serve` prints it: the token in the address.
  remote = await Tangent.connect({ url: `${hostUrl}/?token=${hostToken}` })
})

afterAll(async () => {
  await remote?.close()
  await local?.close()
  fs.rmSync(root, { recursive: true, force: true })
})

/** Runs a turn to its end, collecting what its iteration yields; notes whether any came before the end. */
async function iterate(session: TangentSession, text: string) {
  const turn = session.prompt(text)
  let ended = false
  void turn.result.then(() => {
    ended = true
  })
  const events: SessionEvent[] = []
  let firstBeforeEnd: boolean | null = null
  for await (const event of turn) {
    firstBeforeEnd ??= !ended
    events.push(event)
  }
  return { events, result: await turn.result, firstBeforeEnd }
}

const withoutTime = (events: SessionEvent[]) => events.map(({ time: _time, ...rest }) => rest)

async function failure(promise: Promise<unknown>): Promise<TangentError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof TangentError) return error
    throw error
  }
  throw new Error('expected a TangentError')
}

describe('@tangent/sdk in-process and through a Host', () => {
  it('opens the data dir as a command does: in this process, served to others, and through that Host when it serves', async () => {
    expect([local.kind, remote.kind]).toEqual(['local', 'host'])
    const second = await Tangent.open({ home, cwd: work, env, log: () => {} })
    try {
      expect(second.kind).toBe('host')
      const session = await local.create({ title: 'seen by both' })
      expect((await second.list()).map((summary) => summary.id)).toContain(session.id)
      expect((await remote.session(session.id.slice(0, 10))).id).toBe(session.id)
      // A turn through it runs in the process that serves the data dir, and reads back the same.
      const { events, result } = await iterate(await second.session(session.id), 'hi')
      expect([result.reason, events.at(-1)!.seq]).toEqual(['completed', result.turnEndSeq])
      expect(await session.events({ fromSeq: result.turnStartSeq })).toEqual(events)
    } finally {
      await second.close()
    }
  })

  it('yields the same events for the same turn in-process and through the Host: the log slice of the turn, live', async () => {
    const parent = await local.create({ cwd: work, model: 'demo:scripted', title: 'same turn' })
    const first = await iterate(parent, 'hello')
    expect(first.result.reason).toBe('completed')
    // Two forks at the same point, in the same folder: the same turn in each, one per front-end.
    const viaLocal = await parent.fork({ files: 'shared' })
    const viaHost = await (await remote.session(parent.id)).fork({ files: 'shared' })
    const a = await iterate(viaLocal, 'read base.txt')
    const b = await iterate(await remote.session(viaHost.id), 'read base.txt')

    expect(a.events.map((event) => event.type)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/result',
      'snapshot/taken',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(withoutTime(b.events)).toEqual(withoutTime(a.events))
    expect(b.result).toEqual(a.result)
    expect(a.result).toEqual({
      reason: 'completed',
      turnStartSeq: a.events[0]!.seq,
      turnEndSeq: a.events.at(-1)!.seq,
      text: expect.stringContaining('base'),
    })
    // Each is its log's slice exactly (times included): no gap, no duplicate, nothing else.
    for (const [session, seen] of [
      [viaLocal, a],
      [viaHost, b],
    ] as const) {
      const log = await session.events({ fromSeq: seen.result.turnStartSeq })
      expect(seen.events).toEqual(log.filter((event) => event.seq <= seen.result.turnEndSeq))
    }
    // Live: the first event came before the turn ended, on both sides.
    expect([a.firstBeforeEnd, b.firstBeforeEnd]).toEqual([true, true])
    // A turn can be iterated again (from its first event) and needs no iteration for its result.
    const turn = viaLocal.prompt('again')
    const result = await turn.result
    const replayed: string[] = []
    for await (const event of turn) replayed.push(event.type)
    expect([replayed[0], replayed.at(-1), result.text]).toEqual([
      'turn/start',
      'turn/end',
      expect.any(String),
    ])
    expect(result.text).toContain('again')
  })

  it('forks before or at a turn, in a worktree; the child names its parent', async () => {
    const session = await remote.create({ cwd: work, title: 'forks' })
    const one = await iterate(session, 'write one.txt: 1')
    await iterate(session, 'write two.txt: 2')
    const before = await session.fork({ atSeq: one.result.turnEndSeq, before: true })
    const at = await session.fork({ atSeq: one.result.turnEndSeq, files: 'worktree' })
    const [beforeSummary, atSummary] = [await before.summary(), await at.summary()]
    expect([beforeSummary.parentSession, atSummary.parentSession]).toEqual([session.id, session.id])
    expect(atSummary.forkedAt).toBe(one.result.turnEndSeq)
    expect(beforeSummary.forkedAt).toBeLessThan(one.result.turnStartSeq)
    expect(atSummary.files.mode).toBe('worktree')
    // The worktree has the files of the fork point: one.txt, not two.txt.
    expect(fs.existsSync(path.join(atSummary.files.path, 'one.txt'))).toBe(true)
    expect(fs.existsSync(path.join(atSummary.files.path, 'two.txt'))).toBe(false)
    const compared = await session.compare(at)
    expect([compared.ancestor, compared.forkSeq]).toEqual([session.id, one.result.turnEndSeq])
    expect(compared.files.map((file) => [file.path, file.status])).toEqual([['two.txt', 'deleted']])
  })

  it('explores through the Host, waits for the branches and their checks, shows the board and keeps one', async () => {
    const folder = path.join(root, 'explore')
    fs.mkdirSync(folder)
    const session = await remote.create({ cwd: folder, title: 'explore' })
    await iterate(session, 'write answer.txt: draft')
    const exploration = await session.explore({
      branches: [{ prompt: 'write answer.txt: 41' }, { prompt: 'write answer.txt: 42' }],
      check: 'grep -qx 42 answer.txt',
    })
    expect(exploration.branches.map((branch) => branch.id)).toEqual(
      exploration.sessions.map((summary) => summary.id),
    )
    const board = await remote.board(exploration.branches)
    expect(board.ancestor).toBe(session.id)
    expect(board.branches.map((branch) => [branch.completedTurns, branch.check?.ok])).toEqual([
      [1, false],
      [1, true],
    ])
    const kept = await exploration.branches[1]!.keep()
    expect([kept.kept, kept.parent, kept.files.applied]).toEqual([
      exploration.branches[1]!.id,
      session.id,
      ['answer.txt'],
    ])
    expect(kept.archived).toEqual([exploration.branches[0]!.id])
    expect(fs.readFileSync(path.join(folder, 'answer.txt'), 'utf8')).toBe('42\n')
    const after = await local.board(exploration.branches.map((branch) => branch.id))
    expect(after.branches.map((branch) => branch.kept != null)).toEqual([false, true])
  })

  it('answers a permission while iterating the turn, and restores the files of a snapshot', async () => {
    for (const tangent of [local, remote]) {
      const session = await tangent.create({ cwd: work })
      await session.setMode('ask')
      const turn = session.prompt(`write asked-${tangent.kind}.txt: x\nwrite denied-${tangent.kind}.txt: y`)
      const answered: string[] = []
      for await (const event of turn) {
        if (event.type !== 'permission/requested') continue
        const { callId, input } = event.data as { callId: string; input: { path: string } }
        const deny = input.path.startsWith('denied')
        answered.push(input.path)
        await session.answerPermission(
          deny ? { callId, decision: 'deny', reason: 'not that one' } : { callId, decision: 'once' },
        )
      }
      expect((await turn.result).reason).toBe('completed')
      expect(answered).toEqual([`asked-${tangent.kind}.txt`, `denied-${tangent.kind}.txt`])
      expect(fs.existsSync(path.join(work, `asked-${tangent.kind}.txt`))).toBe(true)
      expect(fs.existsSync(path.join(work, `denied-${tangent.kind}.txt`))).toBe(false)
      const denied = (await session.events()).find(
        (event) => event.type === 'tool/result' && (event.data as { isError: boolean }).isError,
      )
      expect(JSON.stringify(denied?.data)).toContain('not that one')
      // Back to before the turn: the written file goes; undone, it is back.
      const [first] = await session.snapshots()
      const restored = await session.restore({ seq: first!.seq })
      expect(restored.restored).toEqual([`asked-${tangent.kind}.txt`])
      expect(fs.existsSync(path.join(work, `asked-${tangent.kind}.txt`))).toBe(false)
      await session.undoRestore()
      expect(fs.existsSync(path.join(work, `asked-${tangent.kind}.txt`))).toBe(true)
    }
  })

  it('fails with the same TangentError codes in-process and through the Host', async () => {
    const sides = []
    for (const tangent of [local, remote]) {
      const session = await tangent.create({ cwd: work })
      const unknown = await failure(tangent.session('01ZZZZZZZZZZZZZZZZZZZZZZZZ'))
      const badFork = await failure(session.fork({ atSeq: -1 }))
      const badModel = await failure(tangent.create({ model: '' }))
      const emptyPrompt = session.prompt('')
      const emptyPromptError = await failure(emptyPrompt.result)
      // The iteration throws the same error (after nothing: the turn never started).
      const iterated: string[] = []
      const iterationError = await failure(
        (async () => {
          for await (const event of emptyPrompt) iterated.push(event.type)
        })(),
      )
      const noBranches = await failure(session.explore({ branches: [] }))
      const pastEnd = await failure(session.fork({ atSeq: 10_000 }))
      sides.push({
        codes: [unknown, badFork, badModel, emptyPromptError, iterationError, noBranches, pastEnd].map(
          (error) => error.code,
        ),
        iterated,
        issues: [badFork.data.issues, emptyPromptError.data.issues],
        messages: [badFork.message, emptyPromptError.message],
      })
    }
    expect(sides[0]!.codes).toEqual([
      'session-not-found',
      'invalid-params',
      'invalid-params',
      'invalid-params',
      'invalid-params',
      'invalid-params',
      'invalid-boundary',
    ])
    expect(sides[0]!.iterated).toEqual([])
    expect(sides[0]!.messages[0]).toContain('atSeq')
    expect(sides[0]!.messages[1]).toContain('a prompt needs text')
    expect(sides[1]).toEqual(sides[0])
  })

  it('refuses a second turn while one runs with session-busy, from its result and its iteration', async () => {
    const session = await remote.create({ cwd: work })
    const running = session.prompt(`say ${'something long '.repeat(20)}`)
    // The first turn has started once its first event is here.
    await running[Symbol.asyncIterator]().next()
    const second = session.prompt('too soon')
    expect((await failure(second.result)).code).toBe('session-busy')
    const iterated = await failure(
      (async () => {
        for await (const _event of second);
      })(),
    )
    expect(iterated.code).toBe('session-busy')
    expect((await running.result).reason).toBe('completed')
  })

  it('opens the store it is given (TANGENT_STORE of a command), refusing one it cannot use', async () => {
    const elsewhere = path.join(root, 'other-home')
    const refused = await failure(Tangent.open({ home: elsewhere, cwd: work, env, store: 'mysql://db/x' }))
    expect([refused.code, refused.message]).toEqual([
      'invalid-config',
      expect.stringContaining('mysql://db/x'),
    ])
  })

  it('connects only with a token, to a Host that answers', async () => {
    expect((await failure(Tangent.connect({ url: hostUrl }))).code).toBe('invalid-params')
    expect((await failure(Tangent.connect({ url: 'not a url', token: 'x' }))).code).toBe('invalid-params')
    expect((await failure(Tangent.connect({ url: hostUrl, token: 'wrong' }))).code).toBe('host-unreachable')
    const explicit = await Tangent.connect({ url: hostUrl, token: hostToken })
    try {
      expect((await explicit.list()).length).toBeGreaterThan(0)
      expect((await explicit.call('host.info', {})).version).toEqual(expect.any(String))
    } finally {
      await explicit.close()
    }
  })
})

describe('examples/explore-keep.ts', () => {
  it('runs on the demo model: explores three prompts with a check, keeps the one that passed, prints the board', async () => {
    const sandbox = fs.mkdtempSync(path.join(root, 'example-'))
    fs.mkdirSync(path.join(sandbox, 'home'), { mode: 0o700 })
    const { stdout } = await promisify(execFile)(process.execPath, ['examples/explore-keep.ts'], {
      cwd: repoRoot,
      env: {
        ...env,
        TANGENT_HOME: path.join(sandbox, 'home'),
        TANGENT_DEMO_DELAY_MS: '0',
        TMPDIR: sandbox,
      },
      timeout: 60_000,
    })
    const lines = stdout.trim().split('\n')
    expect(lines).toContain('first turn: completed')
    expect(
      lines.filter((line) => /^[ABC] {2}\S{8} {2}/.test(line)).map((line) => line.split(/\s{2}/)),
    ).toEqual([
      ['A', expect.any(String), 'check failed', 'answer.txt +1 -1', 'archived'],
      ['B', expect.any(String), 'check passed', 'answer.txt +1 -1', 'kept'],
      ['C', expect.any(String), 'check failed', 'answer.txt +1 -1', 'archived'],
    ])
    expect(lines.at(-1)).toBe('answer.txt: 42')
  }, 90_000)
})
