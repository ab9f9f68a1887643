import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { closingEventsForOpenTurn } from './grammar.js'
import {
  compactionPreamble,
  currentModel,
  latestCompaction,
  toModelMessages,
  unansweredToolCallMessage,
} from './replay.js'
import type { Session } from './session.js'
import { SessionStore } from './store.js'

function openTurn(s: Session, q: string) {
  s.append('turn/start', {})
  s.append('user/message', { content: [{ type: 'text', text: q }] })
}

/** A turn with one text step: user q, assistant a. */
function simpleTurn(s: Session, q: string, a: string) {
  openTurn(s, q)
  s.append('step/start', {})
  s.append('assistant/message', { content: [{ type: 'text', text: a }] })
  s.append('step/end', { finishReason: 'stop' })
  s.append('turn/end', { reason: 'completed' })
}

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] })
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] })

describe('toModelMessages', () => {
  it('is empty for an empty log or one with no messages', () => {
    expect(toModelMessages([])).toEqual([])
    const s = new SessionStore().create()
    s.append('model/selection', { provider: 'demo', model: 'scripted' })
    s.append('session/title', { title: 't' })
    expect(toModelMessages(s.events)).toEqual([])
  })

  it('maps text, reasoning, file parts, tool calls and results; results of one step form one tool message', () => {
    const s = new SessionStore().create()
    s.append('model/selection', { provider: 'demo', model: 'scripted' })
    s.append('turn/start', {})
    s.append('user/message', {
      content: [
        { type: 'text', text: 'What is in these?' },
        { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    })
    s.append('step/start', {})
    s.append('assistant/message', {
      content: [
        { type: 'reasoning', text: 'I should read both.' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.txt' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'ls' } },
        { type: 'tool-call', toolCallId: 'c3', toolName: 'grep', input: { pattern: 'x' } },
      ],
    })
    s.append('snapshot/taken', { tree: 'abc', changed: [] })
    s.append('tool/result', {
      callId: 'c2',
      toolName: 'bash',
      output: { stdout: 'a.txt\n', code: 0 },
      isError: false,
    })
    s.append('tool/result', { callId: 'c1', toolName: 'read', output: 'hello', isError: false })
    s.append('tool/result', { callId: 'c3', toolName: 'grep', output: 'bad pattern', isError: true })
    s.append('step/end', { finishReason: 'tool-calls' })
    s.append('step/start', {})
    s.append('assistant/message', {
      content: [{ type: 'tool-call', toolCallId: 'c4', toolName: 'bash', input: { command: 'false' } }],
    })
    s.append('tool/result', { callId: 'c4', toolName: 'bash', output: { code: 1 }, isError: true })
    s.append('step/end', { finishReason: 'tool-calls' })
    s.append('step/start', {})
    s.append('assistant/message', { content: [{ type: 'text', text: 'a.txt says hello.' }] })
    s.append('step/end', { finishReason: 'stop' })
    s.append('turn/end', { reason: 'completed' })

    expect(toModelMessages(s.events)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should read both.' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.txt' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'ls' } },
          { type: 'tool-call', toolCallId: 'c3', toolName: 'grep', input: { pattern: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'bash',
            output: { type: 'json', value: { stdout: 'a.txt\n', code: 0 } },
          },
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read',
            output: { type: 'text', value: 'hello' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c3',
            toolName: 'grep',
            output: { type: 'error-text', value: 'bad pattern' },
          },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c4', toolName: 'bash', input: { command: 'false' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c4',
            toolName: 'bash',
            output: { type: 'error-json', value: { code: 1 } },
          },
        ],
      },
      assistant('a.txt says hello.'),
    ])
  })

  it('maps a missing tool output to JSON null', () => {
    const s = new SessionStore().create()
    openTurn(s, 'q')
    s.append('step/start', {})
    s.append('assistant/message', {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'noop', input: {} }],
    })
    s.append('tool/result', { callId: 'c1', toolName: 'noop', output: undefined, isError: false })
    s.append('step/end', { finishReason: 'tool-calls' })
    expect(toModelMessages(s.events).at(-1)).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'noop', output: { type: 'json', value: null } },
      ],
    })
  })

  it('keeps user and assistant messages of several turns in order, and a turn without steps', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    s.append('session/title', { title: 'x' })
    openTurn(s, 'q2')
    s.append('turn/end', { reason: 'aborted' })
    simpleTurn(s, 'q3', 'a3')
    expect(toModelMessages(s.events)).toEqual([
      user('q1'),
      assistant('a1'),
      user('q2'),
      user('q3'),
      assistant('a3'),
    ])
  })

  it('gives unanswered tool calls at the end of a prefix synthetic error results, after the real ones', () => {
    const s = new SessionStore().create()
    openTurn(s, 'q')
    s.append('step/start', {})
    s.append('assistant/message', {
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: {} },
      ],
    })
    const noResults = toModelMessages(s.events)
    expect(noResults.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read',
          output: { type: 'error-text', value: unansweredToolCallMessage },
        },
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'bash',
          output: { type: 'error-text', value: unansweredToolCallMessage },
        },
      ],
    })
    s.append('tool/result', { callId: 'c2', toolName: 'bash', output: 'done', isError: false })
    expect(toModelMessages(s.events).at(-1)).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c2', toolName: 'bash', output: { type: 'text', value: 'done' } },
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read',
          output: { type: 'error-text', value: unansweredToolCallMessage },
        },
      ],
    })
    // Every prefix of the log is a valid transcript: each tool call is answered exactly once.
    for (let n = 0; n <= s.events.length; n++)
      expectEveryCallAnsweredOnce(toModelMessages(s.events.slice(0, n)))
  })

  it('leaves out the empty messages that crash repair writes', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    s.append('turn/start', {})
    for (const e of closingEventsForOpenTurn(s.grammar, 'interrupted', 'crashed')) s.append(e.type, e.data)
    openTurn(s, 'q2')
    s.append('step/start', {})
    for (const e of closingEventsForOpenTurn(s.grammar, 'interrupted', 'crashed')) s.append(e.type, e.data)
    expect(s.isTurnOpen).toBe(false)
    expect(toModelMessages(s.events)).toEqual([user('q1'), assistant('a1'), user('q2')])
  })

  it('ignores unknown and log-only events', () => {
    const s = new SessionStore().create()
    s.append('plugin/anything', { role: 'user', content: 'not a message' })
    openTurn(s, 'q')
    s.append('snapshot/taken', { tree: 't', changed: ['a'] })
    s.append('files/restored', { paths: ['a'] })
    s.append('turn/end', { reason: 'completed' })
    const withoutExtras = s.events.filter(
      (e) => !['plugin/anything', 'snapshot/taken', 'files/restored'].includes(e.type),
    )
    expect(toModelMessages(s.events)).toEqual(toModelMessages(withoutExtras))
    expect(toModelMessages(s.events)).toEqual([user('q')])
  })

  it("a forked child's transcript is the parent's prefix, then its own turns, never the parent's later answers", () => {
    const store = new SessionStore()
    const parent = store.create('parent')
    simpleTurn(parent, 'q1', 'a1')
    const boundary = parent.events.length - 1
    simpleTurn(parent, 'parent q2', 'parent a2')
    const child = store.fork(parent, boundary, 'child')
    simpleTurn(child, 'child q2', 'child a2')
    // The parent keeps going after the fork.
    simpleTurn(parent, 'parent q3', 'parent a3')

    const prefix = toModelMessages(parent.events.slice(0, boundary + 1))
    const childMessages = toModelMessages(child.events)
    expect(childMessages.slice(0, prefix.length)).toEqual(prefix)
    expect(childMessages).toEqual([user('q1'), assistant('a1'), user('child q2'), assistant('child a2')])
    const serialized = JSON.stringify(childMessages)
    expect(serialized).not.toContain('parent')
    expect(toModelMessages(parent.events)).toEqual([
      user('q1'),
      assistant('a1'),
      user('parent q2'),
      assistant('parent a2'),
      user('parent q3'),
      assistant('parent a3'),
    ])
  })

  it('replays a fork of a fork and a fork at an empty prefix', () => {
    const store = new SessionStore()
    const root = store.create('root')
    simpleTurn(root, 'r1', 'ra1')
    const child = store.fork(root, undefined, 'child')
    simpleTurn(child, 'c1', 'ca1')
    simpleTurn(root, 'r2', 'ra2')
    const grandchild = store.fork(child, undefined, 'grandchild')
    simpleTurn(grandchild, 'g1', 'ga1')
    expect(toModelMessages(grandchild.events)).toEqual([
      user('r1'),
      assistant('ra1'),
      user('c1'),
      assistant('ca1'),
      user('g1'),
      assistant('ga1'),
    ])
    const blank = store.fork(root, -1, 'blank')
    simpleTurn(blank, 'fresh', 'start')
    expect(toModelMessages(blank.events)).toEqual([user('fresh'), assistant('start')])
  })
})

