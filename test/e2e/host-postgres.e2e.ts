// Two real Hosts on one PostgreSQL database (docs/architecture.md §4, issue "Teams"): a turn
// prompted on A is watched live on B, B forks A's session, a second prompt is session-busy,
// another machine's Host is told where the files are, a Host killed with SIGKILL mid-turn loses
// its claim and the next Host closes the turn interrupted, and PostgreSQL restarted under load
// loses nothing a prompt acknowledged. The server is a throwaway one in a temp dir.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '@tangent/store-postgres/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliMain, createSandbox, removeSandbox, tangent, tangentJsonChild } from './cli-harness.js'
import { rpcFailure, startTestHost, type TestHost, waitFor } from './host-harness.js'

const pgMissing = !postgresAvailable()
if (pgMissing && process.env.CI) throw new Error('CI is set but the PostgreSQL server binaries are missing')

type WireEvent = { seq: number; time: number; type: string; data: unknown }
const seqsOf = (events: readonly WireEvent[]) => events.map((event) => event.seq)
const dense = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe.skipIf(pgMissing)('two Hosts on one PostgreSQL database', () => {
  let server: TestPostgres
  const hosts: TestHost[] = []
  const children: ChildProcess[] = []
  beforeAll(async () => {
    server = await startTestPostgres()
  }, 120_000)
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL')
    for (const host of hosts) await host.close().catch(() => undefined)
    await server?.stop()
  })

  async function host(url: string, machine: string, extra: Record<string, string> = {}): Promise<TestHost> {
    const started = await startTestHost({
      env: { TANGENT_STORE: url, TANGENT_MACHINE: machine, TANGENT_LEASE_MS: '2000', ...extra },
    })
    hosts.push(started)
    return started
  }

  it('prompt on A, watch on B live in seq order, fork on B, busy and elsewhere answers', async () => {
    const url = await server.createDatabase('two_hosts')
    const a = await host(url, 'm1', { TANGENT_DEMO_DELAY_MS: '20' })
    const b = await host(url, 'm1')
    const c = await host(url, 'm2')
    // A session made on A is in B's list (another Host's change, announced).
    const watcher = await b.connect()
    const created: string[] = []
    watcher.onNotification('session.created', (params) => created.push(params.session.id))
    const session = await a.call('session.create', { cwd: a.work, title: 'shared' })
    await waitFor(() => created.includes(session.id), 'B to hear of the new session')
    expect((await b.call('session.list', {})).map((listed) => listed.id)).toContain(session.id)

    // B subscribes; A runs a turn; B sees every event once, in seq order, live.
    const seen: WireEvent[] = []
    watcher.onNotification('session.event', (params) => {
      if (params.sessionId === session.id) seen.push(params.event)
    })
    const before = await b.call('session.get', { sessionId: session.id })
    await watcher.call('session.subscribe', { sessionId: session.id, fromSeq: before.events.length })
    const turn = a.call('session.prompt', { sessionId: session.id, text: 'write a.txt: from A' })
    await waitFor(() => seen.some((event) => event.type === 'turn/start'), 'B to see the turn start')
    // While A's turn runs, B (same machine) may not start another: one writer per session.
    const busy = await rpcFailure(b.call('session.prompt', { sessionId: session.id, text: 'me too' }))
    expect(busy.data).toMatchObject({ code: 'session-busy' })
    // A Host on another machine is told where the files are.
    const elsewhere = await rpcFailure(c.call('session.prompt', { sessionId: session.id, text: 'here?' }))
    expect(elsewhere.data).toMatchObject({ code: 'session-elsewhere', machine: 'm1', cwd: a.work })
    await turn
    await waitFor(() => seen.at(-1)?.type === 'turn/end', 'B to see turn/end')
    expect(seqsOf(seen)).toEqual(dense(before.events.length, seen.at(-1)!.seq))
    const onA = await a.call('session.get', { sessionId: session.id })
    expect(JSON.parse(JSON.stringify(seen))).toEqual(
      JSON.parse(JSON.stringify(onA.events.slice(before.events.length))),
    )

    // B forks A's session (the conversation); A lists the child with its lineage.
    const fork = await b.call('session.fork', { sessionId: session.id, title: 'fork on B' })
    await waitFor(
      async () =>
        (await a.call('session.list', {})).find(
          (listed) => listed.id === fork.session.id && listed.parentSession === session.id,
        ),
      "A to list B's fork",
    )
    const child = await a.call('session.get', { sessionId: fork.session.id })
    expect(seqsOf(child.events)).toEqual(dense(0, child.events.length - 1))
    // Fork requestIds are one namespace across Hosts: the same id on A gives B's child.
    const first = await b.call('session.fork', { sessionId: session.id, requestId: 'req-1' })
    await waitFor(
      async () => (await a.call('session.list', {})).some((listed) => listed.id === first.session.id),
      "A to list B's requested fork",
    )
    const again = await a.call('session.fork', { sessionId: session.id, requestId: 'req-1' })
    expect(again.session.id).toBe(first.session.id)
    // Machine m2 continues it with its own worktree: the fork point's files come from the database.
    const onC = await c.call('session.fork', { sessionId: session.id, files: 'worktree' })
    expect(onC.session.files).toMatchObject({ mode: 'worktree', machine: 'm2' })
    expect(fs.readFileSync(path.join(onC.session.cwd, 'a.txt'), 'utf8')).toBe('from A\n')
  })

  it('a Host killed mid-turn loses its claim; the next Host closes the turn interrupted and runs its own', async () => {
    const url = await server.createDatabase('kill_host')
    const sandbox = createSandbox()
    const env = {
      ...sandbox.env,
      TANGENT_STORE: url,
      TANGENT_MACHINE: 'm1',
      TANGENT_LEASE_MS: '1500',
      TANGENT_DEMO_DELAY_MS: '400',
    }
    const child = spawn(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
      cwd: sandbox.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    const ready = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      let out = ''
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
        const line = out.split('\n').find((candidate) => candidate.startsWith('{'))
        if (line) resolve(JSON.parse(line))
      })
      child.once('exit', (code) => reject(new Error(`serve exited ${code}`)))
    })
    const rpc = async (method: string, params: unknown): Promise<{ id: string }> => {
      const response = await fetch(`${ready.url.replace(/\/$/, '')}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      return ((await response.json()) as { result: { id: string } }).result
    }
    const session = await rpc('session.create', { cwd: sandbox.cwd })
    void rpc('session.prompt', { sessionId: session.id, text: 'write a.txt: slow' }).catch(() => undefined)
    const b = await host(url, 'm1')
    await waitFor(async () => {
      const got = await b.call('session.get', { sessionId: session.id })
      return got.events.some((event) => event.type === 'turn/start')
    }, 'the turn on the killed Host to start')
    child.kill('SIGKILL')
    await new Promise((resolve) => child.once('exit', resolve))
    // Until the lease runs out B is told the session is busy; then B takes over.
    const result = await waitFor(async () => {
      try {
        return await b.call('session.prompt', { sessionId: session.id, text: 'write b.txt: after' })
      } catch (error) {
        if ((error as { data?: { code?: string } }).data?.code === 'session-busy') return undefined
        throw error
      }
    }, 'the lease of the killed Host to expire')
    expect(result.reason).toBe('completed')
    const { events } = await b.call('session.get', { sessionId: session.id })
    const ends = events
      .filter((event) => event.type === 'turn/end')
      .map((event) => (event.data as { reason: string }).reason)
    expect(ends).toEqual(['interrupted', 'completed'])
    expect(seqsOf(events)).toEqual(dense(0, events.length - 1))
    fs.rmSync(sandbox.home, { recursive: true, force: true })
  })

  it('PostgreSQL restarted under load: the Host reconnects and nothing a prompt acknowledged is lost', async () => {
    const url = await server.createDatabase('restart_load')
    const a = await host(url, 'm1', { TANGENT_DEMO_DELAY_MS: '5' })
    const sessions = await Promise.all(
      [1, 2, 3].map((n) => a.call('session.create', { cwd: a.work, title: `load ${n}` })),
    )
    const acknowledged = new Map<string, number>()
    let stop = false
    const load = sessions.map(async (session) => {
      for (let round = 0; !stop && round < 40; round++) {
        try {
          await a.call('session.prompt', { sessionId: session.id, text: `write f${round}.txt: ${round}` })
          const got = await a.call('session.get', { sessionId: session.id })
          acknowledged.set(session.id, got.events.length)
        } catch {
          // A call that fails while the server is down is not acknowledged; the next one tries again.
        }
      }
    })
    await waitFor(() => acknowledged.size === sessions.length, 'every session to finish a turn')
    await server.restart()
    const afterRestart = new Map(acknowledged)
    await waitFor(
      () =>
        sessions.every(
          (session) => (acknowledged.get(session.id) ?? 0) > (afterRestart.get(session.id) ?? 0),
        ),
      'turns to complete again after the restart',
    )
    stop = true
    await Promise.all(load)
    // A fresh Host reads what the database holds: at least everything acknowledged, dense.
    const reader = await host(url, 'm1')
    for (const session of sessions) {
      const { events } = await reader.call('session.get', { sessionId: session.id })
      expect(events.length).toBeGreaterThanOrEqual(acknowledged.get(session.id)!)
      expect(seqsOf(events)).toEqual(dense(0, events.length - 1))
    }
  }, 120_000)

  it('the CLI works on the database: run, sessions, show, fork, archive, migrate out and back', async () => {
    const url = await server.createDatabase('cli')
    const sandbox = createSandbox()
    sandbox.env.TANGENT_STORE = url
    try {
      const ran = await tangentJsonChild<{ sessionId: string }>(sandbox, [
        'run',
        'write notes.txt: on postgres',
      ])
      const id = ran.sessionId
      expect(fs.readFileSync(`${sandbox.cwd}/notes.txt`, 'utf8')).toBe('on postgres\n')
      const listed = await tangentJsonChild<{ id: string }[]>(sandbox, ['sessions'])
      expect(listed.map((session) => session.id)).toEqual([id])
      const shown = await tangent(sandbox, ['show', id.slice(0, 8)])
      expect(shown.code).toBe(0)
      expect(shown.stdout).toContain('write notes.txt: on postgres')
      const fork = await tangentJsonChild<{ session: { id: string; parentSession: string } }>(sandbox, [
        'fork',
        id,
      ])
      expect(fork.session.parentSession).toBe(id)
      expect((await tangent(sandbox, ['archive', fork.session.id])).code).toBe(0)
      expect(
        (await tangentJsonChild<{ id: string }[]>(sandbox, ['sessions'])).map((session) => session.id),
      ).toEqual([id])
      // Out to a data directory and back into a new database: the same tree.
      const dir = `${sandbox.home}-out`
      const out = await tangent(sandbox, ['migrate', '--to', dir])
      expect(out.stdout).toContain('Copied 2 session(s)')
      const back = await server.createDatabase('cli_back')
      expect((await tangent(sandbox, ['migrate', '--from', dir, '--to', back])).code).toBe(0)
      const again = await tangentJsonChild<{ id: string; parentSession: string | null; archived: boolean }[]>(
        { ...sandbox, env: { ...sandbox.env, TANGENT_STORE: back } },
        ['sessions', '--all'],
      )
      expect(again.map((session) => [session.id, session.parentSession, session.archived])).toEqual([
        [id, null, false],
        [fork.session.id, id, true],
      ])
      fs.rmSync(dir, { recursive: true, force: true })
    } finally {
      removeSandbox(sandbox)
    }
  }, 120_000)
})
