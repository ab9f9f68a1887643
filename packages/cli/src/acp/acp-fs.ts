// The editor's file system for `tangent acp` (docs/architecture.md §6.1, §14.2): when the client
// offers `fs.readTextFile`, a session's `read` tool takes a file's text from the editor through
// `fs/read_text_file` — its unsaved buffer, or the file as the editor reads it. Writes are never
// sent there: they stay Tangent's, on disk with their snapshots, and reach the editor as updates.
import * as acp from '@agentclientprotocol/sdk/unstable'
import type { Backend } from '../backend.js'

/** A session's file source (Backend `attachFileSource`): the editor's text of a file, or null. */
export type EditorFileReader = (absolutePath: string, signal?: AbortSignal) => Promise<string | null>

/**
 * The file source of one session over the editor's `fs/read_text_file`, or null when the client
 * did not offer `fs.readTextFile` in `initialize`. Throws what the editor answered as an error (the
 * runtime then reads the disk and notes it); an aborted read cancels the request (`$/cancel_request`).
 */
export function editorFileSource(
  client: acp.AgentContext,
  sessionId: string,
  clientCapabilities: acp.ClientCapabilities | null | undefined,
): EditorFileReader | null {
  if (clientCapabilities?.fs?.readTextFile !== true) return null
  return async (absolutePath, signal) => {
    const response = await client.request(
      acp.methods.client.fs.readTextFile,
      { sessionId, path: absolutePath },
      signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined,
    )
    // A client outside the schema gets no say rather than a guess at what it meant.
    if (typeof response?.content !== 'string') {
      throw new Error('the editor answered fs/read_text_file without text content')
    }
    return response.content
  }
}

/**
 * The file sources of one ACP connection's sessions: `initialize` records what the client offers,
 * `open` attaches the editor's source to a session it opens (new, load, resume, fork) once,
 * `close` detaches it (session/close), `closeAll` when the editor goes.
 */
export class EditorFileSources {
  readonly #backend: Pick<Backend, 'attachFileSource'>
  #capabilities: acp.ClientCapabilities | null | undefined
  /** Per session: the detach of its attached source (a pending attach counts). */
  readonly #attached = new Map<string, Promise<() => Promise<void>>>()

  constructor(backend: Pick<Backend, 'attachFileSource'>) {
    this.#backend = backend
  }

  /** What the client's `initialize` offered (`params.clientCapabilities`). */
  initialize(clientCapabilities: acp.ClientCapabilities | null | undefined): void {
    this.#capabilities = clientCapabilities
  }

  /** Attaches the editor's source to the session, before its first prompt; nothing when the client offers none. */
  async open(client: acp.AgentContext, sessionId: string): Promise<void> {
    if (this.#attached.has(sessionId)) return
    const read = editorFileSource(client, sessionId, this.#capabilities)
    if (!read) return
    const attaching = this.#backend.attachFileSource(sessionId, read)
    this.#attached.set(sessionId, attaching)
    try {
      await attaching
    } catch (error) {
      this.#attached.delete(sessionId)
      throw error
    }
  }

  async close(sessionId: string): Promise<void> {
    const attached = this.#attached.get(sessionId)
    this.#attached.delete(sessionId)
    if (attached) await (await attached)()
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#attached.keys()].map((sessionId) => this.close(sessionId)))
  }
}
