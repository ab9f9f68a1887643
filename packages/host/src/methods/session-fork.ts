// session.fork (PROTOCOL.md, DESIGN.md §7): an anchor becomes a boundary through core's
// resolveForkAnchor; the child takes the source's latest model, joins its workspace, and
// gets its own directory with `files: 'worktree'`. Works on sessions only on disk, and on
// running sessions at any completed turn without touching the running turn.
import { type ModelSelectionData, resolveForkAnchor, type Session, TangentError } from '@tangent/core'
import type { SessionForkParams } from '@tangent/protocol'
import type { ForkOutcome } from '../fork-requests.js'
import { type HostContext, liveSession, summarize } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { hostMetaOf } from '../session-summary.js'

interface ForkAttempt extends ForkOutcome {
  /** The source's workspace the child could not join. */
  attachFailedWorkspaceId?: string
}

export function sessionForkMethods(context: HostContext): Pick<MethodHandlers, 'session.fork'> {
  return {
    'session.fork': async (params) => {
      const attempt = () => forkSession(context, params)
      const outcome: ForkAttempt = params.requestId
        ? await context.forkRequests.run(params.requestId, attempt)
        : await attempt()
      if (outcome.sourceId !== params.sessionId) {
        throw new TangentError(
          'invalid-params',
          `requestId ${JSON.stringify(params.requestId)} was already used to fork session ${outcome.sourceId}: use a new requestId for each fork.`,
          { issues: [{ path: ['requestId'], message: 'already used for a fork of another session' }] },
        )
      }
      if (outcome.attachFailedWorkspaceId !== undefined) {
        throw new TangentError(
          'workspace-attach-failed',
          `Forked ${params.sessionId} into ${outcome.childId}, but the child could not join workspace ${outcome.attachFailedWorkspaceId} (it no longer exists). The child is listed without a workspace.`,
          { sessionId: outcome.childId, workspaceId: outcome.attachFailedWorkspaceId },
        )
      }
      return { session: await summarize(context, outcome.childId), boundary: outcome.boundary }
    },
  }
}

async function forkSession(context: HostContext, params: SessionForkParams): Promise<ForkAttempt> {
  const { persistence, files, workspaces } = context
  const source = await liveSession(context, params.sessionId)
  // The events as they are now: a running turn may append more, the boundary does not move.
  const events = source.events.slice()
  const boundary = resolveBoundary(source.id, events, params)
  // Index lookups (O(log n)): a fork must not cost a scan of the whole history.
  const latestModel = source.model
  const sourceMeta = hostMetaOf(source.header)
  const inheritsWholePrefix = boundary >= source.inheritedEventCount - 1
  const baseTree =
    snapshotTreeAt(source, boundary) ?? (inheritsWholePrefix ? (sourceMeta.baseTree ?? null) : null)
  const sourceWorkspace = sourceMeta.workspaceId
  const attached = sourceWorkspace !== undefined && workspaces.has(sourceWorkspace)

  const childId = persistence.store.newId()
  let cwd = source.header.cwd
  let worktreePath: string | undefined
  if (params.files === 'worktree') {
    const worktree = await files.createWorktree({
      cwd: source.header.cwd,
      tree: baseTree,
      sessionId: childId,
    })
    worktreePath = worktree.path
    cwd = worktree.path
  }

  let child: Session
  try {
    // Durability: the child's header points into the source's file through `boundary`.
    await persistence.flush(source.id)
    const current = persistence.store.get(source.id) ?? (await persistence.load(source.id))
    child = persistence.store.fork(current, boundary, childId, {
      meta: {
        cwd,
        ...(attached ? { workspaceId: sourceWorkspace } : {}),
        files: { mode: params.files ?? 'shared', path: cwd },
        baseTree,
        ...(params.requestId !== undefined ? { forkRequestId: params.requestId } : {}),
      },
    })
  } catch (error) {
    if (worktreePath !== undefined) await files.removeWorktree(worktreePath, { force: true })
    throw error
  }
  if (latestModel && !sameModel(child.model, latestModel)) {
    child.append('model/selection', latestModel)
  }
  if (params.title !== undefined) child.append('session/title', { title: params.title })
  await persistence.flush(child.id)
  return {
    sourceId: source.id,
    childId: child.id,
    boundary,
    ...(sourceWorkspace !== undefined && !attached ? { attachFailedWorkspaceId: sourceWorkspace } : {}),
  }
}

function resolveBoundary(sessionId: string, events: Session['events'], params: SessionForkParams): number {
  try {
    return resolveForkAnchor(events, { atSeq: params.atSeq, before: params.before })
  } catch (error) {
    if (TangentError.isInstance(error)) {
      throw new TangentError(error.code, error.message, {
        ...error.data,
        sessionId,
        atSeq: params.atSeq ?? null,
      })
    }
    throw error
  }
}

function sameModel(a: ModelSelectionData | null, b: ModelSelectionData): boolean {
  return (
    a !== null && a.provider === b.provider && a.model === b.model && a.reasoningEffort === b.reasoningEffort
  )
}

/** The tree of the latest `snapshot/taken` at or before `seq` (own or inherited), or null. */
function snapshotTreeAt(session: Session, seq: number): string | null {
  const event = session.latestOfType('snapshot/taken', seq)
  return event ? (event.data as { tree: string }).tree : null
}
