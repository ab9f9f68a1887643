// Forks (docs/architecture.md §3, §7): a child at an anchor of its source, with the source's latest
// model, a distinguishing title, its workspace and project folder, and its own worktree with
// `files: 'worktree'`; idempotent by `requestId` (fork-requests.ts), also across restarts. A
// subagent's fork (§14.1) cuts at an exact boundary instead.
import { statSync } from 'node:fs'
import { type Session, type SessionPersistence, TangentError } from '@tangent/core'
import type { FileState } from '@tangent/files'
import type { SessionForkParams, SessionForkResult, SessionSummary } from '@tangent/protocol'
import { resolveBoundary, sameModel, skippedAt, treeAt } from './fork-point.js'
import { type ForkOutcome, ForkRequests } from './fork-requests.js'
import { headerMetaFields, headerMetaOf, type SessionHeaderMeta } from './header-meta.js'
import { forkTitle } from './runtime-support.js'
import type { SessionHooks } from './session-hooks.js'
import type { WorkspaceRegistry } from './workspaces.js'
import type { WriteAccess } from './write-access.js'

export interface ForkAttempt extends ForkOutcome {
  /** The source's workspace the child could not join (only on the attempt that made the child). */
  attachFailedWorkspaceId?: string
}

export interface ForksDeps {
  /** Its `fork` hooks run once a child is made (§12.7). */
  hooks: SessionHooks
  store: SessionPersistence
  access: WriteAccess
  registry: WorkspaceRegistry
  load(sessionId: string): Promise<Session>
  summary(sessionId: string): Promise<SessionSummary>
  fileState(): Promise<FileState>
  /** This machine's name: where a worktree fork's files live (shared store). */
  machine: string
  /** A folder a client names, as a real path (`folder-not-found` when it is not one). */
  realFolder(named: string): Promise<string>
}

export class Forks {
  readonly #deps: ForksDeps
  readonly #store: SessionPersistence
  readonly #requests: ForkRequests

  constructor(deps: ForksDeps) {
    this.#deps = deps
    this.#store = deps.store
    this.#requests = ForkRequests.fromHeaders(() => deps.store.headers())
  }

  /**
   * Forks at an anchor (docs/architecture.md §7): the child takes the source's latest model,
   * a distinguishing title, its workspace, and its own directory with `files: 'worktree'`.
   * The same `requestId` returns the same child.
   */
  async fork(
    params: SessionForkParams,
    meta: Pick<SessionHeaderMeta, 'exploration'> = {},
  ): Promise<SessionForkResult> {
    this.#deps.access.assertWritable('fork a session')
    // A retry of a requestId returns the child made before: its hooks ran then.
    let made = false
    const attempt = async () => {
      const outcome = await this.forkAt(params, meta)
      made = true
      return outcome
    }
    const outcome: ForkAttempt = params.requestId
      ? await this.#requests.run(params.requestId, attempt)
      : await attempt()
    if (made) await this.#forkHooks(outcome)
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
    const child = await this.#deps.summary(outcome.childId)
    if (child.files.mode !== 'worktree') return { session: child, boundary: outcome.boundary }
    // From the child's header, so a retry of the same requestId (after a restart too) says it again.
    const header = this.#store.store.get(child.id)?.header ?? (await this.#store.get(child.id))?.header ?? {}
    const leftOut = headerMetaOf(header).leftOut ?? []
    return { session: child, boundary: outcome.boundary, worktree: { path: child.files.path, leftOut } }
  }

