import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TangentError } from '@tangent/core'
import { describe, expect, test } from 'vitest'
import { readClaudeSession } from './claude.js'
import { claudeFolderKey, claudeSessionFiles } from './claude-files.js'
import type { ImportedEntry, ImportedTree } from './imported-tree.js'

// Files written by Claude Code itself (test/fixtures/imports/claude/make-fixtures.mjs, run by hand).
const fixtures = join(import.meta.dirname, '../../../../test/fixtures/imports/claude')
const fixture = (name: string) => readFileSync(join(fixtures, name), 'utf8')
/** The subagent file Claude Code wrote for subagent.jsonl (its name holds a random agent id). */
const agentFileName =
  readdirSync(join(fixtures, 'subagent/subagents')).find((name) => name.endsWith('.jsonl')) ?? ''
const agentId = agentFileName.replace(/^agent-/, '').replace(/\.jsonl$/, '')
const conversation = (tree: ImportedTree) => tree.entries.filter((entry) => entry.kind !== 'unknown')
const byId = (tree: ImportedTree) => new Map(tree.entries.map((entry) => [entry.id, entry]))
/** The ids from a root to the entry, by parentId. */
function pathTo(tree: ImportedTree, id: string): ImportedEntry[] {
  const entries = byId(tree)
  const path: ImportedEntry[] = []
  for (
    let entry = entries.get(id);
    entry !== undefined;
    entry = entry.parentId === null ? undefined : entries.get(entry.parentId)
  )
    path.unshift(entry)
  return path
}
function refusal(run: () => unknown): TangentError {
  try {
    run()
  } catch (error) {
    if (TangentError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a TangentError')
}

describe.each(['', '2.1.0/'])(
  'a Claude Code session with tools, a rewind branch and /compact (%s)',
  (folder) => {
    const tree = readClaudeSession(fixture(`${folder}tools-branch-compact.jsonl`), { fileName: 'x.jsonl' })

    test('the session, its version and folder', () => {
      expect(tree.source).toBe('claude')
      expect(tree.sourceId).toBe('11111111-1111-4111-8111-111111111111')
      expect(tree.sourceVersion).toBe(folder === '' ? '2.1.332' : '2.1.0')
      expect(tree.cwd).toMatch(/^\/tmp\/tangent-claude-fixtures.*\/project$/)
      expect(tree.model).toBe('anthropic:claude-sonnet-4-5')
      expect(tree.problems).toEqual([])
      // Every record is kept: each line is an entry's, but the content blocks of one API message
      // (one assistant record each) are one entry.
      const seenMessages = new Set<string>()
      const recordLines = fixture(`${folder}tools-branch-compact.jsonl`)
        .split('\n')
        .flatMap((line, index) => {
          if (line.trim() === '') return []
          const record = JSON.parse(line)
          const messageId = record.type === 'assistant' ? record.message?.id : undefined
          if (messageId !== undefined && seenMessages.has(messageId)) return []
          if (messageId !== undefined) seenMessages.add(messageId)
          return [index + 1]
        })
      expect(tree.entries.map((entry) => entry.line)).toEqual(recordLines)
      const ids = tree.entries.map((entry) => entry.id)
      expect(new Set(ids).size).toBe(ids.length)
      const lines = tree.entries.map((entry) => entry.line ?? 0)
      expect(lines).toEqual([...lines].sort((a, b) => a - b))
    })

    test('the messages in file order, tool calls mapped and their results paired', () => {
      const kinds = conversation(tree).map((entry) => entry.kind)
      expect(kinds.slice(0, 15)).toEqual([
        'user',
        'assistant', // thinking, text and Write: three records of one API message, one entry
        'tool-result',
        'assistant',
        'tool-result',
        'assistant',
        'tool-result',
        'assistant',
        'tool-result',
        'assistant', // Grep and Glob in parallel
        'tool-result',
        'tool-result',
        'assistant',
        'tool-result',
        'assistant',
      ])
      const first = conversation(tree)[1]
      if (first?.kind !== 'assistant') throw new Error('no assistant')
      expect(first.text).toBe("I'll create the file first.")
      expect(first.reasoning).toBe('The user wants a file made, read, edited and listed.')
      expect(first.usage).toEqual({ inputTokens: 120, outputTokens: 30, cachedInputTokens: 40 })
      expect(first.time).toBeGreaterThan(Date.parse('2026-01-01'))
      const calls = conversation(tree).flatMap((entry) => (entry.kind === 'assistant' ? entry.toolCalls : []))
      expect(calls.map(({ name, sourceName, input }) => ({ name, sourceName, input }))).toEqual([
        { name: 'write', sourceName: 'Write', input: { path: 'notes.txt', content: 'alpha\nbeta\n' } },
        { name: 'read', sourceName: 'Read', input: { path: 'notes.txt' } },
        {
          name: 'edit',
          sourceName: 'Edit',
          input: { path: 'notes.txt', oldText: 'beta', newText: 'gamma', replaceAll: false },
        },
        { name: 'bash', sourceName: 'Bash', input: { command: 'cat notes.txt && ls' } },
        { name: 'grep', sourceName: 'Grep', input: { pattern: 'gamma', path: '.' } },
        { name: 'Glob', sourceName: undefined, input: { pattern: '*.txt' } },
        { name: 'read', sourceName: 'Read', input: { path: 'missing.txt' } },
      ])
      const results = conversation(tree).flatMap((entry) => (entry.kind === 'tool-result' ? [entry] : []))
      expect(new Set(results.map((result) => result.callId))).toEqual(new Set(calls.map((call) => call.id)))
      for (const result of results)
        expect(result.toolName).toBe(calls.find((call) => call.id === result.callId)?.name)
      expect(results.find((result) => result.callId === 'toolu_bash_1')?.output).toContain('alpha\ngamma')
      const missing = results.find((result) => result.callId === 'toolu_read_2')
      expect(missing?.isError).toBe(true)
      expect(missing?.output).toMatch(/does not exist/)
    })

    test('parallel tool results follow one another, not a false branch', () => {
      const children = new Map<string | null, number>()
      for (const entry of tree.entries) children.set(entry.parentId, (children.get(entry.parentId) ?? 0) + 1)
      // Exactly one branching point in the file: the rewind.
      expect([...children.values()].filter((count) => count > 1)).toEqual([2])
    })

    test('the rewind: two prompts with one parent, each on its own path', () => {
      const second = conversation(tree).find(
        (entry) => entry.kind === 'user' && entry.text.includes('[[scenario:second]]'),
      )
      const branch = conversation(tree).find(
        (entry) => entry.kind === 'user' && entry.text.includes('[[scenario:branch]]'),
      )
      if (second === undefined || branch === undefined) throw new Error('prompts missing')
      expect(second.parentId).toBe(branch.parentId)
      const shared = pathTo(tree, second.parentId ?? '')
      const lastAssistant = shared.filter((entry) => entry.kind === 'assistant').at(-1)
      expect(lastAssistant?.kind === 'assistant' && lastAssistant.text).toMatch(/^Done:/)
      const answers = (id: string) =>
        tree.entries.filter(
          (entry) => entry.kind === 'assistant' && pathTo(tree, entry.id).some((step) => step.id === id),
        )
      expect(answers(second.id).map((entry) => entry.kind === 'assistant' && entry.text)).toEqual([
        'Second answer: the file has two lines.',
      ])
      expect(answers(branch.id).map((entry) => entry.kind === 'assistant' && entry.text)).toEqual([
        'Branch answer: rewound, this is the other way.',
      ])
    })

    test('/compact: the boundary joins the branch it compacted, then the summary', () => {
      const summary = tree.entries.find((entry) => entry.kind === 'summary')
      if (summary?.kind !== 'summary') throw new Error('no summary')
      expect(summary.summaryOf).toBe('compaction')
      expect(summary.text).toContain('it now says alpha and gamma')
      const path = pathTo(tree, summary.id)
      expect(path.at(-2)).toMatchObject({ kind: 'unknown', type: 'system/compact_boundary' })
      expect(path.some((entry) => entry.kind === 'user' && entry.text.includes('[[scenario:branch]]'))).toBe(
        true,
      )
      // The /compact command and its output are kept, not made prompts.
      const commands = tree.entries.filter(
        (entry) => entry.kind === 'unknown' && entry.type === 'user/command',
      )
      expect(commands.length).toBeGreaterThanOrEqual(2)
      expect(
        conversation(tree).some((entry) => entry.kind === 'user' && entry.text.includes('/compact')),
      ).toBe(false)
    })
  },
)

test('an image in a prompt', () => {
  const tree = readClaudeSession(fixture('image.jsonl'))
  const user = conversation(tree)[0]
  if (user?.kind !== 'user') throw new Error('no user entry')
  expect(user.text).toBe('What is this? [[scenario:image]]')
  expect(user.images).toEqual([{ mediaType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) }])
})

test('a subagent file becomes a subtree started by its Agent call', () => {
  const agentFile = `subagent/subagents/${agentFileName}`
  const tree = readClaudeSession(fixture('subagent.jsonl'), {
    subagents: [{ fileName: agentFileName, text: fixture(agentFile) }],
  })
  const call = conversation(tree).flatMap((entry) => (entry.kind === 'assistant' ? entry.toolCalls : []))[0]
  expect(call).toMatchObject({
    name: 'task',
    sourceName: 'Agent',
    input: { prompt: 'List the folder and report. [[scenario:sub]]' },
  })
  expect(tree.subtrees).toHaveLength(1)
  const subtree = tree.subtrees[0]
  expect(subtree?.startedBy).toBe(call?.id)
  expect(subtree?.tree.sourceId).toBe(`33333333-3333-4333-8333-333333333333/${agentId}`)
  expect(conversation(subtree?.tree as ImportedTree).map((entry) => entry.kind)).toEqual([
    'user',
    'assistant',
    'tool-result',
    'assistant',
  ])
})

test('sidechain records inside the main file become a subtree', () => {
  const lines = fixture('subagent.jsonl').split('\n').filter(Boolean)
  const sidechain = fixture(`subagent/subagents/${agentFileName}`).split('\n').filter(Boolean)
  const tree = readClaudeSession([...lines, ...sidechain].join('\n'))
  expect(tree.subtrees).toHaveLength(1)
  expect(tree.subtrees[0]?.startedBy).toBe('toolu_agent_1')
  expect(conversation(tree.subtrees[0]?.tree as ImportedTree).at(-1)).toMatchObject({
    kind: 'assistant',
    text: 'The folder holds notes.txt.',
  })
  // None of the sidechain's messages leak into the main conversation.
  expect(
    conversation(tree).some((entry) => entry.kind === 'user' && entry.text.includes('[[scenario:sub]]')),
  ).toBe(false)
})

test('a --fork-session copy: its own id, the copied history read as it is', () => {
  const tree = readClaudeSession(fixture('fork-session.jsonl'))
  expect(tree.sourceId).not.toBe('11111111-1111-4111-8111-111111111111')
  expect(tree.problems).toEqual([])
  expect(conversation(tree).at(-1)).toMatchObject({
    kind: 'assistant',
    text: 'Second answer: the file has two lines.',
  })
})

describe('bad input', () => {
  const text = fixture('2.1.0/tools-branch-compact.jsonl')
  const lines = text.split('\n')

  test('a malformed line is a problem with its number; the rest is read', () => {
    const broken = [...lines.slice(0, 3), '{"type":"user", truncated', ...lines.slice(3)].join('\n')
    const tree = readClaudeSession(broken)
    expect(tree.problems).toEqual([{ line: 4, message: expect.stringMatching(/^not JSON/) }])
    expect(conversation(tree)).toHaveLength(conversation(readClaudeSession(text)).length)
    const notRecord = readClaudeSession([lines[0], '[1,2]', '"text"', ...lines.slice(1)].join('\n'))
    expect(notRecord.problems.map((problem) => problem.line)).toEqual([2, 3])
  })

  test('an untested version is refused, naming the tested range', () => {
    for (const version of ['2.0.99', '2.1.333', '3.0.0', 'banana']) {
      const error = refusal(() =>
        readClaudeSession(text.replaceAll('"version":"2.1.0"', `"version":"${version}"`)),
      )
      expect(error.code).toBe('unsupported-version')
      expect(error.data).toEqual({ source: 'claude', version, tested: '2.1.0–2.1.332' })
      expect(error.message).toBe(
        `Claude Code session version ${version} is not supported (tested: 2.1.0–2.1.332)`,
      )
    }
  })

  test('an empty or non-Claude file is refused clearly', () => {
    for (const other of [
      '',
      '\n\n',
      'hello\nworld',
      '{"type":"session","version":3,"id":"x"}\n{"type":"message"}',
    ]) {
      const error = refusal(() => readClaudeSession(other, { fileName: 'other.jsonl' }))
      expect(error.code).toBe('not-a-session-file')
      expect(error.data).toEqual({ source: 'claude' })
      expect(error.message).toMatch(/^other\.jsonl is not a Claude Code session file/)
    }
  })

  test('a huge line is read; one over the limit is reported and skipped', () => {
    const big = 'x'.repeat(8_000_000)
    const record = {
      type: 'user',
      uuid: 'big',
      parentUuid: null,
      sessionId: 's',
      message: { role: 'user', content: big },
    }
    const tree = readClaudeSession(JSON.stringify(record))
    expect(conversation(tree)[0]).toMatchObject({ kind: 'user', text: big })
    const limited = readClaudeSession(`${lines[0]}\n${JSON.stringify(record)}`, { maxLineLength: 1000 })
    expect(limited.problems).toEqual([{ line: 2, message: expect.stringMatching(/over the limit of 1000/) }])
  })

  test('deep nesting and prototype keys are data, not structure', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    const hostile = [
      `{"type":"user","uuid":"__proto__","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi","__proto__":{"polluted":true}}}`,
      `{"type":"assistant","uuid":"constructor","parentUuid":"__proto__","sessionId":"s","message":{"id":"m","model":"x","content":[{"type":"tool_use","id":"__proto__","name":"Bash","input":{"__proto__":{"polluted":true},"command":"ls"}}]}}`,
      `{"type":"user","uuid":"u2","parentUuid":"constructor","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"__proto__","content":${deep}}]}}`,
      `{"type":"odd","uuid":"toString","parentUuid":"u2","sessionId":"s","nested":${deep}}`,
    ].join('\n')
    const tree = readClaudeSession(hostile)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect(tree.entries.map((entry) => [entry.id, entry.parentId, entry.kind])).toEqual([
      ['__proto__', null, 'user'],
      ['constructor', '__proto__', 'assistant'],
      ['u2', 'constructor', 'tool-result'],
      ['toString', 'u2', 'unknown'],
    ])
    const result = tree.entries[2]
    expect(result?.kind === 'tool-result' && result.toolName).toBe('bash')
  })
})

