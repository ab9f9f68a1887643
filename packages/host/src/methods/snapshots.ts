// snapshot.list and snapshot.restore through FileState. A restore's closing snapshot is
// appended to the session, so its own timeline records what the restore wrote.
import { assertIdle, type HostContext, liveSession } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { hostMetaOf } from '../session-summary.js'

export function snapshotMethods(
  context: HostContext,
): Pick<MethodHandlers, 'snapshot.list' | 'snapshot.restore'> {
  const { files, persistence } = context
  return {
    'snapshot.list': async (params) => {
      const session = await liveSession(context, params.sessionId)
      return files.timeline({ events: session.events, inheritedEventCount: session.inheritedEventCount })
    },

    'snapshot.restore': async (params) => {
      const session = await liveSession(context, params.sessionId)
      assertIdle(session, 'restore its files')
      const outcome = await files.restore({
        cwd: session.header.cwd,
        events: session.events,
        inheritedEventCount: session.inheritedEventCount,
        baseTree: hostMetaOf(session.header).baseTree ?? null,
        toSeq: params.seq,
        force: params.force ?? false,
      })
      const after = outcome.snapshot
      session.append('snapshot/taken', { tree: after.tree, changed: after.changed, skipped: after.skipped })
      await persistence.flush(session.id)
      return { restored: outcome.restored, kept: outcome.kept, undoTree: outcome.undoTree }
    },
  }
}
