// One model call: streamText with tools that have no `execute` (so the SDK never runs a
// second step), deltas forwarded as they arrive, the final content collected for the log.
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { Usage } from '@tangent/core'
import type { LanguageModelUsage, ModelMessage, ToolSet } from 'ai'
import { retryLine, watchRetries } from './retry-notice.js'
import { type LoggedAssistantPart, StepContent } from './step-content.js'
import type { AgentTool, AgentToolSet } from './tools/agent-tool.js'
import { createDefaultTools } from './tools/default-tools.js'

export interface AgentDelta {
  /**
   * `retry`: the model call failed and is retried; one `retryLine` per retry. `tool-start`: a
   * permitted call starts running now (`text` is its tool's name), after any approval.
   */
  kind: 'text' | 'reasoning' | 'tool-input' | 'retry' | 'tool-start'
  text: string
  /** For `tool-input` and `tool-start`: the call the delta belongs to. */
  toolCallId?: string
  toolName?: string
}

export interface StepToolCall {
  toolCallId: string
  toolName: string
  input: unknown
  /** Set when the SDK could not parse the input or the tool does not exist. */
  invalidReason?: string
}

export interface ModelStepOutcome {
  content: LoggedAssistantPart[]
  toolCalls: StepToolCall[]
  finishReason: string
  usage?: Usage
  /** Provider or stream error: the turn ends with reason `error`. */
  error?: unknown
  aborted: boolean
}

export interface ModelStepRequest {
  model: LanguageModelV4
  system?: string
  messages: ModelMessage[]
  tools: AgentToolSet
  providerOptions?: ProviderOptions
  maxRetries: number
  signal: AbortSignal
  onDelta: (delta: AgentDelta) => void
}

/**
 * The AI SDK, loaded by the first model call rather than on import: it is a third of what a
 * command that never calls a model (`tangent show`) would load (docs/architecture.md §9).
 */
export function aiSdk(): Promise<typeof import('ai')> {
  return import('ai')
}

export async function runModelStep(request: ModelStepRequest): Promise<ModelStepOutcome> {
  const sdk = await aiSdk()
  const content = new StepContent()
  const outcome: ModelStepOutcome = {
    content: [],
    toolCalls: [],
    finishReason: 'unknown',
    aborted: false,
  }
  const toolNames = new Map<string, string>()
  const result = sdk.streamText({
    model: watchRetries(request.model, request.maxRetries, (notice) =>
      request.onDelta({ kind: 'retry', text: retryLine(notice) }),
    ),
    system: request.system,
    messages: request.messages,
    tools: sdkTools(sdk, request.tools),
    stopWhen: sdk.stepCountIs(1),
    providerOptions: request.providerOptions,
    maxRetries: request.maxRetries,
    abortSignal: request.signal,
    // Errors also arrive as `error` parts below, where they are kept; this only stops
    // the SDK's default console logging.
    onError: () => {},
  })
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          content.add('text', part.id, part.text)
          if (part.text) request.onDelta({ kind: 'text', text: part.text })
          break
        case 'reasoning-start':
        case 'reasoning-end':
          content.add('reasoning', part.id, '', part.providerMetadata)
          break
        case 'reasoning-delta':
          content.add('reasoning', part.id, part.text, part.providerMetadata)
          if (part.text) request.onDelta({ kind: 'reasoning', text: part.text })
          break
        case 'tool-input-start':
          toolNames.set(part.id, part.toolName)
          break
        case 'tool-input-delta':
          request.onDelta({
            kind: 'tool-input',
            text: part.delta,
            toolCallId: part.id,
            toolName: toolNames.get(part.id) ?? '',
          })
          break
        case 'tool-call': {
          const call: StepToolCall = {
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
          }
          if (part.dynamic && part.invalid) call.invalidReason = errorMessage(part.error)
          outcome.toolCalls.push(call)
          content.toolCall(call.toolCallId, call.toolName, call.input)
          break
        }
        case 'finish-step':
          outcome.finishReason = part.finishReason
          outcome.usage = usageOf(part.usage)
          break
        case 'error':
          outcome.error ??= part.error
          break
        case 'abort':
          outcome.aborted = true
          break
        default:
          break
      }
    }
  } catch (error) {
    if (request.signal.aborted) outcome.aborted = true
    else outcome.error ??= error
  }
  if (request.signal.aborted) outcome.aborted = true
  outcome.content = content.parts()
  return outcome
}