test('ids stay unique: a repeated uuid is a problem, a uuid shaped like a made-up id is renamed', () => {
  const user = (uuid: string, parentUuid: string | null, text: string) =>
    JSON.stringify({
      type: 'user',
      uuid,
      parentUuid,
      sessionId: 's',
      message: { role: 'user', content: text },
    })
  const tree = readClaudeSession(
    [
      user('line:2', null, 'one'),
      '{"type":"cost-state","sessionId":"s"}',
      user('line:2', null, 'again'),
      user('b', 'line:2', 'two'),
    ].join('\n'),
  )
  expect(tree.problems).toEqual([
    { line: 3, message: expect.stringMatching(/second record with uuid line:2/) },
  ])
  expect(tree.entries.map((entry) => [entry.id, entry.parentId])).toEqual([
    ['line:2', null],
    ['line:2@1', 'line:2'],
    ['b', 'line:2@1'],
  ])
})

test('a tool result made of blocks: texts kept, an image named', () => {
  const lines = [
    { type: 'user', uuid: 'u', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'look' } },
    {
      type: 'assistant',
      uuid: 'a',
      parentUuid: 'u',
      sessionId: 's',
      message: {
        id: 'm',
        model: 'claude-x',
        content: [{ type: 'tool_use', id: 'c', name: 'WebFetch', input: { url: 'u' } }],
      },
    },
    {
      type: 'user',
      uuid: 'r',
      parentUuid: 'a',
      sessionId: 's',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'c',
            is_error: true,
            content: [
              { type: 'text', text: 'first' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
            ],
          },
        ],
      },
    },
  ]
  const tree = readClaudeSession(lines.map((line) => JSON.stringify(line)).join('\n'))
  expect(tree.entries[1]).toMatchObject({
    kind: 'assistant',
    model: 'anthropic:claude-x',
    toolCalls: [{ id: 'c', name: 'WebFetch', input: { url: 'u' } }],
  })
  expect(tree.entries[2]).toMatchObject({
    kind: 'tool-result',
    callId: 'c',
    toolName: 'WebFetch',
    isError: true,
    output: 'first\n[image: image/png]',
  })
})

