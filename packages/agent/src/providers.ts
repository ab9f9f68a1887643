// Registers the AI SDK's provider packages with the model registry. The agent's module imports
// this (it is what resolves models); the registry alone, which a read-only runtime uses to list
// and price models, does not load them (docs/architecture.md §9, start-up).
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { useProviders } from './model-registry.js'

useProviders({ createAnthropic, createOpenAI, createOpenAICompatible })
