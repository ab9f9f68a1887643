// Workspaces: the folders the Host has open (most recently opened first), the one selected, the
// folder browser, and the session open last in each, reopened on coming back to it
// (docs/architecture.md §12.6).
import type { HostState } from './host-state.js'
import type { OpenSessionMemory } from './open-session-memory.js'
import type { StoreDeps } from './store-deps.js'
import type { ViewStore } from './view-store.js'
import type { BrowseResult, Workspace } from './wire.js'

export interface WorkspacesDeps extends StoreDeps {
  readonly view: ViewStore
  readonly memory: OpenSessionMemory
  /** Opens a session (the one remembered in a workspace just opened). */
  readonly openSession: (sessionId: string) => Promise<void>
}

export class WorkspacesStore {
  readonly #deps: WorkspacesDeps
  /** Workspace ids already looked up once: a workspace that is really gone is asked for once. */
  readonly #asked = new Set<string>()

  constructor(deps: WorkspacesDeps) {
    this.#deps = deps
  }

  /**
   * Opens a folder as a workspace (`~`, `~/x` and paths relative to the Host's start folder
   * work too) and selects it. Like `workspace.list`, the most recently opened comes first.
   * Resolves once the session remembered there is open too; `onOpened` is told as soon as the
   * workspace itself is (a form can take another folder while that session loads).
   */
  async openWorkspace(
    path: string,
    onError?: (error: unknown) => void,
    onOpened?: (workspace: Workspace) => void,
  ): Promise<Workspace | null> {
    const { state, view } = this.#deps
    const client = this.#deps.client()
    try {
      const workspace = await client.call('workspace.open', { path })
      const others = state.get().workspaces.filter((w) => w.id !== workspace.id)
      state.set({
        workspaces: [workspace, ...others],
        activeWorkspaceId: workspace.id,
        ...view.unfolding(workspace.id),
      })
      onOpened?.(workspace)
      const remembered = this.recall(workspace.id)
      if (remembered !== null) await this.#deps.openSession(remembered)
      return workspace
    } catch (error) {
      if (onError) onError(error)
      else this.#deps.notices.report(error, { sessionId: null })
      return null
    }
  }

  /**
   * The subfolders of `path` (default: the Host's start folder), for the folder browser.
   * Throws the Host's error (e.g. RpcError `folder-not-found`): the browser shows it in place.
   */
  async browse(path: string | undefined, hidden: boolean): Promise<BrowseResult> {
    return this.#deps.client().call('workspace.browse', {
      ...(path !== undefined && path.trim() !== '' ? { path: path.trim() } : {}),
      ...(hidden ? { hidden } : {}),
    })
  }

  /** A session's workspace this page does not know (opened elsewhere: another tab, the CLI) is looked up. */
  know(workspaceId: string | null): void {
    if (workspaceId !== null && !this.#deps.state.get().workspaces.some((w) => w.id === workspaceId))
      void this.#learn(workspaceId)
  }

  async #learn(workspaceId: string): Promise<void> {
    if (this.#asked.has(workspaceId)) return
    this.#asked.add(workspaceId)
    try {
      const workspaces = await this.#deps.client().call('workspace.list', {})
      this.#deps.state.set({ workspaces })
    } catch (error) {
      this.#deps.notices.report(error, { sessionId: null })
    }
  }

  /** The session open last in a workspace, when it still exists. */
  recall(workspaceId: string | null): string | null {
    const { info, sessions } = this.#deps.state.get()
    const dataDir = info?.dataDir
    if (workspaceId === null || dataDir === undefined) return null
    const sessionId = this.#deps.memory.recall(dataDir, workspaceId)
    return sessionId !== null && sessions.has(sessionId) ? sessionId : null
  }

  /** Remembers the session opened in its workspace. */
  remember(workspaceId: string | null, sessionId: string): void {
    const dataDir = this.#deps.state.get().info?.dataDir
    if (dataDir !== undefined && workspaceId !== null)
      this.#deps.memory.remember(dataDir, workspaceId, sessionId)
  }

  /** The patch for the workspaces listed on connecting, with one selected (`pickActiveWorkspace`). */
  listedPatch(workspaces: readonly Workspace[], startFolder: string | undefined): Partial<HostState> {
    return {
      workspaces,
      activeWorkspaceId: pickActiveWorkspace(
        this.#deps.state.get().activeWorkspaceId,
        workspaces,
        startFolder,
      ),
    }
  }

  /** The patch that selects a session's workspace (none: the selection stays). */
  selecting(workspaceId: string | null | undefined): Pick<HostState, 'activeWorkspaceId'> {
    return { activeWorkspaceId: workspaceId ?? this.#deps.state.get().activeWorkspaceId }
  }
}

/**
 * The workspace to select once connected: the one already selected, else the folder the Host
 * was started in (so a first run starts where the user is), else the most recently opened.
 */
export function pickActiveWorkspace(
  current: string | null,
  workspaces: readonly Workspace[],
  startFolder: string | undefined,
): string | null {
  if (current !== null && workspaces.some((workspace) => workspace.id === current)) return current
  const start = startFolder === undefined ? undefined : workspaces.find((w) => w.path === startFolder)
  return start?.id ?? workspaces[0]?.id ?? null
}
