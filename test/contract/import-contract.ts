// Imports of another agent's conversation tree (docs/architecture.md, "Moving in and out"): the
// runtime's importTree makes the sessions (a Host's `session.import` reads the file and calls it),
// and from then on they are ordinary sessions through the front-end under test — shown, forked,
// continued with the demo model. Run by session-contract.ts against every front-end and store.
import { GrammarState, TangentError } from '@tangent/core'
import type {
  ImportedEntry,
  ImportedTree,
  ImportTreeOptions,
  ImportTreeResult,
  SessionApi,
} from '@tangent/runtime'
import { describe, expect, it } from 'vitest'

export interface ImportFixture {
  api: SessionApi
  /** The runtime's importTree behind the front-end (the Host's own runtime for a Host). */
  importTree(tree: ImportedTree, options?: ImportTreeOptions): Promise<ImportTreeResult>
}

const t0 = Date.UTC(2025, 0, 2, 10, 0, 0)

function tree(entries: ImportedEntry[], extra: Partial<ImportedTree> = {}): ImportedTree {
  return {
    source: 'claude',
    sourceId: 'src-1',
    cwd: null,
    model: 'anthropic:claude-sonnet-4-5',
    entries,
    subtrees: [],
    problems: [],
    ...extra,
  }
}

const user = (id: string, parentId: string | null, text: string, at = 0): ImportedEntry => ({
  kind: 'user',
  id,
  parentId,
  text,
  time: t0 + at * 1000,
})
const answer = (
  id: string,
  parentId: string | null,
  text: string,
  at = 0,
  extra: Partial<Extract<ImportedEntry, { kind: 'assistant' }>> = {},
): ImportedEntry => ({ kind: 'assistant', id, parentId, text, toolCalls: [], time: t0 + at * 1000, ...extra })

/** A linear session: a question, a tool call and its result, the answer; then a follow-up. */
function linear(): ImportedEntry[] {
  return [
    user('u1', null, 'What is in a.txt?', 0),
    answer('a1', 'u1', 'Let me read it.', 1, {
      reasoning: 'I should read the file.',
      toolCalls: [{ id: 'call-1', name: 'read', input: { path: 'a.txt' }, sourceName: 'Read' }],
      model: 'anthropic:claude-sonnet-4-5',
      usage: { inputTokens: 100, outputTokens: 20 },
    }),
    {
      kind: 'tool-result',
      id: 'r1',
      parentId: 'a1',
      callId: 'call-1',
      toolName: 'read',
      output: 'hello',
      isError: false,
      time: t0 + 2000,
    },
    answer('a2', 'r1', 'It says hello.', 3, { usage: { inputTokens: 130, outputTokens: 5 } }),
    user('u2', 'a2', 'Thanks!', 4),
    answer('a3', 'u2', 'You are welcome.', 5),
  ]
}

