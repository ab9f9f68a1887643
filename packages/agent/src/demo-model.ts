// `demo:scripted`: a deterministic, offline LanguageModelV4. It goes through the same
// streamText path and the same tools as a real provider, so the demo drives the real loop.

import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import { estimatedChars } from './context/estimated-chars.js'
import { type DemoReply, planDemoReply } from './demo-script.js'

/** Without a delay, the stream still lets the event loop run once per this many parts. */
const yieldEvery = 64

export interface DemoModelOptions {
  /** Pause before each streamed delta (TANGENT_DEMO_DELAY_MS); 0 streams at once. */
  delayMs?: number
  /** Characters per text delta. */
  chunkSize?: number
}

export class DemoLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4'
  readonly provider = 'demo'
  readonly modelId = 'scripted'
  readonly supportedUrls: Record<string, RegExp[]> = {}
  readonly #delayMs: number
  readonly #chunkSize: number

  constructor(options: DemoModelOptions = {}) {
    this.#delayMs = options.delayMs ?? 0
    this.#chunkSize = options.chunkSize ?? 4
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const reply = planDemoReply(options.prompt)
    const content: LanguageModelV4Content[] =
      reply.kind === 'text'
        ? [{ type: 'text', text: reply.text }]
        : reply.calls.map((call) => ({
            type: 'tool-call',
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            input: JSON.stringify(call.input),
          }))
    return { content, ...finishOf(reply, options), warnings: [] }
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const reply = planDemoReply(options.prompt)
    const parts = this.#parts(reply, options)
    const signal = options.abortSignal
    const delayMs = this.#delayMs
    let index = 0
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async pull(controller) {
        const part = parts[index++]
        if (!part) {
          controller.close()
          return
        }
        if (delayMs > 0 && (part.type === 'text-delta' || part.type === 'tool-input-delta')) {
          // Rejects with the abort reason, like a real fetch body would.
          // Looked up here, not imported: every CLI command loads this module (the runtime's read
          // chunk), and node:timers/promises is a module Node loads on first use.
          const { setTimeout: sleep } = process.getBuiltinModule('node:timers/promises')
          await sleep(delayMs, undefined, signal ? { signal } : {})
        } else if (index % yieldEvery === 0) {
          // A network body arrives in chunks between which the event loop runs: so does this
          // one, or a long instant reply would hold the process (other requests, /healthz).
          await new Promise<void>((resolve) => setImmediate(resolve))
        }
        signal?.throwIfAborted()
        controller.enqueue(part)
      },
    })
    return { stream }
  }

  #parts(reply: DemoReply, options: LanguageModelV4CallOptions): LanguageModelV4StreamPart[] {
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }]
    if (reply.kind === 'text') {
      parts.push({ type: 'text-start', id: 'text-1' })
      for (const delta of chunks(reply.text, this.#chunkSize))
        parts.push({ type: 'text-delta', id: 'text-1', delta })
      parts.push({ type: 'text-end', id: 'text-1' })
    } else {
      for (const call of reply.calls) {
        const input = JSON.stringify(call.input)
        parts.push({ type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName })
        for (const delta of chunks(input, this.#chunkSize * 4))
          parts.push({ type: 'tool-input-delta', id: call.toolCallId, delta })
        parts.push({ type: 'tool-input-end', id: call.toolCallId })
        parts.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input })
      }
    }
    parts.push({ type: 'finish', ...finishOf(reply, options) })
    return parts
  }
}

function chunks(text: string, size: number): string[] {
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

/** Deterministic finish reason and a rough token count (4 characters a token). */
function finishOf(
  reply: DemoReply,
  options: LanguageModelV4CallOptions,
): { finishReason: { unified: 'stop' | 'tool-calls'; raw: string }; usage: LanguageModelV4Usage } {
  // An image counts as ~1,000 tokens, not as its bytes (estimated-chars.ts).
  const inputTokens = Math.ceil(estimatedChars(options.prompt) / 4)
  const outputTokens = Math.ceil(
    (reply.kind === 'text' ? reply.text.length : JSON.stringify(reply.calls).length) / 4,
  )
  const unified = reply.kind === 'text' ? 'stop' : 'tool-calls'
  return {
    finishReason: { unified, raw: unified },
    usage: {
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
    },
  }
}
