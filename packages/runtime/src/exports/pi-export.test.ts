// The pi export (issue 31): a Tangent tree as one pi session file, read back by pi's own
// SessionManager (pi-coding-agent 0.73.1: the messages its model would get, in order) and by
// Tangent's pi reader (the same texts and branches). Hostile content travels intact.
import fs from 'node:fs'
import path from 'node:path'
import { buildSessionContext, parseSessionEntries, SessionManager } from '@mariozechner/pi-coding-agent'
import { type Session, SessionStore } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { planImport } from '../imports/convert.js'
import { readPiSession } from '../imports/pi.js'
import { Runtime } from '../runtime.js'
import { tempDirs } from '../temp-dirs.test-helper.js'
import { exportPi, exportPiTree, piSessionUuid } from './pi-export.js'
import { exportPiToolCall } from './pi-export-tools.js'

const temp = tempDirs('tangent-pi-export-')
const piFixtures = path.resolve(import.meta.dirname, '../../../../test/fixtures/imports/pi')
const context = { now: Date.UTC(2026, 11, 4), version: '0.1.0' }
const rootId = '01KBPZ4D6T7GQ4Y7W3X9V2N5M8'
const forkId = '01KBPZ4D6T7GQ4Y7W3X9V2N5M9'
const grandchildId = '01KBPZ4D6T7GQ4Y7W3X9V2N5MA'
const siblingId = '01KBPZ4D6T7GQ4Y7W3X9V2N5MB'

interface Step {
  content: unknown[]
  results?: { callId: string; toolName: string; output: unknown; isError?: boolean }[]
  usage?: Record<string, number>
  finishReason?: string
}

let clock = Date.UTC(2026, 11, 1)
const tick = () => (clock += 1000)

/** One completed turn: the user's text, then steps of assistant content and tool results. */
function turn(session: Session, text: string, steps: Step[]): void {
  session.append('turn/start', {}, tick())
  session.append('user/message', { content: [{ type: 'text', text }] }, tick())
  for (const step of steps) {
    session.append('step/start', {}, tick())
    session.append('assistant/message', { content: step.content }, tick())
    for (const result of step.results ?? [])
      session.append('tool/result', { isError: false, ...result }, tick())
    session.append(
      'step/end',
      { finishReason: step.finishReason ?? 'stop', ...(step.usage ? { usage: step.usage } : {}) },
      tick(),
    )
  }
  session.append('turn/end', { reason: 'completed' }, tick())
}

const text = (value: string) => ({ type: 'text', text: value })
const call = (toolCallId: string, toolName: string, input: unknown) => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input,
})

function parse(lines: readonly string[]) {
  return lines.map(
    (line) => JSON.parse(line) as Record<string, unknown> & { id: string; parentId: string | null },
  )
}

/** What pi's model would be sent for the file's current leaf: role and text (or call/result) per message. */
function piContext(lines: readonly string[]) {
  const entries = parseSessionEntries(`${lines.join('\n')}\n`)
  return describeContext(buildSessionContext(entries.slice(1) as never).messages)
}

function describeContext(context: unknown[]) {
  interface Block {
    type: string
    text?: string
    thinking?: string
    id?: string
    name?: string
  }
  const messages = context as {
    role: string
    content: string | Block[]
    toolCallId?: string
    summary?: string
  }[]
  return messages.map((message) => {
    if (message.role === 'toolResult')
      return `result ${message.toolCallId}: ${(message.content as { text: string }[])[0]!.text}`
    if (message.role === 'branchSummary' || message.role === 'compactionSummary')
      return `${message.role}: ${message.summary}`
    const blocks: Block[] = typeof message.content === 'string' ? [text(message.content)] : message.content
    return `${message.role}: ${blocks
      .map((block) =>
        block.type === 'toolCall'
          ? `[${block.name} ${block.id}]`
          : block.type === 'thinking'
            ? `(${block.thinking})`
            : (block.text ?? `<${block.type}>`),
      )
      .join(' | ')}`
  })
}

