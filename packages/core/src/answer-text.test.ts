import { describe, expect, it } from 'vitest'
import { turnAnswerText } from './answer-text.js'

describe('turnAnswerText', () => {
  it('joins the text of each assistant message with a blank line, leaving out reasoning, tool calls and other events', () => {
    const events = [
      { type: 'user/message', data: { content: [{ type: 'text', text: 'write a.txt: x' }] } },
      {
        type: 'assistant/message',
        data: {
          content: [
            { type: 'reasoning', text: 'thinking' },
            { type: 'text', text: 'Writing' },
            { type: 'text', text: ' it.' },
            { type: 'tool-call', toolCallId: 'c1', toolName: 'write', input: {} },
          ],
        },
      },
      { type: 'tool/result', data: { toolCallId: 'c1', output: 'ok' } },
      { type: 'assistant/message', data: { content: [{ type: 'tool-call', toolCallId: 'c2' }] } },
      { type: 'assistant/message', data: { content: [{ type: 'text', text: 'Done.' }] } },
    ]
    expect(turnAnswerText(events)).toBe('Writing it.\n\nDone.')
  })

  it('is empty for a turn without text and ignores malformed data', () => {
    expect(turnAnswerText([])).toBe('')
    expect(
      turnAnswerText([
        { type: 'assistant/message', data: null },
        { type: 'assistant/message', data: { content: 'text' } },
        { type: 'assistant/message', data: { content: [null, { type: 'text', text: 3 }] } },
      ]),
    ).toBe('')
  })
})
