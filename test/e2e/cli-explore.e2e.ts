// Explore, compare and keep from the CLI (issue 13): N branches from one turn run in parallel,
// the command returns only once every branch ended and its check was recorded, the board
// compares them, and keep brings one branch's files into the parent (or refuses a conflict).
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { SessionEvent, SessionSummary } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  repoRoot,
  type Sandbox,
  startProcess,
  stopProcess,
  tangent,
  tangentInProcess,
  tangentJson,
} from './cli-harness.js'

interface Explored {
  exploration: string
  sessions: SessionSummary[]
}

/** The log of a session, read after the command that ran it exited. */
async function eventsOf(sandbox: Sandbox, sessionId: string): Promise<SessionEvent[]> {
  return (await tangentJson<{ events: SessionEvent[] }>(sandbox, ['show', sessionId])).events
}

/** The branch's own turn ended, then its check was recorded after that turn/end. */
async function expectEndedWithCheck(sandbox: Sandbox, session: SessionSummary): Promise<void> {
  const own = (await eventsOf(sandbox, session.id)).slice(session.inheritedEventCount)
  const turnEnd = own.find((event) => event.type === 'turn/end')
  expect(turnEnd?.data).toMatchObject({ reason: 'completed' })
  const check = own.find((event) => event.type === 'check/ran')
  expect(check?.data).toMatchObject({ afterSeq: turnEnd!.seq })
}

