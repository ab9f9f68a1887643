// The built `tangent` CLI without a Host: it opens the store itself and runs the agent
// in-process with the offline demo model, in a temp TANGENT_HOME and a temp cwd.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  SessionEvent,
  SessionSummary,
  type SessionUsage,
  type UsageSplit,
} from '../../packages/protocol/dist/index.js'
import {
  createSandbox,
  removeSandbox,
  repoRoot,
  type Sandbox,
  tangent,
  tangentInProcess,
  tangentJson,
  tangentJsonChild,
} from './cli-harness.js'

interface Summary {
  id: string
  title: string
  parentSession: string | null
  forkedAt: number | null
  archived: boolean
  eventCount: number
  files: { mode: string; path: string }
}
interface RunOutput {
  sessionId: string
  turnEndSeq: number
  reason: string
}
interface Event {
  seq: number
  type: string
  data: unknown
}

let sandbox: Sandbox
beforeAll(() => {
  sandbox = createSandbox()
})
afterAll(() => removeSandbox(sandbox))

describe('tangent (local store)', () => {
  let parent: string
  let firstTurnEnd: number
  let secondTurnEnd: number
  let secondTurnUserSeq: number

  it('run: the demo model writes a file and streams what it did', async () => {
    const result = await tangent(sandbox, ['run', 'write notes.txt: hello'])
    expect(result.stderr).not.toMatch(/error\[/)
    expect(result.code).toBe(0)
    expect(fs.readFileSync(path.join(sandbox.cwd, 'notes.txt'), 'utf8')).toContain('hello')
    expect(result.stdout).toMatch(/write notes\.txt/)
    expect(result.stdout).toMatch(/Wrote notes\.txt/)
    expect(result.stderr).toMatch(/session \S+ · turn seq \d+–\d+/)
  })

  it('run --json: creates a session, then continues it with --session', async () => {
    const first = await tangentJsonChild<RunOutput>(sandbox, ['run', 'hello there'])
    expect(first.reason).toBe('completed')
    expect(first.sessionId).toMatch(/^[A-Za-z0-9]/)
    parent = first.sessionId
    firstTurnEnd = first.turnEndSeq
    const second = await tangentJson<RunOutput>(sandbox, ['run', '--session', parent, 'and a second message'])
    expect(second.sessionId).toBe(parent)
    expect(second.turnEndSeq).toBeGreaterThan(first.turnEndSeq)
    secondTurnEnd = second.turnEndSeq

    const plain = await tangentInProcess(sandbox, ['run', '--session', parent, 'third'])
    expect(plain.code).toBe(0)
    expect(plain.stdout).toContain('Turn 3: you said "third"')
  })

  it('show: lists the transcript with seqs; --json gives {session, events}', async () => {
    const shown = await tangent(sandbox, ['show', parent])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain('hello there')
    expect(shown.stdout).toMatch(new RegExp(`^\\s*${firstTurnEnd}\\s+turn end\\s+completed`, 'm'))
    expect(shown.stdout).toMatch(new RegExp(`^\\s*${secondTurnEnd}\\s+turn end\\s+completed`, 'm'))

    const json = await tangentJson<{ session: Summary; events: Event[] }>(sandbox, ['show', parent])
    expect(json.session.id).toBe(parent)
    expect(SessionSummary.safeParse(json.session).error).toBeUndefined()
    for (const event of json.events) expect(SessionEvent.safeParse(event).error).toBeUndefined()
    expect(json.events[firstTurnEnd]?.type).toBe('turn/end')
    json.events.forEach((event, index) => {
      expect(event.seq).toBe(index)
    })
    const userSeq = json.events.find(
      (event) => event.seq > firstTurnEnd && event.type === 'user/message',
    )?.seq
    expect(userSeq).toBeDefined()
    secondTurnUserSeq = userSeq!
  })

  let child: string
  it('fork --at: branches after the turn that holds the seq; prints the id', async () => {
    const printed = await tangent(sandbox, [
      'fork',
      parent,
      '--at',
      String(firstTurnEnd),
      '--title',
      'Branch A',
    ])
    expect(printed.code).toBe(0)
    child = printed.stdout.trim()
    expect(child).toMatch(/^[A-Za-z0-9_-]+$/)
    const { session, events } = await tangentJson<{ session: Summary; events: Event[] }>(sandbox, [
      'show',
      child,
    ])
    expect(session.parentSession).toBe(parent)
    expect(session.forkedAt).toBe(firstTurnEnd)
    expect(session.title).toBe('Branch A')
    expect(events.filter((event) => event.type === 'turn/end')).toHaveLength(1)

    // The child answers as the second turn of its own conversation.
    const answer = await tangentInProcess(sandbox, ['run', '--session', child, 'on the branch'])
    expect(answer.stdout).toContain('Turn 2: you said "on the branch"')
  })

  it('show and diff: tokens per turn, own vs inherited and the context meter; --json carries them', async () => {
    const shown = await tangent(sandbox, ['show', child])
    expect(shown.stdout).toMatch(
      /^ {2}tokens own: in \d+ · out \d+ · \$0 {2}inherited: in \d+ · out \d+ · \$0$/m,
    )
    expect(shown.stdout).toMatch(/^ {2}context \d+ \/ 4.1k \(\d+%\) · prices: tokenlens \d/m)
    expect(shown.stdout.match(/^\s+usage\s+in \d+ · out \d+ · \$0$/gm)).toHaveLength(2)
    const { usage } = await tangentJson<{ usage: SessionUsage }>(sandbox, ['show', child])
    expect(usage.turns).toHaveLength(2)
    expect([usage.inherited.steps, usage.own.steps, usage.total.cost]).toEqual([1, 1, 0])
    const last = usage.turns[1]!
    expect(usage.context.used).toBe(last.inputTokens + last.outputTokens)

    const diff = await tangent(sandbox, ['diff', parent, child])
    expect(diff.stdout).toMatch(/tokens since the fork: in \d+ · out \d+ · \$0 {2}shared: in \d+/)
    const compared = await tangentJson<{ b: { usage: UsageSplit } }>(sandbox, ['diff', parent, child])
    expect(compared.b.usage.own).toEqual(usage.own)
  })

  it('fork --before: branches just before the turn that holds the seq', async () => {
    const result = await tangentJsonChild<{ session: Summary; boundary: number }>(sandbox, [
      'fork',
      parent,
      '--before',
      '--at',
      String(secondTurnUserSeq),
    ])
    expect(result.boundary).toBe(firstTurnEnd)
    expect(result.session.parentSession).toBe(parent)
    expect(result.session.files.mode).toBe('shared')
  })

  it('sessions: the tree shows forks under their parent with the fork point', async () => {
    const tree = await tangent(sandbox, ['sessions'])
    expect(tree.code).toBe(0)
    const lines = tree.stdout.trimEnd().split('\n')
    const parentLine = lines.findIndex((line) => line.startsWith(parent))
    const childLine = lines.findIndex((line) => line.includes(child))
    expect(parentLine).toBeGreaterThanOrEqual(0)
    expect(childLine).toBeGreaterThan(parentLine)
    expect(lines[childLine]).toMatch(new RegExp(`^[├└]─ ${child}  Branch A  fork @ seq ${firstTurnEnd}`))

    const summaries = await tangentJson<Summary[]>(sandbox, ['sessions'])
    // Without a Host the CLI still prints docs/protocol.md's shapes.
    for (const summary of summaries) expect(SessionSummary.safeParse(summary).error).toBeUndefined()
    expect(summaries.map((summary) => summary.id)).toEqual(expect.arrayContaining([parent, child]))
    expect(summaries.find((summary) => summary.id === child)?.parentSession).toBe(parent)
  })

  it('archive hides a session unless --all; unarchive brings it back; rename retitles it', async () => {
    const archived = await tangentJsonChild<Summary>(sandbox, ['archive', child])
    expect(archived.archived).toBe(true)
    expect((await tangentJson<Summary[]>(sandbox, ['sessions'])).map((s) => s.id)).not.toContain(child)
    const all = await tangentInProcess(sandbox, ['sessions', '--all'])
    expect(all.stdout).toMatch(new RegExp(`${child}.*archived`))
    const back = await tangentJson<Summary>(sandbox, ['unarchive', child])
    expect(back.archived).toBe(false)
    const renamed = await tangentJson<Summary>(sandbox, ['rename', child, 'Renamed', 'branch'])
    expect(renamed.title).toBe('Renamed branch')
  })

  it('delete: says which forks were given their history, and they keep it', async () => {
    const deleted = await tangent(sandbox, ['delete', parent])
    expect(deleted.code).toBe(0)
    expect(deleted.stdout).toContain(`Deleted ${parent}`)
    expect(deleted.stdout).toMatch(new RegExp(`Forks given their inherited history: .*${child}`))
    const { events } = await tangentJson<{ events: Event[] }>(sandbox, ['show', child])
    const firstMessage = events.find((event) => event.type === 'user/message')
    expect(JSON.stringify(firstMessage?.data)).toContain('hello there')
    const gone = await tangentInProcess(sandbox, ['show', parent])
    expect(gone.code).toBe(1)
    expect(gone.stderr).toMatch(/^error\[session-not-found\]: /)
  })

  it('models: the demo model is available, the others say what to set', async () => {
    const listed = await tangent(sandbox, ['models'])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/✓ demo:scripted/)
    expect(listed.stdout).toMatch(/✗ openai:\S+\s+.*OPENAI_API_KEY/)
    const json = await tangentJson<{ id: string; available: boolean; reason?: string }[]>(sandbox, ['models'])
    expect(json.find((model) => model.id === 'demo:scripted')?.available).toBe(true)
    expect(json.some((model) => !model.available && typeof model.reason === 'string')).toBe(true)
  })

  it('compact: summarises the history; show prints the instructions and the compaction one line each', async () => {
    const project = path.join(sandbox.cwd, 'with-instructions')
    fs.mkdirSync(project)
    fs.writeFileSync(path.join(project, 'AGENTS.md'), 'Keep answers short.')
    const first = await tangentJson<RunOutput>(sandbox, ['run', '--cwd', project, 'first words'])
    await tangentJson<RunOutput>(sandbox, ['run', '--session', first.sessionId, 'second words'])
    const compacted = await tangentInProcess(sandbox, ['compact', first.sessionId])
    expect(compacted.code).toBe(0)
    expect(compacted.stdout).toMatch(/^Compacted \S+: events 0–\d+ summarised by demo:scripted at seq \d+/)
    const again = await tangentInProcess(sandbox, ['compact', first.sessionId])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^error\[nothing-to-compact\]/)
    const shown = await tangentInProcess(sandbox, ['show', first.sessionId])
    expect(shown.stdout).toMatch(/^\s*\d+\s+context\s+Instructions: AGENTS\.md$/m)
    expect(shown.stdout).toMatch(
      /^\s*\d+\s+context\s+Conversation compacted: \d+ events summarised \(manual/m,
    )
    // The next turn is sent the summary plus the new message: the demo counts one user message.
    const next = await tangentInProcess(sandbox, ['run', '--session', first.sessionId, 'third words'])
    expect(next.stdout).toContain('Turn 1: you said "third words"')
  })
})

