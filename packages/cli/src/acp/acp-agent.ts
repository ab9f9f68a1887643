// `tangent acp`: an Agent Client Protocol agent (docs/architecture.md §14.2) over the CLI's one
// Backend, so sessions made here are ordinary Tangent sessions (the web UI and the CLI list them).
// ACP's unstable entrypoint: session/fork and session/resume live there in SDK 2.4.
import * as acp from '@agentclientprotocol/sdk/unstable'
import { TangentError } from '@tangent/core'
import type { Backend, ForkRequest, SessionSummary, TurnDelta } from '../backend.js'
import type { OutputStream } from '../context.js'
import { eventUpdates, stopReason, toolKind, toolTitle } from './acp-updates.js'
import { limitMessageSize, maxAcpMessageBytes, messageTooLargeResponse } from './message-limit.js'

export interface AcpAgentOptions {
  version: string
  /** Where problems are reported: never stdout, which is the protocol channel. */
  log: (line: string) => void
}

/** The `_meta.tangent` a client may send with session/fork (documented in §14.2). */
interface ForkAnchor {
  atSeq?: number
  before?: boolean
  files?: 'shared' | 'worktree'
  title?: string
}

const modelConfigId = 'model'

export interface AcpAgent {
  app: acp.AgentApp
  /** Aborts the turns this agent's prompts are running (the editor went away). */
  abortRunning(): Promise<void>
}

