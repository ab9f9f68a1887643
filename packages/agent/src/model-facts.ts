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
  // It takes images so prompts with images can be tried offline: it answers how many it got.
  imageInput: true,
}

interface CatalogEntry {
  cost?: { input?: number; output?: number; cache_read?: number; reasoning?: number }
  limit?: { context?: number }
  modalities?: { input?: readonly string[] }
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
  const input = entry.modalities?.input
  if (input) facts.imageInput = input.includes('image')
  const cost = entry.cost
  if (cost?.input !== undefined && cost.output !== undefined) {
    facts.price = { inputPerMTokens: cost.input, outputPerMTokens: cost.output }
    if (cost.cache_read !== undefined) facts.price.cacheReadPerMTokens = cost.cache_read
    if (cost.reasoning !== undefined) facts.price.reasoningPerMTokens = cost.reasoning
  }
  return facts
}

/**
 * Families that take images, for ids the catalog does not list (newer or dated names:
 * `anthropic:claude-sonnet-4-5`, `openai:gpt-4o-2024-08-06`): Claude 3 and later, GPT-4o, GPT-4.1
 * and GPT-5. The catalog's entry wins where it has one (`openai:o3-mini` takes none).
 */
const imageFamilies: Record<string, RegExp> = {
  anthropic: /^claude-(?:3|(?:opus|sonnet|haiku)-[4-9])(?:$|[-.@])/,
  openai: /^(?:gpt-4o|gpt-4\.1|gpt-5)(?:$|[-.])/,
}

/**
 * Whether `provider:model` takes images: the catalog's input modalities, else its family
 * (imageFamilies), else undefined — unknown, which callers treat as no (never a guess).
 */
export function imageInputOf(modelId: string): boolean | undefined {
  const known = modelFactsOf(modelId)?.imageInput
  if (known !== undefined) return known
  const at = modelId.indexOf(':')
  const family = imageFamilies[modelId.slice(0, at)]
  return family?.test(modelId.slice(at + 1)) ? true : undefined
}
