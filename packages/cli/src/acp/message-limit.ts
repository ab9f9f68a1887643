// The size limit of `tangent acp`'s input: a line (one JSON-RPC message) longer than the limit is
// dropped and answered with a JSON-RPC error instead of reaching the ACP SDK, which would end the
// connection (and the process, silently, with status 0). Memory stays bounded: an oversized line
// is not kept, only scanned for its top-level `id` so the error can answer it.

/** The ACP SDK's own default limit: 32 MiB per message. */
export const maxAcpMessageBytes = 32 * 1024 * 1024

const newline = 0x0a

/** The JSON-RPC error answering a dropped message (`id` null when it could not be read). */
export function messageTooLargeResponse(id: string | number | null, limit: number): string {
  const error = {
    code: -32600,
    message: `Message too large: tangent acp accepts messages up to ${limit} bytes (${limit / 1024 / 1024} MiB); this one was dropped.`,
    data: { code: 'payload-too-large', limit },
  }
  return `${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`
}

/**
 * Splits input into lines: lines up to `limit` bytes go on (with their newline), longer ones are
 * reported through `onTooLarge` with the id found in them. The returned stream is what the SDK reads.
 */
export function limitMessageSize(
  input: ReadableStream<Uint8Array>,
  limit: number,
  onTooLarge: (id: string | number | null) => void | Promise<void>,
): ReadableStream<Uint8Array> {
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  let scanner: TopLevelIdScanner | null = null
  const startDropping = () => {
    scanner = new TopLevelIdScanner()
    for (const part of pending) scanner.push(part)
    pending = []
    pendingBytes = 0
  }
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        let start = 0
        while (start <= chunk.byteLength) {
          const end = chunk.indexOf(newline, start)
          const piece = chunk.subarray(start, end === -1 ? chunk.byteLength : end)
          if (scanner === null && pendingBytes + piece.byteLength > limit) startDropping()
          if (scanner !== null) scanner.push(piece)
          else if (piece.byteLength > 0) {
            pending.push(piece.slice())
            pendingBytes += piece.byteLength
          }
          if (end === -1) return
          if (scanner !== null) {
            const id = scanner.id()
            scanner = null
            await onTooLarge(id)
          } else {
            pending.push(Uint8Array.of(newline))
            controller.enqueue(concat(pending))
            pending = []
            pendingBytes = 0
          }
          start = end + 1
        }
      },
      async flush(controller) {
        if (scanner !== null) await onTooLarge(scanner.id())
        else if (pendingBytes > 0) controller.enqueue(concat(pending))
      },
    }),
  )
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0)
  const out = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}

const quote = 0x22
const backslash = 0x5c
const colon = 0x3a
const comma = 0x2c
const maxIdBytes = 256

/**
 * Finds the `id` member of a top-level JSON object in a byte stream of any length, keeping only a
 * few bytes: it tracks nesting and strings, remembers the last top-level key and captures the
 * value after `"id":` (a number or a string of at most 256 bytes). Anything else gives null.
 */
export class TopLevelIdScanner {
  #depth = 0
  #inString = false
  #escaped = false
  /** Bytes of the top-level key being read, or null when the string is not a top-level key. */
  #key: number[] | null = null
  #expectingKey = false
  #lastKey = ''
  /** Bytes of the top-level `id` value being read, or null when not reading it. */
  #value: number[] | null = null
  #valueTooLong = false
  #id: string | number | null = null
  #found = false

  push(bytes: Uint8Array): void {
    for (const byte of bytes) this.#step(byte)
  }

  id(): string | number | null {
    if (this.#value !== null) this.#finishValue()
    return this.#id
  }

  #step(byte: number): void {
    if (this.#value !== null) {
      // Inside the id's value: it ends at a top-level `,` or `}` outside a string.
      if (!this.#inString && this.#depth === 1 && (byte === comma || byte === 0x7d)) this.#finishValue()
      else if (this.#value.length < maxIdBytes) this.#value.push(byte)
      else this.#valueTooLong = true
    }
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false
      else if (byte === backslash) this.#escaped = true
      else if (byte === quote) {
        this.#inString = false
        if (this.#key !== null) {
          this.#lastKey = String.fromCharCode(...this.#key)
          this.#key = null
        }
        return
      }
      if (this.#key !== null && this.#key.length < 8) this.#key.push(byte)
      return
    }
    if (byte === quote) {
      this.#inString = true
      this.#key = this.#depth === 1 && this.#expectingKey ? [] : null
      return
    }
    if (byte === 0x7b || byte === 0x5b) {
      this.#depth += 1
      if (this.#depth === 1) this.#expectingKey = byte === 0x7b
      return
    }
    if (byte === 0x7d || byte === 0x5d) {
      this.#depth -= 1
      return
    }
    if (this.#depth !== 1) return
    if (byte === comma) this.#expectingKey = true
    else if (byte === colon) {
      this.#expectingKey = false
      if (this.#lastKey === 'id' && !this.#found) this.#value = []
    }
  }

  #finishValue(): void {
    const text = Buffer.from(this.#value ?? []).toString('utf8')
    this.#value = null
    this.#found = true
    if (this.#valueTooLong) return
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed === 'string' || (typeof parsed === 'number' && Number.isFinite(parsed)))
        this.#id = parsed
    } catch {
      // Not a number or a string: the answer's id is null.
    }
  }
}
