// Bundles (bundle.ts): a fork exported with its ancestors imports into another data directory —
// JSONL and PostgreSQL — with ids, lineage, fork points and events kept; importing again creates
// nothing; a hostile bundle is refused with its line and writes nothing; Markdown has the texts.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '@tangent/store-postgres/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { maxBundleLineBytes } from './bundle-format.js'
import { Runtime } from './runtime.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-bundle-')

async function open(home: string, start: string, store?: string) {
  return Runtime.open({ home, startFolder: start, env: {}, report: () => {}, ...(store ? { store } : {}) })
}

/** A root with two turns, a fork at its first turn with one more turn, and a fork of the fork. */
async function makeTree(runtime: Runtime) {
  const root = await runtime.createSession({ title: 'root' })
  await runtime.prompt({ sessionId: root.id, text: 'write a.txt: one' })
  await runtime.prompt({ sessionId: root.id, text: 'write a.txt: two' })
  const events = (await runtime.getSession({ sessionId: root.id })).events
  const firstEnd = events.find((event) => event.type === 'turn/end')!.seq
  const fork = (await runtime.fork({ sessionId: root.id, atSeq: firstEnd, title: 'fork' })).session
  await runtime.prompt({ sessionId: fork.id, text: 'write b.txt: three' })
  const grandchild = (await runtime.fork({ sessionId: fork.id, title: 'grandchild' })).session
  await runtime.prompt({ sessionId: grandchild.id, text: 'hello grandchild' })
  return { root: root.id, fork: fork.id, grandchild: grandchild.id, forkedAt: firstEnd }
}