  /** The `fork` hooks of a new child, in its folder: its parent and fork point, and the child. */
  async #forkHooks(outcome: ForkAttempt): Promise<void> {
    const child = this.#store.store.get(outcome.childId) ?? (await this.#deps.load(outcome.childId))
    const files = headerMetaOf(child.header).files?.mode ?? 'shared'
    await this.#deps.hooks.fire(
      'fork',
      { sessionId: child.id, cwd: child.header.cwd },
      {
        parent: { sessionId: outcome.sourceId, atSeq: outcome.boundary },
        child: { sessionId: child.id, cwd: child.header.cwd, files, title: child.title ?? '' },
      },
    )
  }

  /** A deleted session's fork requests are forgotten: a retry of one forks anew. */
  forget(sessionId: string): void {
    this.#requests.forget(sessionId)
  }

  /**
   * `exactBoundary` is for subagents only (docs/architecture.md §14.1): the one fork that trims
   * a running session to its last completed turn; every other fork resolves its anchor.
   */
  async forkAt(
    params: SessionForkParams,
    extra: Pick<SessionHeaderMeta, 'exploration' | 'subagentOf'>,
    exactBoundary?: number,
  ): Promise<ForkAttempt> {
    const store = this.#store
    const { registry, machine: here } = this.#deps
    const source = await this.#deps.load(params.sessionId)
    // A session whose files are on another machine (shared store): its workspace is that
    // machine's, never looked for here; a worktree fork takes its files from the store.
    const sourceMachine = headerMetaOf(source.header).machine
    const elsewhere = store.shared && sourceMachine !== undefined && sourceMachine !== here
    if (params.folder !== undefined && !(elsewhere && params.files === 'worktree')) {
      throw new TangentError(
        'invalid-params',
        `folder is for a worktree fork of a session from another machine: ${params.sessionId} works ${elsewhere ? 'on another machine, and this fork shares its files there' : 'on this machine'}.`,
        {
          issues: [
            { path: ['folder'], message: 'only with files: "worktree" of a session from another machine' },
          ],
        },
      )
    }
    // The events as they are now: a running turn may append more, the boundary does not move.
    const boundary = exactBoundary ?? resolveBoundary(source, params)
    const latestModel = source.model
    const sourceMeta = headerMetaOf(source.header)
    const inheritsWholePrefix = boundary >= source.inheritedEventCount - 1
    const baseTree = treeAt(source, boundary) ?? (inheritsWholePrefix ? (sourceMeta.baseTree ?? null) : null)
    const localFolder =
      elsewhere && params.files === 'worktree' ? await this.#localFolder(params, source) : null
    const sourceWorkspace = elsewhere
      ? ((localFolder !== null ? registry.workspaceOf(localFolder, undefined) : null) ?? undefined)
      : (sourceMeta.workspaceId ??
        registry.workspaceOf(source.header.cwd, undefined, sourceMeta.projectFolder) ??
        undefined)
    const attached = sourceWorkspace !== undefined && registry.has(sourceWorkspace)
    const title = params.title ?? forkTitle(source, await store.listView(), store.store.sessions())

    const childId = store.store.newId()
    // With a shared store the child's files are where the source's are (shared), or here (worktree).
    const machine = store.shared
      ? params.files === 'worktree'
        ? here
        : (sourceMeta.machine ?? here)
      : undefined
    return this.#deps.access.claimed(childId, () =>
      this.#forkInto(params, extra, {
        source,
        boundary,
        latestModel,
        baseTree,
        sourceWorkspace,
        attached,
        title,
        childId,
        machine,
        elsewhere,
        localFolder,
      }),
    )
  }

  /**
   * The project's folder on this machine for a worktree fork of a session from another one: the
   * one the client names, else an open workspace at the source's project folder's path (the same
   * layout on both machines), else none — the child's worktree is then a plain copy.
   */
  async #localFolder(params: SessionForkParams, source: Session): Promise<string | null> {
    if (params.folder !== undefined) return this.#deps.realFolder(params.folder)
    const projectFolder = headerMetaOf(source.header).projectFolder ?? source.header.cwd
    const same = this.#deps.registry.list().find((workspace) => workspace.path === projectFolder)
    return same !== undefined && isDirectory(same.path) ? same.path : null
  }

  async #forkInto(
    params: SessionForkParams,
    extra: Pick<SessionHeaderMeta, 'exploration' | 'subagentOf'>,
    plan: {
      source: Session
      boundary: number
      latestModel: Session['model']
      baseTree: string | null
      sourceWorkspace: string | undefined
      attached: boolean
      title: string
      childId: string
      machine: string | undefined
      /** The source's files are on another machine (shared store). */
      elsewhere: boolean
      /** With `elsewhere`, the project's folder on this machine, if it has one. */
      localFolder: string | null
    },
  ): Promise<ForkAttempt> {
    const store = this.#store
    const { source, boundary, latestModel, baseTree, sourceWorkspace, attached, title, childId } = plan
    let cwd = source.header.cwd
    // The folder the child works for: its workspace follows that folder's (a worktree is elsewhere).
    // From another machine, this machine's folder of the project, if it has one.
    const projectFolder = plan.elsewhere
      ? (plan.localFolder ?? undefined)
      : (headerMetaOf(source.header).projectFolder ?? source.header.cwd)
    let worktreePath: string | undefined
    let leftOut: string[] | undefined
    if (params.files === 'worktree') {
      // From another machine the fork point's files come from the store (docs/architecture.md §5);
      // a fork point with no snapshot is an empty folder, or this machine's folder as it is.
      const worktree = await (await this.#deps.fileState()).createWorktree({
        cwd: plan.elsewhere ? plan.localFolder : source.header.cwd,
        tree: plan.elsewhere && plan.localFolder === null ? (baseTree ?? emptyTree) : baseTree,
        sessionId: childId,
        skipped: skippedAt(source, boundary),
      })
      worktreePath = worktree.path
      cwd = worktree.path
      leftOut = worktree.leftOut
    }
    let child: Session
    try {
      // Durability: the child's header points into the source's file through `boundary`.
      await store.flush(source.id)
      const current = store.store.get(source.id) ?? (await store.load(source.id))
      child = store.store.fork(current, boundary, childId, {
        meta: {
          cwd,
          ...headerMetaFields({
            ...(attached ? { workspaceId: sourceWorkspace } : {}),
            ...(projectFolder !== undefined && projectFolder !== cwd ? { projectFolder } : {}),
            files: { mode: params.files ?? 'shared', path: cwd },
            baseTree,
            ...(leftOut !== undefined ? { leftOut } : {}),
            ...(params.requestId !== undefined ? { forkRequestId: params.requestId } : {}),
            ...extra,
            ...(plan.machine !== undefined ? { machine: plan.machine } : {}),
          }),
          ...(extra.subagentOf ? { origin: 'subagent' as const } : {}),
        },
      })
    } catch (error) {
      if (worktreePath !== undefined)
        await (await this.#deps.fileState()).removeWorktree(worktreePath, { force: true })
      throw error
    }
    // The child runs with the source's latest model, even one chosen after the fork point.
    if (latestModel && !sameModel(child.model, latestModel)) child.append('model/selection', latestModel)
    child.append('session/title', { title })
    await store.flush(child.id)
    return {
      sourceId: source.id,
      childId: child.id,
      boundary,
      ...(sourceWorkspace !== undefined && !attached ? { attachFailedWorkspaceId: sourceWorkspace } : {}),
    }
  }
}

/** The tree with no entries (git knows it without storing it): the files of a fork point with no snapshot. */
const emptyTree = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

function isDirectory(folder: string): boolean {
  return statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true
}