export function createAcpAgent(backend: Backend, options: AcpAgentOptions): AcpAgent {
  const app = acp.agent({ name: 'tangent' })
  const running = new Set<string>()

  async function configOptions(session: SessionSummary): Promise<acp.SessionConfigOption[]> {
    const info = await backend.info()
    const current = session.model ? `${session.model.provider}:${session.model.model}` : ''
    const ids = info.models.filter((model) => model.available).map((model) => model.id)
    if (current !== '' && !ids.includes(current)) ids.unshift(current)
    if (ids.length === 0) return []
    return [
      {
        id: modelConfigId,
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: current === '' ? (ids[0] ?? '') : current,
        options: ids.map((id) => ({ value: id, name: id })),
      },
    ]
  }

  app.onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: 'tangent', title: 'Tangent', version: options.version },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { embeddedContext: true },
      sessionCapabilities: { list: {}, fork: {}, resume: {} },
    },
    authMethods: [],
  }))

  app.onRequest(acp.methods.agent.session.new, ({ params }) =>
    mapErrors(async () => {
      const session = await backend.createSession({ cwd: params.cwd })
      return {
        sessionId: session.id,
        configOptions: await configOptions(session),
        _meta: summaryMeta(session),
      }
    }),
  )

  app.onRequest(acp.methods.agent.session.load, ({ params, client }) =>
    mapErrors(async () => {
      const { session, events } = await backend.getSession(params.sessionId)
      for (const event of events) {
        for (const update of eventUpdates(event, { live: false })) {
          await client.notify(acp.methods.client.session.update, { sessionId: session.id, update })
        }
      }
      return { configOptions: await configOptions(session), _meta: summaryMeta(session) }
    }),
  )

  app.onRequest(acp.methods.agent.session.resume, ({ params }) =>
    mapErrors(async () => {
      const { session } = await backend.getSession(params.sessionId, Number.MAX_SAFE_INTEGER)
      return { configOptions: await configOptions(session), _meta: summaryMeta(session) }
    }),
  )

  app.onRequest(acp.methods.agent.session.list, ({ params }) =>
    mapErrors(async () => {
      const sessions = await backend.listSessions({ includeArchived: false })
      return {
        sessions: sessions
          .filter((session) => !params.cwd || session.cwd === params.cwd)
          .map((session) => ({
            sessionId: session.id,
            cwd: session.cwd,
            title: session.title === '' ? null : session.title,
            updatedAt: new Date(session.updatedAt).toISOString(),
            _meta: summaryMeta(session),
          })),
      }
    }),
  )

  app.onRequest(acp.methods.agent.session.setConfigOption, ({ params }) =>
    mapErrors(async () => {
      if (params.configId !== modelConfigId || typeof params.value !== 'string') {
        throw acp.RequestError.invalidParams(
          { configId: params.configId },
          `Unknown config option ${params.configId}`,
        )
      }
      const session = await backend.setModel(params.sessionId, params.value)
      return { configOptions: await configOptions(session) }
    }),
  )

  app.onRequest(acp.methods.agent.session.fork, ({ params }) =>
    mapErrors(async () => {
      const anchor = forkAnchor(params._meta)
      const request: ForkRequest = { sessionId: params.sessionId, ...anchor }
      // A worktree fork of a session from another machine lands in the editor's folder here.
      if (anchor.files === 'worktree' && typeof params.cwd === 'string') {
        const { session: source } = await backend.getSession(params.sessionId, Number.MAX_SAFE_INTEGER)
        if (source.files.elsewhere) request.folder = params.cwd
      }
      const { session, boundary, worktree } = await backend.fork(request)
      return {
        sessionId: session.id,
        configOptions: await configOptions(session),
        // A worktree fork names the files it could not bring (`worktree.leftOut`, §14.2).
        _meta: { tangent: { ...summaryMeta(session).tangent, boundary, ...(worktree ? { worktree } : {}) } },
      }
    }),
  )

  app.onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    try {
      await backend.abort(params.sessionId)
    } catch (error) {
      options.log(`tangent acp: cancel ${params.sessionId}: ${message(error)}`)
    }
  })

  app.onRequest(acp.methods.agent.session.prompt, ({ params, client }) =>
    mapErrors(async () => {
      const sessionId = params.sessionId
      const text = promptText(params.prompt)
      // Updates leave in order: each waits for the one before it.
      let queue: Promise<void> = Promise.resolve()
      const send = (update: acp.SessionUpdate) => {
        queue = queue
          .then(() => client.notify(acp.methods.client.session.update, { sessionId, update }))
          .catch((error: unknown) => options.log(`tangent acp: update: ${message(error)}`))
      }
      let streamedText = 0
      let streamedReasoning = 0
      const permissions: Promise<void>[] = []
      running.add(sessionId)
      const result = await backend
        .prompt(sessionId, text, {
          onDelta: (delta: TurnDelta) => {
            if (delta.kind === 'text') {
              streamedText += delta.text.length
              send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta.text } })
            } else if (delta.kind === 'reasoning') {
              streamedReasoning += delta.text.length
              send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: delta.text } })
            }
          },
          onEvent: (event) => {
            for (const update of eventUpdates(event, { live: true, streamedText, streamedReasoning }))
              send(update)
            if (event.type === 'assistant/message') {
              streamedText = 0
              streamedReasoning = 0
            }
            if (event.type === 'permission/requested') {
              const data = event.data as { callId: string; toolName: string; input: unknown; pattern: string }
              const asked = queue.then(() => askPermission(client, sessionId, data))
              permissions.push(asked)
            }
          },
        })
        .finally(() => running.delete(sessionId))
      await queue
      await Promise.allSettled(permissions)
      const reason = stopReason(result.reason)
      if (reason === null) {
        const { events } = await backend.getSession(sessionId, result.turnEndSeq)
        const error = (events[0]?.data as { error?: string } | undefined)?.error ?? 'the turn failed'
        throw acp.RequestError.internalError(
          {
            tangent: {
              reason: result.reason,
              turnStartSeq: result.turnStartSeq,
              turnEndSeq: result.turnEndSeq,
            },
          },
          error,
        )
      }
      return {
        stopReason: reason,
        _meta: {
          tangent: {
            reason: result.reason,
            turnStartSeq: result.turnStartSeq,
            turnEndSeq: result.turnEndSeq,
          },
        },
      }
    }),
  )

  /** Bridges an ask of the permission policy (§12.1) to the client's session/request_permission. */
  async function askPermission(
    client: acp.AgentContext,
    sessionId: string,
    data: { callId: string; toolName: string; input: unknown; pattern: string },
  ): Promise<void> {
    let decision: 'once' | 'always' | 'deny' = 'deny'
    let reason: string | undefined
    try {
      const answer = await client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: {
          toolCallId: data.callId,
          title: toolTitle(data.toolName, data.input),
          kind: toolKind(data.toolName),
          status: 'pending',
          rawInput: data.input as Record<string, unknown>,
        },
        options: [
          { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'always', name: `Always allow ${data.toolName} ${data.pattern}`, kind: 'allow_always' },
          { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
        ],
      })
      if (answer.outcome.outcome === 'selected') {
        const id = answer.outcome.optionId
        decision = id === 'once' || id === 'always' ? id : 'deny'
      } else {
        reason = 'The editor cancelled the permission request.'
      }
    } catch (error) {
      reason = `The editor did not answer the permission request (${message(error)}).`
    }
    try {
      await backend.answerPermission(sessionId, data.callId, {
        decision,
        ...(reason ? { reason } : {}),
        by: 'user',
      })
    } catch (error) {
      // A turn aborted meanwhile (session/cancel) no longer waits: nothing to answer.
      options.log(`tangent acp: answer permission ${data.callId}: ${message(error)}`)
    }
  }

  return {
    app,
    async abortRunning() {
      await Promise.allSettled([...running].map((sessionId) => backend.abort(sessionId)))
    },
  }
}

