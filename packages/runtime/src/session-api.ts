// One interface over the two ways a front-end reaches sessions: the runtime in this process,
// or a Host over JSON-RPC (@tangent/host's connectHostApi). The CLI's commands and the
// contract suite (test/contract) are written once against it.
import type { AgentDelta } from '@tangent/agent'
import { TangentError } from '@tangent/core'
import { type MethodParams, type MethodResult, parseMethodParams } from '@tangent/protocol'
import type { Runtime, SessionListener } from './runtime.js'
import type { SharedActivity } from './runtime-events.js'
import { type RuntimeMethodName, runtimeMethods } from './runtime-methods.js'

export type { AgentDelta }

export interface SessionApi {
  /** `host` when calls go over JSON-RPC to a Host, `local` when this process holds the runtime. */
  readonly kind: 'host' | 'local'
  /** One operation of docs/protocol.md; params are checked against its schema either way. */
  call<M extends RuntimeMethodName>(method: M, params: MethodParams<M>): Promise<MethodResult<M>>
  /**
   * The session's events from `fromSeq` (when given), then every later one — no gap, no
   * duplicate — and its live deltas, until the returned function is called.
   */
  subscribe(
    sessionId: string,
    options: { fromSeq?: number | undefined },
    listener: SessionListener,
  ): Promise<() => Promise<void>>
  /** Two or more sessions run turns in one directory. */
  onSharedActivity(listener: (activity: SharedActivity) => void): () => void
  close(): Promise<void>
}

/**
 * The runtime in this process, behind the same schemas the Host applies to its params (the
 * reads of short commands checked structurally first, without loading zod: docs/architecture.md §9).
 */
export function inProcessApi(runtime: Runtime, options: { close?: () => Promise<void> } = {}): SessionApi {
  const handlers = runtimeMethods(runtime)
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
    onSharedActivity: (listener) => runtime.on('shared-activity', listener),
    close: options.close ?? (() => runtime.close()),
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
