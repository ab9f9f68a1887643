// `tangent acp`: an Agent Client Protocol agent (docs/architecture.md §14.2) over the CLI's one
// Backend, so sessions made here are ordinary Tangent sessions (the web UI and the CLI list them).
// ACP's unstable entrypoint: session/fork, session/resume and the unstable session methods live
// there in SDK 2.4. Everything a session does is the runtime's; this file only translates.
import path from 'node:path'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { TangentError } from '@tangent/core'
import type { AttachedMcpServer, Backend, ForkRequest, SessionSummary, TurnDelta } from '../backend.js'
import type { OutputStream } from '../context.js'
import { availableCommandsUpdate, runAcpCommand } from './acp-commands.js'
import { EditorFileSources } from './acp-fs.js'
import { acpMcpCapabilities, attachedMcpServersOf } from './acp-mcp.js'
import { currentModeUpdate, modeConfigId, modeConfigOption, modeState, requestedMode } from './acp-modes.js'
import { previewDiff } from './acp-preview.js'
import { promptContent, sessionModelTakesImages } from './acp-prompt.js'
import { stopReason, toolKind, toolLocations, toolTitle, UpdateMapper } from './acp-updates.js'
import { limitMessageSize, maxAcpMessageBytes, messageTooLargeResponse } from './message-limit.js'

export interface AcpAgentOptions {
  version: string
  /** Where problems are reported: never stdout, which is the protocol channel. */
  log: (line: string) => void
  /** Sessions per `session/list` page (default 50). */
  pageSize?: number
}

/** The `_meta.tangent` a client may send with session/fork (documented in §14.2). */
interface ForkAnchor {
  atSeq?: number
  before?: boolean
  files?: 'shared' | 'worktree'
  title?: string
}

/** A prompt being answered: what session/cancel and session/close stop. */
interface RunningPrompt {
  /** Aborted by session/cancel: withdraws the permission requests this turn has open. */
  cancel: AbortController
  /** The turn has started in the runtime (so an abort reaches it). */
  started: boolean
}

const modelConfigId = 'model'
const defaultPageSize = 50

export interface AcpAgent {
  app: acp.AgentApp
  /** Aborts the turns this agent's prompts are running (the editor went away). */
  abortRunning(): Promise<void>
}

