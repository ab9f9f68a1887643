// Context windows and prices of models (docs/architecture.md §12.5), from tokenlens' static
// copy of the models.dev catalog: no network, only the providers Tangent speaks to.
import type { ModelFacts } from '@tangent/core'
import { anthropicModels as anthropic } from 'tokenlens/providers/anthropic'
import { deepseekModels as deepseek } from 'tokenlens/providers/deepseek'
import { openaiModels as openai } from 'tokenlens/providers/openai'

/**
 * The catalog and its date. tokenlens (pinned in package.json) names no date for its copy of
 * models.dev; its newest entry is of 2025-09-11, so prices are as of that day at the earliest.
 */
export const priceSource = 'tokenlens 1.3.1 (models.dev catalog, newest entry 2025-09-11)'

/** The demo model's synthetic window: a few dozen short demo turns fill 80% of it. */
export const demoContextWindow = 4096

/**
 * The demo model runs offline and costs nothing; its window is small and synthetic (4096 tokens,
 * TANGENT_DEMO_CONTEXT_WINDOW through the ModelRegistry), so compaction can be tried offline.
 */
const demoFacts: ModelFacts = {
  contextWindow: demoContextWindow,
  price: { inputPerMTokens: 0, outputPerMTokens: 0 },
}

interface CatalogEntry {
  cost?: { input?: number; output?: number; cache_read?: number; reasoning?: number }
  limit?: { context?: number }
}

const catalogs: Record<string, Record<string, CatalogEntry>> = {
  openai: openai.models,
  anthropic: anthropic.models,
  deepseek: deepseek.models,
}

/** What the catalog states of `provider:model`: undefined for a model it does not list. */
export function modelFactsOf(modelId: string): ModelFacts | undefined {
  const at = modelId.indexOf(':')
  const provider = modelId.slice(0, at)
  if (provider === 'demo') return demoFacts
  const models = Object.hasOwn(catalogs, provider) ? catalogs[provider] : undefined
  const model = modelId.slice(at + 1)
  const entry = models && Object.hasOwn(models, model) ? models[model] : undefined
  if (!entry) return undefined
  const facts: ModelFacts = {}
  if (entry.limit?.context) facts.contextWindow = entry.limit.context
  const cost = entry.cost
  if (cost?.input !== undefined && cost.output !== undefined) {
    facts.price = { inputPerMTokens: cost.input, outputPerMTokens: cost.output }
    if (cost.cache_read !== undefined) facts.price.cacheReadPerMTokens = cost.cache_read
    if (cost.reasoning !== undefined) facts.price.reasoningPerMTokens = cost.reasoning
  }
  return facts
}
