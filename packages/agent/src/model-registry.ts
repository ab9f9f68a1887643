// Names models `provider:model` and turns a name into an AI SDK model, reading keys and
// base URLs from the environment it was given (never from globals deep inside).
import type { createAnthropic } from '@ai-sdk/anthropic'
import type { createOpenAI } from '@ai-sdk/openai'
import type { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { ProviderOptions } from '@ai-sdk/provider-utils'
import { TangentError } from '@tangent/core'
import { contextWindowOf } from './context/context-window.js'
import { DemoLanguageModel } from './demo-model.js'
import { imageInputOf } from './model-facts.js'

/** The AI SDK's provider factories: registered by ./providers.js, which the agent's module imports. */
export interface ProviderFactories {
  createAnthropic: typeof createAnthropic
  createOpenAI: typeof createOpenAI
  createOpenAICompatible: typeof createOpenAICompatible
}

// A registry lists, parses and prices models without the provider packages (a read-only command
// never loads them: docs/architecture.md §9, start-up); only resolve() needs them, and only the
// agent resolves, so they come with the agent's module.
let providers: ProviderFactories | null = null

export function useProviders(factories: ProviderFactories): void {
  providers = factories
}

function providerFactories(): ProviderFactories {
  if (!providers)
    throw new Error('internal: a model was resolved before the agent module registered its providers')
  return providers
}

export interface ModelRegistryOptions {
  /** Environment to read keys and base URLs from (default: process.env at construction). */
  env?: Record<string, string | undefined>
  /** Base URL of an OpenAI-compatible server (else TANGENT_OPENAI_COMPATIBLE_BASE_URL). */
  openaiCompatibleBaseUrl?: string
  /** Delay between demo deltas (else TANGENT_DEMO_DELAY_MS, else 0). */
  demoDelayMs?: number
  /** Extra models by `provider:model` id (embedders, tests); they win over the built-in providers. */
  models?: Record<string, LanguageModelV4>
  /**
   * Context windows in tokens by `provider:model` id, over the built-in source (tokenlens's
   * catalog; for the demo model TANGENT_DEMO_CONTEXT_WINDOW, else 4096).
   */
  contextWindows?: Record<string, number>
  /**
   * Models declared to take images, by `provider:model` id, besides those the catalog or a known
   * family says do (else TANGENT_IMAGE_MODELS, comma-separated): a local server's vision model.
   */
  imageModels?: readonly string[]
}

export interface ModelListing {
  id: string
  available: boolean
  reason?: string
}

export const defaultModelId = 'demo:scripted'
export const providerNames = ['demo', 'openai', 'anthropic', 'deepseek', 'openai-compatible'] as const

/** Anthropic has no effort knob on every model: effort maps to a thinking budget. */
const anthropicThinkingBudgets: Record<string, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
}

export class ModelRegistry {
  readonly #env: Record<string, string | undefined>
  readonly #openaiCompatibleBaseUrl: string | undefined
  readonly #demoDelayMs: number
  readonly #custom: ReadonlyMap<string, LanguageModelV4>
  readonly #contextWindows: Record<string, number>
  readonly #imageModels: ReadonlySet<string>