/**
 * The SDK's form of each zod input schema, made once per schema (the built-in tools' are module
 * constants): it converts a schema to JSON Schema lazily, once per form, and a form made anew
 * for every step (what the SDK does with a bare zod schema) converted every tool's schema again at
 * every model step, 10–45 ms of `toJSONSchema` on the Host's event loop (issue 33). `asSchema` is
 * what the SDK calls on a tool's inputSchema itself; given its own result it returns it as it is.
 */
const sdkSchemas = new WeakMap<object, ReturnType<typeof import('ai').asSchema>>()

function sdkSchemaOf(sdk: typeof import('ai'), schema: AgentTool['inputSchema']) {
  let form = sdkSchemas.get(schema)
  if (form === undefined) {
    form = sdk.asSchema(schema)
    sdkSchemas.set(schema, form)
  }
  return form
}

/**
 * Converts the input schemas of `tools` (default: the built-in ones) to JSON Schema now, so a
 * Host that warms does not do it in its first model step (Runtime.warm).
 */
export async function warmToolSchemas(tools: AgentToolSet = createDefaultTools()): Promise<void> {
  const sdk = await aiSdk()
  for (const agentTool of Object.values(tools)) {
    if (agentTool.inputJsonSchema) continue
    void sdkSchemaOf(sdk, agentTool.inputSchema).jsonSchema
    // One tool at a time: a request that arrives meanwhile is answered between two.
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * One model step against a stand-in model that answers at once (no network, nothing logged): the
 * first step of a process compiles and sets up what the SDK and Node's web streams use (~30–70 ms
 * in one piece, issue 33), here while the Host warms rather than in a person's first turn.
 */
export async function warmModelStep(tools: AgentToolSet = createDefaultTools()): Promise<void> {
  await warmToolSchemas(tools)
  const [name] = Object.keys(tools)
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'ok' },
    { type: 'text-end', id: 't' },
    ...(name ? [{ type: 'tool-call', toolCallId: 'w', toolName: name, input: '{}' } as const] : []),
    {
      type: 'finish',
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      finishReason: { unified: 'stop', raw: 'stop' },
    },
  ]
  const model: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: 'tangent-warm',
    modelId: 'warm',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('the warm-up model only streams')),
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part)
          controller.close()
        },
      }),
    }),
  }
  await runModelStep({
    model,
    system: '',
    messages: [{ role: 'user', content: 'warm' }],
    tools,
    maxRetries: 0,
    signal: new AbortController().signal,
    onDelta: () => undefined,
  })
}

function sdkTools(sdk: typeof import('ai'), tools: AgentToolSet): ToolSet {
  const out: ToolSet = {}
  for (const [name, agentTool] of Object.entries(tools)) {
    const inputSchema = agentTool.inputJsonSchema
      ? sdk.jsonSchema(agentTool.inputJsonSchema)
      : sdkSchemaOf(sdk, agentTool.inputSchema)
    out[name] = sdk.tool({ description: agentTool.description, inputSchema })
  }
  return out
}

/** The figures the provider reported; cached and reasoning tokens are parts of input and output. */
function usageOf(usage: LanguageModelUsage): Usage {
  const out: Usage = {}
  const figures = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens,
  }
  for (const [name, value] of Object.entries(figures)) if (value !== undefined) out[name] = value
  return out
}

/**
 * The provider's own message, with the HTTP status of a failed request and the causes
 * behind it (a stream cut shows as "… : terminated: other side closed").
 */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return typeof error === 'string' ? error : JSON.stringify(error)
  const status = (error as { statusCode?: unknown }).statusCode
  const messages = [
    typeof status === 'number' && status >= 400 ? `${error.message} (HTTP ${status})` : error.message,
  ]
  let cause: unknown = error.cause
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    if (
      cause.message &&
      !messages.some((message) => message.includes(cause instanceof Error ? cause.message : ''))
    )
      messages.push(cause.message)
    cause = cause.cause
  }
  return messages.join(': ')
}
