import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { imageInputOf, modelFactsOf, priceSource } from './model-facts.js'

describe('modelFactsOf', () => {
  it('reads windows and prices from the catalog', () => {
    expect(modelFactsOf('openai:gpt-4.1')).toEqual({
      contextWindow: 1_047_576,
      price: { inputPerMTokens: 2, outputPerMTokens: 8, cacheReadPerMTokens: 0.5 },
      imageInput: true,
    })
    expect(modelFactsOf('deepseek:deepseek-chat')?.contextWindow).toBe(128_000)
    expect(modelFactsOf('anthropic:claude-sonnet-4-20250514')?.price?.outputPerMTokens).toBe(15)
  })

  it('says the demo costs nothing, and knows nothing of models the catalog does not list', () => {
    expect(modelFactsOf('demo:scripted')?.price).toEqual({ inputPerMTokens: 0, outputPerMTokens: 0 })
    expect(modelFactsOf('openai:no-such-model')).toBeUndefined()
    expect(modelFactsOf('openai-compatible:llama3')).toBeUndefined()
    expect(modelFactsOf('anthropic:toString')).toBeUndefined()
  })

  it('names the tokenlens version package.json pins', () => {
    const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    expect(priceSource).toContain(`tokenlens ${manifest.dependencies.tokenlens} `)
  })
})

describe('imageInputOf', () => {
  it('reads the catalog, then the family, and knows nothing of other models', () => {
    // The catalog's input modalities, where it lists the model (it wins over the family).
    expect(imageInputOf('openai:gpt-4o')).toBe(true)
    expect(imageInputOf('openai:o3-mini')).toBe(false)
    expect(imageInputOf('deepseek:deepseek-chat')).toBe(false)
    expect(imageInputOf('anthropic:claude-3-haiku-20240307')).toBe(true)
    // Families, for names the catalog does not list.
    expect(imageInputOf('anthropic:claude-sonnet-4-5')).toBe(true)
    expect(imageInputOf('anthropic:claude-opus-4-1')).toBe(true)
    expect(imageInputOf('openai:gpt-4o-2024-08-06')).toBe(true)
    expect(imageInputOf('openai:gpt-5.1')).toBe(true)
    expect(imageInputOf('demo:scripted')).toBe(true)
    // Unknown: never a guess.
    expect(imageInputOf('anthropic:claude-2.1')).toBeUndefined()
    expect(imageInputOf('openai:gpt-4.10-imaginary')).toBeUndefined()
    expect(imageInputOf('openai:gpt-50')).toBeUndefined()
    expect(imageInputOf('openai-compatible:llava')).toBeUndefined()
    expect(imageInputOf('anthropic:toString')).toBeUndefined()
  })
})