describe('tangent explore, compare, keep (in-process store)', () => {
  let sandbox: Sandbox
  let parent: string
  let explored: Explored
  const ids = () => explored.sessions.map((session) => session.id)

  beforeAll(async () => {
    sandbox = createSandbox()
    parent = (await tangentJson<{ sessionId: string }>(sandbox, ['run', 'write base.txt: base'])).sessionId
  }, 60_000)
  afterAll(() => removeSandbox(sandbox))

  it('explores three prompts with a check and returns only after every branch ended, exit 0 though checks fail', async () => {
    const result = await tangent(sandbox, [
      'explore',
      parent.slice(0, 8),
      '-p',
      'write a.txt: from A',
      '-p',
      'write b.txt: from B',
      '-p',
      'write c.txt: from C',
      '--check',
      'test -f b.txt && echo checked',
      '--json',
    ])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    explored = JSON.parse(result.stdout) as Explored
    expect(explored.sessions.map((session) => session.exploration)).toEqual(
      ['A', 'B', 'C'].map((label) => ({ id: explored.exploration, label })),
    )
    expect(
      explored.sessions.map((session) => [session.parentSession, session.files.mode, session.status]),
    ).toEqual(Array.from({ length: 3 }, () => [parent, 'worktree', 'idle']))
    // The process has exited: whatever the logs hold now was there when the command returned.
    for (const session of explored.sessions) await expectEndedWithCheck(sandbox, session)
    expect(fs.readFileSync(path.join(explored.sessions[1]!.cwd, 'b.txt'), 'utf8')).toBe('from B\n')
  }, 120_000)

  it('prints a line per branch as it ends, then the table; -n and --models make their shapes', async () => {
    const result = await tangent(sandbox, ['explore', parent, '-p', 'write n.txt: again', '-n', '2'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^exploring \S+ after seq \d+: 2 branches, each in its own worktree$/m)
    expect(result.stdout).toMatch(/^A {2}done · 1 file changed · /m)
    expect(result.stdout).toMatch(/^B {2}done · 1 file changed · /m)
    expect(result.stdout).toMatch(/^ {2}n\.txt +added \+1 −0 +added \+1 −0$/m)
    expect(result.stdout).toMatch(/^keep one with: tangent keep \S+/m)

    const byModel = await tangentJson<Explored>(sandbox, [
      'explore',
      parent,
      '-p',
      'just talking',
      '--models',
      'demo:scripted,demo:scripted',
      '--files',
      'shared',
    ])
    expect(byModel.sessions.map((session) => [session.model?.model, session.files.mode])).toEqual([
      ['scripted', 'shared'],
      ['scripted', 'shared'],
    ])
    for (const session of byModel.sessions) {
      const own = (await eventsOf(sandbox, session.id)).slice(session.inheritedEventCount)
      expect(own.filter((event) => event.type === 'turn/end')).toHaveLength(1)
    }
  }, 120_000)

  it('explores an imported session whose provider Tangent lacks when every branch names a model (--models M,M)', async () => {
    const fixture = path.join(repoRoot, 'test', 'fixtures', 'imports', 'codex', 'compacted.jsonl')
    const imported = await tangentJson<{ sessions: { id: string }[] }>(sandbox, [
      'import',
      fixture,
      '--cwd',
      sandbox.cwd,
      '--json',
    ])
    const id = imported.sessions[0]!.id
    // Its branches would run Codex's provider ("fake", unknown here): refused before forking.
    const own = await tangent(sandbox, ['explore', id, '-p', 'a', '-p', 'b'])
    expect(own.code).toBe(1)
    expect(own.stderr).toMatch(/Unknown provider "fake"/)
    // Each branch with a model of its own: the session's model is not theirs.
    const same = await tangent(sandbox, [
      'explore',
      id,
      '-p',
      'go on',
      '--models',
      'demo:scripted,demo:scripted',
      '--json',
    ])
    expect(same.stderr).toBe('')
    expect(same.code).toBe(0)
    const explored = JSON.parse(same.stdout) as Explored
    expect(explored.sessions.map((session) => session.model)).toEqual([
      { provider: 'demo', model: 'scripted' },
      { provider: 'demo', model: 'scripted' },
    ])
  }, 120_000)

  it('refuses mixes of -p, -n and --models as bad usage before forking anything', async () => {
    const before = (await tangentJson<SessionSummary[]>(sandbox, ['sessions', '--all'])).length
    const cases: [string[], RegExp][] = [
      [['explore', parent], /at least one -p/],
      [['explore', parent, '-p', 'a', '-p', 'b', '-n', '2'], /several -p, or one -p with -n/],
      [['explore', parent, '-p', 'a', '-p', 'b', '--models', 'demo:scripted'], /with --models/],
      [['explore', parent, '-p', 'a', '--models', 'demo:scripted', '-n', '2'], /--models or -n/],
      [['explore', parent, '-p', 'a', '--models', 'scripted'], /provider:model/],
      [['explore', parent, '-p', 'a', '-n', '9'], /1 to 8/],
      [['explore', parent, '-p', 'a', '--files', 'copy'], /--files/],
    ]
    for (const [args, message] of cases) {
      const result = await tangentInProcess(sandbox, args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(/^error\[usage\]: /)
      expect(result.stderr).toMatch(message)
    }
    // A model that cannot run here (no API key) is refused before any branch is made.
    const unavailable = await tangentInProcess(sandbox, [
      'explore',
      parent,
      '-p',
      'a',
      '--models',
      'openai:gpt-4.1',
    ])
    expect(unavailable.code).toBe(1)
    expect(unavailable.stderr).toMatch(/^error\[model-unavailable\]: /)
    expect((await tangentJson<SessionSummary[]>(sandbox, ['sessions', '--all'])).length).toBe(before)
  }, 60_000)

  it('compare A B C prints the board as columns, --json the board with usage', async () => {
    const [a, b, c] = ids()
    const text = await tangentInProcess(sandbox, ['compare', a!, b!, c!])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`Branches of ${parent}`)
    expect(text.stdout).toMatch(/^ +A +B +C$/m)
    expect(text.stdout).toMatch(/^turns +1\/1 completed +1\/1 completed +1\/1 completed$/m)
    expect(text.stdout).toMatch(/^ {2}b\.txt +· +added \+1 −0 +·$/m)
    expect(text.stdout).toMatch(/^check +failed: exit 1 \(.+\) +ok \(.+\) +failed: exit 1 \(.+\)$/m)
    expect(text.stdout).toMatch(/^cost +\$0 +\$0 +\$0$/m)

    const board = await tangentJson<{
      ancestor: string
      branches: {
        session: SessionSummary
        files: { path: string; added: number }[]
        check: { ok: boolean } | null
        usage: { own: { outputTokens: number; cost: number | null } }
      }[]
    }>(sandbox, ['compare', a!, b!, c!])
    expect(board.ancestor).toBe(parent)
    expect(board.branches.map((branch) => branch.files.map((file) => file.path))).toEqual([
      ['a.txt'],
      ['b.txt'],
      ['c.txt'],
    ])
    expect(board.branches.map((branch) => branch.check?.ok)).toEqual([false, true, false])
    expect(board.branches.every((branch) => branch.usage.own.outputTokens > 0)).toBe(true)
    expect((await tangentInProcess(sandbox, ['compare', a!])).code).toBe(2)
    // The two-way diff is unchanged.
    expect((await tangentInProcess(sandbox, ['diff', a!, b!])).stdout).toMatch(/^added b\.txt$/m)
  }, 60_000)

  it("keep B applies B's files to the parent's directory, archives A and C and removes their worktrees", async () => {
    const [a, b, c] = explored.sessions
    const result = await tangent(sandbox, ['keep', b!.id])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`kept ${b!.id} into ${parent}`)
    expect(result.stdout).toMatch(/^ {2}b\.txt$/m)
    expect(result.stdout).toMatch(new RegExp(`^ {2}undo with: tangent restore ${parent} --undo \\d+$`, 'm'))
    expect(result.stdout).toContain(`worktree removed: ${a!.cwd} (${a!.id})`)
    expect(result.stdout).toContain(`worktree removed: ${c!.cwd} (${c!.id})`)
    expect(fs.readFileSync(path.join(sandbox.cwd, 'b.txt'), 'utf8')).toBe('from B\n')
    expect(fs.existsSync(path.join(sandbox.cwd, 'a.txt'))).toBe(false)
    expect(fs.existsSync(a!.cwd)).toBe(false)
    expect(fs.existsSync(c!.cwd)).toBe(false)
    const listed = (await tangentJson<SessionSummary[]>(sandbox, ['sessions', '--all'])).filter((session) =>
      [a!.id, c!.id].includes(session.id),
    )
    expect(listed.map((session) => session.archived)).toEqual([true, true])
  }, 60_000)

  it('keep exits 1 naming the file when the parent changed the same line since the fork, and writes nothing', async () => {
    await tangentJson(sandbox, ['run', '--session', parent, 'write story.txt: once upon a time'])
    const branch = (
      await tangentJson<Explored>(sandbox, ['explore', parent, '-p', 'write story.txt: a branch ending'])
    ).sessions[0]!
    await tangentJson(sandbox, ['run', '--session', parent, 'write story.txt: the parent ending'])
    const before = fs.readFileSync(path.join(sandbox.cwd, 'story.txt'), 'utf8')
    const refused = await tangent(sandbox, ['keep', branch.id])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error\[files-conflict\]: .*story\.txt/)
    expect(refused.stdout).toBe('')
    expect(fs.readFileSync(path.join(sandbox.cwd, 'story.txt'), 'utf8')).toBe(before)
    const events = await eventsOf(sandbox, parent)
    expect(events.filter((event) => event.type === 'branch/kept')).toHaveLength(1)
  }, 60_000)
})

