import { asSeq, type SessionEvent } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { stopReason, toolKind, toolLocations, toolTitle, UpdateMapper } from './acp-updates.js'

function event(seq: number, type: string, data: unknown): SessionEvent {
  return { seq: asSeq(seq), time: 0, type, data }
}

const answer = event(5, 'assistant/message', {
  content: [
    { type: 'reasoning', text: 'think' },
    { type: 'text', text: 'Hello there' },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'npm   test' } },
  ],
})

const cwd = '/work/project'

function replay(...events: SessionEvent[]) {
  const mapper = new UpdateMapper({ sessionId: 's1', cwd, live: false })
  return events.flatMap((item) => mapper.event(item))
}

describe('UpdateMapper', () => {
  it('replays a user message, the whole answer and its tool call, each tagged with its seq and message', () => {
    const user = replay(event(2, 'user/message', { content: [{ type: 'text', text: 'hi' }] }))
    expect(user).toEqual([
      {
        sessionUpdate: 'user_message_chunk',
        content: { type: 'text', text: 'hi' },
        messageId: 's1:2',
        _meta: { tangent: { seq: 2 } },
      },
    ])
    const updates = replay(event(4, 'step/start', {}), answer)
    expect(updates.map((update) => update.sessionUpdate)).toEqual([
      'agent_thought_chunk',
      'agent_message_chunk',
      'tool_call',
    ])
    // The answer's chunks are one message: the step's, as live deltas name it.
    expect(updates.slice(0, 2).map((update) => (update as { messageId?: string }).messageId)).toEqual([
      's1:4',
      's1:4',
    ])
    expect(updates[2]).toMatchObject({
      toolCallId: 'c1',
      title: 'bash: npm test',
      kind: 'execute',
      status: 'pending',
      _meta: { tangent: { seq: 5 } },
    })
  })

  it('replays an image the user sent as an image block', () => {
    const png = 'iVBORw0KGgo='
    expect(
      replay(event(2, 'user/message', { content: [{ type: 'file', mediaType: 'image/png', data: png }] })),
    ).toMatchObject([{ content: { type: 'image', mimeType: 'image/png', data: png } }])
  })

  it('live: leaves out the user message and the text already streamed; deltas carry the step and message', () => {
    const mapper = new UpdateMapper({ sessionId: 's1', cwd, live: true })
    expect(mapper.event(event(2, 'user/message', { content: [{ type: 'text', text: 'hi' }] }))).toEqual([])
    mapper.event(event(4, 'step/start', {}))
    expect(mapper.delta({ kind: 'reasoning', text: 'think' })).toEqual({
      sessionUpdate: 'agent_thought_chunk',
      content: { type: 'text', text: 'think' },
      messageId: 's1:4',
      _meta: { tangent: { stepSeq: 4 } },
    })
    expect(mapper.delta({ kind: 'text', text: 'Hello' })).toMatchObject({ messageId: 's1:4' })
    expect(mapper.delta({ kind: 'tool-input', text: '{"a"', toolCallId: 'c1' })).toBeNull()
    const live = mapper.event(answer)
    expect(live.map((update) => update.sessionUpdate)).toEqual(['agent_message_chunk', 'tool_call'])
    expect(live[0]).toMatchObject({ content: { text: ' there' }, messageId: 's1:4' })
    expect(mapper.delta({ kind: 'tool-start', text: 'bash', toolCallId: 'c1' })).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'in_progress',
      _meta: { tangent: { stepSeq: 4 } },
    })
  })

  it('maps results (with the diff a write made, as absolute paths) and says nothing for turn ends', () => {
    const failed = replay(
      event(7, 'tool/result', { callId: 'c1', toolName: 'bash', output: 'boom', isError: true }),
    )
    expect(failed).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'failed',
        rawOutput: { output: 'boom', isError: true },
        content: [{ type: 'content', content: { type: 'text', text: 'boom' } }],
        _meta: { tangent: { seq: 7 } },
      },
    ])
    const wrote = replay(
      event(8, 'tool/result', {
        callId: 'c2',
        toolName: 'write',
        output: 'Wrote a.txt (1 bytes).',
        isError: false,
        diff: { path: 'src/a.txt', oldText: 'x', newText: 'y' },
      }),
    )
    expect(wrote[0]).toMatchObject({
      status: 'completed',
      content: [
        { type: 'diff', path: '/work/project/src/a.txt', oldText: 'x', newText: 'y' },
        { type: 'content', content: { type: 'text', text: 'Wrote a.txt (1 bytes).' } },
      ],
      locations: [{ path: '/work/project/src/a.txt' }],
    })
    // A call runs when it starts (a live delta), not when it is approved.
    expect(replay(event(6, 'permission/answered', { callId: 'c1', decision: 'once' }))).toEqual([])
    // A failed turn is reported once: by the prompt's answer live, and not as made-up text on load.
    expect(replay(event(9, 'turn/end', { reason: 'aborted', error: 'Aborted by the user.' }))).toEqual([])
    expect(replay(event(9, 'turn/end', { reason: 'error', error: 'HTTP 500' }))).toEqual([])
    expect(replay(event(1, 'snapshot/taken', { tree: 'x', changed: [] }))).toEqual([])
  })

  it('names where file tools work: the file, absolute, and the line a read starts at', () => {
    expect(toolLocations('read', { path: 'a/b.ts', offset: 40 }, cwd)).toEqual([
      { path: '/work/project/a/b.ts', line: 40 },
    ])
    expect(toolLocations('bash', { command: 'ls' }, cwd)).toEqual([])
    expect(toolLocations('list', {}, cwd)).toEqual([{ path: cwd }])
  })
})

describe('stopReason, toolKind, toolTitle', () => {
  it('maps every turn end reason; error has no stop reason', () => {
    expect(['completed', 'aborted', 'interrupted', 'max-steps', 'error'].map(stopReason)).toEqual([
      'end_turn',
      'cancelled',
      'cancelled',
      'max_turn_requests',
      null,
    ])
  })

  it('names tools by kind and their main argument, cut at 80 characters', () => {
    expect(['read', 'write', 'edit', 'grep', 'list', 'bash', 'task', 'mcp__x__y'].map(toolKind)).toEqual([
      'read',
      'edit',
      'edit',
      'search',
      'search',
      'execute',
      'think',
      'other',
    ])
    expect(toolTitle('write', { path: 'a.txt', content: 'x' })).toBe('write: a.txt')
    expect(toolTitle('mcp__x__y', {})).toBe('mcp__x__y')
    expect(toolTitle('bash', { command: 'x'.repeat(100) })).toHaveLength('bash: '.length + 80)
  })
})