function expectEveryCallAnsweredOnce(messages: ModelMessage[]) {
  const calls: string[] = []
  const results: string[] = []
  for (const message of messages) {
    if (typeof message.content === 'string') continue
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.push(part.toolCallId)
      if (part.type === 'tool-result') results.push(part.toolCallId)
    }
  }
  expect([...results].sort()).toEqual([...calls].sort())
}

describe('currentModel', () => {
  it('is null without a model/selection', () => {
    expect(currentModel([])).toBeNull()
    const s = new SessionStore().create()
    simpleTurn(s, 'q', 'a')
    expect(currentModel(s.events)).toBeNull()
  })

  it('is the latest model/selection', () => {
    const s = new SessionStore().create()
    s.append('model/selection', { provider: 'demo', model: 'scripted' })
    simpleTurn(s, 'q', 'a')
    expect(currentModel(s.events)).toEqual({ provider: 'demo', model: 'scripted' })
    s.append('model/selection', { provider: 'openai', model: 'gpt-4.1', reasoningEffort: 'high' })
    s.append('session/title', { title: 'later' })
    expect(currentModel(s.events)).toEqual({ provider: 'openai', model: 'gpt-4.1', reasoningEffort: 'high' })
  })

  it('is inherited through a fork, and a later selection in the parent does not reach the child', () => {
    const store = new SessionStore()
    const parent = store.create('p')
    parent.append('model/selection', { provider: 'anthropic', model: 'claude' })
    simpleTurn(parent, 'q', 'a')
    const child = store.fork(parent, undefined, 'c')
    parent.append('model/selection', { provider: 'openai', model: 'gpt-4.1' })
    expect(currentModel(child.events)).toEqual({ provider: 'anthropic', model: 'claude' })
    child.append('model/selection', { provider: 'demo', model: 'scripted' })
    expect(currentModel(child.events)).toEqual({ provider: 'demo', model: 'scripted' })
    expect(currentModel(parent.events)).toEqual({ provider: 'openai', model: 'gpt-4.1' })
  })
})