describe('tangent explore with a running Host', () => {
  let sandbox: Sandbox
  let serve: ChildProcess

  beforeAll(async () => {
    sandbox = createSandbox()
    serve = (
      await startProcess(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
        cwd: sandbox.cwd,
        env: sandbox.env,
        ready: /^\{.*"token"/,
      })
    ).child
  }, 60_000)
  afterAll(async () => {
    if (serve) await stopProcess(serve)
    removeSandbox(sandbox)
  })

  it('runs the branches in the Host and waits for them (and their checks) there', async () => {
    const parent = (await tangentJson<{ sessionId: string }>(sandbox, ['run', 'write base.txt: base']))
      .sessionId
    const result = await tangent(sandbox, [
      'explore',
      parent,
      '-p',
      'write x.txt: X',
      '-p',
      'write y.txt: Y',
      '--check',
      'test -f x.txt',
      '--json',
    ])
    expect(result.stderr).not.toMatch(/store-locked/)
    expect(result.code).toBe(0)
    const explored = JSON.parse(result.stdout) as Explored
    expect(explored.sessions.map((session) => session.exploration?.label)).toEqual(['A', 'B'])
    for (const session of explored.sessions) await expectEndedWithCheck(sandbox, session)
    const board = await tangentJson<{ branches: { check: { ok: boolean } }[] }>(sandbox, [
      'compare',
      ...explored.sessions.map((session) => session.id),
    ])
    expect(board.branches.map((branch) => branch.check.ok)).toEqual([true, false])
  }, 120_000)
})