/** The prompt's content blocks as the text of one user message. */
function promptText(blocks: readonly acp.ContentBlock[]): string {
  const parts: string[] = []
  for (const block of blocks) {
    if (block.type === 'text') parts.push(block.text)
    else if (block.type === 'resource_link') parts.push(`[${block.name}](${block.uri})`)
    else if (block.type === 'resource' && 'text' in block.resource)
      parts.push(`<file uri="${block.resource.uri}">\n${block.resource.text}\n</file>`)
  }
  return parts.join('\n')
}

function forkAnchor(meta: Record<string, unknown> | null | undefined): ForkAnchor {
  const raw = meta?.tangent
  if (raw === undefined || raw === null) return {}
  if (typeof raw !== 'object') throw acp.RequestError.invalidParams({}, '_meta.tangent must be an object')
  const tangent = raw as Record<string, unknown>
  const anchor: ForkAnchor = {}
  if (tangent.atSeq !== undefined) {
    if (typeof tangent.atSeq !== 'number' || !Number.isInteger(tangent.atSeq) || tangent.atSeq < 0)
      throw acp.RequestError.invalidParams({}, '_meta.tangent.atSeq must be a seq (an integer ≥ 0)')
    anchor.atSeq = tangent.atSeq
  }
  if (tangent.before !== undefined) {
    if (typeof tangent.before !== 'boolean')
      throw acp.RequestError.invalidParams({}, '_meta.tangent.before must be a boolean')
    anchor.before = tangent.before
  }
  if (tangent.files !== undefined) {
    if (tangent.files !== 'shared' && tangent.files !== 'worktree')
      throw acp.RequestError.invalidParams({}, '_meta.tangent.files must be "shared" or "worktree"')
    anchor.files = tangent.files
  }
  if (typeof tangent.title === 'string') anchor.title = tangent.title
  return anchor
}

function summaryMeta(session: SessionSummary) {
  return {
    tangent: {
      parentSession: session.parentSession,
      forkedAt: session.forkedAt,
      origin: session.origin,
      eventCount: session.eventCount,
    },
  }
}

/** Tangent's errors as JSON-RPC errors: the code from docs/architecture.md §10 rides in `data.code`. */
async function mapErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof acp.RequestError) throw error
    if (error instanceof TangentError) {
      const data = { ...error.data, code: error.code }
      if (error.code === 'session-not-found') throw new acp.RequestError(-32002, error.message, data)
      if (['invalid-params', 'invalid-boundary', 'open-turn', 'fork-unavailable'].includes(error.code))
        throw acp.RequestError.invalidParams(data, error.message)
      throw acp.RequestError.internalError(data, error.message)
    }
    throw acp.RequestError.internalError({}, message(error))
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Serves the agent on a byte stream pair (stdin/stdout for `tangent acp`) until the client leaves. */
export async function serveAcp(
  { app, abortRunning }: AcpAgent,
  io: { input: NodeJS.ReadableStream; output: OutputStream },
  options: { log?: (line: string) => void; maxMessageBytes?: number } = {},
): Promise<void> {
  const { Readable } = await import('node:stream')
  const limit = options.maxMessageBytes ?? maxAcpMessageBytes
  const decoder = new TextDecoder()
  // One writer for the SDK's messages and the size-limit errors, so lines never interleave.
  let writing = Promise.resolve()
  const writeText = (text: string) => {
    writing = writing.then(
      () =>
        new Promise<void>((resolve) => {
          if (io.output.write(text)) return resolve()
          // Written once the buffer drains — or never, when the editor closed its end: a write
          // waiting for a 'drain' that cannot come would keep the connection (and the process)
          // from closing.
          const stream = io.output as unknown as NodeJS.WritableStream
          const done = () => {
            stream.off('drain', done)
            stream.off('error', done)
            stream.off('close', done)
            resolve()
          }
          stream.once('drain', done)
          stream.once('error', done)
          stream.once('close', done)
        }),
    )
    return writing
  }
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => writeText(decoder.decode(chunk, { stream: true })),
  })
  const input = limitMessageSize(
    Readable.toWeb(io.input as unknown as import('node:stream').Readable) as ReadableStream<Uint8Array>,
    limit,
    (id) => {
      options.log?.(`tangent acp: dropped a message over ${limit} bytes (id ${JSON.stringify(id)})`)
      return writeText(messageTooLargeResponse(id, limit))
    },
  )
  // The SDK's own limit is above ours (a line's CR included): ours answers first, and keeps serving.
  const connection = app.connect(acp.ndJsonStream(output, input, { maxMessageBytes: limit + 2 }))
  await connection.closed
  // An editor that leaves mid-turn does not leave the turn running (it ends `aborted`).
  await abortRunning()
}
