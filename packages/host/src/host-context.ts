// Everything the method handlers share: the store, files, models, workspaces, live
// agents, connections, and the few lookups every method needs.
import type { ModelRegistry } from '@tangent/agent'
import { type Session, TangentError } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type { SessionSummary } from '@tangent/protocol'
import type { JsonlStore } from '@tangent/store-jsonl'
import type { AgentPool } from './agent-pool.js'
import type { ConnectionHub } from './connections.js'
import type { ForkRequests } from './fork-requests.js'
import { toSessionSummary } from './session-summary.js'
import type { WorkspaceRegistry } from './workspaces.js'

export interface HostContext {
  readonly home: string
  readonly version: string
  readonly defaultModel: string
  /** Working directory of sessions created without workspace or cwd. */
  readonly defaultCwd: string
  readonly persistence: JsonlStore
  readonly files: FileState
  readonly models: ModelRegistry
  /** Throws `invalid-model` unless `id` is `provider:model` of a known provider. */
  readonly validateModel: (id: string) => { provider: string; model: string }
  readonly workspaces: WorkspaceRegistry
  readonly hub: ConnectionHub
  readonly agents: AgentPool
  readonly forkRequests: ForkRequests
  /** Logs an unexpected error (the Host keeps running). */
  readonly report: (error: unknown) => void
}

/** The live session (loaded from disk if needed); throws `session-not-found`. */
export async function liveSession(context: HostContext, sessionId: string): Promise<Session> {
  return context.persistence.store.get(sessionId) ?? (await context.persistence.load(sessionId))
}

/** The session's summary; throws `session-not-found`. */
export async function summarize(context: HostContext, sessionId: string): Promise<SessionSummary> {
  const entry = await context.persistence.get(sessionId)
  const live = context.persistence.store.get(sessionId)
  if (!entry && !live) throw sessionNotFound(sessionId)
  return toSessionSummary(entry, live)
}

export function sessionNotFound(sessionId: string): TangentError {
  return new TangentError(
    'session-not-found',
    `Session ${sessionId} not found: list sessions with session.list.`,
    {
      sessionId,
    },
  )
}

/** Refuses calls that need an idle session. */
export function assertIdle(session: Session, action: string): void {
  if (session.isTurnOpen) {
    throw new TangentError(
      'session-busy',
      `Session ${session.id} is running a turn: wait for it to end or abort it before you ${action}.`,
      { sessionId: session.id },
    )
  }
}
