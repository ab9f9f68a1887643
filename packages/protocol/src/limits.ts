// Size limits of the wire protocol: the Host refuses larger requests, and params
// schemas bound every string and array so one request cannot exhaust memory.
import { base64Length, maxPromptImageBytes } from '@tangent/core/prompt-images'

export { maxPromptImageBytes, maxPromptImages, maxPromptImagesTotalBytes } from '@tangent/core/prompt-images'

/** Largest HTTP body or WebSocket message the Host accepts, in bytes (a prompt with images: below). */
export const maxMessageBytes = 1024 * 1024

/**
 * Largest `session.prompt` message that carries images: their base64 (10 MiB at most, the
 * bound of maxPromptImagesTotalBytes) and the longest text, JSON-escaped. Only such a message
 * may pass `maxMessageBytes`.
 */
export const maxPromptMessageBytes = 12 * 1024 * 1024

/** A WebSocket message past this closes the socket (1009); below it, an oversized one gets an error. */
export const maxWebSocketMessageBytes = 2 * maxPromptMessageBytes

/** The size limit of a parsed message: `maxPromptMessageBytes` for one `session.prompt` with images. */
export function messageByteLimit(message: unknown): number {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return maxMessageBytes
  const { method, params } = message as { method?: unknown; params?: unknown }
  if (method !== 'session.prompt' || typeof params !== 'object' || params === null) return maxMessageBytes
  const images = (params as { images?: unknown }).images
  return Array.isArray(images) && images.length > 0 ? maxPromptMessageBytes : maxMessageBytes
}

/** Largest prompt text, in characters (well under `maxMessageBytes`). */
export const maxPromptChars = 256 * 1024

/** Longest base64 of one prompt image: that of `maxPromptImageBytes` (5 MiB). */
export const maxPromptImageBase64Chars = base64Length(maxPromptImageBytes)

/**
 * Longest file `session.import` takes, in characters. Over a Host a text larger than one message
 * (`maxMessageBytes`) is uploaded in pieces (`session.importBegin` / `session.importChunk`).
 */
export const maxImportChars = 256 * 1024 * 1024

export const maxTitleChars = 200
export const maxPathChars = 4096
export const maxModelIdChars = 200
export const maxRequestIdChars = 200

/** Most events one `session.get` may ask for with `last`. */
export const maxLastEvents = 1_000_000

/** MCP servers one client attaches to a session (`session.attachMcpServers`), and their parts. */
export const maxAttachedMcpServers = 32
export const maxMcpArgs = 256
export const maxMcpArgChars = 32 * 1024
/** Variables in one server's `env`, or headers of one HTTP server. */
export const maxMcpEnvEntries = 256
/** A server's `env` (names and values), `headers` or `args`, in characters all told. */
export const maxMcpEnvChars = 256 * 1024
