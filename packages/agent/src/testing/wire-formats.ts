// Test support (not built): SSE frames and error bodies as OpenAI (Responses and Chat
// Completions) and Anthropic (Messages) send them.
import { pieces, sseData, sseEvent } from './fake-provider-server.js'

export interface WireFormat {
  /** A streamed tool call that ends the step with finish reason tool-calls. */
  toolCall(callId: string, name: string, input: unknown): string[]
  /** A streamed text answer; `complete: false` stops after the first delta (for cuts and hangs). */
  text(text: string, complete?: boolean): string[]
  /** The JSON body of an HTTP error. */
  error(message: string): unknown
}

export const openaiResponsesWire: WireFormat = {
  toolCall(callId, name, input) {
    const args = JSON.stringify(input)
    const item = { type: 'function_call', id: `fc_${callId}`, call_id: callId, name }
    return [
      sseData({
        type: 'response.created',
        response: { id: 'resp_1', created_at: 1_700_000_000, model: 'gpt-4.1' },
      }),
      sseData({ type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '' } }),
      ...pieces(args, 8).map((delta) =>
        sseData({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta }),
      ),
      sseData({
        type: 'response.output_item.done',
        output_index: 0,
        item: { ...item, arguments: args, status: 'completed' },
      }),
      sseData({ type: 'response.completed', response: { incomplete_details: null, usage: openaiUsage } }),
    ]
  },
  text(text, complete = true) {
    const frames = [
      sseData({
        type: 'response.created',
        response: { id: 'resp_2', created_at: 1_700_000_000, model: 'gpt-4.1' },
      }),
      sseData({
        type: 'response.output_item.added',
        output_index: 0,
        item: { type: 'message', id: 'msg_1' },
      }),
      ...pieces(text).map((delta) =>
        sseData({ type: 'response.output_text.delta', item_id: 'msg_1', delta }),
      ),
    ]
    if (!complete) return frames.slice(0, 3)
    return [
      ...frames,
      sseData({ type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: 'msg_1' } }),
      sseData({ type: 'response.completed', response: { incomplete_details: null, usage: openaiUsage } }),
    ]
  },
  error: (message) => ({
    error: { message, type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null },
  }),
}

const openaiUsage = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 5 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 3 },
  total_tokens: 19,
}

export const chatCompletionsWire: WireFormat = {
  toolCall(callId, name, input) {
    const args = JSON.stringify(input)
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' }
    return [
      sseData({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              content: null,
              tool_calls: [{ index: 0, id: callId, type: 'function', function: { name, arguments: '' } }],
            },
            finish_reason: null,
          },
        ],
      }),
      ...pieces(args, 8).map((chunk) =>
        sseData({
          ...base,
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, function: { arguments: chunk } }] },
              finish_reason: null,
            },
          ],
        }),
      ),
      sseData({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: chatUsage }),
      'data: [DONE]\n\n',
    ]
  },
  text(text, complete = true) {
    const base = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' }
    const frames = pieces(text).map((content, i) =>
      sseData({
        ...base,
        choices: [
          { index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null },
        ],
      }),
    )
    if (!complete) return frames.slice(0, 1)
    return [
      ...frames,
      sseData({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: chatUsage }),
      'data: [DONE]\n\n',
    ]
  },
  error: (message) => ({ error: { message, type: 'server_error', code: null, param: null } }),
}

const chatUsage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 }

export const anthropicWire: WireFormat = {
  toolCall(callId, name, input) {
    return [
      messageStart,
      sseEvent('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: callId, name, input: {} },
      }),
      ...pieces(JSON.stringify(input), 8).map((partial_json) =>
        sseEvent('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json },
        }),
      ),
      sseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
      messageEnd('tool_use'),
      sseEvent('message_stop', { type: 'message_stop' }),
    ]
  },
  text(text, complete = true) {
    const frames = [
      messageStart,
      sseEvent('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }),
      ...pieces(text).map((chunk) =>
        sseEvent('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: chunk },
        }),
      ),
    ]
    if (!complete) return frames.slice(0, 3)
    return [
      ...frames,
      sseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
      messageEnd('end_turn'),
      sseEvent('message_stop', { type: 'message_stop' }),
    ]
  },
  error: (message) => ({ type: 'error', error: { type: 'rate_limit_error', message } }),
}

/** A signed thinking block, then a tool call (Anthropic extended thinking with tools). */
export function anthropicThinkingThenToolCall(
  thinking: string,
  signature: string,
  callId: string,
  name: string,
  input: unknown,
): string[] {
  const toolFrames = anthropicWire.toolCall(callId, name, input).slice(1, -2)
  return [
    messageStart,
    sseEvent('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '' },
    }),
    ...pieces(thinking).map((chunk) =>
      sseEvent('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: chunk },
      }),
    ),
    sseEvent('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature },
    }),
    sseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
    // The tool block is block 1 here.
    ...toolFrames.map((frame) => frame.replace('"index":0', '"index":1')),
    messageEnd('tool_use'),
    sseEvent('message_stop', { type: 'message_stop' }),
  ]
}

const messageStart = sseEvent('message_start', {
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  },
})

function messageEnd(stopReason: string): string {
  return sseEvent('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 7 },
  })
}
