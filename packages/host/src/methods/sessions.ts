// session.list, session.get and session.create: reading the catalog and live sessions,
// and starting new sessions in a workspace (cwd = the workspace's path unless given).
import type { SessionSummary, Workspace } from '@tangent/protocol'
import { type HostContext, liveSession, summarize } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { toSessionSummary } from '../session-summary.js'
import { realDirectory } from '../workspaces.js'

export function sessionMethods(
  context: HostContext,
): Pick<MethodHandlers, 'session.list' | 'session.get' | 'session.create'> {
  const { persistence, workspaces } = context
  return {
    'session.list': async (params) => {
      if (params.workspaceId !== undefined) workspaces.get(params.workspaceId)
      const entries = await persistence.list()
      const summaries: SessionSummary[] = entries.map((entry) =>
        toSessionSummary(entry, persistence.store.get(entry.id)),
      )
      const listed = new Set(entries.map((entry) => entry.id))
      // A session created a moment ago may not have reached the catalog yet.
      for (const session of persistence.store.sessions()) {
        if (!listed.has(session.id)) summaries.push(toSessionSummary(undefined, session))
      }
      return summaries
        .filter((summary) => params.includeArchived === true || !summary.archived)
        .filter((summary) => params.workspaceId === undefined || summary.workspaceId === params.workspaceId)
        .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
    },

    'session.get': async (params) => {
      const entry = await persistence.get(params.sessionId)
      const session = await liveSession(context, params.sessionId)
      // Synchronous from here: the summary and the events describe the same moment.
      return {
        session: toSessionSummary(entry, session),
        events: session.events.slice(params.fromSeq ?? 0),
      }
    },

    'session.create': async (params) => {
      const workspace: Workspace | undefined =
        params.workspaceId !== undefined ? workspaces.get(params.workspaceId) : undefined
      const cwd =
        params.cwd !== undefined
          ? await realDirectory(params.cwd, 'cwd')
          : (workspace?.path ?? context.defaultCwd)
      const workspaceId = workspace?.id ?? workspaces.list().find((candidate) => candidate.path === cwd)?.id
      const model = context.validateModel(params.model ?? context.defaultModel)
      const session = persistence.store.create(undefined, {
        meta: { cwd, ...(workspaceId !== undefined ? { workspaceId } : {}) },
      })
      session.append('model/selection', model)
      if (params.title !== undefined) session.append('session/title', { title: params.title })
      await persistence.flush(session.id)
      return summarize(context, session.id)
    },
  }
}
