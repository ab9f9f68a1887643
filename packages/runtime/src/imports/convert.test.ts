import { GrammarState } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { fullEventsOf, planImport } from './convert.js'
import type { ImportedEntry, ImportedTree } from './imported-tree.js'

const plan = (entries: ImportedEntry[], extra: Partial<ImportedTree> = {}) =>
  planImport(
    { source: 'pi', sourceId: 's', cwd: null, entries, subtrees: [], problems: [], ...extra },
    { defaultModel: 'demo:scripted', now: 1000 },
  )
const typesOf = (events: { type: string }[]) => events.map((event) => event.type)

describe('planImport', () => {
  it('selects a changed model before the turn whose first answer used it; a change inside a turn goes on its step', () => {
    const result = plan([
      { kind: 'user', id: 'u1', parentId: null, text: 'a' },
      { kind: 'assistant', id: 'a1', parentId: 'u1', text: 'x', toolCalls: [], model: 'openai:gpt-5' },
      { kind: 'user', id: 'u2', parentId: 'a1', text: 'b' },
      { kind: 'assistant', id: 'a2', parentId: 'u2', text: 'y', toolCalls: [], model: 'anthropic:claude' },
      { kind: 'assistant', id: 'a3', parentId: 'a2', text: 'z', toolCalls: [], model: 'openai:gpt-5' },
    ])
    const events = result.sessions[0]!.own
    expect(events[0]).toMatchObject({ type: 'model/selection', data: { provider: 'openai', model: 'gpt-5' } })
    const selections = events.filter((event) => event.type === 'model/selection').map((event) => event.data)
    expect(selections).toEqual([
      { provider: 'openai', model: 'gpt-5' },
      { provider: 'anthropic', model: 'claude' },
    ])
    expect(events.filter((event) => event.type === 'step/start').map((event) => event.data)).toEqual([
      {},
      {},
      { model: 'openai:gpt-5' },
    ])
  })

  it('renames a repeated call id, keeps a result with no open call as import/unknown, and stays in the grammar', () => {
    const result = plan([
      {
        kind: 'tool-result',
        id: 'r0',
        parentId: null,
        callId: 'nope',
        toolName: 'bash',
        output: 'x',
        isError: false,
      },
      {
        kind: 'assistant',
        id: 'a1',
        parentId: 'r0',
        text: '',
        toolCalls: [
          { id: 'c', name: 'bash', input: {} },
          { id: 'c', name: '', input: {} },
        ],
      },
      {
        kind: 'tool-result',
        id: 'r1',
        parentId: 'a1',
        callId: 'c',
        toolName: 'bash',
        output: 'ok',
        isError: false,
      },
    ])
    const events = fullEventsOf(result, result.sessions[0]!.key)
    const grammar = new GrammarState()
    for (const [seq, event] of events.entries()) grammar.accept(seq, event.type, event.data)
    expect(grammar.phase).toBe('idle')
    expect(events[2]).toMatchObject({ type: 'import/unknown', data: { entryId: 'r0', type: 'tool-result' } })
    const message = events.find((event) => event.type === 'assistant/message')!.data as { content: unknown[] }
    expect(message.content).toEqual([
      { type: 'tool-call', toolCallId: 'c', toolName: 'bash', input: {} },
      { type: 'tool-call', toolCallId: 'c-1', toolName: 'unknown', input: {} },
    ])
    // The answered call's result, then an error result for the one the file never answered.
    expect(typesOf(events.slice(-4))).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end'])
    expect(events.at(-1)!.data).toMatchObject({ reason: 'interrupted' })
  })

  it('a chain of 50,000 entries is walked without recursion', () => {
    const entries: ImportedEntry[] = []
    for (let i = 0; i < 50_000; i++)
      entries.push({
        kind: 'unknown',
        id: `e${i}`,
        parentId: i === 0 ? null : `e${i - 1}`,
        type: 't',
        raw: i,
      })
    const result = plan(entries)
    expect(result.sessions).toHaveLength(1)
    expect(result.sessions[0]!.own).toHaveLength(50_002)
  })

  it('a tree that holds itself as a subtree is refused, not a stack overflow', () => {
    const tree: ImportedTree = {
      source: 'claude',
      sourceId: 'self',
      cwd: null,
      entries: [{ kind: 'user', id: 'u', parentId: null, text: 'again' }],
      subtrees: [],
      problems: [],
    }
    tree.subtrees.push({ startedBy: 'u', tree })
    expect(() => planImport(tree, { defaultModel: 'demo:scripted', now: 1 })).toThrow(
      expect.objectContaining({ code: 'invalid-import' }),
    )
  })
})
