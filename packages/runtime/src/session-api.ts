// One interface over the two ways a front-end reaches sessions: the runtime in this process,
// or a Host over JSON-RPC (@tangent/host's connectHostApi). The CLI's commands and the
// contract suite (test/contract) are written once against it.
import type { AgentDelta } from '@tangent/agent'
import { TangentError } from '@tangent/core'
import {
  type MethodParams,
  type MethodResult,
  parseMethodParams,
  type SessionAttachMcpServersParams,
  type SessionSummary,
} from '@tangent/protocol'
import type { FileReader } from './file-sources.js'
import type { Runtime, SessionListener } from './runtime.js'
import type { SharedActivity } from './runtime-events.js'
import { runtimeMethods, type SessionApiMethodName } from './runtime-methods.js'

export type { AgentDelta }

/** One change to the list of sessions (`onSessionsChanged`). */
export type SessionsChange =
  | { kind: 'created' | 'updated'; session: SessionSummary }
  | { kind: 'deleted'; sessionId: string }

export interface SessionApi {
  /** `host` when calls go over JSON-RPC to a Host, `local` when this process holds the runtime. */
  readonly kind: 'host' | 'local'
  /**
   * One operation of docs/protocol.md; params are checked against its schema either way.
   * `session.attachMcpServers` holds for as long as this SessionApi (its connection) stays open.
   */
  call<M extends SessionApiMethodName>(method: M, params: MethodParams<M>): Promise<MethodResult<M>>
  /**
   * The session's events from `fromSeq` (when given), then every later one — no gap, no
   * duplicate — and its live deltas, until the returned function is called.
   */
  subscribe(
    sessionId: string,
    options: { fromSeq?: number | undefined },
    listener: SessionListener,
  ): Promise<() => Promise<void>>
  /**
   * Attaches a file source to the session (docs/architecture.md §6.1): while attached, the `read`
   * tool of its turns asks `read` for the text of a file (confined and checked first) and takes
   * it, or the disk's on null, an error or a silence. Over a Host the source belongs to this
   * connection and goes with it. Resolves to the detach. `session-not-found` for an unknown id.
   */
  attachFileSource(sessionId: string, read: FileReader): Promise<() => Promise<void>>
  /** Two or more sessions run turns in one directory. */
  onSharedActivity(listener: (activity: SharedActivity) => void): () => void
  /**
   * A session was created, forked, updated (status, title, model, archived flag, counts) or
   * deleted: the Host's `session.created` / `session.updated` / `session.deleted` notifications,
   * which front-ends that show the list (the web UI, `tangent tui`) follow.
   */
  onSessionsChanged(listener: (change: SessionsChange) => void): () => void
  close(): Promise<void>
}

/**
 * The runtime in this process, behind the same schemas the Host applies to its params (the
 * reads of short commands checked structurally first, without loading zod: docs/architecture.md §9).
 */
export function inProcessApi(runtime: Runtime, options: { close?: () => Promise<void> } = {}): SessionApi {
  // This api is the owner of the MCP servers attached through it: they end when it closes.
  const owner = {}
  let closed = false
  const handlers = {
    ...runtimeMethods(runtime),
    'session.attachMcpServers': async (params: SessionAttachMcpServersParams) => {
      // Nothing would ever detach them: a closed api holds nothing.
      if (closed) throw new TangentError('connection-closed', 'This api is closed.', { sent: false })
      const result = await runtime.attachMcpServers(params, owner)
      // Closed while attaching: close's detach came first, so it is made again.
      if (closed) await runtime.detachMcpServers(owner)
      return result
    },
  }
  const close = options.close ?? (() => runtime.close())
  return {
    kind: 'local',
    async call(method, params) {
      const parsed = parseMethodParams(method, params ?? {})
      if (!parsed.success) throw invalidParams(method, parsed.error.issues)
      const handler = handlers[method] as (params: unknown) => Promise<never>
      return handler(parsed.data)
    },
    async subscribe(sessionId, subscribeOptions, listener) {
      const off = await runtime.subscribe(sessionId, subscribeOptions, listener)
      return async () => off()
    },
    async attachFileSource(sessionId, read) {
      const detach = await runtime.attachFileSource(sessionId, read)
      return async () => detach()
    },
    onSharedActivity: (listener) => runtime.on('shared-activity', listener),
    onSessionsChanged(listener) {
      const offs = [
        runtime.on('session-created', (session) => listener({ kind: 'created', session })),
        runtime.on('session-updated', (session) => listener({ kind: 'updated', session })),
        runtime.on('session-deleted', (sessionId) => listener({ kind: 'deleted', sessionId })),
      ]
      return () => {
        for (const off of offs) off()
      }
    },
    async close() {
      closed = true
      await runtime.detachMcpServers(owner)
      await close()
    },
  }
}

/** `invalid-params` naming the first problems, with every issue in `data.issues` (as the Host sends it). */
export function invalidParams(
  method: string,
  issues: readonly { path: readonly PropertyKey[]; message: string; code?: string }[],
): TangentError {
  const summary = issues
    .slice(0, 5)
    .map(
      (issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : 'params'}: ${issue.message}`,
    )
    .join('; ')
  return new TangentError('invalid-params', `Invalid params for ${method}: ${summary}.`, {
    issues: issues.map((issue) => ({
      path: issue.path.map(String),
      message: issue.message,
      ...(issue.code !== undefined ? { code: issue.code } : {}),
    })),
  })
}
