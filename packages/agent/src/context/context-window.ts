// How many tokens a model's context holds (docs/architecture.md §12.4). The source is the
// one model catalog of model-facts.ts (tokenlens' static models.dev snapshot, pinned with the
// package; never fetched), by `provider:model` id; the offline demo model gets a small synthetic window so
// automatic compaction can be tried without a provider. Unknown models have none: they are
// never compacted automatically, only on request.
import { modelFactsOf } from '../model-facts.js'

export { demoContextWindow } from '../model-facts.js'

/** The model's context window in tokens, or undefined when no source knows it. */
export function contextWindowOf(
  modelId: string,
  overrides: Readonly<Record<string, number>> = {},
): number | undefined {
  const override = overrides[modelId]
  if (override !== undefined) return override
  // `openai-compatible` names a local server's model: the catalog's numbers would be a guess.
  if (modelId.startsWith('openai-compatible:')) return undefined
  return modelFactsOf(modelId)?.contextWindow
}
