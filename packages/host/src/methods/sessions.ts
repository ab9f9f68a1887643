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
      // Already in listing order (oldest first, then id): one pass, no re-sort.
      const entries = await persistence.listView()
      const { store } = persistence
      const summaries: SessionSummary[] = []
      for (const entry of entries) {
        const summary = toSessionSummary(entry, store.get(entry.id))
        if (wanted(summary)) summaries.push(summary)
      }
      // A session created a moment ago may not have reached the catalog yet.
      let added = false
      const live = [...store.sessions()]
      const listed = live.length > 0 ? new Set(entries.map((entry) => entry.id)) : null
      for (const session of live) {
        if (listed?.has(session.id)) continue
        const summary = toSessionSummary(undefined, session)
        if (wanted(summary)) {
          summaries.push(summary)
          added = true
        }
      }
      return added ? summaries.sort(byAge) : summaries

      function wanted(summary: SessionSummary): boolean {
        return (
          (params.includeArchived === true || !summary.archived) &&
          (params.workspaceId === undefined || summary.workspaceId === params.workspaceId)
        )
      }
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

/** The store's listing order: oldest first, then by id (code units). */
function byAge(a: SessionSummary, b: SessionSummary): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}
