// Assembles a step's final content (the `assistant/message` parts) from streamed parts,
// block by block, keeping what a provider needs to accept the content back on replay.
import type { AssistantPart } from '@tangent/core'

/** Provider metadata of a reasoning part (Anthropic's thinking signature or redacted data). */
export type PartMetadata = Record<string, Record<string, unknown>>

export type LoggedAssistantPart = AssistantPart & { providerMetadata?: PartMetadata }
type TextBlock = { type: 'text' | 'reasoning'; text: string; providerMetadata?: PartMetadata }

/**
 * Anthropic refuses a tool-use continuation whose thinking blocks lost their signature,
 * so its reasoning metadata is kept. Other providers' metadata refers to server-side
 * items (OpenAI `itemId`) that a replayed or forked log must not depend on.
 */
const keptReasoningMetadata = ['anthropic']

export class StepContent {
  readonly #parts: LoggedAssistantPart[] = []
  readonly #blocks = new Map<string, TextBlock>()

  /** Appends text to the block `id` (opening it if needed) and merges its metadata. */
  add(type: 'text' | 'reasoning', id: string, text: string, metadata?: unknown): void {
    const key = `${type}:${id}`
    let block = this.#blocks.get(key)
    if (!block) {
      block = { type, text: '' }
      this.#blocks.set(key, block)
      this.#parts.push(block as LoggedAssistantPart)
    }
    block.text += text
    if (type === 'reasoning') mergeMetadata(block, metadata)
  }

  /** The parts in stream order; empty reasoning blocks that carry nothing are left out. */
  parts(): LoggedAssistantPart[] {
    return this.#parts.filter(
      (part) => part.type !== 'reasoning' || part.text !== '' || part.providerMetadata,
    )
  }

  toolCall(toolCallId: string, toolName: string, input: unknown): void {
    this.#parts.push({ type: 'tool-call', toolCallId, toolName, input })
  }
}

function mergeMetadata(part: TextBlock, metadata: unknown): void {
  if (typeof metadata !== 'object' || metadata === null) return
  for (const provider of keptReasoningMetadata) {
    const value = (metadata as Record<string, unknown>)[provider]
    if (typeof value !== 'object' || value === null) continue
    part.providerMetadata ??= {}
    part.providerMetadata[provider] = {
      ...part.providerMetadata[provider],
      ...(value as Record<string, unknown>),
    }
  }
}