export function createAcpAgent(backend: Backend, options: AcpAgentOptions): AcpAgent {
  const app = acp.agent({ name: 'tangent' })
  const running = new Map<string, RunningPrompt>()
  const pageSize = options.pageSize ?? defaultPageSize
  // With the editor's `fs` capability, `read` takes open files' unsaved text from it (acp-fs.ts).
  const editorFiles = new EditorFileSources(backend)

  async function configOptions(session: SessionSummary): Promise<acp.SessionConfigOption[]> {
    const info = await backend.info()
    const current = session.model ? `${session.model.provider}:${session.model.model}` : ''
    const ids = info.models.filter((model) => model.available).map((model) => model.id)
    if (current !== '' && !ids.includes(current)) ids.unshift(current)
    // The session's mode (docs/architecture.md §12.1) as a config option too: ACP prefers them.
    if (ids.length === 0) return [modeConfigOption(session)]
    return [
      {
        id: modelConfigId,
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: current === '' ? (ids[0] ?? '') : current,
        options: ids.map((id) => ({ value: id, name: id })),
      },
      modeConfigOption(session),
    ]
  }

  /** What every answer that opens a session carries. */
  async function sessionState(session: SessionSummary) {
    return {
      modes: modeState(session),
      configOptions: await configOptions(session),
      _meta: summaryMeta(session),
    }
  }

  /** Sends a session's updates one after the other, in order; a failed send is logged, not thrown. */
  function updateSender(client: acp.AgentContext, sessionId: string) {
    let queue: Promise<void> = Promise.resolve()
    const send = (update: acp.SessionUpdate) => {
      queue = queue
        .then(() => client.notify(acp.methods.client.session.update, { sessionId, update }))
        .catch((error: unknown) => options.log(`tangent acp: update: ${message(error)}`))
    }
    return { send, flushed: () => queue }
  }

  /** The context meter and cost as a `usage_update` (none while the model's window is unknown). */
  async function usageUpdate(sessionId: string): Promise<acp.SessionUpdate | null> {
    const { usage } = await backend.getSession(sessionId, Number.MAX_SAFE_INTEGER)
    const context = usage?.context
    if (!usage || !context || context.used === null || context.window === null) return null
    return {
      sessionUpdate: 'usage_update',
      used: Math.max(0, Math.round(context.used)),
      size: Math.max(0, Math.round(context.window)),
      ...(usage.total.cost !== null ? { cost: { amount: usage.total.cost, currency: 'USD' } } : {}),
    }
  }

  /**
   * Last before an answer that opens a session (nothing awaited after it): the updates a client
   * shows beside it (commands, usage) follow the answer, which names the session. The editor's
   * files are attached first, so the session's first prompt reads through them.
   */
  async function opened(
    client: acp.AgentContext,
    sessionId: string,
    mcpServers: AttachedMcpServer[],
  ): Promise<void> {
    // The editor's MCP servers join the session's tools while this connection lasts (acp-mcp.ts).
    await backend.attachMcpServers(sessionId, mcpServers)
    await editorFiles.open(client, sessionId)
    afterOpening(client, sessionId)
  }

  function afterOpening(client: acp.AgentContext, sessionId: string): void {
    // After the answer, so the client knows the session when they arrive.
    setTimeout(() => {
      void (async () => {
        const { send, flushed } = updateSender(client, sessionId)
        send(availableCommandsUpdate())
        const usage = await usageUpdate(sessionId).catch(() => null)
        if (usage) send(usage)
        await flushed()
      })()
    }, 0)
  }

  app.onRequest(acp.methods.agent.initialize, ({ params }) => {
    editorFiles.initialize(params.clientCapabilities)
    return initializeAnswer()
  })

  const initializeAnswer = (): acp.InitializeResponse => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: 'tangent', title: 'Tangent', version: options.version },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { embeddedContext: true, image: true },
      mcpCapabilities: acpMcpCapabilities,
      sessionCapabilities: { list: {}, fork: {}, resume: {}, close: {}, title: {}, archive: {} },
    },
    authMethods: [],
  })

  app.onRequest(acp.methods.agent.session.new, ({ params, client }) =>
    mapErrors(async () => {
      const cwd = absoluteFolder(params.cwd, 'cwd')
      noAdditionalDirectories(params.additionalDirectories)
      const mcpServers = attachedMcpServersOf(params.mcpServers)
      const session = await backend.createSession({ cwd })
      const answer = { sessionId: session.id, ...(await sessionState(session)) }
      await opened(client, session.id, mcpServers)
      return answer
    }),
  )

  app.onRequest(acp.methods.agent.session.load, ({ params, client }) =>
    mapErrors(async () => {
      absoluteFolder(params.cwd, 'cwd')
      noAdditionalDirectories(params.additionalDirectories)
      const mcpServers = attachedMcpServersOf(params.mcpServers)
      const { session, events } = await backend.getSession(params.sessionId)
      const mapper = new UpdateMapper({ sessionId: session.id, cwd: session.cwd, live: false })
      for (const event of events) {
        for (const update of mapper.event(event)) {
          await client.notify(acp.methods.client.session.update, { sessionId: session.id, update })
        }
      }
      const answer = await sessionState(session)
      await opened(client, session.id, mcpServers)
      return answer
    }),
  )

  app.onRequest(acp.methods.agent.session.resume, ({ params, client }) =>
    mapErrors(async () => {
      absoluteFolder(params.cwd, 'cwd')
      noAdditionalDirectories(params.additionalDirectories)
      const mcpServers = attachedMcpServersOf(params.mcpServers)
      const { session } = await backend.getSession(params.sessionId, Number.MAX_SAFE_INTEGER)
      const answer = await sessionState(session)
      await opened(client, session.id, mcpServers)
      return answer
    }),
  )

  app.onRequest(acp.methods.agent.session.list, ({ params }) =>
    mapErrors(async () => {
      const cwd = params.cwd ? absoluteFolder(params.cwd, 'cwd') : null
      const archived = params.archived ?? 'exclude'
      if (archived !== 'exclude' && archived !== 'include' && archived !== 'only')
        throw acp.RequestError.invalidParams(
          { archived },
          `Unknown archived filter ${JSON.stringify(archived)}`,
        )
      const after = params.cursor ? readCursor(params.cursor) : null
      const sessions = (await backend.listSessions({ includeArchived: archived !== 'exclude' }))
        .filter((session) => cwd === null || session.cwd === cwd)
        .filter((session) => archived !== 'only' || session.archived)
        .sort(newestFirst)
      const start = after === null ? 0 : sessions.findIndex((session) => newestFirst(session, after) > 0)
      const page = start < 0 ? [] : sessions.slice(start, start + pageSize)
      const last = page.at(-1)
      const more = start >= 0 && start + pageSize < sessions.length
      return {
        sessions: page.map((session) => ({
          sessionId: session.id,
          cwd: session.cwd,
          title: session.title === '' ? null : session.title,
          updatedAt: new Date(session.updatedAt).toISOString(),
          archived: session.archived,
          _meta: summaryMeta(session),
        })),
        ...(more && last ? { nextCursor: writeCursor(last) } : {}),
      }
    }),
  )

  /** Switches the session's mode (the runtime's permission policy reads it at every call). */
  async function setMode(
    client: acp.AgentContext,
    sessionId: string,
    modeId: string,
  ): Promise<SessionSummary> {
    const session = await backend.setMode(sessionId, requestedMode(modeId))
    // A running prompt streams the `session/mode` event itself (acp-updates.ts).
    if (running.has(sessionId)) return session
    const { send, flushed } = updateSender(client, sessionId)
    send(currentModeUpdate(session))
    await flushed()
    return session
  }

  app.onRequest(acp.methods.agent.session.setMode, ({ params, client }) =>
    mapErrors(async () => {
      await setMode(client, params.sessionId, params.modeId)
      return {}
    }),
  )

  app.onRequest(acp.methods.agent.session.setConfigOption, ({ params, client }) =>
    mapErrors(async () => {
      if (params.configId === modeConfigId && typeof params.value === 'string') {
        const session = await setMode(client, params.sessionId, params.value)
        return { configOptions: await configOptions(session) }
      }
      if (params.configId !== modelConfigId || typeof params.value !== 'string') {
        throw acp.RequestError.invalidParams(
          { configId: params.configId },
          `Unknown config option ${params.configId}`,
        )
      }
      const { session: before } = await backend.getSession(params.sessionId, Number.MAX_SAFE_INTEGER)
      const offered = (await configOptions(before)).find((option) => option.id === modelConfigId)
      const values = offered && offered.type === 'select' ? offered.options : []
      if (!values.some((option) => 'value' in option && option.value === params.value)) {
        throw acp.RequestError.invalidParams(
          { configId: modelConfigId, value: params.value, code: 'invalid-model' },
          `${params.value} is not an available model: choose one of the options`,
        )
      }
      const session = await backend.setModel(params.sessionId, params.value)
      return { configOptions: await configOptions(session) }
    }),
  )

  app.onRequest(acp.methods.agent.session.fork, ({ params, client }) =>
    mapErrors(async () => {
      if (typeof params.cwd === 'string') absoluteFolder(params.cwd, 'cwd')
      noAdditionalDirectories(params.additionalDirectories)
      const mcpServers = attachedMcpServersOf(params.mcpServers)
      const anchor = forkAnchor(params._meta)
      const request: ForkRequest = { sessionId: params.sessionId, ...anchor }
      // A worktree fork of a session from another machine lands in the editor's folder here.
      if (anchor.files === 'worktree' && typeof params.cwd === 'string') {
        const { session: source } = await backend.getSession(params.sessionId, Number.MAX_SAFE_INTEGER)
        if (source.files.elsewhere) request.folder = params.cwd
      }
      const { session, boundary, worktree } = await backend.fork(request)
      const answer = {
        sessionId: session.id,
        modes: modeState(session),
        configOptions: await configOptions(session),
        // A worktree fork names the files it could not bring (`worktree.leftOut`, §14.2).
        _meta: { tangent: { ...summaryMeta(session).tangent, boundary, ...(worktree ? { worktree } : {}) } },
      }
      await opened(client, session.id, mcpServers)
      return answer
    }),
  )

  app.onRequest(acp.methods.agent.session.close, ({ params }) =>
    mapErrors(async () => {
      // Unknown ids are an error; a known one is closed whatever it was doing (its turn aborted).
      await backend.getSession(params.sessionId, Number.MAX_SAFE_INTEGER)
      await cancelPrompt(params.sessionId)
      await editorFiles.close(params.sessionId)
      await backend.attachMcpServers(params.sessionId, [])
      return {}
    }),
  )

  app.onRequest(acp.methods.agent.session.setTitle, ({ params, client }) =>
    mapErrors(async () => {
      const title = params.title.replace(/\s+/g, ' ').trim()
      if (title === '') throw acp.RequestError.invalidParams({ title: params.title }, 'The title is empty')
      const session = await backend.rename(params.sessionId, title)
      const { send, flushed } = updateSender(client, session.id)
      send({ sessionUpdate: 'session_info_update', title: session.title })
      await flushed()
      return { title: session.title }
    }),
  )

  app.onRequest(acp.methods.agent.session.archive, ({ params }) =>
    mapErrors(async () => {
      await backend.setArchived(params.sessionId, true)
      return {}
    }),
  )

  app.onRequest(acp.methods.agent.session.unarchive, ({ params }) =>
    mapErrors(async () => {
      await backend.setArchived(params.sessionId, false)
      return {}
    }),
  )

  /** Stops a prompt being answered: its open permission requests withdrawn, its turn aborted. */
  async function cancelPrompt(sessionId: string): Promise<void> {
    const prompt = running.get(sessionId)
    prompt?.cancel.abort()
    // A turn not started yet is aborted when it starts (session/prompt, `turn/start`).
    if (prompt && !prompt.started) return
    try {
      await backend.abort(sessionId)
    } catch (error) {
      options.log(`tangent acp: cancel ${sessionId}: ${message(error)}`)
    }
  }

  app.onNotification(acp.methods.agent.session.cancel, ({ params }) => cancelPrompt(params.sessionId))

  app.onRequest(acp.methods.agent.session.prompt, ({ params, client }) =>
    mapErrors(async () => {
      const sessionId = params.sessionId
      if (running.has(sessionId)) {
        throw acp.RequestError.invalidParams(
          { sessionId, code: 'session-busy' },
          'This session is answering a prompt: wait for its answer, or cancel it (session/cancel)',
        )
      }
      const [{ session }, info] = await Promise.all([
        backend.getSession(sessionId, Number.MAX_SAFE_INTEGER),
        backend.info(),
      ])
      const model = session.model ? `${session.model.provider}:${session.model.model}` : info.defaultModel
      const { text, images } = promptContent(params.prompt, sessionModelTakesImages(session, info), model)
      // A slash command (`/fork 12`, `/compact`…) does what it does in `tangent chat`, no turn.
      const command = images.length > 0 ? null : await runAcpCommand(backend, sessionId, text)
      if (command !== null) {
        const { send, flushed } = updateSender(client, sessionId)
        send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: command.text } })
        await flushed()
        const { text: _, ...made } = command
        return { stopReason: 'end_turn' as const, _meta: { tangent: { command: true, ...made } } }
      }
      const prompt: RunningPrompt = { cancel: new AbortController(), started: false }
      running.set(sessionId, prompt)
      const { send, flushed } = updateSender(client, sessionId)
      const mapper = new UpdateMapper({ sessionId, cwd: session.cwd, live: true })
      const permissions: Promise<void>[] = []
      let result: Awaited<ReturnType<Backend['prompt']>>
      try {
        result = await backend.prompt(
          sessionId,
          text,
          {
            onDelta: (delta: TurnDelta) => {
              const update = mapper.delta(delta)
              if (update) send(update)
            },
            onEvent: (event) => {
              if (event.type === 'turn/start') {
                prompt.started = true
                // Cancelled before the turn began: it stops now.
                if (prompt.cancel.signal.aborted) void backend.abort(sessionId).catch(() => {})
              }
              for (const update of mapper.event(event)) send(update)
              if (event.type === 'permission/requested') {
                const data = event.data as {
                  callId: string
                  toolName: string
                  input: unknown
                  pattern: string
                }
                permissions.push(
                  flushed().then(() => askPermission(client, session, data, prompt.cancel.signal)),
                )
              }
            },
          },
          { images },
        )
      } finally {
        running.delete(sessionId)
      }
      await flushed()
      await Promise.allSettled(permissions)
      const usage = await usageUpdate(sessionId).catch(() => null)
      if (usage) send(usage)
      await flushed()
      const meta = {
        tangent: { reason: result.reason, turnStartSeq: result.turnStartSeq, turnEndSeq: result.turnEndSeq },
      }
      // ACP: a cancelled prompt answers `cancelled`, whatever the cancel made the turn end with.
      if (prompt.cancel.signal.aborted) return { stopReason: 'cancelled' as const, _meta: meta }
      const reason = stopReason(result.reason)
      if (reason === null) {
        // A failed turn is reported once: this error (the log keeps `turn/end.error`).
        const { events } = await backend.getSession(sessionId, result.turnEndSeq)
        const error = (events[0]?.data as { error?: string } | undefined)?.error ?? 'the turn failed'
        throw acp.RequestError.internalError({ ...meta, code: 'turn-error' }, error)
      }
      return { stopReason: reason, ...(await turnUsage(sessionId, result.turnStartSeq)), _meta: meta }
    }),
  )

  /** The turn's tokens as the prompt answer's `usage` (unstable), when the runtime counted them. */
  async function turnUsage(sessionId: string, turnStartSeq: number): Promise<{ usage?: acp.Usage }> {
    const { usage } = await backend.getSession(sessionId, Number.MAX_SAFE_INTEGER)
    const turn = usage?.turns.find((entry) => entry.seq === turnStartSeq)
    if (!turn) return {}
    return {
      usage: {
        inputTokens: turn.inputTokens,
        outputTokens: turn.outputTokens,
        totalTokens: turn.inputTokens + turn.outputTokens,
        thoughtTokens: turn.reasoningTokens,
        cachedReadTokens: turn.cachedInputTokens,
      },
    }
  }

  /**
   * Bridges an ask of the permission policy (§12.1) to the client's session/request_permission,
   * with the change a write or edit would make as a diff. A session/cancel withdraws the request
   * (`$/cancel_request`) and stops waiting for it: the turn is ending.
   */
  async function askPermission(
    client: acp.AgentContext,
    session: SessionSummary,
    data: { callId: string; toolName: string; input: unknown; pattern: string },
    cancelled: AbortSignal,
  ): Promise<void> {
    if (cancelled.aborted) return
    let decision: 'once' | 'always' | 'deny' = 'deny'
    let reason: string | undefined
    try {
      const content = await previewDiff(data.toolName, data.input, session.cwd)
      const locations = toolLocations(data.toolName, data.input, session.cwd)
      const answer = await client.request(
        acp.methods.client.session.requestPermission,
        {
          sessionId: session.id,
          toolCall: {
            toolCallId: data.callId,
            title: toolTitle(data.toolName, data.input),
            kind: toolKind(data.toolName),
            status: 'pending',
            rawInput:
              typeof data.input === 'object' && data.input !== null
                ? (data.input as Record<string, unknown>)
                : {},
            ...(content.length > 0 ? { content } : {}),
            ...(locations.length > 0 ? { locations } : {}),
          },
          options: [
            { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
            {
              optionId: 'always',
              name: `Always allow ${data.toolName} ${data.pattern}`,
              kind: 'allow_always',
            },
            { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
          ],
        },
        { cancellationSignal: cancelled, stopWaitingOnCancel: true },
      )
      if (answer.outcome.outcome === 'selected') {
        const id = answer.outcome.optionId
        decision = id === 'once' || id === 'always' ? id : 'deny'
      } else {
        reason = 'The editor cancelled the permission request.'
      }
    } catch (error) {
      // Withdrawn by session/cancel: the turn is being aborted, nothing is left to answer.
      if (cancelled.aborted) return
      reason = `The editor did not answer the permission request (${message(error)}).`
    }
    try {
      await backend.answerPermission(session.id, data.callId, {
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
      await Promise.allSettled([...running.keys()].map((sessionId) => cancelPrompt(sessionId)))
      await editorFiles.closeAll()
    },
  }
}

/** ACP requires absolute folders: a relative one would resolve against this process's own. */
function absoluteFolder(folder: string, field: string): string {
  if (!path.isAbsolute(folder))
    throw acp.RequestError.invalidParams(
      { [field]: folder, code: 'invalid-params' },
      `${field} must be an absolute path`,
    )
  return path.normalize(folder)
}

/** Tangent works in one folder per session (§4): more roots are refused, not silently ignored. */
function noAdditionalDirectories(directories: readonly string[] | null | undefined): void {
  if (directories && directories.length > 0)
    throw acp.RequestError.invalidParams(
      { additionalDirectories: directories, code: 'invalid-params' },
      'Tangent sessions work in one folder: additionalDirectories are not supported',
    )
}

/** Newest first; ties by id, so a page boundary is exact. */
function newestFirst(a: { updatedAt: number; id: string }, b: { updatedAt: number; id: string }): number {
  return b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/** A list cursor: the last session of a page, so a page never repeats or skips one that stayed. */
function writeCursor(session: { updatedAt: number; id: string }): string {
  return Buffer.from(JSON.stringify({ u: session.updatedAt, i: session.id })).toString('base64url')
}

function readCursor(cursor: string): { updatedAt: number; id: string } {
  try {
    const raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u?: unknown; i?: unknown }
    if (typeof raw.u === 'number' && Number.isFinite(raw.u) && typeof raw.i === 'string')
      return { updatedAt: raw.u, id: raw.i }
  } catch {
    // reported below
  }
  throw acp.RequestError.invalidParams(
    { cursor, code: 'invalid-params' },
    'Unknown cursor: pass a nextCursor from session/list',
  )
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

/**
 * Tangent errors a client can fix (a bad id, folder, anchor or model; a session that is busy):
 * `-32602` invalid params, or ACP's `-32002` resource not found for an unknown session. Tangent's
 * own code (docs/architecture.md §10) rides in `data.code` either way.
 */
const clientMistakes = new Set([
  'invalid-params',
  'invalid-boundary',
  'open-turn',
  'fork-unavailable',
  'session-busy',
  'session-elsewhere',
  'invalid-session-id',
  'ambiguous-id',
  'model-unavailable',
  'invalid-model',
  'folder-not-found',
  'not-a-directory',
  'cwd-missing',
  'invalid-path',
  'worktree-exists',
  'workspace-not-found',
  'nothing-to-compact',
  'already-kept',
])

/** Tangent's errors as JSON-RPC errors (§14.2). */
async function mapErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof acp.RequestError) throw error
    if (error instanceof TangentError) {
      const data = { ...error.data, code: error.code }
      if (error.code === 'session-not-found') throw new acp.RequestError(-32002, error.message, data)
      if (clientMistakes.has(error.code)) throw acp.RequestError.invalidParams(data, error.message)
      throw acp.RequestError.internalError(data, error.message)
    }
    throw acp.RequestError.internalError({ code: 'internal' }, message(error))
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
