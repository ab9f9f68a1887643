// How a client cuts a file's text into `session.importChunk` pieces (docs/protocol.md): each at
// most `maxImportChunkChars` characters and small enough, JSON-encoded as UTF-8, for its message
// to stay within the Host's `maxMessageBytes`. A surrogate pair is never cut in two.
import { maxMessageBytes } from './limits.js'
import { maxImportChunkChars } from './methods.js'

/** Room in a chunk's message for the JSON-RPC envelope (method, id, uploadId, index). */
export const importChunkEnvelopeBytes = 4 * 1024

/** Whether `text` fits one `session.import` message as `content` (with `envelopeBytes` of other params). */
export function fitsOneImportMessage(text: string, envelopeBytes = importChunkEnvelopeBytes): boolean {
  if (text.length > maxImportChunkChars * 2) return false
  return jsonUtf8Bytes(text, 0, text.length) <= maxMessageBytes - envelopeBytes
}

/** The pieces of `text` for `session.importChunk`, in order; joined they are `text`. */
export function* importChunks(
  text: string,
  maxBytes = maxMessageBytes - importChunkEnvelopeBytes,
  maxChars = maxImportChunkChars,
): Generator<string> {
  let start = 0
  while (start < text.length) {
    let end = start
    let bytes = 2 // the quotes
    while (end < text.length && end - start < maxChars) {
      const code = text.charCodeAt(end)
      const pair =
        code >= 0xd800 && code <= 0xdbff && end + 1 < text.length && isLowSurrogate(text.charCodeAt(end + 1))
      const width = pair ? 2 : 1
      const cost = pair ? 4 : charBytes(code)
      if (bytes + cost > maxBytes || end - start + width > maxChars) break
      bytes += cost
      end += width
    }
    yield text.slice(start, end)
    start = end
  }
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

/** UTF-8 bytes of one UTF-16 unit in JSON (a lone surrogate is escaped: `\udxxx`). */
function charBytes(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2
  if (code < 0x20)
    return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6
  if (code < 0x80) return 1
  if (code < 0x800) return 2
  if (code >= 0xd800 && code <= 0xdfff) return 6
  return 3
}

function jsonUtf8Bytes(text: string, from: number, to: number): number {
  let bytes = 2
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < to && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4
      index++
    } else bytes += charBytes(code)
  }
  return bytes
}