export function importContract(fixture: () => ImportFixture, tempDir: (prefix?: string) => string): void {
  const api = () => fixture().api
  const events = async (sessionId: string) => (await api().call('session.get', { sessionId })).events
  const types = async (sessionId: string) => (await events(sessionId)).map((event) => event.type)
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise
    } catch (error) {
      if (TangentError.isInstance(error)) return { code: error.code, message: error.message }
      throw error
    }
    throw new Error('expected the import to fail')
  }

  describe('imports', () => {
    it('a linear session with a tool call becomes one session whose events follow the grammar, times kept', async () => {
      const work = tempDir('tangent-import-')
      const result = await fixture().importTree(tree(linear(), { cwd: work, title: 'Reading a.txt' }))
      expect(result.problems).toEqual([])
      expect(result.sessions).toEqual([
        { id: expect.any(String), source: 'claude', sourceId: 'src-1', created: true },
      ])
      const id = result.sessions[0]!.id
      const got = await api().call('session.get', { sessionId: id })
      expect(got.session).toMatchObject({
        title: 'Reading a.txt',
        cwd: work,
        origin: 'user',
        parentSession: null,
        imported: { source: 'claude', sourceId: 'src-1' },
      })
      expect(got.session.model).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' })
      expect(got.session.createdAt).toBe(t0)
      expect(got.events.map((event) => event.type)).toEqual([
        'model/selection',
        'session/title',
        'turn/start',
        'user/message',
        'step/start',
        'assistant/message',
        'tool/result',
        'step/end',
        'step/start',
        'assistant/message',
        'step/end',
        'turn/end',
        'turn/start',
        'user/message',
        'step/start',
        'assistant/message',
        'step/end',
        'turn/end',
      ])
      const grammar = new GrammarState()
      for (const event of got.events) grammar.accept(event.seq, event.type, event.data)
      expect(grammar.phase).toBe('idle')
      expect(got.events[3]).toMatchObject({
        time: t0,
        data: { content: [{ type: 'text', text: 'What is in a.txt?' }] },
      })
      expect(got.events[5]).toMatchObject({
        time: t0 + 1000,
        data: {
          content: [
            { type: 'reasoning', text: 'I should read the file.' },
            { type: 'text', text: 'Let me read it.' },
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'read', input: { path: 'a.txt' } },
          ],
        },
      })
      expect(got.events[6]).toMatchObject({
        time: t0 + 2000,
        data: { callId: 'call-1', toolName: 'read', output: 'hello', isError: false },
      })
      expect(got.events[7]?.data).toEqual({
        finishReason: 'tool-calls',
        usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
      })
      expect(got.events[11]?.data).toEqual({ reason: 'completed' })
      expect(got.events[17]).toMatchObject({ time: t0 + 5000, data: { reason: 'completed' } })
      expect(got.usage?.total.inputTokens).toBe(230)
    })

    it('a branch between turns becomes a fork after the shared turn; the tree lists both', async () => {
      const entries = [
        ...linear(),
        user('u3', 'a2', 'Now write b.txt instead', 6),
        answer('a4', 'u3', 'Done.', 7),
      ]
      const result = await fixture().importTree(tree(entries))
      expect(result.sessions).toHaveLength(2)
      const [main, branch] = result.sessions
      expect(branch).toMatchObject({ parentSession: main!.id, branchOf: 'a2', created: true })
      const child = await api().call('session.get', { sessionId: branch!.id })
      // The fork inherits through the first turn's turn/end (seq 11).
      expect(child.session).toMatchObject({ parentSession: main!.id, forkedAt: 11, origin: 'fork' })
      expect(child.session.title).toMatch(/ · branch 1$/)
      expect(child.session.imported).toEqual({ source: 'claude', sourceId: 'src-1', branchOf: 'a2' })
      const own = child.events.slice(12)
      expect(own.map((event) => event.type)).toEqual([
        'turn/start',
        'user/message',
        'step/start',
        'assistant/message',
        'step/end',
        'turn/end',
        'session/title',
      ])
      expect(own[1]?.data).toEqual({ content: [{ type: 'text', text: 'Now write b.txt instead' }] })
      const listed = await api().call('session.list', {})
      expect(listed.find((s) => s.id === branch!.id)).toMatchObject({ parentSession: main!.id, forkedAt: 11 })
    })

    it('a branch inside a turn (two answers to one message) forks before that turn and replays it', async () => {
      const entries = [
        user('u1', null, 'Pick a name', 0),
        answer('a1', 'u1', 'Alice', 1),
        answer('a1b', 'u1', 'Bob', 2),
      ]
      const result = await fixture().importTree(tree(entries, { sourceId: 'mid-turn' }))
      const [main, branch] = result.sessions
      expect(branch).toMatchObject({ parentSession: main!.id, branchOf: 'u1' })
      const child = await api().call('session.get', { sessionId: branch!.id })
      // Before the turn: the model selection and title (seqs 0, 1) only.
      expect(child.session.forkedAt).toBe(1)
      expect(child.events.slice(2).map((event) => event.type)).toEqual([
        'turn/start',
        'user/message',
        'step/start',
        'assistant/message',
        'step/end',
        'turn/end',
        'session/title',
      ])
      expect(child.events[3]?.data).toEqual({ content: [{ type: 'text', text: 'Pick a name' }] })
      expect(child.events[5]?.data).toEqual({ content: [{ type: 'text', text: 'Bob' }] })
    })

    it('summaries and unknown records are kept; a file that ends mid-turn ends it interrupted', async () => {
      const entries: ImportedEntry[] = [
        user('u1', null, 'Start', 0),
        answer('a1', 'u1', 'Started.', 1),
        {
          kind: 'summary',
          id: 's1',
          parentId: 'a1',
          text: 'We started.',
          summaryOf: 'compaction',
          time: t0 + 2000,
        },
        {
          kind: 'unknown',
          id: 'x1',
          parentId: 's1',
          type: 'file-history-snapshot',
          raw: { files: ['a'] },
          line: 4,
        },
        {
          kind: 'summary',
          id: 'b1',
          parentId: 'x1',
          text: 'On the other branch we tried X.',
          summaryOf: 'branch',
        },
        user('u2', 'b1', 'Go on', 3),
        answer('a2', 'u2', 'Reading.', 4, {
          toolCalls: [{ id: 'c9', name: 'bash', input: { command: 'ls' } }],
        }),
      ]
      const result = await fixture().importTree(tree(entries, { sourceId: 'kept' }))
      const got = await events(result.sessions[0]!.id)
      const compacted = got.find((event) => event.type === 'context/compacted')!
      expect(compacted.data).toMatchObject({
        summary: 'We started.',
        throughSeq: compacted.seq - 1,
        trigger: 'auto',
      })
      expect(got[compacted.seq - 1]?.type).toBe('turn/end')
      expect(got.find((event) => event.type === 'import/unknown')?.data).toEqual({
        entryId: 'x1',
        type: 'file-history-snapshot',
        raw: { files: ['a'] },
        line: 4,
      })
      expect(got.find((event) => event.type === 'import/branch-summary')?.data).toEqual({
        entryId: 'b1',
        text: 'On the other branch we tried X.',
      })
      // The call without a result: an error result, the turn interrupted.
      expect(got.slice(-3).map((event) => [event.type, event.data])).toEqual([
        ['tool/result', expect.objectContaining({ callId: 'c9', isError: true })],
        ['step/end', { finishReason: 'error' }],
        ['turn/end', expect.objectContaining({ reason: 'interrupted' })],
      ])
    })

    it('importing the same tree again makes nothing; a grown tree adds only its new entries as a fork', async () => {
      const entries = [...linear(), user('u3', 'a2', 'Other way', 6), answer('a4', 'u3', 'OK.', 7)]
      const first = await fixture().importTree(tree(entries, { sourceId: 'again' }))
      const before = (await api().call('session.list', {})).length
      const second = await fixture().importTree(tree(entries, { sourceId: 'again' }))
      expect(second.sessions.map((s) => [s.id, s.created])).toEqual(first.sessions.map((s) => [s.id, false]))
      expect(second.sessions[1]).toMatchObject({ parentSession: first.sessions[0]!.id, branchOf: 'a2' })
      expect((await api().call('session.list', {})).length).toBe(before)
      // The source grew: a new turn on the main path.
      const grown = [...entries, user('u4', 'a3', 'One more thing', 8), answer('a5', 'u4', 'Sure.', 9)]
      const third = await fixture().importTree(tree(grown, { sourceId: 'again' }))
      expect(third.sessions.filter((s) => s.created)).toHaveLength(1)
      const added = third.sessions.find((s) => s.created)!
      expect(added).toMatchObject({ parentSession: first.sessions[0]!.id, branchOf: 'a3' })
      const child = await api().call('session.get', { sessionId: added.id })
      expect(child.session.forkedAt).toBe(17)
      expect(child.events.slice(18, 20).map((event) => event.data)).toEqual([
        {},
        { content: [{ type: 'text', text: 'One more thing' }] },
      ])
      // And again: nothing new.
      const fourth = await fixture().importTree(tree(grown, { sourceId: 'again' }))
      expect(fourth.sessions.every((s) => !s.created)).toBe(true)
      expect(fourth.sessions.map((s) => s.id).sort()).toEqual(third.sessions.map((s) => s.id).sort())
    })

    it('an imported session is ordinary: continued with the demo model, forked, the fork continued', async () => {
      const result = await fixture().importTree(tree(linear(), { sourceId: 'ordinary' }))
      const id = result.sessions[0]!.id
      await api().call('session.setModel', { sessionId: id, model: 'demo:scripted' })
      const turn = await api().call('session.prompt', { sessionId: id, text: 'hello again' })
      expect(turn.reason).toBe('completed')
      const fork = await api().call('session.fork', { sessionId: id, atSeq: 3 })
      expect(fork.session).toMatchObject({ parentSession: id, forkedAt: 11 })
      const forked = await api().call('session.prompt', { sessionId: fork.session.id, text: 'from the fork' })
      expect(forked.reason).toBe('completed')
    })

    it('a subtree becomes a subagent session forked before the turn that started it', async () => {
      const main = [
        user('u1', null, 'Delegate it', 0),
        answer('a1', 'u1', '', 1, {
          toolCalls: [{ id: 'task-1', name: 'task', input: { prompt: 'count files' } }],
        }),
        {
          kind: 'tool-result',
          id: 'r1',
          parentId: 'a1',
          callId: 'task-1',
          toolName: 'task',
          output: '3 files',
          isError: false,
        } as ImportedEntry,
        answer('a2', 'r1', 'There are 3 files.', 2),
      ]
      const side = tree([user('s1', null, 'count files', 1), answer('s2', 's1', '3', 1)], {
        sourceId: 'side-1',
      })
      const result = await fixture().importTree(
        tree(main, { sourceId: 'with-sub', subtrees: [{ startedBy: 'task-1', tree: side }] }),
      )
      expect(result.sessions).toHaveLength(2)
      const [parent, sub] = result.sessions
      expect(sub).toMatchObject({ sourceId: 'side-1', parentSession: parent!.id })
      const got = await api().call('session.get', { sessionId: sub!.id })
      expect(got.session).toMatchObject({
        origin: 'subagent',
        parentSession: parent!.id,
        forkedAt: 1,
        subagentOf: { callId: 'task-1', depth: 1 },
        title: 'Task: count files',
      })
      expect(got.events.slice(2).find((event) => event.type === 'user/message')?.data).toEqual({
        content: [{ type: 'text', text: 'count files' }],
      })
    })

    it('a recorded folder missing here is refused, naming --cwd; cwd chooses another', async () => {
      const gone = `${tempDir('tangent-gone-')}/not-here`
      const refused = await failure(
        fixture().importTree(tree(linear(), { sourceId: 'elsewhere', cwd: gone })),
      )
      expect(refused.code).toBe('folder-not-found')
      expect(refused.message).toContain('--cwd')
      const work = tempDir('tangent-here-')
      const result = await fixture().importTree(tree(linear(), { sourceId: 'elsewhere', cwd: gone }), {
        cwd: work,
      })
      expect((await api().call('session.get', { sessionId: result.sessions[0]!.id })).session.cwd).toBe(work)
    })

    it('hostile trees: loops, missing parents, duplicates are reported; nothing importable is refused and nothing written', async () => {
      const before = (await api().call('session.list', {})).length
      const loop = await failure(
        fixture().importTree(tree([user('a', 'b', 'x'), answer('b', 'a', 'y')], { sourceId: 'loop' })),
      )
      expect(loop.code).toBe('invalid-import')
      expect(loop.message).toContain('loop')
      const empty = await failure(fixture().importTree(tree([], { sourceId: 'empty' })))
      expect(empty.code).toBe('invalid-import')
      expect((await api().call('session.list', {})).length).toBe(before)

      const messy = await fixture().importTree(
        tree(
          [
            user('u1', null, 'hi', 0),
            answer('a1', 'u1', 'hello', 1),
            { ...user('u1', 'a1', 'duplicate', 2), line: 3 },
            user('x', 'y', 'in a loop', 3),
            answer('y', 'x', 'also in it', 3),
            { ...user('o1', 'missing', 'orphan', 4), line: 6 },
          ],
          { sourceId: 'messy', problems: [{ line: 9, message: 'not JSON' }] },
        ),
      )
      const messages = messy.problems.map((problem) => problem.message).join('\n')
      expect(messy.problems[0]).toEqual({ line: 9, message: 'not JSON' })
      expect(messages).toContain('appears again')
      expect(messages).toContain('loop of parents')
      expect(messages).toContain('missing')
      // The orphan is a second start: a fork from before any turn.
      expect(messy.sessions).toHaveLength(2)
      expect(messy.sessions[1]).toMatchObject({ parentSession: messy.sessions[0]!.id })
      expect((await types(messy.sessions[1]!.id)).filter((type) => type === 'user/message')).toHaveLength(1)
    })

    it('10,000 entries import in one session, and a tree of too many branches is refused before anything is written', async () => {
      const entries: ImportedEntry[] = []
      let parent: string | null = null
      for (let i = 0; i < 5000; i++) {
        entries.push(user(`u${i}`, parent, `question ${i}`, i))
        entries.push(answer(`a${i}`, `u${i}`, `answer ${i}`, i))
        parent = `a${i}`
      }
      const started = Date.now()
      const result = await fixture().importTree(tree(entries, { sourceId: 'long' }))
      expect(Date.now() - started).toBeLessThan(30_000)
      expect(result.sessions).toHaveLength(1)
      const got = await api().call('session.get', { sessionId: result.sessions[0]!.id, last: 1 })
      expect(got.session.eventCount).toBe(2 + 5000 * 6)
      const before = (await api().call('session.list', {})).length
      const star: ImportedEntry[] = [user('root', null, 'q', 0)]
      for (let i = 0; i < 1001; i++) star.push(answer(`s${i}`, 'root', `a${i}`, 1))
      const refused = await failure(fixture().importTree(tree(star, { sourceId: 'star' })))
      expect(refused.code).toBe('invalid-import')
      expect((await api().call('session.list', {})).length).toBe(before)
    }, 60_000)
  })
}
