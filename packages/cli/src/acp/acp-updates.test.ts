import { asSeq, type SessionEvent } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { eventUpdates, stopReason, toolKind, toolTitle } from './acp-updates.js'

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

describe('eventUpdates', () => {
  it('replays a user message, the whole answer and its tool call, each tagged with its seq', () => {
    const user = eventUpdates(event(2, 'user/message', { content: [{ type: 'text', text: 'hi' }] }))
    expect(user).toEqual([
      {
        sessionUpdate: 'user_message_chunk',
        content: { type: 'text', text: 'hi' },
        _meta: { tangent: { seq: 2 } },
      },
    ])
    expect(eventUpdates(answer).map((update) => update.sessionUpdate)).toEqual([
      'agent_thought_chunk',
      'agent_message_chunk',
      'tool_call',
    ])
    expect(eventUpdates(answer)[2]).toMatchObject({
      toolCallId: 'c1',
      title: 'bash: npm test',
      kind: 'execute',
      status: 'pending',
    })
  })

  it('live: leaves out the user message and the text already streamed as deltas', () => {
    expect(
      eventUpdates(event(2, 'user/message', { content: [{ type: 'text', text: 'hi' }] }), { live: true }),
    ).toEqual([])
    const live = eventUpdates(answer, { live: true, streamedText: 5, streamedReasoning: 5 })
    expect(live.map((update) => update.sessionUpdate)).toEqual(['agent_message_chunk', 'tool_call'])
    expect(live[0]).toMatchObject({ content: { text: ' there' } })
  })

  it('maps results, approvals and ends', () => {
    const failed = eventUpdates(
      event(7, 'tool/result', { callId: 'c1', toolName: 'bash', output: 'boom', isError: true }),
    )
    expect(failed).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'failed',
        rawOutput: 'boom',
        content: [{ type: 'content', content: { type: 'text', text: 'boom' } }],
        _meta: { tangent: { seq: 7 } },
      },
    ])
    expect(eventUpdates(event(6, 'permission/answered', { callId: 'c1', decision: 'once' }))).toMatchObject([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' },
    ])
    expect(eventUpdates(event(6, 'permission/answered', { callId: 'c1', decision: 'deny' }))).toEqual([])
    const aborted = event(9, 'turn/end', { reason: 'aborted', error: 'Aborted by the user.' })
    expect(eventUpdates(aborted, { live: true })).toEqual([])
    expect(eventUpdates(aborted)).toMatchObject([
      { content: { text: '\n[turn aborted: Aborted by the user.]' } },
    ])
    expect(eventUpdates(event(9, 'turn/end', { reason: 'completed' }))).toEqual([])
    expect(eventUpdates(event(1, 'snapshot/taken', { tree: 'x', changed: [] }))).toEqual([])
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
