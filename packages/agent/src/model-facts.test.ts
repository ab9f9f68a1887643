import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { modelFactsOf, priceSource } from './model-facts.js'

describe('modelFactsOf', () => {
  it('reads windows and prices from the catalog', () => {
    expect(modelFactsOf('openai:gpt-4.1')).toEqual({
      contextWindow: 1_047_576,
      price: { inputPerMTokens: 2, outputPerMTokens: 8, cacheReadPerMTokens: 0.5 },
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