describe('toModelMessages after a compaction', () => {
  /** The first user message after a compaction: its summary, then what the user wrote. */
  const summaryThen = (summary: string, text: string): ModelMessage => ({
    role: 'user',
    content: [
      { type: 'text', text: compactionPreamble(summary) },
      { type: 'text', text },
    ],
  })
  const compaction = (throughSeq: number, summary: string) => ({
    summary,
    throughSeq,
    model: 'demo:scripted',
    trigger: 'manual' as const,
  })

  it('sends the summary in place of the events it covers, joined to the next user message', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    simpleTurn(s, 'q2', 'a2')
    const event = s.append('context/compacted', compaction(s.lastSeq, 'S1'))
    expect(latestCompaction(s.events)).toBe(event)
    // Between turns, nothing follows yet: the summary stands alone as a user message.
    expect(toModelMessages(s.events)).toEqual([user(compactionPreamble('S1'))])
    simpleTurn(s, 'q3', 'a3')
    expect(toModelMessages(s.events)).toEqual([summaryThen('S1', 'q3'), assistant('a3')])
  })

  it('keeps the running turn verbatim when the compaction stands inside it (an automatic one)', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    const before = s.lastSeq
    openTurn(s, 'q2')
    s.append('context/compacted', compaction(before, 'S'))
    s.append('step/start', {})
    s.append('assistant/message', { content: [{ type: 'text', text: 'a2' }] })
    s.append('step/end', { finishReason: 'stop' })
    s.append('turn/end', { reason: 'completed' })
    expect(toModelMessages(s.events)).toEqual([summaryThen('S', 'q2'), assistant('a2')])
  })

  it('uses only the latest compaction; a prefix before it (a fork) replays the full history', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    s.append('context/compacted', compaction(s.lastSeq, 'S1'))
    simpleTurn(s, 'q2', 'a2')
    const forkPoint = s.lastSeq
    s.append('context/compacted', compaction(s.lastSeq, 'S2'))
    simpleTurn(s, 'q3', 'a3')
    expect(toModelMessages(s.events)).toEqual([summaryThen('S2', 'q3'), assistant('a3')])
    const child = new SessionStore().create(undefined, { seed: s.events.slice(0, forkPoint + 1) })
    expect(toModelMessages(child.events)).toEqual([summaryThen('S1', 'q2'), assistant('a2')])
    expect(toModelMessages(s.events.slice(0, 5))).toEqual([user('q1'), assistant('a1')])
    expect(latestCompaction(s.events.slice(0, 5))).toBeNull()
  })
})

