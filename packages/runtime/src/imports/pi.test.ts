// The pi reader (issue 31) against files pi's own SessionManager wrote: the committed fixtures
// (test/fixtures/imports/pi, pi-coding-agent 0.73.1) and a set written fresh by the installed pi.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { SessionManager } from '@mariozechner/pi-coding-agent'
import { TangentError } from '@tangent/core'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { tempDirs } from '../temp-dirs.test-helper.js'
import type { ImportedEntry, ImportedTree } from './imported-tree.js'
import { readPiSession } from './pi.js'
import { piSessionDirName, piSessionFiles } from './pi-session-files.js'

const temp = tempDirs('tangent-pi-import-')
const fixturesDir = path.resolve(import.meta.dirname, '../../../../test/fixtures/imports/pi')
const fixtureNames = ['tools', 'branched', 'compacted'] as const
type Fixtures = Record<(typeof fixtureNames)[number], string>

/** The committed fixtures, or a set written now by the installed pi (the same script). */
async function freshFixtures(): Promise<Fixtures> {
  const script = path.join(fixturesDir, 'make-fixtures.mjs')
  const { makePiFixtures } = (await import(script)) as { makePiFixtures: (dir: string) => Fixtures }
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-pi-fresh-')))
  try {
    const written = makePiFixtures(dir)
    const texts = {} as Fixtures
    for (const name of fixtureNames) texts[name] = fs.readFileSync(written[name], 'utf8')
    return texts
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

function committedFixtures(): Fixtures {
  const texts = {} as Fixtures
  for (const name of fixtureNames)
    texts[name] = fs.readFileSync(path.join(fixturesDir, `${name}.jsonl`), 'utf8')
  return texts
}

type Kind = ImportedEntry['kind']
type EntryOf<K extends Kind> = Extract<ImportedEntry, { kind: K }>

function ofKind<K extends Kind>(tree: ImportedTree, kind: K): EntryOf<K>[] {
  return tree.entries.filter((entry): entry is EntryOf<K> => entry.kind === kind)
}

function userEntry(tree: ImportedTree, text: string): EntryOf<'user'> {
  const found = ofKind(tree, 'user').find((entry) => entry.text === text)
  if (!found) throw new Error(`no user entry ${JSON.stringify(text)}`)
  return found
}

function call(tree: ImportedTree, id: string) {
  for (const entry of ofKind(tree, 'assistant')) {
    const found = entry.toolCalls.find((toolCall) => toolCall.id === id)
    if (found) return found
  }
  throw new Error(`no tool call ${id}`)
}

const childrenOf = (tree: ImportedTree, id: string) => tree.entries.filter((entry) => entry.parentId === id)

/** The ids from the root down to `id`. */
function ancestry(tree: ImportedTree, id: string): string[] {
  const byId = new Map(tree.entries.map((entry) => [entry.id, entry]))
  const chain: string[] = []
  for (let at = byId.get(id); at; at = at.parentId === null ? undefined : byId.get(at.parentId))
    chain.unshift(at.id)
  return chain
}

function nonEmptyLines(text: string) {
  return text.split('\n').filter((line) => line.trim() !== '')
}

describe.each([
  ['committed fixtures', async () => committedFixtures()],
  ['a session written now by pi', freshFixtures],
])('readPiSession on %s', (_, load) => {
  let fixtures: Fixtures
  beforeAll(async () => {
    fixtures = await load()
  })

  it('reads the header, every entry in file order and no problem', () => {
    const text = fixtures.tools
    const header = JSON.parse(nonEmptyLines(text)[0]!)
    const tree = readPiSession(text)
    expect(tree).toMatchObject({
      source: 'pi',
      sourceId: header.id,
      sourceVersion: '3',
      cwd: '/home/ada/project',
    })
    expect(tree.problems).toEqual([])
    expect(tree.entries).toHaveLength(nonEmptyLines(text).length - 1)
    expect(tree.entries.map((entry) => entry.line)).toEqual(tree.entries.map((_, index) => index + 2))
    // One line of history: each entry follows the one before it.
    expect(tree.entries[0]!.parentId).toBeNull()
    for (let index = 1; index < tree.entries.length; index++)
      expect(tree.entries[index]!.parentId).toBe(tree.entries[index - 1]!.id)
    expect(tree.entries.every((entry) => typeof entry.time === 'number' && entry.time > 1.7e12)).toBe(true)
    expect(tree.title).toBe('Fix README typo')
    expect(tree.model).toBe('anthropic:claude-sonnet-4-5')
    expect(tree.entries.map((entry) => (entry.kind === 'unknown' ? entry.type : entry.kind))).toEqual([
      'model_change',
      'thinking_level_change',
      'user',
      'assistant',
      'tool-result',
      'assistant',
      'tool-result',
      'assistant',
      'tool-result',
      'tool-result',
      'assistant',
      'tool-result',
      'assistant',
      'tool-result',
      'tool-result',
      'tool-result',
      'tool-result',
      'assistant',
      'model_change',
      'thinking_level_change',
      'user',
      'assistant',
      'user', // the user's own `!git status --short`
      'session_info',
      'assistant',
      'label',
      'custom',
      'custom_message',
    ])
  })

  it('reads an assistant message: text, thinking, tool calls, model and usage', () => {
    const tree = readPiSession(fixtures.tools)
    const [first] = ofKind(tree, 'assistant')
    expect(first).toMatchObject({
      text: 'Let me look at the README.',
      reasoning: 'I should read the README first.',
      model: 'anthropic:claude-sonnet-4-5',
      usage: { inputTokens: 1200, outputTokens: 80, cachedInputTokens: 300 },
      toolCalls: [
        {
          id: 'toolu_read1',
          name: 'read',
          sourceName: 'read',
          input: { path: 'README.md', offset: 1, limit: 50 },
        },
      ],
    })
  })

  it("maps pi's tools to Tangent's where every field corresponds, and keeps the rest as pi wrote them", () => {
    const tree = readPiSession(fixtures.tools)
    expect(call(tree, 'toolu_edit1')).toEqual({
      id: 'toolu_edit1',
      name: 'edit',
      sourceName: 'edit',
      input: { path: 'README.md', oldText: 'Projcet', newText: 'Project' },
    })
    // Two replacements in one call: Tangent's edit takes one, so it stays pi's, under a name of its own.
    expect(call(tree, 'toolu_edit2')).toMatchObject({ name: 'pi_edit', sourceName: 'edit' })
    expect((call(tree, 'toolu_edit2').input as { edits: unknown[] }).edits).toHaveLength(2)
    expect(call(tree, 'toolu_write1')).toMatchObject({
      name: 'write',
      input: { path: 'NOTES.md', content: 'fixed typo\n' },
    })
    expect(call(tree, 'toolu_bash1')).toMatchObject({
      name: 'bash',
      input: { command: 'npm test', timeoutMs: 60_000 },
    })
    expect(call(tree, 'toolu_grep1')).toMatchObject({
      name: 'grep',
      input: { pattern: 'a\\.b', path: 'src', include: '*.ts' },
    })
    expect(call(tree, 'toolu_grep2')).toEqual({
      id: 'toolu_grep2',
      name: 'pi_grep',
      sourceName: 'grep',
      input: { pattern: 'TODO', context: 2 },
    })
    expect(call(tree, 'toolu_find1')).toEqual({
      id: 'toolu_find1',
      name: 'find',
      input: { pattern: '*.test.ts' },
    })
    expect(call(tree, 'toolu_ls1')).toEqual({
      id: 'toolu_ls1',
      name: 'list',
      sourceName: 'ls',
      input: { path: 'src' },
    })
  })

  it('pairs every tool result with a call on its path, under the name the call was given', () => {
    const tree = readPiSession(fixtures.tools)
    const results = ofKind(tree, 'tool-result')
    expect(results).toHaveLength(9)
    for (const result of results) {
      const path = ancestry(tree, result.id)
      const caller = ofKind(tree, 'assistant').find((entry) =>
        entry.toolCalls.some((toolCall) => toolCall.id === result.callId),
      )
      expect(caller, result.callId).toBeDefined()
      expect(path).toContain(caller!.id)
      expect(result.toolName).toBe(caller!.toolCalls.find((toolCall) => toolCall.id === result.callId)!.name)
    }
    const bash = results.find((result) => result.callId === 'toolu_bash1')!
    expect(bash).toMatchObject({
      toolName: 'bash',
      isError: true,
      output: '1 failing\n\nCommand exited with code 1',
    })
    expect(results.find((result) => result.callId === 'toolu_grep2')!.toolName).toBe('pi_grep')
  })

  it('follows model changes, keeps them and the other records whole, reads images and user commands', () => {
    const tree = readPiSession(fixtures.tools)
    const changes = tree.entries.filter((entry) => entry.kind === 'unknown' && entry.type === 'model_change')
    expect(changes.map((entry) => (entry as EntryOf<'unknown'>).raw)).toMatchObject([
      { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
      { provider: 'openai', modelId: 'gpt-5' },
    ])
    const picture = userEntry(tree, 'What is in this picture?')
    expect(picture.images).toEqual([{ mediaType: 'image/png', data: 'iVBORw0KGgo=' }])
    expect(childrenOf(tree, picture.id)[0]).toMatchObject({
      kind: 'assistant',
      model: 'openai:gpt-5',
      text: 'A tiny PNG.',
    })
    expect(
      ofKind(tree, 'user').some((entry) => entry.text === 'Ran `git status --short`\n```\n M README.md\n```'),
    ).toBe(true)
    const custom = tree.entries.find(
      (entry) => entry.kind === 'unknown' && entry.type === 'custom',
    ) as EntryOf<'unknown'>
    expect(custom.raw).toMatchObject({ customType: 'my-extension', data: { count: 42 } })
    const label = tree.entries.find(
      (entry) => entry.kind === 'unknown' && entry.type === 'label',
    ) as EntryOf<'unknown'>
    expect(label.raw).toMatchObject({ label: 'aborted here' })
  })

  it('reads a branch as two children of one parent, with the branch summary at the head of one', () => {
    const tree = readPiSession(fixtures.branched)
    expect(tree.problems).toEqual([])
    const question = userEntry(tree, 'Pick a name for the library')
    const answers = childrenOf(tree, question.id)
    expect(answers.map((entry) => (entry as EntryOf<'assistant'>).text)).toEqual([
      'How about "tangle"?',
      'Another answer to the first question.',
    ])
    const branchPoint = childrenOf(tree, answers[0]!.id)
    expect(branchPoint).toHaveLength(2)
    expect(branchPoint[0]).toMatchObject({ kind: 'user', text: 'Try approach A: check npm' })
    expect(branchPoint[1]).toMatchObject({
      kind: 'summary',
      summaryOf: 'branch',
      text: 'Approach A found "tangle" taken on npm.',
    })
    const afterSummary = childrenOf(tree, branchPoint[1]!.id)
    expect(afterSummary).toMatchObject([{ kind: 'user', text: 'Try approach B instead' }])
    expect(childrenOf(tree, afterSummary[0]!.id)).toMatchObject([
      { kind: 'assistant', text: 'Then "tangent".' },
    ])
    // The abandoned branch is all there.
    const abandoned = ancestry(
      tree,
      ofKind(tree, 'assistant').find((entry) => entry.text === 'Taken on npm.')!.id,
    )
    expect(abandoned).toContain(branchPoint[0]!.id)
  })

  it('reads a compaction as a summary entry in its place', () => {
    const tree = readPiSession(fixtures.compacted)
    expect(tree.problems).toEqual([])
    expect(tree.entries.map((entry) => entry.kind)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'summary',
      'user',
      'assistant',
    ])
    expect(tree.entries[4]).toMatchObject({
      kind: 'summary',
      summaryOf: 'compaction',
      text: 'The user asked about the build (tsc) and tests (vitest).',
      parentId: tree.entries[3]!.id,
    })
  })
})

describe('readPiSession on damaged and hostile files', () => {
  const tools = () => fs.readFileSync(path.join(fixturesDir, 'tools.jsonl'), 'utf8')
  const expectCode = (run: () => unknown, code: string, message: RegExp) => {
    let thrown: unknown
    try {
      run()
    } catch (error) {
      thrown = error
    }
    expect(TangentError.hasCode(thrown, code as never), String(thrown)).toBe(true)
    expect((thrown as Error).message).toMatch(message)
  }

  it('reports a malformed line by its number and reads the rest', () => {
    const lines = tools().split('\n')
    const damaged = [...lines.slice(0, 4), '{"type":"message","id":', '[1,2]', ...lines.slice(4)].join('\n')
    const tree = readPiSession(damaged)
    expect(tree.problems).toEqual([
      { line: 5, message: expect.stringMatching(/^not JSON/) },
      { line: 6, message: expect.stringMatching(/not a pi session entry/) },
    ])
    expect(tree.entries).toHaveLength(readPiSession(tools()).entries.length)
    expect(tree.entries[3]!.line).toBe(7)
  })

  it('keeps the first of two entries with one id, and reads an entry whose parent is missing as a root', () => {
    const lines = tools().trimEnd().split('\n')
    const third = JSON.parse(lines[3]!)
    const orphan = { ...third, id: 'orphan01', parentId: 'nowhere0' }
    const tree = readPiSession([...lines, lines[3], JSON.stringify(orphan)].join('\n'))
    expect(tree.problems).toEqual([
      { line: lines.length + 1, message: expect.stringMatching(/appears earlier/) },
      {
        line: lines.length + 2,
        message: expect.stringMatching(/"nowhere0" is not in the file; read as a root/),
      },
    ])
    expect(tree.entries.filter((entry) => entry.id === third.id)).toHaveLength(1)
    expect(tree.entries.find((entry) => entry.id === 'orphan01')!.parentId).toBeNull()
  })

  it('keeps a message of an unexpected shape as an unknown record, and says so', () => {
    const header = tools().split('\n')[0]!
    const odd = {
      type: 'message',
      id: 'aa',
      parentId: null,
      timestamp: '2026-01-01T00:00:00Z',
      message: { role: 'user' },
    }
    const custom = {
      ...odd,
      id: 'bb',
      parentId: 'aa',
      message: { role: 'custom', customType: 'x', content: 'hi' },
    }
    const tree = readPiSession([header, JSON.stringify(odd), JSON.stringify(custom)].join('\n'))
    expect(tree.entries).toMatchObject([
      { id: 'aa', kind: 'unknown', type: 'message/user', raw: odd },
      { id: 'bb', kind: 'unknown', type: 'message/custom', raw: custom },
    ])
    expect(tree.problems).toEqual([
      { line: 2, message: expect.stringMatching(/user message of an unexpected shape/) },
    ])
  })

  it('refuses a version it was not tested with, naming the version and the tested ones', () => {
    const [header, ...rest] = tools().split('\n')
    const withVersion = (version: number | undefined) =>
      [JSON.stringify({ ...JSON.parse(header!), version }), ...rest].join('\n')
    expectCode(
      () => readPiSession(withVersion(2)),
      'unsupported-version',
      /^pi session version 2 is not supported \(tested: 3\)/,
    )
    expectCode(
      () => readPiSession(withVersion(4)),
      'unsupported-version',
      /pi session version 4 is not supported/,
    )
    // pi's own rule: a header without a version is version 1.
    expectCode(
      () => readPiSession(withVersion(undefined)),
      'unsupported-version',
      /version 1 is not supported/,
    )
  })

  it('refuses what is not a pi session file, clearly', () => {
    const claude =
      '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}'
    const codex = '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}'
    // Tangent's own log opens with a `session` header too; it has no `timestamp`.
    const tangent =
      '{"type":"session","version":1,"id":"abc","createdAt":1,"cwd":"/x","inheritedEventCount":0}'
    for (const text of [claude, codex, tangent])
      expectCode(
        () => readPiSession(text),
        'not-a-session-file',
        /^not a pi session file: its first line is not a pi session header/,
      )
    expectCode(() => readPiSession(''), 'not-a-session-file', /it is empty/)
    expectCode(() => readPiSession('\n \n'), 'not-a-session-file', /it is empty/)
    expectCode(() => readPiSession('\u0000\u0001PNG'), 'not-a-session-file', /first line is not JSON/)
  })

  it('takes `__proto__` keys and ids as plain data and pollutes nothing', () => {
    const header = tools().split('\n')[0]!
    const user = `{"type":"message","id":"__proto__","parentId":null,"timestamp":"2026-01-01T00:00:00Z","__proto__":{"polluted":1},"message":{"role":"user","content":"hi"}}`
    const assistant = `{"type":"message","id":"constructor","parentId":"__proto__","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a","__proto__":{"polluted":2}}},{"type":"toolCall","id":"c2","name":"__proto__","arguments":{}}],"provider":"p","model":"m"}}`
    const result = `{"type":"message","id":"toString","parentId":"constructor","timestamp":"2026-01-01T00:00:02Z","message":{"role":"toolResult","toolCallId":"hasOwnProperty","toolName":"__proto__","content":[{"type":"text","text":"x"}],"isError":false}}`
    const tree = readPiSession([header, user, assistant, result].join('\n'))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(tree.problems).toEqual([])
    expect(tree.entries.map((entry) => [entry.id, entry.parentId])).toEqual([
      ['__proto__', null],
      ['constructor', '__proto__'],
      ['toString', 'constructor'],
    ])
    const calls = (tree.entries[1] as EntryOf<'assistant'>).toolCalls
    // An input with a key Tangent's read does not take stays pi's, with the key as data.
    expect(calls[0]).toMatchObject({ name: 'pi_read', sourceName: 'read' })
    expect(Object.hasOwn(calls[0]!.input as object, '__proto__')).toBe(true)
    expect(calls[1]).toMatchObject({ name: '__proto__', input: {} })
    expect(tree.entries[2]).toMatchObject({
      kind: 'tool-result',
      callId: 'hasOwnProperty',
      toolName: '__proto__',
    })
  })

  it('reports a line over the limit without parsing it, and reads a large one whole', () => {
    const [header, ...rest] = tools().split('\n')
    const entry = (id: string, parentId: string | null, text: string) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId,
        timestamp: '2026-01-01T00:00:00Z',
        message: { role: 'user', content: text },
      })
    const big = 'x'.repeat(8 * 1024 * 1024)
    const first = entry('big1', null, big)
    const text = [header, first, entry('huge', 'big1', `${big}y`), ...rest].join('\n')
    const tree = readPiSession(text, { maxLineLength: first.length })
    expect(tree.problems).toEqual([
      {
        line: 3,
        message: expect.stringMatching(new RegExp(`over the ${first.length}-character limit; not read`)),
      },
    ])
    expect((tree.entries[0] as EntryOf<'user'>).text).toHaveLength(big.length)
    expect(tree.entries.some((entry) => entry.id === 'huge')).toBe(false)
    expect(tree.entries).toHaveLength(readPiSession(tools()).entries.length + 1)
    expectCode(
      () => readPiSession(`${'{'.repeat(100)}\n`, { maxLineLength: 50 }),
      'not-a-session-file',
      /first line is too long/,
    )
  })
})