describe('claudeSessionFiles', () => {
  test("Claude Code's folder key, as its own files show", () => {
    expect(claudeFolderKey('/tmp/tangent-claude-fixtures/project')).toBe(
      '-tmp-tangent-claude-fixtures-project',
    )
    expect(claudeFolderKey('/tmp/tangent-claude-fixtures-2.1.0/project')).toBe(
      '-tmp-tangent-claude-fixtures-2-1-0-project',
    )
    // Claude Code 2.1.332 ran in this folder made this directory (a key over 200 characters: cut, then a hash).
    expect(claudeFolderKey(`/tmp/ic-long/${'deep-folder.name_'.repeat(14)}`)).toBe(
      `-tmp-ic-long-${'deep-folder-name-'.repeat(11)}-50eo3d`,
    )
    const long = `/home/${'a'.repeat(250)}`
    expect(claudeFolderKey(long)).toMatch(/^-home-a{194}-[0-9a-z]+$/)
    expect(claudeFolderKey(long)).not.toBe(claudeFolderKey(`${long}b`))
  })

  test("a folder's sessions (with subagents), all folders' sessions, nothing for an unknown folder", async () => {
    const home = await mkdtemp(join(tmpdir(), 'tangent-claude-files-'))
    try {
      const projects = join(home, '.claude', 'projects')
      const key = claudeFolderKey('/work/app')
      await mkdir(join(projects, key, 's1', 'subagents'), { recursive: true })
      await writeFile(join(projects, key, 's1.jsonl'), '')
      await writeFile(join(projects, key, 's2.jsonl'), '')
      await writeFile(join(projects, key, 's1', 'subagents', 'agent-a1.jsonl'), '')
      await writeFile(join(projects, key, 's1', 'subagents', 'agent-a1.meta.json'), '{}')
      await mkdir(join(projects, claudeFolderKey('/work/other')), { recursive: true })
      await writeFile(join(projects, claudeFolderKey('/work/other'), 's3.jsonl'), '')
      const app = await claudeSessionFiles({ HOME: home }, '/work/app')
      expect(app.map((file) => [file.sessionId, file.subagents.length])).toEqual([
        ['s1', 1],
        ['s2', 0],
      ])
      expect(app[0]?.subagents[0]).toBe(join(projects, key, 's1', 'subagents', 'agent-a1.jsonl'))
      expect((await claudeSessionFiles({ HOME: home }, null)).map((file) => file.sessionId)).toEqual([
        's1',
        's2',
        's3',
      ])
      expect(await claudeSessionFiles({ HOME: home }, '/work/none')).toEqual([])
      // CLAUDE_CONFIG_DIR wins over HOME.
      expect(
        await claudeSessionFiles({ HOME: home, CLAUDE_CONFIG_DIR: join(home, 'elsewhere') }, null),
      ).toEqual([])
      expect(
        (await claudeSessionFiles({ CLAUDE_CONFIG_DIR: join(home, '.claude') }, '/work/other'))[0]?.sessionId,
      ).toBe('s3')
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })
})

test('many children of an entry followed by many bookkeeping records: linear time', () => {
  const lines = [
    JSON.stringify({
      type: 'user',
      uuid: 'root',
      parentUuid: null,
      sessionId: 's',
      message: { content: 'x' },
    }),
  ]
  for (let index = 0; index < 20_000; index++) lines.push('{"type":"cost-state","sessionId":"s"}')
  for (let index = 0; index < 20_000; index++)
    lines.push(JSON.stringify({ type: 'attachment', uuid: `a${index}`, parentUuid: 'root', sessionId: 's' }))
  const started = performance.now()
  const tree = readClaudeSession(lines.join('\n'))
  expect(performance.now() - started).toBeLessThan(2000)
  // Each one hangs after the bookkeeping records, where the 20,000th of them ends.
  expect(new Set(tree.entries.slice(20_001).map((entry) => entry.parentId))).toEqual(new Set(['line:20001']))
})
