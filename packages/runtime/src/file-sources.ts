// The file sources clients attach to sessions (docs/architecture.md §6.1): an editor that holds a
// file open answers the `read` tool with its buffer's text. The agent asks only after the path was
// confined and checked; here a silent or failing source is bounded by a timeout and falls back
// to the disk with a note, so no client can stall or break a turn.
import type { FileSource, FileSourceAnswer } from '@tangent/agent'

/**
 * A client's reader: the text it holds for an absolute path, or null when it holds none (the
 * disk is read). It may throw or never answer; both fall back to the disk. `signal` aborts when
 * the answer is no longer awaited (timed out, the turn aborted).
 */
export type FileReader = (absolutePath: string, signal: AbortSignal) => Promise<string | null>

/** How long a source may take to answer before the disk is read instead. */
export const defaultFileSourceTimeoutMs = 3000

export class FileSources {
  /** Per session, the attached readers; the latest attached answers. */
  readonly #attached = new Map<string, FileReader[]>()
  readonly #timeoutMs: number

  constructor(options: { timeoutMs?: number | undefined } = {}) {
    this.#timeoutMs = options.timeoutMs ?? defaultFileSourceTimeoutMs
  }

  /** Attaches `read` to the session until the returned detach is called (idempotent). */
  attach(sessionId: string, read: FileReader): () => void {
    const readers = this.#attached.get(sessionId) ?? []
    readers.push(read)
    this.#attached.set(sessionId, readers)
    let attached = true
    return () => {
      if (!attached) return
      attached = false
      const current = this.#attached.get(sessionId)
      const at = current?.lastIndexOf(read) ?? -1
      if (!current || at < 0) return
      current.splice(at, 1)
      if (current.length === 0) this.#attached.delete(sessionId)
    }
  }

  has(sessionId: string): boolean {
    return this.#attached.has(sessionId)
  }

  /** The session's FileSource for its agent: asks the reader attached at the time of each read. */
  sourceFor(sessionId: string): FileSource {
    return (absolutePath, signal) => {
      const read = this.#attached.get(sessionId)?.at(-1)
      if (!read) return Promise.resolve({ text: null })
      return this.#ask(read, absolutePath, signal)
    }
  }

  #ask(read: FileReader, absolutePath: string, signal: AbortSignal): Promise<FileSourceAnswer> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const waiting = new AbortController()
      const settle = (answer: FileSourceAnswer) => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        waiting.abort()
        resolve(answer)
      }
      const onAbort = () => settle({ text: null })
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      timer = setTimeout(
        () =>
          settle({
            text: null,
            note: `the editor did not answer within ${this.#timeoutMs} ms: read from disk, its unsaved changes (if any) are not shown`,
          }),
        this.#timeoutMs,
      )
      // A reader that throws synchronously is a failure like a rejection.
      Promise.resolve()
        .then(() => read(absolutePath, waiting.signal))
        .then(
          (text) => {
            if (text === null || typeof text === 'string') settle({ text })
            else settle({ text: null, note: 'the editor gave no text: read from disk' })
          },
          (error: unknown) =>
            settle({
              text: null,
              note: `the editor could not give its copy (${oneLine(error)}): read from disk, its unsaved changes (if any) are not shown`,
            }),
        )
    })
  }
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/\s+/g, ' ').slice(0, 300)
}