/** A root of two turns (tools in the first), a fork after its first turn, a fork of that fork. */
function makeTree() {
  const store = new SessionStore({ now: () => clock })
  const root = store.create(rootId, { meta: { cwd: '/work/my project', createdAt: Date.UTC(2026, 11, 1) } })
  root.append('model/selection', { provider: 'anthropic', model: 'claude-sonnet-4-5' }, tick())
  root.append('session/title', { title: 'The root' }, tick())
  turn(root, 'Make a.txt', [
    {
      content: [
        { type: 'reasoning', text: 'Write, then check.' },
        text('Writing.'),
        call('toolu_1', 'write', { path: 'a.txt', content: 'one\n' }),
      ],
      results: [{ callId: 'toolu_1', toolName: 'write', output: 'Wrote a.txt (4 bytes).' }],
      usage: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 50 },
      finishReason: 'tool-calls',
    },
    {
      content: [call('toolu_2', 'bash', { command: 'cat a.txt', timeoutMs: 1500 })],
      results: [{ callId: 'toolu_2', toolName: 'bash', output: 'one\n[exit code 0]' }],
      finishReason: 'tool-calls',
    },
    { content: [text('a.txt says one.')], usage: { inputTokens: 1200, outputTokens: 10 } },
  ])
  const firstEnd = root.lastSeq
  turn(root, 'Root second', [{ content: [text('Root answer two.')] }])
  const fork = store.fork(root, firstEnd, forkId)
  fork.append('session/title', { title: 'The fork' }, tick())
  turn(fork, 'Fork question', [{ content: [text('Fork answer.')] }])
  const grandchild = store.fork(fork, fork.lastSeq, grandchildId)
  turn(grandchild, 'Grandchild question', [{ content: [text('Grandchild answer.')] }])
  return { store, root, fork, grandchild, firstEnd }
}

