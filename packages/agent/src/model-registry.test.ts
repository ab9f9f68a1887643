import { TangentError } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { DemoLanguageModel } from './demo-model.js'
import { ModelRegistry } from './model-registry.js'
import './providers.js'

function unavailable(registry: ModelRegistry, id: string): TangentError {
  try {
    registry.resolve(id)
  } catch (error) {
    if (TangentError.hasCode(error, 'model-unavailable')) return error
    throw error
  }
  throw new Error(`${id} resolved`)
}

describe('ModelRegistry', () => {
  it('parses provider:model and refuses anything else with invalid-model', () => {
    expect(ModelRegistry.parse('openai:gpt-4.1')).toEqual({ provider: 'openai', model: 'gpt-4.1' })
    expect(ModelRegistry.parse('openai-compatible:qwen2.5:7b')).toEqual({
      provider: 'openai-compatible',
      model: 'qwen2.5:7b',
    })
    for (const bad of ['gpt-4.1', ':x', 'openai:', 'Open AI:x']) {
      expect(() => ModelRegistry.parse(bad)).toThrow(expect.objectContaining({ code: 'invalid-model' }))
    }
    expect(() => new ModelRegistry({ env: {} }).resolve('mistral:large')).toThrow(
      expect.objectContaining({
        code: 'invalid-model',
        message: expect.stringContaining('Unknown provider "mistral"'),
      }),
    )
  })

  it('lists the default set with availability and the reason when not available', () => {
    const registry = new ModelRegistry({
      env: { ANTHROPIC_API_KEY: 'k', TANGENT_OPENAI_COMPATIBLE_MODEL: 'llama3' },
    })
    expect(registry.list()).toEqual([
      { id: 'demo:scripted', available: true },
      { id: 'openai:gpt-4.1', available: false, reason: expect.stringContaining('OPENAI_API_KEY') },
      { id: 'openai:gpt-4.1-mini', available: false, reason: expect.stringContaining('OPENAI_API_KEY') },
      { id: 'anthropic:claude-sonnet-4-5', available: true },
      { id: 'deepseek:deepseek-chat', available: false, reason: expect.stringContaining('DEEPSEEK_API_KEY') },
      {
        id: 'openai-compatible:llama3',
        available: false,
        reason: expect.stringContaining('TANGENT_OPENAI_COMPATIBLE_BASE_URL'),
      },
    ])
    expect(new ModelRegistry({ env: {} }).list().at(-1)!.id).toBe('openai-compatible:default')
  })

  it('says exactly which variable to set for an unconfigured provider', () => {
    const registry = new ModelRegistry({ env: {} })
    const cases: [string, string][] = [
      ['openai:gpt-4.1', 'OPENAI_API_KEY'],
      ['anthropic:claude-sonnet-4-5', 'ANTHROPIC_API_KEY'],
      ['deepseek:deepseek-chat', 'DEEPSEEK_API_KEY'],
      ['openai-compatible:llama3', 'TANGENT_OPENAI_COMPATIBLE_BASE_URL'],
    ]
    for (const [id, variable] of cases) {
      const error = unavailable(registry, id)
      expect(error.data).toEqual({ model: id })
      expect(error.message).toContain(`set ${variable}`)
    }
  })

  it('validates a name before availability: an unknown model of the demo provider is invalid-model', () => {
    const registry = new ModelRegistry({ env: {} })
    expect(registry.validate('openai:gpt-4.1')).toEqual({ provider: 'openai', model: 'gpt-4.1' })
    expect(registry.validate('demo:scripted')).toEqual({ provider: 'demo', model: 'scripted' })
    for (const call of [() => registry.validate('demo:other'), () => registry.resolve('demo:other')]) {
      expect(call).toThrow(
        expect.objectContaining({
          code: 'invalid-model',
          message: 'Unknown model "demo:other": the demo provider has one model, demo:scripted.',
          data: { model: 'demo:other' },
        }),
      )
    }
    expect(() => registry.validate('mistral:large')).toThrow(
      expect.objectContaining({ code: 'invalid-model' }),
    )
    // A model given to the registry is valid whatever its provider.
    const custom = new ModelRegistry({ env: {}, models: { 'mock:model': new DemoLanguageModel() } })
    expect(custom.validate('mock:model')).toEqual({ provider: 'mock', model: 'model' })
  })

  it('resolves configured providers to AI SDK models, and the demo model always', () => {
    const registry = new ModelRegistry({
      env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', DEEPSEEK_API_KEY: 'k' },
      openaiCompatibleBaseUrl: 'http://127.0.0.1:1/v1',
    })
    expect(registry.resolve('demo:scripted')).toBeInstanceOf(DemoLanguageModel)
    expect(registry.resolve('openai:gpt-4.1')).toMatchObject({
      provider: 'openai.responses',
      modelId: 'gpt-4.1',
    })
    expect(registry.resolve('anthropic:claude-sonnet-4-5')).toMatchObject({ modelId: 'claude-sonnet-4-5' })
    expect(registry.resolve('deepseek:deepseek-chat')).toMatchObject({ provider: 'deepseek.chat' })
    expect(registry.resolve('openai-compatible:llama3')).toMatchObject({ provider: 'openai-compatible.chat' })
  })

  it('passes reasoningEffort as provider options where the provider supports it', () => {
    const registry = new ModelRegistry({ env: {} })
    expect(registry.providerOptions('openai:o4-mini', 'high')).toEqual({
      openai: { reasoningEffort: 'high' },
    })
    expect(registry.providerOptions('anthropic:claude-sonnet-4-5', 'medium')).toEqual({
      anthropic: { thinking: { type: 'enabled', budgetTokens: 8192 } },
    })
    expect(registry.providerOptions('openai-compatible:x', 'low')).toEqual({
      openaiCompatible: { reasoningEffort: 'low' },
    })
    expect(registry.providerOptions('demo:scripted', 'high')).toBeUndefined()
    expect(registry.providerOptions('openai:gpt-4.1')).toBeUndefined()
  })

  it('reads the demo delay from TANGENT_DEMO_DELAY_MS and lets an option win', async () => {
    const timed = async (registry: ModelRegistry) => {
      const model = registry.resolve('demo:scripted')
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'abcdefghijkl' }] }],
      })
      const started = performance.now()
      const reader = stream.getReader()
      while (!(await reader.read()).done) {}
      return performance.now() - started
    }
    // ~10 text deltas: with 30 ms each the stream cannot finish in under 200 ms.
    expect(await timed(new ModelRegistry({ env: { TANGENT_DEMO_DELAY_MS: '30' } }))).toBeGreaterThan(200)
    // If the env won here, even one delta would take 2 s.
    expect(
      await timed(new ModelRegistry({ env: { TANGENT_DEMO_DELAY_MS: '2000' }, demoDelayMs: 0 })),
    ).toBeLessThan(2000)
  })
})