  constructor(options: ModelRegistryOptions = {}) {
    this.#env = { ...(options.env ?? process.env) }
    this.#openaiCompatibleBaseUrl =
      options.openaiCompatibleBaseUrl ?? this.#env.TANGENT_OPENAI_COMPATIBLE_BASE_URL
    this.#demoDelayMs = options.demoDelayMs ?? (Number(this.#env.TANGENT_DEMO_DELAY_MS) || 0)
    this.#custom = new Map(Object.entries(options.models ?? {}))
    const demoWindow = Number(this.#env.TANGENT_DEMO_CONTEXT_WINDOW)
    this.#contextWindows = {
      ...(demoWindow > 0 ? { [defaultModelId]: demoWindow } : {}),
      ...options.contextWindows,
    }
    const declared = options.imageModels ?? (this.#env.TANGENT_IMAGE_MODELS ?? '').split(',')
    this.#imageModels = new Set(declared.map((id) => id.trim()).filter((id) => id !== ''))
  }

  /**
   * Whether the model takes images in a prompt: declared (options.imageModels,
   * TANGENT_IMAGE_MODELS), else what the catalog or its family says; a model nobody vouches for
   * does not (imageInputOf).
   */
  takesImages(id: string): boolean {
    return this.#imageModels.has(id) || imageInputOf(id) === true
  }

  /**
   * `images-unsupported` for a prompt with `count` images to `id` when it does not take them:
   * the message names the model and how to switch or declare one.
   */
  assertTakesImages(id: string, count: number): void {
    if (count === 0 || this.takesImages(id)) return
    const known = imageInputOf(id) === false
    const why = known ? `${id} does not take images` : `Tangent does not know whether ${id} takes images`
    throw new TangentError(
      'images-unsupported',
      `The prompt carries ${count} image${count === 1 ? '' : 's'} but ${why}: switch the session to a model that does (e.g. openai:gpt-4.1 or anthropic:claude-sonnet-4-5)${known ? '' : `, or, if it does, add ${id} to TANGENT_IMAGE_MODELS (comma-separated) where the runtime runs`}. Nothing was sent.`,
      { model: id, images: count },
    )
  }

  /** The model's context window in tokens, or undefined when unknown (docs/architecture.md §12.4). */
  contextWindow(id: string): number | undefined {
    return contextWindowOf(id, this.#contextWindows)
  }

  /** Splits `provider:model`; throws `invalid-model` when it is not of that form. */
  static parse(id: string): { provider: string; model: string } {
    const at = id.indexOf(':')
    const provider = at < 0 ? '' : id.slice(0, at)
    const model = at < 0 ? '' : id.slice(at + 1)
    if (!/^[a-z0-9][a-z0-9-]*$/.test(provider) || model.trim() === '') {
      throw new TangentError(
        'invalid-model',
        `Invalid model "${id}": use provider:model with provider one of ${providerNames.join(', ')} (e.g. demo:scripted, openai:gpt-4.1).`,
        { model: id },
      )
    }
    return { provider, model }
  }

  /**
   * The parts of a model this registry can name, else `invalid-model`: one of the extra models it
   * was given, or a model of a built-in provider (`parseKnown`). A provider without its key
   * still names a model: that is `model-unavailable`, when it is resolved.
   */
  validate(id: string): { provider: string; model: string } {
    return this.#custom.has(id) ? ModelRegistry.parse(id) : ModelRegistry.parseKnown(id)
  }

  /**
   * `provider:model` of a built-in provider and, for the demo provider (its one model),
   * `demo:scripted`; else `invalid-model`. Needs no registry: a client checks a name with it
   * before it makes anything for that model.
   */
  static parseKnown(id: string): { provider: string; model: string } {
    const parsed = ModelRegistry.parse(id)
    if (!(providerNames as readonly string[]).includes(parsed.provider)) {
      throw new TangentError(
        'invalid-model',
        `Unknown provider "${parsed.provider}" in model "${id}": use one of ${providerNames.join(', ')}.`,
        { model: id },
      )
    }
    if (parsed.provider === 'demo' && id !== defaultModelId) {
      throw new TangentError(
        'invalid-model',
        `Unknown model "${id}": the demo provider has one model, ${defaultModelId}.`,
        { model: id },
      )
    }
    return parsed
  }

  /** A useful default set, each with whether it can be used now and, if not, why. */
  list(): ModelListing[] {
    const compatibleModel = this.#env.TANGENT_OPENAI_COMPATIBLE_MODEL || 'default'
    const ids = [
      defaultModelId,
      'openai:gpt-4.1',
      'openai:gpt-4.1-mini',
      'anthropic:claude-sonnet-4-5',
      'deepseek:deepseek-chat',
      `openai-compatible:${compatibleModel}`,
    ]
    const builtIn = ids.filter((id) => !this.#custom.has(id))
    const custom = [...this.#custom.keys()].map((id) => ({ id, available: true }))
    return builtIn
      .map((id): ModelListing => {
        const missing = this.#missingConfiguration(id)
        return missing === null ? { id, available: true } : { id, available: false, reason: missing }
      })
      .concat(custom)
  }

  /** The AI SDK model for `id`; throws `invalid-model` or `model-unavailable` (saying what to set). */
  resolve(id: string): LanguageModelV4 {
    const custom = this.#custom.get(id)
    if (custom) return custom
    const { provider, model } = this.validate(id)
    const missing = this.#missingConfiguration(id)
    if (missing !== null)
      throw new TangentError('model-unavailable', `Model ${id} is unavailable: ${missing}`, { model: id })
    const env = this.#env
    switch (provider) {
      case 'demo':
        return new DemoLanguageModel({ delayMs: this.#demoDelayMs })
    }
    const { createAnthropic, createOpenAI, createOpenAICompatible } = providerFactories()
    switch (provider) {
      case 'openai':
        return createOpenAI({
          apiKey: env.OPENAI_API_KEY,
          baseURL: env.OPENAI_BASE_URL || undefined,
        }).responses(model)
      case 'anthropic':
        return createAnthropic({
          apiKey: env.ANTHROPIC_API_KEY,
          baseURL: env.ANTHROPIC_BASE_URL || undefined,
        })(model)
      case 'deepseek':
        return createOpenAICompatible({
          name: 'deepseek',
          baseURL: env.DEEPSEEK_BASE_URL || 'https://api.deepseek.com/v1',
          apiKey: env.DEEPSEEK_API_KEY,
          includeUsage: true,
        }).chatModel(model)
      default:
        return createOpenAICompatible({
          name: 'openai-compatible',
          baseURL: this.#openaiCompatibleBaseUrl!,
          apiKey: env.TANGENT_OPENAI_COMPATIBLE_API_KEY || undefined,
          includeUsage: true,
        }).chatModel(model)
    }
  }

  /** Provider options carrying `reasoningEffort` where the provider supports it. */
  providerOptions(id: string, reasoningEffort?: string): ProviderOptions | undefined {
    if (!reasoningEffort) return undefined
    const { provider } = ModelRegistry.parse(id)
    switch (provider) {
      case 'openai':
        return { openai: { reasoningEffort } }
      case 'anthropic': {
        const budgetTokens = anthropicThinkingBudgets[reasoningEffort]
        return budgetTokens ? { anthropic: { thinking: { type: 'enabled', budgetTokens } } } : undefined
      }
      case 'openai-compatible':
        return { openaiCompatible: { reasoningEffort } }
      default:
        return undefined
    }
  }

  /** Null when `id` can be used; else a sentence naming the setting to provide. */
  #missingConfiguration(id: string): string | null {
    const { provider } = this.validate(id)
    const env = this.#env
    switch (provider) {
      case 'demo':
        return null
      case 'openai':
        return env.OPENAI_API_KEY ? null : 'set OPENAI_API_KEY (and OPENAI_BASE_URL for a proxy).'
      case 'anthropic':
        return env.ANTHROPIC_API_KEY ? null : 'set ANTHROPIC_API_KEY.'
      case 'deepseek':
        return env.DEEPSEEK_API_KEY ? null : 'set DEEPSEEK_API_KEY.'
      default:
        return this.#openaiCompatibleBaseUrl
          ? null
          : 'set TANGENT_OPENAI_COMPATIBLE_BASE_URL to the server (e.g. http://127.0.0.1:11434/v1 for Ollama) and, if it needs one, TANGENT_OPENAI_COMPATIBLE_API_KEY.'
    }
  }
}
