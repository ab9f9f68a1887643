import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import { asSchema } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { runModelStep, warmModelStep } from './model-step.js'
import { mockUsage } from './testing/mock-steps.js'
import { defineTool } from './tools/agent-tool.js'
import { createDefaultTools } from './tools/default-tools.js'

function toolStep(input: unknown) {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: JSON.stringify(input) },
    { type: 'finish', usage: mockUsage(10), finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
  ]
  return { stream: convertArrayToReadableStream(parts) }
}

const step = (model: MockLanguageModelV4, tools = createDefaultTools()) =>
  runModelStep({
    model,
    system: 'system',
    messages: [{ role: 'user', content: 'go' }],
    tools,
    maxRetries: 0,
    signal: new AbortController().signal,
    onDelta: () => undefined,
  })

const inputSchemaOf = (call: LanguageModelV4CallOptions | undefined, name: string) =>
  call?.tools?.find(
    (tool): tool is LanguageModelV4FunctionTool => tool.name === name && tool.type === 'function',
  )

describe('runModelStep tool schemas', () => {
  it("sends every step the JSON Schema the SDK makes of a tool's zod schema, converted once, and still validates input", async () => {
    const model = new MockLanguageModelV4({ doStream: [toolStep({ path: 7 }), toolStep({ path: 'a.txt' })] })
    const tools = createDefaultTools()
    const first = await step(model, tools)
    const second = await step(model, createDefaultTools())
    const [one, two] = model.doStreamCalls
    const sent = inputSchemaOf(one, 'read')
    expect(sent).toBeDefined()
    // What the SDK would send for the bare zod schema, made afresh here.
    expect(sent).toMatchObject({ inputSchema: asSchema(tools.read!.inputSchema).jsonSchema })
    // The same object the second time: not converted again (another step, another tool set).
    expect(inputSchemaOf(two, 'read')?.inputSchema).toBe(sent?.inputSchema)
    expect(inputSchemaOf(two, 'bash')?.inputSchema).toBe(inputSchemaOf(one, 'bash')?.inputSchema)
    // The input is still checked against the zod schema.
    expect(first.toolCalls[0]?.invalidReason).toMatch(/path/)
    expect(second.toolCalls[0]).toMatchObject({ toolName: 'read', input: { path: 'a.txt' } })
    expect(second.toolCalls[0]?.invalidReason).toBeUndefined()
  })

  it('converts a tool schema first seen in warmModelStep, and that is the one a step sends; the warm-up prints nothing', async () => {
    const Input = z.object({ path: z.string().describe('where') })
    const tool = defineTool<z.infer<typeof Input>>({
      description: 'reads',
      inputSchema: Input,
      run: async () => ({ output: 'ok' }),
    })
    const printed = [vi.spyOn(console, 'log'), vi.spyOn(console, 'warn'), vi.spyOn(console, 'error')]
    await warmModelStep({ read: tool })
    for (const spy of printed) {
      expect(spy).not.toHaveBeenCalled()
      spy.mockRestore()
    }
    const model = new MockLanguageModelV4({ doStream: [toolStep({ path: 'a' }), toolStep({ path: 'b' })] })
    await step(model, { read: tool })
    await step(model, { read: tool })
    const [one, two] = model.doStreamCalls
    expect(inputSchemaOf(one, 'read')?.inputSchema).toMatchObject({
      properties: { path: { type: 'string', description: 'where' } },
    })
    expect(inputSchemaOf(two, 'read')?.inputSchema).toBe(inputSchemaOf(one, 'read')?.inputSchema)
  })
})