describe('exportPiTree: the whole tree, the exported branch as the leaf', () => {
  const { root, fork, grandchild } = makeTree()
  const exported = exportPiTree(fork, fork.lastSeq, context, [root, grandchild])
  const entries = parse(exported.lines)

  it("writes a format 3 header with a UUID from the session id, under pi's folder for the cwd", () => {
    const uuid = piSessionUuid(forkId)
    expect(entries[0]).toEqual({
      type: 'session',
      version: 3,
      id: uuid,
      timestamp: new Date(fork.header.createdAt).toISOString(),
      cwd: '/work/my project',
    })
    expect(exported.file).toEqual({
      tool: 'pi',
      sessionId: uuid,
      path: `sessions/--work-my project--/${new Date(fork.header.createdAt).toISOString().replace(/[:.]/g, '-')}_${uuid}.jsonl`,
    })
  })

  it('is a tree: every parent is in the file, the shared prefix once, a branch at each fork point', () => {
    const ids = new Set(entries.slice(1).map((entry) => entry.id))
    expect(ids.size).toBe(entries.length - 1)
    for (const entry of entries.slice(2)) expect(ids.has(entry.parentId!)).toBe(true)
    expect(entries[1]).toMatchObject({ type: 'session_info', parentId: null, name: 'The fork' })
    const texts = exported.lines.join('\n')
    for (const once of [
      'Make a.txt',
      'a.txt says one.',
      'Root second',
      'Fork question',
      'Grandchild answer.',
    ])
      expect(texts.split(once).length - 1).toBe(1)
    // The root's first answer has two children: the root's second turn and the fork's.
    const answer = entries.find((entry) => JSON.stringify(entry).includes('a.txt says one.'))!
    const children = entries.filter((entry) => entry.parentId === answer.id)
    expect(children).toHaveLength(2)
  })

  it("ends with the exported branch: pi builds its context from the fork's leaf", () => {
    expect(JSON.stringify(entries.at(-1))).toContain('Fork answer.')
    expect(piContext(exported.lines)).toEqual([
      'user: Make a.txt',
      'assistant: (Write, then check.) | Writing. | [write toolu_1]',
      'result toolu_1: Wrote a.txt (4 bytes).',
      'assistant: [bash toolu_2]',
      'result toolu_2: one\n[exit code 0]',
      'assistant: a.txt says one.',
      'user: Fork question',
      'assistant: Fork answer.',
    ])
  })

  it("maps models, usage and tools to pi's", () => {
    const assistant = entries.find((entry) => JSON.stringify(entry).includes('Writing.'))!.message as Record<
      string,
      unknown
    >
    expect(assistant).toMatchObject({
      role: 'assistant',
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'toolUse',
      usage: { input: 600, cacheRead: 400, output: 50, totalTokens: 1050 },
    })
    expect(entries.find((entry) => entry.type === 'model_change')).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
    })
    const bash = JSON.stringify(entries.find((entry) => JSON.stringify(entry).includes('toolu_2')))
    expect(bash).toContain('"arguments":{"command":"cat a.txt","timeout":1.5}')
  })

  it('writes the same file again (ids, order, path): a re-export overwrites its own file', () => {
    const again = exportPiTree(fork, fork.lastSeq, { ...context, now: context.now + 5000 }, [
      grandchild,
      root,
    ])
    expect(again).toEqual(exported)
  })

  it('makes another branch the leaf when that one is exported', () => {
    const other = exportPiTree(root, root.lastSeq, context, [fork, grandchild])
    expect(other.file.sessionId).not.toBe(exported.file.sessionId)
    expect(piContext(other.lines).slice(-2)).toEqual(['user: Root second', 'assistant: Root answer two.'])
    const deeper = exportPiTree(grandchild, grandchild.lastSeq, context, [root, fork])
    expect(piContext(deeper.lines).slice(-4)).toEqual([
      'user: Fork question',
      'assistant: Fork answer.',
      'user: Grandchild question',
      'assistant: Grandchild answer.',
    ])
  })

  it('puts the leaf last even when a fork of the exported session continues past it', () => {
    // The fork's grandchild forks at the fork's last event: its entries hang under the exported leaf.
    const lines = parse(exported.lines)
    const leaf = lines.at(-1)!
    expect(lines.some((entry) => entry.parentId === leaf.id)).toBe(true)
    const manager = SessionManager.open(writeFile(exported.lines), temp())
    expect(manager.getLeafId()).toBe(leaf.id)
    expect(manager.getEntries()).toHaveLength(lines.length - 1)
  })

  it('reads back in Tangent: the same texts, a session per branch', () => {
    const tree = readPiSession(`${exported.lines.join('\n')}\n`)
    expect(tree.problems).toEqual([])
    expect(tree.title).toBe('The fork')
    const plan = planImport(tree, { defaultModel: 'demo:scripted', now: context.now })
    // Two root-to-leaf paths: the root's line, and the fork's continued by the grandchild (forked
    // at the fork's last event, it adds to that path in pi's tree rather than branching from it).
    expect(plan.sessions).toHaveLength(2)
    const userTexts = tree.entries
      .filter((entry) => entry.kind === 'user')
      .map((entry) => entry.kind === 'user' && entry.text)
    expect(userTexts.sort()).toEqual(['Fork question', 'Grandchild question', 'Make a.txt', 'Root second'])
    const calls = tree.entries.flatMap((entry) => (entry.kind === 'assistant' ? entry.toolCalls : []))
    expect(calls).toEqual([
      { id: 'toolu_1', name: 'write', input: { path: 'a.txt', content: 'one\n' }, sourceName: 'write' },
      { id: 'toolu_2', name: 'bash', input: { command: 'cat a.txt', timeoutMs: 1500 }, sourceName: 'bash' },
    ])
  })
})