describe('tangent errors', () => {
  const countSessions = async () =>
    (JSON.parse((await tangentInProcess(sandbox, ['sessions', '--all', '--json'])).stdout) as Summary[])
      .length

  it('the process exits 1 for a failure and 2 for bad usage, with one error line', async () => {
    const missing = await tangent(sandbox, ['show', 'NOSUCHSESSION'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^error\[session-not-found\]: .*NOSUCHSESSION[^\n]*\n$/)
    const usage = await tangent(sandbox, ['fork', 'X', '--at', 'seven'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/^error\[usage\]: [^\n]*seven[^\n]*\n$/)
  })

  it('unknown ids, bad seqs and missing directories fail with exit 1 and one clear line, writing nothing', async () => {
    const { sessionId, turnEndSeq } = await tangentJson<RunOutput>(sandbox, ['run', 'hi'])
    const before = await countSessions()
    const failures: [string[], RegExp][] = [
      [['fork', 'NOSUCHSESSION'], /^error\[session-not-found\]: .*NOSUCHSESSION/],
      [['run', '--session', 'NOSUCHSESSION', 'hi'], /^error\[session-not-found\]: .*NOSUCHSESSION/],
      [['archive', 'NOSUCHSESSION'], /^error\[session-not-found\]: .*NOSUCHSESSION/],
      [['delete', 'NOSUCHSESSION'], /^error\[session-not-found\]: .*NOSUCHSESSION/],
      [['fork', sessionId, '--before', '--at', String(turnEndSeq + 50)], /^error\[invalid-boundary\]: /],
      // Past the end: never the last turn instead, and the last seq is named.
      [['fork', sessionId, '--at', '9999'], /^error\[invalid-boundary\]: .*9999.*its last seq is \d+/],
      [['run', '--cwd', path.join(sandbox.cwd, 'missing'), 'hi'], /^error\[cwd-not-found\]: /],
      [['run', '--model', 'openai:gpt-4.1', 'hi'], /^error\[model-unavailable\]: .*OPENAI_API_KEY/],
    ]
    for (const [args, expected] of failures) {
      const result = await tangentInProcess(sandbox, args)
      expect(result.code, args.join(' ')).toBe(1)
      expect(result.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(expected)])
    }
    expect(await countSessions()).toBe(before)
  })

  it('bad usage is exit 2 with one error[usage] line', async () => {
    for (const args of [
      ['frobnicate'],
      ['fork', 'X', '--at', '-1'],
      ['fork', 'X', '--files', 'copy'],
      ['show'],
      ['sessions', '--bogus'],
      ['restore', 'X'],
      [],
    ]) {
      const result = await tangentInProcess(sandbox, args)
      expect(result.code, args.join(' ')).toBe(2)
      if (args.length > 0) expect(result.stderr.trim()).toMatch(/^error\[usage\]: [^\n]+$/)
    }
  })

  it('a store locked by another writer gives store-locked with the holder', async () => {
    const holderScript = `
      import { JsonlStore } from ${JSON.stringify(path.join(repoRoot, 'packages/store-jsonl/dist/index.js'))}
      const store = await JsonlStore.open({ dir: process.env.TANGENT_HOME })
      console.log('locked')
      setInterval(() => {}, 1000)
      process.on('SIGTERM', async () => { await store.close(); process.exit(0) })
    `
    const holder = spawn(process.execPath, ['--input-type=module', '-e', holderScript], {
      env: sandbox.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('locked')) resolve()
        })
        holder.on('exit', (code) => reject(new Error(`lock holder exited ${code}`)))
      })
      const result = await tangent(sandbox, ['run', 'write locked.txt: no'])
      expect(result.code).toBe(1)
      expect(result.stderr.trim()).toMatch(new RegExp(`^error\\[store-locked\\]: .*process ${holder.pid}`))
      expect(fs.existsSync(path.join(sandbox.cwd, 'locked.txt'))).toBe(false)
    } finally {
      await new Promise((resolve) => {
        holder.once('exit', resolve)
        holder.kill('SIGTERM')
      })
    }
  })
})

describe('tangent demo', () => {
  it('makes two turns and a fork in a sample directory, and shows the tree', async () => {
    const dir = path.join(sandbox.cwd, 'demo')
    fs.mkdirSync(dir)
    const result = await tangent(sandbox, ['demo', '--dir', dir])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^you › write notes\.txt: /m)
    expect(result.stdout).toMatch(/^(\S+) {2}Demo: notes .*\n└─ \S+ {2}Demo: another idea {2}fork @ seq \d+/m)
    const notes = fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')
    expect(notes).toContain('Tangent keeps every turn')
    expect(notes).toContain('Forks are branches')
  })
})

describe('an empty provider base URL in the environment', () => {
  it('means unset: every command still runs (the provider modules would throw on it)', async () => {
    const empty = createSandbox()
    try {
      empty.env.OPENAI_BASE_URL = ''
      empty.env.ANTHROPIC_BASE_URL = '  '
      const result = await tangent(empty, ['models'])
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('✓ demo:scripted')
    } finally {
      removeSandbox(empty)
    }
  })
})
