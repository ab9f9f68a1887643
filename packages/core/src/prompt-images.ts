// Images a prompt carries (docs/protocol.md, `session.prompt`): which formats are taken, how large
// they may be, and the check that turns what a client sent into the `file` parts of a
// `user/message`. Allow by what was fully understood: a media type of the list, strict base64,
// and bytes that start with that format's magic number; anything else is refused before the
// turn logs a thing. The bounds keep the largest prompt well inside one event (event-size.ts).
// No Buffer: the web bundle can take it too.
import { TangentError } from './errors.js'
import type { FilePart } from './events.js'

/** The image formats a prompt may carry (no SVG: it is a document that can hold scripts). */
export const promptImageMediaTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export type PromptImageMediaType = (typeof promptImageMediaTypes)[number]

/** Largest image, decoded: 3.75 MiB, so its base64 is at most 5 MiB (Anthropic's own bound). */
export const maxPromptImageBytes = (15 * 1024 * 1024) / 4
/** Most images one prompt carries. */
export const maxPromptImages = 20
/** Largest total of a prompt's images, decoded: 7.5 MiB (10 MiB as base64). */
export const maxPromptImagesTotalBytes = (15 * 1024 * 1024) / 2

/** The base64 length of `bytes` bytes (padded). */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4
}

/** An image as a client sends it: its media type and its bytes as standard, padded base64. */
export interface PromptImage {
  mediaType: string
  data: string
}

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

const magicNumbers: Record<PromptImageMediaType, (bytes: Uint8Array) => boolean> = {
  'image/png': (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  'image/gif': (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')),
  'image/webp': (b) => startsWith(b, ascii('RIFF')) && startsWith(b.subarray(8), ascii('WEBP')),
}

/** The format whose magic number `bytes` start with, else undefined. */
export function detectImageMediaType(bytes: Uint8Array): PromptImageMediaType | undefined {
  return promptImageMediaTypes.find((mediaType) => magicNumbers[mediaType](bytes))
}

/** True when `mediaType` is one a prompt may carry. */
export function isPromptImageMediaType(mediaType: string): mediaType is PromptImageMediaType {
  return (promptImageMediaTypes as readonly string[]).includes(mediaType)
}

/**
 * The `file` parts of `images`, each checked; else `invalid-params` naming the image (its index),
 * what is wrong and what to send instead. Nothing is decoded but the first bytes.
 */
export function promptImageParts(images: readonly PromptImage[]): FilePart[] {
  if (images.length > maxPromptImages) {
    throw invalidImage(
      `A prompt carries at most ${maxPromptImages} images; this one has ${images.length}. Send fewer, or split them over several prompts.`,
      { count: images.length, limit: maxPromptImages },
    )
  }
  let total = 0
  const parts = images.map((image, index): FilePart => {
    const { mediaType, data } = image
    const which = `Image ${index + 1} of ${images.length}`
    if (!isPromptImageMediaType(mediaType)) {
      throw invalidImage(
        `${which} is of type ${JSON.stringify(mediaType.slice(0, 100))}: a prompt takes ${promptImageMediaTypes.join(', ')}. Convert it to PNG or JPEG.`,
        { index, mediaType: mediaType.slice(0, 100) },
      )
    }
    if (data.length === 0 || data.length % 4 !== 0 || !base64Pattern.test(data)) {
      throw invalidImage(
        `${which} is not valid base64: send its bytes as standard, padded base64 (A-Z a-z 0-9 + /, = at the end; no data: URL prefix, no line breaks).`,
        { index, mediaType },
      )
    }
    const bytes = decodedLength(data)
    if (bytes > maxPromptImageBytes) {
      throw invalidImage(
        `${which} is ${formatMiB(bytes)}, over the ${formatMiB(maxPromptImageBytes)} one image may be: send it smaller (scaled down, or as JPEG).`,
        { index, mediaType, bytes, limit: maxPromptImageBytes },
      )
    }
    const head = decodeBase64(data.slice(0, 16))
    if (!magicNumbers[mediaType](head)) {
      const actual = detectImageMediaType(head)
      throw invalidImage(
        `${which} says ${mediaType} but its bytes ${actual ? `are ${actual}` : 'are not an image of a format a prompt takes'}: send its true media type, or the image itself.`,
        { index, mediaType, ...(actual ? { detected: actual } : {}) },
      )
    }
    total += bytes
    return { type: 'file', mediaType, data }
  })
  if (total > maxPromptImagesTotalBytes) {
    throw invalidImage(
      `The prompt's images are ${formatMiB(total)} together, over the ${formatMiB(maxPromptImagesTotalBytes)} one prompt may carry: send fewer or smaller images.`,
      { bytes: total, limit: maxPromptImagesTotalBytes },
    )
  }
  return parts
}

function invalidImage(message: string, data: Record<string, unknown>): TangentError {
  return new TangentError('invalid-params', message, data)
}

function decodedLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return (data.length / 4) * 3 - padding
}

function decodeBase64(data: string): Uint8Array {
  const binary = atob(data)
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.length <= bytes.length && prefix.every((byte, at) => bytes[at] === byte)
}

function ascii(text: string): number[] {
  return [...text].map((char) => char.charCodeAt(0))
}

function formatMiB(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`
  return `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB`
}