function writeFile(lines: readonly string[]): string {
  const file = path.join(temp(), 'session.jsonl')
  fs.writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

describe('exportPi: hostile content', () => {
  it('keeps newlines, separators, quotes, lone surrogates and huge outputs on one line each', () => {
    const store = new SessionStore({ now: () => clock })
    const session = store.create(siblingId, { meta: { cwd: '/home/ünï côdé/dir with spaces/x:y' } })
    const nasty = 'line one\nline two\r\n\u2028\u2029 "quoted" \\ back\u0000nul \ud800 lone </script>'
    const huge = 'x'.repeat(6 * 1024 * 1024)
    turn(session, nasty, [
      {
        content: [call('call id with spaces/and|pipes ✓', 'read', { path: nasty })],
        results: [{ callId: 'call id with spaces/and|pipes ✓', toolName: 'read', output: huge }],
        finishReason: 'tool-calls',
      },
      { content: [text(nasty)] },
    ])
    const exported = exportPi(session, session.lastSeq, context)
    expect(exported.lines.every((line) => !line.includes('\n'))).toBe(true)
    const entries = parse(exported.lines)
    expect(entries).toHaveLength(exported.lines.length)
    // The folder is one path segment under sessions/, whatever the cwd holds.
    const segments = exported.file.path.split('/')
    expect(segments).toHaveLength(3)
    expect(segments[1]).toBe('--home-ünï côdé-dir with spaces-x-y--')
    const context1 = piContext(exported.lines)
    expect(context1[0]).toBe(`user: ${nasty}`)
    expect(context1[1]).toBe('assistant: [read call id with spaces/and|pipes ✓]')
    expect(context1[2]).toBe(`result call id with spaces/and|pipes ✓: ${huge}`)
    const tree = readPiSession(`${exported.lines.join('\n')}\n`)
    const user = tree.entries.find((entry) => entry.kind === 'user')
    expect(user?.kind === 'user' && user.text).toBe(nasty)
  })

  it("keeps a cwd of dots inside pi's sessions folder", () => {
    const store = new SessionStore({ now: () => clock })
    const session = store.create(siblingId, { meta: { cwd: '/../../etc/..' } })
    turn(session, 'hi', [{ content: [text('hello')] }])
    const { path: file } = exportPi(session, session.lastSeq, context).file
    expect(file.split('/')).toHaveLength(3)
    expect(path.posix.normalize(file).startsWith('sessions/')).toBe(true)
  })

  it('carries images, names other files, leaves out an empty user message', () => {
    const store = new SessionStore({ now: () => clock })
    const session = store.create(siblingId, { meta: { cwd: '/w' } })
    session.append('turn/start', {}, tick())
    session.append('user/message', { content: [] }, tick())
    session.append('turn/end', { reason: 'interrupted' }, tick())
    session.append('turn/start', {}, tick())
    session.append(
      'user/message',
      {
        content: [
          text('go'),
          { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=' },
        ],
      },
      tick(),
    )
    session.append('step/start', {}, tick())
    session.append('assistant/message', { content: [call('c1', 'task', { prompt: 'sub' })] }, tick())
    session.append(
      'tool/result',
      { callId: 'c1', toolName: 'task', output: { ok: true }, isError: false },
      tick(),
    )
    session.append('step/end', { finishReason: 'tool-calls' }, tick())
    session.append('turn/end', { reason: 'aborted' }, tick())
    const entries = parse(exportPi(session, session.lastSeq, context).lines)
    const messages = entries.filter((entry) => entry.type === 'message').map((entry) => entry.message)
    expect(messages).toMatchObject([
      {
        role: 'user',
        content: [
          text('go'),
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
          text('[attached application/pdf, not exported]'),
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 'c1', name: 'task', arguments: { prompt: 'sub' } }],
      },
      {
        role: 'toolResult',
        toolCallId: 'c1',
        toolName: 'task',
        isError: false,
        content: [text('{"ok":true}')],
      },
    ])
  })

  it('writes a time no Date can hold as the epoch, a creation time none can hold as now', () => {
    const store = new SessionStore({ now: () => clock })
    const session = store.create(siblingId, { meta: { cwd: '/w', createdAt: Number.NaN } })
    session.append('model/selection', { provider: 'openai', model: 'gpt-5' }, 1e20)
    const exported = exportPi(session, session.lastSeq, context)
    const [header, change] = parse(exported.lines)
    expect(header).toMatchObject({ timestamp: new Date(context.now).toISOString() })
    expect(change).toMatchObject({ type: 'model_change', timestamp: '1970-01-01T00:00:00.000Z' })
    expect(exported.file.path).toContain(new Date(context.now).toISOString().replace(/[:.]/g, '-'))
  })

  it('exports through throughSeq only', () => {
    const { fork } = makeTree()
    const lines = exportPi(fork, fork.header.forkedAt!, context).lines
    expect(lines.join('\n')).not.toContain('Fork question')
    expect(piContext(lines).at(-1)).toBe('assistant: a.txt says one.')
  })
})

describe('exportPi: compaction, summaries, thinking', () => {
  it('writes a compaction that keeps what Tangent keeps after throughSeq', () => {
    const store = new SessionStore({ now: () => clock })
    const session = store.create(siblingId, { meta: { cwd: '/w' } })
    session.append('model/selection', { provider: 'openai', model: 'gpt-5', reasoningEffort: 'high' }, tick())
    turn(session, 'first', [{ content: [text('one')] }])
    const through = session.lastSeq
    turn(session, 'second', [{ content: [text('two')] }])
    session.append(
      'context/compacted',
      {
        summary: 'They said first.',
        throughSeq: through,
        model: 'openai:gpt-5',
        trigger: 'manual',
        tokensBefore: 900,
      },
      tick(),
    )
    session.append('import/branch-summary', { entryId: 'x', text: 'The other branch tried B.' }, tick())
    turn(session, 'third', [{ content: [text('three')] }])
    const lines = exportPi(session, session.lastSeq, context).lines
    const entries = parse(lines)
    expect(entries.find((entry) => entry.type === 'thinking_level_change')).toMatchObject({
      thinkingLevel: 'high',
    })
    expect(entries.find((entry) => entry.type === 'compaction')).toMatchObject({
      summary: 'They said first.',
      tokensBefore: 900,
    })
    expect(piContext(lines)).toEqual([
      'compactionSummary: They said first.',
      'user: second',
      'assistant: two',
      'branchSummary: The other branch tried B.',
      'user: third',
      'assistant: three',
    ])
  })
})

describe('a pi tree through Tangent and back (Runtime: import, then export --format pi)', () => {
  it('gives pi the context of every branch of the fixture, branch summary included', async () => {
    const home = temp()
    const work = temp()
    const runtime = await Runtime.open({ home, startFolder: work, env: {}, report: () => {} })
    try {
      const fixture = fs.readFileSync(path.join(piFixtures, 'branched.jsonl'), 'utf8')
      const original = parseSessionEntries(fixture).slice(1) as { id: string; parentId: string | null }[]
      const leaves = original.filter((entry) => !original.some((other) => other.parentId === entry.id))
      const expected = leaves.map((leaf) =>
        describeContext(buildSessionContext(original as never, leaf.id).messages),
      )
      const imported = await runtime.importFile({ content: fixture, fileName: 'branched.jsonl', cwd: work })
      expect(imported.sessions).toHaveLength(3)
      const got: string[][] = []
      for (const session of imported.sessions) {
        const page = await runtime.exportSession({ sessionId: session.id, format: 'pi' })
        expect(page.nextCursor).toBeUndefined()
        expect(page.file).toMatchObject({ tool: 'pi' })
        const lines = page.content.trimEnd().split('\n')
        got.push(piContext(lines))
        // Each export holds the whole tree: every branch's texts.
        for (const words of ['Taken on npm.', 'Then \\"tangent\\".', 'Another answer to the first question.'])
          expect(page.content).toContain(words)
      }
      expect(got.sort()).toEqual(expected.sort())
    } finally {
      await runtime.close()
    }
  })
})

describe('the tools fixture through Tangent and back', () => {
  it("keeps every call's id and pi name and input, pi's thinking levels and an extension's entry", async () => {
    const home = temp()
    const work = temp()
    const runtime = await Runtime.open({ home, startFolder: work, env: {}, report: () => {} })
    try {
      const fixture = fs.readFileSync(path.join(piFixtures, 'tools.jsonl'), 'utf8')
      const calls = (entries: { type: string; message?: { role: string; content: unknown } }[]) =>
        entries.flatMap((entry) =>
          entry.type === 'message' && entry.message?.role === 'assistant'
            ? (entry.message.content as { type: string; id: string; name: string; arguments: unknown }[])
                .filter((block) => block.type === 'toolCall')
                .map((block) => ({ id: block.id, name: block.name, arguments: block.arguments }))
            : [],
        )
      const before = calls(parseSessionEntries(fixture) as never)
      const imported = await runtime.importFile({ content: fixture, fileName: 'tools.jsonl', cwd: work })
      const page = await runtime.exportSession({ sessionId: imported.sessions[0]!.id, format: 'pi' })
      const entries = parseSessionEntries(page.content) as unknown as {
        type: string
        [key: string]: unknown
      }[]
      const after = calls(entries as never)
      expect(after.map((call) => `${call.id} ${call.name}`)).toEqual(
        before.map((call) => `${call.id} ${call.name}`),
      )
      // A literal grep came in as an escaped pattern (Tangent's grep has no `literal`); the rest as pi wrote them.
      const literal = (list: typeof before) => list.filter((call) => call.id !== 'toolu_grep1')
      expect(literal(after)).toEqual(literal(before))
      expect(after.find((call) => call.id === 'toolu_grep1')!.arguments).toEqual({
        pattern: 'a\\.b',
        path: 'src',
        glob: '*.ts',
      })
      expect(
        entries.filter((entry) => entry.type === 'thinking_level_change').map((entry) => entry.thinkingLevel),
      ).toEqual(['medium', 'high'])
      expect(entries.find((entry) => entry.type === 'custom')).toMatchObject({
        customType: 'my-extension',
        data: { count: 42 },
      })
    } finally {
      await runtime.close()
    }
  })
})

describe('exportPiToolCall', () => {
  it.each([
    ['read', { path: 'a', offset: 2, limit: 3 }, 'read', { path: 'a', offset: 2, limit: 3 }],
    ['write', { path: 'a', content: 'x' }, 'write', { path: 'a', content: 'x' }],
    [
      'write',
      { path: 'a', content: 'x', append: true },
      'tangent_write',
      { path: 'a', content: 'x', append: true },
    ],
    [
      'edit',
      { path: 'a', oldText: 'o', newText: 'n' },
      'edit',
      { path: 'a', edits: [{ oldText: 'o', newText: 'n' }] },
    ],
    [
      'edit',
      { path: 'a', oldText: 'o', newText: 'n', replaceAll: true },
      'tangent_edit',
      { path: 'a', oldText: 'o', newText: 'n', replaceAll: true },
    ],
    ['bash', { command: 'ls', timeoutMs: 2000 }, 'bash', { command: 'ls', timeout: 2 }],
    ['bash', { command: 'ls', timeoutMs: -1 }, 'tangent_bash', { command: 'ls', timeoutMs: -1 }],
    [
      'grep',
      { pattern: 'a.b', include: '*.ts', ignoreCase: true },
      'grep',
      { pattern: 'a.b', glob: '*.ts', ignoreCase: true },
    ],
    ['list', { path: 'src' }, 'ls', { path: 'src' }],
    ['list', { recursive: true }, 'list', { recursive: true }],
    ['task', { prompt: 'p' }, 'task', { prompt: 'p' }],
    ['pi_grep', { pattern: 'x', context: 2 }, 'grep', { pattern: 'x', context: 2 }],
    ['find', { pattern: '*.ts' }, 'find', { pattern: '*.ts' }],
    ['read', 'not an object', 'tangent_read', 'not an object'],
    ['__proto__', { path: 'a' }, '__proto__', { path: 'a' }],
    ['mcp__x__y', null, 'mcp__x__y', {}],
  ])('%s %j → %s %j', (name, input, piName, args) => {
    expect(exportPiToolCall(name, input)).toEqual({ name: piName, arguments: args })
  })
})

describe('piSessionUuid', () => {
  it("is a UUIDv7 carrying the ULID's time, stable, distinct per id", () => {
    const uuid = piSessionUuid(rootId)
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(piSessionUuid(rootId)).toBe(uuid)
    expect(piSessionUuid(forkId)).not.toBe(uuid)
    // The first 48 bits are the ULID's milliseconds.
    expect(Number.parseInt(uuid.replace(/-/g, '').slice(0, 12), 16)).toBe(decodeTime(rootId))
    // Another id is hashed: a version-8 UUID.
    expect(piSessionUuid('not-a-ulid_id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
  })
})

function decodeTime(ulid: string): number {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  return [...ulid.slice(0, 10)].reduce((value, char) => value * 32 + alphabet.indexOf(char), 0)
}