describe('piSessionFiles', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  /** A session pi writes where it keeps them by default, with PI_CODING_AGENT_DIR set as given. */
  function writeWithPi(agentDir: string, cwd: string, text: string): string {
    vi.stubEnv('PI_CODING_AGENT_DIR', agentDir)
    try {
      const session = SessionManager.create(cwd)
      session.appendMessage({ role: 'user', content: text, timestamp: Date.now() })
      session.appendMessage({
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: {
          input: 1,
          output: 1,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 2,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: 'stop',
        timestamp: Date.now(),
      })
      return session.getSessionFile()!
    } finally {
      vi.unstubAllEnvs()
    }
  }

  /** A session pi writes into one flat session folder (as with --session-dir). */
  function writeFlat(sessionDir: string, cwd: string): string {
    const session = SessionManager.create(cwd, sessionDir)
    session.appendMessage({ role: 'user', content: 'hi', timestamp: Date.now() })
    session.appendMessage({
      role: 'assistant',
      content: [],
      api: 'a',
      provider: 'p',
      model: 'm',
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'stop',
      timestamp: Date.now(),
    })
    return session.getSessionFile()!
  }

  it("finds a folder's sessions where pi writes them, and every folder's with --all", async () => {
    const home = temp()
    const agentDir = path.join(home, '.pi', 'agent')
    const project = path.join(home, 'work', 'my:project')
    const other = path.join(home, 'other')
    const first = writeWithPi(agentDir, project, 'one')
    const second = writeWithPi(agentDir, other, 'two')
    expect(path.basename(path.dirname(first))).toBe(piSessionDirName(project))
    expect(piSessionDirName('/home/ada/my:project')).toBe('--home-ada-my-project--')

    expect(await piSessionFiles({ HOME: home }, project)).toEqual([first])
    expect(await piSessionFiles({ HOME: home }, null)).toEqual([first, second].sort())
    expect(await piSessionFiles({ HOME: home }, path.join(home, 'nothing-here'))).toEqual([])
    expect(await piSessionFiles({}, project)).toEqual([])
    expect(readPiSession(fs.readFileSync(first, 'utf8')).cwd).toBe(project)
  })

  it('honours PI_CODING_AGENT_DIR and PI_CODING_AGENT_SESSION_DIR (one folder for all, told apart by cwd)', async () => {
    const home = temp()
    const agentDir = path.join(home, 'elsewhere')
    const file = writeWithPi(agentDir, '/srv/app', 'x')
    expect(await piSessionFiles({ HOME: '/nonexistent', PI_CODING_AGENT_DIR: agentDir }, '/srv/app')).toEqual(
      [file],
    )
    expect(await piSessionFiles({ HOME: home, PI_CODING_AGENT_DIR: '~/elsewhere' }, null)).toEqual([file])

    const flat = path.join(home, 'flat')
    const inApp = writeFlat(flat, '/srv/app')
    writeFlat(flat, '/srv/other')
    fs.writeFileSync(path.join(flat, 'broken.jsonl'), 'not json\n')
    const env = { HOME: home, PI_CODING_AGENT_SESSION_DIR: flat, PI_CODING_AGENT_DIR: agentDir }
    expect(await piSessionFiles(env, '/srv/app')).toEqual([inApp])
    expect(await piSessionFiles(env, null)).toHaveLength(3)
  })

  it("honours sessionDir in pi's settings: the project's over the agent directory's", async () => {
    const home = temp()
    const agentDir = path.join(home, '.pi', 'agent')
    const project = path.join(home, 'project')
    const globalDir = path.join(home, 'global-sessions')
    const projectDir = path.join(home, 'project-sessions')
    fs.mkdirSync(agentDir, { recursive: true })
    fs.mkdirSync(path.join(project, '.pi'), { recursive: true })
    fs.writeFileSync(
      path.join(agentDir, 'settings.json'),
      JSON.stringify({ sessionDir: '~/global-sessions' }),
    )
    const inGlobal = writeFlat(globalDir, project)
    expect(await piSessionFiles({ HOME: home }, project)).toEqual([inGlobal])
    fs.writeFileSync(path.join(project, '.pi', 'settings.json'), JSON.stringify({ sessionDir: projectDir }))
    const inProject = writeFlat(projectDir, project)
    expect(await piSessionFiles({ HOME: home }, project)).toEqual([inProject])
    expect(await piSessionFiles({ HOME: home }, null)).toEqual([inGlobal])
    // A settings file that is not JSON is passed over, as pi does.
    fs.writeFileSync(path.join(project, '.pi', 'settings.json'), '{oops')
    expect(await piSessionFiles({ HOME: home }, project)).toEqual([inGlobal])
  })
})
