// Test support (not built): replies of a MockLanguageModelV4 (from 'ai/test') with chosen usage.
import type {
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import { convertArrayToReadableStream } from 'ai/test'

/** Usage as a provider reports it: `input` prompt tokens, `output` completion tokens. */
export function mockUsage(input: number, output = 5): LanguageModelV4Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  }
}

/** A streamed text answer that ends the step. */
export function mockTextStream(text: string, usage = mockUsage(10)): LanguageModelV4StreamResult {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
  ]
  return { stream: convertArrayToReadableStream(parts) }
}

/** A generated (not streamed) text answer: what a compaction's summary call gets. */
export function mockTextResult(text: string, usage = mockUsage(10)): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  }
}