async function bundleOf(runtime: Runtime, sessionId: string): Promise<string> {
  let content = ''
  let cursor: string | undefined
  do {
    const page = await runtime.exportSession({ sessionId, format: 'jsonl', ...(cursor ? { cursor } : {}) })
    content += page.content
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return content
}

/** What must survive a move: lineage, fork point, title and every event (inherited included). */
async function viewOf(runtime: Runtime, ids: string[]) {
  const view: Record<string, unknown> = {}
  for (const id of ids) {
    const { session, events } = await runtime.getSession({ sessionId: id })
    view[id] = {
      title: session.title,
      parentSession: session.parentSession,
      forkedAt: session.forkedAt,
      cwd: session.cwd,
      events: JSON.parse(JSON.stringify(events)),
    }
  }
  return view
}

async function roundTrip(targetStore?: () => Promise<string>) {
  const start = temp()
  const source = await open(temp(), start)
  const target = await open(temp(), start, targetStore ? await targetStore() : undefined)
  try {
    const ids = await makeTree(source)
    const bundle = await bundleOf(source, ids.grandchild)
    const lines = bundle.trim().split('\n')
    expect(JSON.parse(lines[0]!)).toMatchObject({
      format: 'tangent-bundle',
      version: 1,
      sessionId: ids.grandchild,
    })
    const headers = lines.map((line) => JSON.parse(line)).filter((line) => line.kind === 'session')
    expect(headers.map((line) => line.header.id)).toEqual([ids.root, ids.fork, ids.grandchild])
    expect(headers[1].header).toMatchObject({ parentSession: ids.root, forkedAt: ids.forkedAt })
    // The root travels through the fork point only: its second turn is not the fork's.
    const rootEvents = (await source.getSession({ sessionId: ids.root })).events.length
    expect(ids.forkedAt + 1).toBeLessThan(rootEvents)

    const result = await target.importBundle({ content: bundle })
    expect(result.sessions.map((session) => [session.id, session.status, session.parentSession])).toEqual([
      [ids.root, 'created', undefined],
      [ids.fork, 'created', ids.root],
      [ids.grandchild, 'created', ids.fork],
    ])
    const chain = [ids.fork, ids.grandchild]
    expect(await viewOf(target, chain)).toEqual(await viewOf(source, chain))
    const root = await viewOf(target, [ids.root])
    expect((root[ids.root] as { events: unknown[] }).events).toHaveLength(ids.forkedAt + 1)

    // Twice: nothing new.
    const again = await target.importBundle({ content: bundle })
    expect(again.sessions.map((session) => session.status)).toEqual(['existing', 'existing', 'existing'])
    expect(await target.listSessions({ includeArchived: true })).toHaveLength(3)

    // The whole root later: its second turn is appended, the rest stays.
    const whole = await target.importBundle({ content: await bundleOf(source, ids.root) })
    expect(whole.sessions.map((session) => session.status)).toEqual(['appended'])
    expect((await target.getSession({ sessionId: ids.root })).events).toHaveLength(rootEvents)

    // It continues there with the demo model, and exports back the same.
    const turn = await target.prompt({ sessionId: ids.grandchild, text: 'one more' })
    expect(turn.reason).toBe('completed')
    const back = await bundleOf(target, ids.fork)
    const fresh = await open(temp(), start)
    try {
      await fresh.importBundle({ content: back })
      expect(await viewOf(fresh, [ids.fork])).toEqual(await viewOf(source, [ids.fork]))
    } finally {
      await fresh.close()
    }
    return { source, target, ids, bundle }
  } finally {
    await source.close()
    await target.close()
  }
}

describe('session bundles between data directories', () => {
  it('moves a fork with its ancestors, ids and lineage kept; a second import creates nothing', async () => {
    await roundTrip()
  })

  it('exports Markdown with the texts and the tool calls folded', async () => {
    const start = temp()
    const runtime = await open(temp(), start)
    try {
      const ids = await makeTree(runtime)
      const page = await runtime.exportSession({ sessionId: ids.fork, format: 'md' })
      expect(page.nextCursor).toBeUndefined()
      expect(page.content).toContain('# fork')
      expect(page.content).toContain('write a.txt: one')
      expect(page.content).toContain('write b.txt: three')
      expect(page.content).not.toContain('write a.txt: two')
      expect(page.content).toMatch(/<details>\n<summary>Tool call: write<\/summary>/)
    } finally {
      await runtime.close()
    }
  })

  it('exports the tree as HTML from any of its sessions; a session that cannot be read is named, not dropped', async () => {
    const start = temp()
    const home = temp()
    let runtime = await open(home, start)
    let ids: Awaited<ReturnType<typeof makeTree>>
    try {
      ids = await makeTree(runtime)
    } finally {
      await runtime.close()
    }
    // The grandchild's log damaged in its middle: it no longer loads (corrupt-log).
    const log = path.join(home, 'sessions', `${ids.grandchild}.jsonl`)
    const lines = fs.readFileSync(log, 'utf8').split('\n')
    lines[2] = '{"damaged'
    fs.writeFileSync(log, lines.join('\n'))
    runtime = await open(home, start)
    try {
      const page = await runtime.exportSession({ sessionId: ids.fork, format: 'html', tree: true })
      expect(page.nextCursor).toBeUndefined()
      for (const id of [ids.root, ids.fork])
        expect(page.content).toContain(`<section class="session" id="s-${id}"`)
      expect(page.content).not.toContain(`<section class="session" id="s-${ids.grandchild}"`)
      expect(page.content).toMatch(
        new RegExp(
          `Not in this file \\(could not be read\\): <span class="mono">${ids.grandchild}</span> \\(`,
        ),
      )
      const fromRoot = await runtime.exportSession({ sessionId: ids.root, format: 'html', tree: true })
      expect(fromRoot.content).toContain(`<section class="session" id="s-${ids.fork}"`)
    } finally {
      await runtime.close()
    }
  })

  it('pages a large export: pages joined are the whole bundle, pinned at the first page', async () => {
    const start = temp()
    const runtime = await open(temp(), start)
    try {
      const root = await runtime.createSession({ title: 'big' })
      const big = 'x'.repeat(200_000)
      for (let i = 0; i < 25; i++) await runtime.prompt({ sessionId: root.id, text: `${i} ${big}` })
      const first = await runtime.exportSession({ sessionId: root.id, format: 'jsonl' })
      expect(first.nextCursor).toBeDefined()
      expect(first.content.length).toBeLessThanOrEqual(4 * 1024 * 1024)
      await runtime.prompt({ sessionId: root.id, text: 'after the first page' })
      const whole = await bundleOf(runtime, root.id)
      const paged = first.content + (await restOf(runtime, root.id, first.nextCursor!))
      expect(paged).not.toContain('after the first page')
      const pagedLines = paged.trim().split('\n')
      expect(pagedLines.slice(1)).toEqual(whole.trim().split('\n').slice(1, pagedLines.length))
      await expect(runtime.exportSession({ sessionId: root.id, cursor: '../etc' })).rejects.toMatchObject({
        code: 'invalid-params',
      })
    } finally {
      await runtime.close()
    }
  }, 60_000)
})

async function restOf(runtime: Runtime, sessionId: string, cursor: string): Promise<string> {
  let content = ''
  let next: string | undefined = cursor
  while (next !== undefined) {
    const page = await runtime.exportSession({ sessionId, format: 'jsonl', cursor: next })
    content += page.content
    next = page.nextCursor
  }
  return content
}

describe('hostile bundles', () => {
  let start: string
  let source: Runtime
  let target: Runtime
  let targetHome: string
  let bundle: string
  let ids: Awaited<ReturnType<typeof makeTree>>
  // Made once for the suite (tempDirs removes its folders after each test).
  const suiteDirs: string[] = []
  const suiteDir = () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bundle-suite-')))
    suiteDirs.push(dir)
    return dir
  }
  beforeAll(async () => {
    start = suiteDir()
    source = await open(suiteDir(), start)
    ids = await makeTree(source)
    bundle = await bundleOf(source, ids.grandchild)
    targetHome = suiteDir()
    target = await open(targetHome, start)
  })
  afterAll(async () => {
    await source?.close()
    await target?.close()
    for (const dir of suiteDirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  const lines = () => bundle.trim().split('\n')
  const refused = async (content: string, code: string, message: RegExp) => {
    await expect(target.importBundle({ content })).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message),
    })
    expect(await target.listSessions({ includeArchived: true })).toHaveLength(0)
    const logs = path.join(targetHome, 'sessions')
    if (fs.existsSync(logs))
      expect(fs.readdirSync(logs).filter((name) => name.endsWith('.jsonl'))).toEqual([])
  }

  it('a line that is not JSON, with its number', async () => {
    const bad = lines()
    bad[5] = '{"kind":"event",'
    await refused(bad.join('\n'), 'invalid-bundle', /^Bundle line 6: not JSON/)
  })

  it('an event breaking the grammar in the last session: nothing of the earlier sessions is written', async () => {
    const bad = lines()
    const last = bad.length - 1
    const event = JSON.parse(bad[last]!)
    bad[last] = JSON.stringify({ ...event, type: 'user/message', data: { content: [] } })
    await refused(bad.join('\n'), 'invalid-bundle', new RegExp(`^Bundle line ${last + 1}: .*user/message`))
    // Cut inside a turn (its turn/end dropped): refused, though the grammar allows an open turn.
    await refused(lines().slice(0, -1).join('\n'), 'invalid-bundle', /ends inside a turn/)
  })

  it('event data failing its schema', async () => {
    const bad = lines()
    const index = bad.findIndex((line) => line.includes('"user/message"'))
    bad[index] = JSON.stringify({ ...JSON.parse(bad[index]!), data: { content: 'not parts' } })
    await refused(bad.join('\n'), 'invalid-bundle', new RegExp(`^Bundle line ${index + 1}: `))
  })

  it('an id outside the pattern, a parent cycle, a misordered parent, an unknown version', async () => {
    const withHeader = (index: number, change: Record<string, unknown>) => {
      const bad = lines()
      const line = JSON.parse(bad[index]!)
      bad[index] = JSON.stringify({ ...line, header: { ...line.header, ...change } })
      return bad
    }
    const sessionLines = lines().flatMap((line, index) => (line.includes('"kind":"session"') ? [index] : []))
    await refused(
      withHeader(sessionLines[0]!, { id: '../../etc' }).join('\n'),
      'invalid-bundle',
      /outside the pattern/,
    )
    // The root made a fork of the grandchild: root → grandchild → fork → root.
    const cycle = withHeader(sessionLines[0]!, { parentSession: ids.grandchild, forkedAt: -1 })
    await refused(cycle.join('\n'), 'invalid-bundle', /a parent cycle/)
    const self = withHeader(sessionLines[1]!, { parentSession: ids.fork })
    await refused(self.join('\n'), 'invalid-bundle', /names itself as its parent/)
    const version = lines()
    version[0] = JSON.stringify({ ...JSON.parse(version[0]!), version: 99 })
    await refused(version.join('\n'), 'invalid-bundle', /^Bundle line 1: bundle version 99 is not supported/)
    await refused('{"hello":1}\n', 'invalid-bundle', /not a Tangent bundle/)
  })

  it('a session line claiming a worktree keeps none of it (only the allowed header fields are written)', async () => {
    const bad = lines()
    const index = bad.findIndex((line) => line.includes('"kind":"session"'))
    const line = JSON.parse(bad[index]!)
    bad[index] = JSON.stringify({
      ...line,
      header: {
        ...line.header,
        files: { mode: 'worktree', path: '/home' },
        exploration: { id: 'x', label: 'a', check: 'rm -rf ~' },
      },
    })
    const fresh = await open(temp(), start)
    try {
      await fresh.importBundle({ content: bad.join('\n') })
      const summary = (await fresh.getSession({ sessionId: ids.root })).session
      expect(summary.files.mode).toBe('shared')
      expect(summary.files.path).not.toBe('/home')
      expect(JSON.stringify(summary)).not.toContain('rm -rf')
    } finally {
      await fresh.close()
    }
  })

  it('a session here with other events: import-conflict, nothing written', async () => {
    const other = await open(temp(), start)
    try {
      await other.importBundle({ content: bundle })
      const changed = lines()
      const index = changed.findLastIndex((line) => line.includes('"user/message"'))
      const event = JSON.parse(changed[index]!)
      changed[index] = JSON.stringify({
        ...event,
        data: { content: [{ type: 'text', text: 'something else' }] },
      })
      const before = await viewOf(other, [ids.root, ids.fork, ids.grandchild])
      await expect(other.importBundle({ content: changed.join('\n') })).rejects.toMatchObject({
        code: 'import-conflict',
        data: { sessionId: ids.grandchild },
      })
      expect(await viewOf(other, [ids.root, ids.fork, ids.grandchild])).toEqual(before)
    } finally {
      await other.close()
    }
  })

  it('a line past the size limit is refused by its number before it is parsed', async () => {
    const huge = `{"kind":"event","pad":"${'x'.repeat(maxBundleLineBytes)}"}`
    await refused(
      `${lines().slice(0, 2).join('\n')}\n${huge}\n`,
      'invalid-bundle',
      /^Bundle line 3: the line is longer than/,
    )
  })

  it('a write that fails half-way deletes the sessions the import created', async () => {
    // Events this store refuses as too large: the scratch replay accepts them, the store does not.
    const home = temp()
    const small = await Runtime.open({
      home,
      startFolder: start,
      env: {},
      report: () => {},
      maxEventBytes: 2048,
    })
    try {
      const padded = lines()
      const index = padded.findLastIndex((line) => line.includes('"user/message"'))
      const event = JSON.parse(padded[index]!)
      padded[index] = JSON.stringify({
        ...event,
        data: { content: [{ type: 'text', text: 'y'.repeat(4096) }] },
      })
      const error = await small
        .importBundle({ content: padded.join('\n') })
        .catch((caught: unknown) => caught)
      expect(error).toMatchObject({
        code: 'invalid-event',
        message: expect.stringMatching(/it was not appended/),
      })
      expect(await small.listSessions({ includeArchived: true })).toEqual([])
      expect(fs.readdirSync(path.join(home, 'sessions')).filter((name) => name.endsWith('.jsonl'))).toEqual(
        [],
      )
    } finally {
      await small.close()
    }
  })

  it('a missing parent that the bundle does not carry is named', async () => {
    const withoutRoot = lines().filter((line, index) => {
      if (index === 0) return true
      const parsed = JSON.parse(line)
      return !(parsed.kind === 'session' && parsed.header.id === ids.root) && !isRootEvent(line, index)
    })
    await refused(
      withoutRoot.join('\n'),
      'invalid-bundle',
      new RegExp(`parent ${ids.root} is neither in the bundle nor in this store`),
    )
  })

  function isRootEvent(_line: string, index: number): boolean {
    const all = lines()
    const forkLine = all.findIndex(
      (line) => line.includes('"kind":"session"') && line.includes(`"id":"${ids.fork}"`),
    )
    return index > 0 && index < forkLine
  }
})

const pgMissing = !postgresAvailable()
if (pgMissing && process.env.CI) throw new Error('CI is set but the PostgreSQL server binaries are missing')

describe.skipIf(pgMissing)('session bundles into PostgreSQL', () => {
  let server: TestPostgres
  beforeAll(async () => {
    server = await startTestPostgres()
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('JSONL → bundle → PostgreSQL keeps ids, lineage and events; again creates nothing; back to JSONL', async () => {
    let databases = 0
    await roundTrip(() => server.createDatabase(`bundle_${++databases}`))
  }, 120_000)
})
