// An ACP prompt's content blocks as a Tangent prompt: its text and its images (docs/protocol.md
// `session.prompt`). Nothing an editor sends is dropped without a word: a block Tangent cannot
// pass to the model (audio, a binary file, an image for a model that takes none) refuses the
// prompt with invalid params naming it, before anything is logged. The runtime checks the
// images again (it is the one place that decides); this answers the editor in its own terms.
import * as acp from '@agentclientprotocol/sdk/unstable'
import { ModelRegistry } from '@tangent/agent/light'
import {
  isPromptImageMediaType,
  type PromptImage,
  promptImageMediaTypes,
  promptImageParts,
  TangentError,
} from '@tangent/core'
import type { HostInfo, SessionSummary } from '../backend.js'

export interface PromptContent {
  /** The text of the user message (may be empty when there are images). */
  text: string
  images: PromptImage[]
}

/**
 * `blocks` as a prompt. `modelTakesImages`: whether the session's current model takes images
 * (sessionModelTakesImages); `model` names it in the refusal. Throws `acp.RequestError` invalid
 * params (-32602, Tangent's code in `data.code`) for audio, a binary resource that is no image,
 * an image that is not a valid PNG, JPEG, GIF or WebP, images to a model that takes none, and a
 * prompt with nothing in it.
 */
export function promptContent(
  blocks: readonly acp.ContentBlock[],
  modelTakesImages: boolean,
  model?: string,
): PromptContent {
  const texts: string[] = []
  const images: PromptImage[] = []
  const image = (mediaType: string, data: string, what: string) => {
    if (!modelTakesImages) {
      const which = model ? `the session's model, ${model},` : "the session's model"
      throw acp.RequestError.invalidParams(
        { code: 'images-unsupported', ...(model ? { model } : {}) },
        `${what}: ${which} does not take images (or Tangent does not know that it does). Switch the model (session config option "model") to one that does, e.g. openai:gpt-4.1 or anthropic:claude-sonnet-4-5, or send the prompt without images.`,
      )
    }
    images.push({ mediaType, data })
  }
  for (const [index, block] of blocks.entries()) {
    switch (block.type) {
      case 'text':
        texts.push(block.text)
        break
      case 'resource_link':
        texts.push(`[${block.name}](${block.uri})`)
        break
      case 'resource': {
        const resource = block.resource
        if ('text' in resource) {
          texts.push(`<file uri="${resource.uri}">\n${resource.text}\n</file>`)
        } else if (resource.mimeType && isPromptImageMediaType(resource.mimeType)) {
          image(resource.mimeType, resource.blob, `Block ${index + 1} (${resource.uri})`)
        } else {
          throw acp.RequestError.invalidParams(
            { code: 'invalid-params', index, uri: resource.uri },
            `Block ${index + 1} embeds ${resource.uri} as binary data${resource.mimeType ? ` (${resource.mimeType})` : ''}, which Tangent cannot pass to the model: attach it as a link so the agent can read the file, or leave it out. Images (${promptImageMediaTypes.join(', ')}) are taken.`,
          )
        }
        break
      }
      case 'image':
        image(block.mimeType, block.data, `Block ${index + 1} is an image (${block.mimeType})`)
        break
      case 'audio':
        throw acp.RequestError.invalidParams(
          { code: 'invalid-params', index },
          `Block ${index + 1} is audio (${block.mimeType}): Tangent does not take audio. Send the prompt without it.`,
        )
      default:
        throw acp.RequestError.invalidParams(
          { code: 'invalid-params', index },
          `Block ${index + 1} is of a type Tangent does not know.`,
        )
    }
  }
  try {
    promptImageParts(images)
  } catch (error) {
    if (error instanceof TangentError)
      throw acp.RequestError.invalidParams({ ...error.data, code: error.code }, error.message)
    throw error
  }
  const text = texts.join('\n')
  if (text === '' && images.length === 0)
    throw acp.RequestError.invalidParams(
      { code: 'invalid-params' },
      'The prompt is empty: send text or an image.',
    )
  return { text, images }
}

/**
 * Whether the session's current model takes images: what the runtime says of it in `host.info`
 * (`models[].images`, the runtime's own environment: through a Host, the Host's), else — a model
 * outside that list — what this process's environment tells (TANGENT_IMAGE_MODELS, the catalog,
 * the families: ModelRegistry.takesImages). The runtime decides again at the prompt.
 */
export function sessionModelTakesImages(
  session: Pick<SessionSummary, 'model'>,
  info: Pick<HostInfo, 'defaultModel' | 'models'>,
  env: Record<string, string | undefined> = process.env,
): boolean {
  // A log without a model/selection runs the runtime's default model.
  const id = session.model ? `${session.model.provider}:${session.model.model}` : info.defaultModel
  const listed = info.models.find((model) => model.id === id)?.images
  return listed ?? new ModelRegistry({ env }).takesImages(id)
}
