// session.rename, session.archive and session.delete. A rename is a `session/title`
// event (a standalone event, so only between turns); delete removes a worktree only
// when it is clean and says so otherwise.
import { assertIdle, type HostContext, liveSession, summarize } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { announceUpdated } from '../session-notifications.js'
import { hostMetaOf } from '../session-summary.js'

export function sessionManageMethods(
  context: HostContext,
): Pick<MethodHandlers, 'session.rename' | 'session.archive' | 'session.delete'> {
  const { persistence, agents, hub, files, forkRequests } = context
  return {
    'session.rename': async (params) => {
      const session = await liveSession(context, params.sessionId)
      assertIdle(session, 'rename it')
      session.append('session/title', { title: params.title })
      await persistence.flush(session.id)
      return summarize(context, session.id)
    },

    'session.archive': async (params) => {
      await summarize(context, params.sessionId)
      await persistence.setArchived(params.sessionId, params.archived)
      const summary = await summarize(context, params.sessionId)
      hub.broadcast('session.updated', { session: summary })
      return summary
    },

    'session.delete': async (params) => {
      const session = await liveSession(context, params.sessionId)
      assertIdle(session, 'delete it')
      const meta = hostMetaOf(session.header)
      agents.remove(session.id)
      const { materialized } = await persistence.delete(session.id)
      forkRequests.forget(session.id)
      hub.dropSession(session.id)
      hub.broadcast('session.deleted', { sessionId: session.id })
      for (const childId of materialized) announceUpdated(context, childId)
      if (meta.files?.mode !== 'worktree') return { deleted: true as const, materialized }
      const choice = params.worktree ?? 'remove'
      if (choice === 'keep') {
        return {
          deleted: true as const,
          materialized,
          worktree: { path: meta.files.path, removed: false, reason: 'kept as asked' },
        }
      }
      // Without force only a clean worktree is removed; one with changes stays and the answer says why.
      const outcome = await files.removeWorktree(meta.files.path, { force: choice === 'force' })
      return {
        deleted: true as const,
        materialized,
        worktree: {
          path: meta.files.path,
          removed: outcome.removed,
          ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
        },
      }
    },
  }
}
