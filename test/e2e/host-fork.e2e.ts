// session.fork through the Host (docs/protocol.md, docs/architecture.md §7): idempotent requestId, sessions
// only on disk, forks during a running turn, the child's model, workspace-attach-failed,
// `before`, and worktree forks with real git.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeTempDirs, rpcFailure, startTestHost, type TestHost, tempDir, waitFor } from './host-harness.js'

let t: TestHost
beforeAll(async () => {
  t = await startTestHost({ demoDelayMs: 8 })
})
afterAll(async () => {
  await t.close()
  removeTempDirs()
})

const longPrompt = `Tell me a story about ${'forks and branches '.repeat(8)}`

async function sessionWithTurns(count: number, cwd?: string) {
  const session = await t.call('session.create', cwd !== undefined ? { cwd } : {})
  const turns = []
  for (let i = 1; i <= count; i++)
    turns.push(await t.call('session.prompt', { sessionId: session.id, text: `turn ${i}` }))
  return { session, turns }
}

describe('session.fork', () => {
  it('is idempotent per requestId, also for concurrent calls and across a restart', async () => {
    const { session } = await sessionWithTurns(1)
    const [a, b] = await Promise.all([
      t.call('session.fork', { sessionId: session.id, requestId: 'req-1' }),
      t.call('session.fork', { sessionId: session.id, requestId: 'req-1' }),
    ])
    expect(b.session.id).toBe(a.session.id)
    const again = await t.call('session.fork', { sessionId: session.id, requestId: 'req-1' })
    expect(again).toEqual(a)
    const other = await t.call('session.fork', { sessionId: session.id, requestId: 'req-2' })
    expect(other.session.id).not.toBe(a.session.id)
    await t.restart()
    const afterRestart = await t.call('session.fork', { sessionId: session.id, requestId: 'req-1' })
    expect(afterRestart.session.id).toBe(a.session.id)
    const reused = await rpcFailure(
      t.call('session.fork', { sessionId: other.session.id, requestId: 'req-1' }),
    )
    expect([reused.code, reused.data.code]).toEqual([-32602, 'invalid-params'])
    const children = (await t.call('session.list')).filter((item) => item.parentSession === session.id)
    expect(children.map((child) => child.id).sort()).toEqual([a.session.id, other.session.id].sort())
  })

  it('forks a session that is only on disk, with the boundary at its last completed turn', async () => {
    const { session, turns } = await sessionWithTurns(2)
    await t.restart()
    const fork = await t.call('session.fork', { sessionId: session.id })
    expect(fork.boundary).toBe(turns[1]?.turnEndSeq)
    expect(fork.session).toMatchObject({
      parentSession: session.id,
      forkedAt: fork.boundary,
      inheritedEventCount: fork.boundary + 1,
      origin: 'fork',
      status: 'idle',
    })
    const source = await t.call('session.get', { sessionId: session.id })
    const child = await t.call('session.get', { sessionId: fork.session.id })
    expect(child.events.slice(0, fork.boundary + 1)).toEqual(source.events.slice(0, fork.boundary + 1))
    // Then its own title, so the tree tells the branches apart.
    expect(child.events.slice(fork.boundary + 1)).toMatchObject([
      { type: 'session/title', data: { title: expect.stringMatching(/ · fork 1$/) } },
    ])
    // The child runs on its own.
    const next = await t.call('session.prompt', { sessionId: fork.session.id, text: 'in the branch' })
    expect(next.turnStartSeq).toBe(fork.boundary + 2)
  })

  it('forks a running session at a completed turn without disturbing the running turn', async () => {
    const { session, turns } = await sessionWithTurns(1)
    const running = t.call('session.prompt', { sessionId: session.id, text: longPrompt })
    const during = await waitFor(async () => {
      const got = await t.call('session.get', { sessionId: session.id })
      return (
        got.session.status === 'running' && got.events.some((e) => e.seq > turns[0]!.turnEndSeq + 2) && got
      )
    })
    const latest = await t.call('session.fork', { sessionId: session.id })
    expect(latest.boundary).toBe(turns[0]?.turnEndSeq)
    const atFirst = await t.call('session.fork', { sessionId: session.id, atSeq: turns[0]?.turnStartSeq })
    expect(atFirst.boundary).toBe(turns[0]?.turnEndSeq)
    const inRunning = await rpcFailure(
      t.call('session.fork', { sessionId: session.id, atSeq: during.events.length - 1 }),
    )
    expect(inRunning.data).toMatchObject({ code: 'fork-unavailable', sessionId: session.id })
    const finished = await running
    expect(finished.reason).toBe('completed')
    const source = (await t.call('session.get', { sessionId: session.id })).events
    expect(source.slice(0, during.events.length)).toEqual(during.events)
    expect(source.slice(finished.turnStartSeq).map((event) => event.type)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    const child = (await t.call('session.get', { sessionId: latest.session.id })).events
    expect(child.slice(0, latest.boundary + 1)).toEqual(source.slice(0, latest.boundary + 1))
    expect(child.slice(latest.boundary + 1).map((event) => event.type)).toEqual(['session/title'])
  })

  it('gives the child the source’s latest model selection', async () => {
    const { session, turns } = await sessionWithTurns(2)
    await t.call('session.setModel', {
      sessionId: session.id,
      model: 'demo:scripted',
      reasoningEffort: 'high',
    })
    const fork = await t.call('session.fork', { sessionId: session.id, atSeq: turns[0]?.turnStartSeq })
    expect(fork.boundary).toBe(turns[0]?.turnEndSeq)
    expect(fork.session.model).toEqual({ provider: 'demo', model: 'scripted', reasoningEffort: 'high' })
    const child = await t.call('session.get', { sessionId: fork.session.id })
    expect(child.events.at(-2)).toMatchObject({
      seq: fork.boundary + 1,
      type: 'model/selection',
      data: { provider: 'demo', model: 'scripted', reasoningEffort: 'high' },
    })
  })

  it('with before: true forks just before the turn that holds atSeq', async () => {
    const { session, turns } = await sessionWithTurns(2)
    const userMessageSeq = (turns[1]?.turnStartSeq ?? 0) + 1
    const fork = await t.call('session.fork', { sessionId: session.id, atSeq: userMessageSeq, before: true })
    expect(fork.boundary).toBe((turns[1]?.turnStartSeq ?? 0) - 1)
    const first = await t.call('session.fork', { sessionId: session.id, atSeq: 2, before: true })
    expect(first.session.inheritedEventCount).toBe(first.boundary + 1)
    const child = await t.call('session.get', { sessionId: first.session.id })
    expect(child.events.some((event) => event.type === 'turn/start')).toBe(false)
  })

  it('attaches the child to the source’s workspace, or says workspace-attach-failed with the child’s id', async () => {
    const dir = fs.realpathSync(tempDir('tangent-ws-'))
    const workspace = await t.call('workspace.open', { path: dir })
    const session = await t.call('session.create', { workspaceId: workspace.id })
    await t.call('session.prompt', { sessionId: session.id, text: 'hello' })
    const attached = await t.call('session.fork', { sessionId: session.id })
    expect(attached.session.workspaceId).toBe(workspace.id)

    // The workspace disappears (removed from workspaces.json while the Host was down).
    await t.stop()
    const file = path.join(t.home, 'workspaces.json')
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { workspaces: { id: string }[] }
    stored.workspaces = stored.workspaces.filter((item) => item.id !== workspace.id)
    fs.writeFileSync(file, JSON.stringify(stored))
    await t.restart()

    const failure = await rpcFailure(t.call('session.fork', { sessionId: session.id, requestId: 'attach-1' }))
    expect(failure.code).toBe(-32000)
    expect(failure.data).toMatchObject({ code: 'workspace-attach-failed', workspaceId: workspace.id })
    const childId = String(failure.data.sessionId)
    const child = await t.call('session.get', { sessionId: childId })
    expect(child.session).toMatchObject({ id: childId, parentSession: session.id, workspaceId: null })
    expect((await t.call('session.list')).map((item) => item.id)).toContain(childId)
    // A retry with the same requestId returns that child (now without a workspace), not a second one.
    const retry = await t.call('session.fork', { sessionId: session.id, requestId: 'attach-1' })
    expect(retry.session.id).toBe(childId)
  })
})

describe('closing the Host during a turn', () => {
  it('ends the running turn as interrupted, closes it in the log, and the data dir opens again', async () => {
    const client = await t.connect()
    const session = await client.call('session.create', {})
    const running = client.call('session.prompt', { sessionId: session.id, text: longPrompt })
    await waitFor(
      async () => (await client.call('session.get', { sessionId: session.id })).session.status === 'running',
    )
    const outcome = running.then(
      (result) => result.reason,
      (error: { data?: { code?: string } }) => error.data?.code,
    )
    await t.restart()
    expect(['interrupted', 'connection-closed']).toContain(await outcome)
    const log = await t.call('session.get', { sessionId: session.id })
    expect(log.session.status).toBe('idle')
    expect(log.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
  })
})

describe('session.fork with files: worktree', () => {
  it('gives the child its own directory at the fork point; delete keeps a dirty worktree', async () => {
    const repo = fs.realpathSync(tempDir('tangent-repo-'))
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
        cwd: repo,
      })
    git('init', '-q', '-b', 'main')
    fs.writeFileSync(path.join(repo, 'README.md'), 'hello\n')
    git('add', '.')
    git('commit', '-q', '-m', 'init')

    const session = await t.call('session.create', { cwd: repo })
    await t.call('session.prompt', { sessionId: session.id, text: 'write story.txt: one' })
    const timeline = await t.call('snapshot.list', { sessionId: session.id })
    const fork = await t.call('session.fork', { sessionId: session.id, files: 'worktree' })
    const worktree = fork.session.cwd
    expect(worktree).not.toBe(repo)
    expect(fork.session.files).toEqual({ mode: 'worktree', path: worktree, baseTree: timeline.at(-1)?.tree })
    expect(fs.readFileSync(path.join(worktree, 'story.txt'), 'utf8')).toBe('one\n')

    // The parent changes the file; the child's directory keeps the fork point's content.
    await t.call('session.prompt', { sessionId: session.id, text: 'write story.txt: two' })
    expect(fs.readFileSync(path.join(repo, 'story.txt'), 'utf8')).toBe('two\n')
    expect(fs.readFileSync(path.join(worktree, 'story.txt'), 'utf8')).toBe('one\n')

    // The child works in its worktree; with uncommitted changes the delete is refused, nothing deleted.
    await t.call('session.prompt', { sessionId: fork.session.id, text: 'write branch.txt: mine' })
    expect(fs.existsSync(path.join(worktree, 'branch.txt'))).toBe(true)
    expect(fs.existsSync(path.join(repo, 'branch.txt'))).toBe(false)
    const refused = await rpcFailure(t.call('session.delete', { sessionId: fork.session.id }))
    expect([refused.data.code, refused.data.paths]).toEqual(['worktree-dirty', ['branch.txt']])
    expect(fs.existsSync(path.join(worktree, 'branch.txt'))).toBe(true)
    expect((await t.call('session.get', { sessionId: fork.session.id })).session.id).toBe(fork.session.id)

    // Asked to keep a clean one, the Host keeps it; forced, it removes a dirty one.
    const kept = await t.call('session.fork', { sessionId: session.id, files: 'worktree' })
    const keptAnswer = await t.call('session.delete', { sessionId: kept.session.id, worktree: 'keep' })
    expect(keptAnswer.worktree).toMatchObject({ path: kept.session.cwd, removed: false })
    expect(fs.existsSync(kept.session.cwd)).toBe(true)
    const dirty = await t.call('session.fork', { sessionId: session.id, files: 'worktree' })
    fs.writeFileSync(path.join(dirty.session.cwd, 'scratch.txt'), 'unsaved\n')
    const forced = await t.call('session.delete', { sessionId: dirty.session.id, worktree: 'force' })
    expect(forced.worktree).toMatchObject({ path: dirty.session.cwd, removed: true })
    expect(fs.existsSync(dirty.session.cwd)).toBe(false)

    // A worktree with nothing changed is removed with its session.
    const clean = await t.call('session.fork', { sessionId: session.id, files: 'worktree' })
    const removed = await t.call('session.delete', { sessionId: clean.session.id })
    expect(removed.worktree).toMatchObject({ path: clean.session.cwd, removed: true })
    expect(fs.existsSync(clean.session.cwd)).toBe(false)
  })
})