describe('toModelMessages: an imported branch summary', () => {
  it('joins the next user message as a note before the user words', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    s.append('import/branch-summary', { entryId: 'b1', text: 'We tried X; it failed.' })
    simpleTurn(s, 'q2', 'a2')
    const messages = toModelMessages(s.events)
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: '[Tangent: a summary of another branch of this conversation, which it came back from.]\nWe tried X; it failed.',
        },
        { type: 'text', text: 'q2' },
      ],
    })
  })
})

describe('toModelMessages: a kept branch and the undo of its keep', () => {
  const kept = (s: Session, restoreSeq: number) =>
    s.append('branch/kept', {
      sessionId: 'B1',
      label: 'A',
      title: 'try it',
      restoreSeq,
      summary:
        '[Tangent: branch A "try it" (B1) was kept.]\nIts file changes are now in this directory: g.txt.',
    })
  const restored = (s: Session, data: Record<string, unknown>) =>
    s.append('files/restored', {
      tree: 't',
      changed: [],
      restored: ['g.txt'],
      kept: [],
      undoTree: 'u',
      ...data,
    })
  const notesOf = (messages: ModelMessage[]) =>
    messages
      .filter((message) => message.role === 'user')
      .map((message) =>
        (message.content as { type: string; text?: string }[])
          .map((part) => part.text ?? '')
          .filter((text) => text.startsWith('[Tangent: ')),
      )

  it('undone before the model read of the keep: one note that it was kept and undone, in place of the summary', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    const restore = restored(s, { keptFrom: { sessionId: 'B1' } })
    kept(s, restore.seq)
    restored(s, { undoOf: restore.seq })
    simpleTurn(s, 'q2', 'a2')
    const notes = notesOf(toModelMessages(s.events))
    expect(notes).toEqual([
      [],
      [
        expect.stringMatching(
          /^\[Tangent: branch A "try it" \(B1\) was kept, then the keep was undone\.\]\n/,
        ),
      ],
    ])
  })

  it('undone after the model read of the keep: the summary stays where it was read, the undo is a note of its own', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    const restore = restored(s, { keptFrom: { sessionId: 'B1' } })
    kept(s, restore.seq)
    simpleTurn(s, 'q2', 'a2')
    restored(s, { undoOf: restore.seq })
    simpleTurn(s, 'q3', 'a3')
    expect(notesOf(toModelMessages(s.events))).toEqual([
      [],
      [expect.stringMatching(/was kept\.\]/)],
      [expect.stringMatching(/^\[Tangent: the keep of branch A "try it" \(B1\) was undone\.\]\n/)],
    ])
  })

  it('the undo of another restore tells the model nothing', () => {
    const s = new SessionStore().create()
    simpleTurn(s, 'q1', 'a1')
    const restore = restored(s, { toSeq: 0 })
    restored(s, { undoOf: restore.seq })
    simpleTurn(s, 'q2', 'a2')
    expect(notesOf(toModelMessages(s.events))).toEqual([[], []])
  })
})
