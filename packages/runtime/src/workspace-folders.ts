// Where sessions work (docs/architecture.md §7): folder paths as clients name them (absolute, `~`,
// `~/…` or relative to the start folder), never the data directory or inside it, the workspace a
// session's folder belongs to (an older worktree fork's from its worktree's record), and the
// workspace operations: list, open, browse.
import path from 'node:path'
import { type SessionPersistence, TangentError } from '@tangent/core'
import type { Workspace, WorkspaceBrowseParams, WorkspaceBrowseResult } from '@tangent/protocol'
import { browseFolders, realFolder } from './folders.js'
import { headerMetaOf } from './header-meta.js'
import type { WorkspaceResolver } from './session-summary.js'
import { isInside, type WorkspaceRegistry } from './workspaces.js'
import { WorktreeOrigins } from './worktree-origins.js'
import type { WriteAccess } from './write-access.js'

export interface WorkspaceFoldersDeps {
  registry: WorkspaceRegistry
  store: SessionPersistence
  access: WriteAccess
  /** Announces a session whose summary changed (its workspace, once its folder is opened). */
  announce(sessionId: string, name: 'session-updated'): void
  /** What `~` means in folder paths. */
  homeDir: string
  /** The base of relative folder paths. */
  startFolder: string
  /** The data directory with symlinks resolved, as session directories are. */
  realHome: string
}

export class WorkspaceFolders {
  readonly #deps: WorkspaceFoldersDeps
  readonly #registry: WorkspaceRegistry
  /** The project folders of worktree forks made before their header recorded one. */
  readonly #origins: WorktreeOrigins

  constructor(deps: WorkspaceFoldersDeps) {
    this.#deps = deps
    this.#registry = deps.registry
    this.#origins = new WorktreeOrigins(deps.realHome)
  }

  list(): Workspace[] {
    return this.#registry.list()
  }

  /** Opens (or reopens) the workspace of a folder: absolute, `~`, `~/…` or relative to the start folder. */
  async open(params: { path: string }): Promise<Workspace> {
    this.#deps.access.assertWritable('open a folder')
    const real = await this.real(params.path)
    this.assertOutsideData(real)
    const workspace = await this.#registry.open(real)
    // Sessions made in this folder before it was opened now belong to it, their worktree forks too.
    for (const session of this.#deps.store.store.sessions()) {
      const { projectFolder } = headerMetaOf(session.header)
      if (this.workspaceOf(session.header.cwd, undefined, projectFolder) === workspace.id)
        this.#deps.announce(session.id, 'session-updated')
    }
    return workspace
  }

  browse(params: WorkspaceBrowseParams): Promise<WorkspaceBrowseResult> {
    return browseFolders(params.path, {
      ...this.base(),
      ...(params.hidden !== undefined ? { hidden: params.hidden } : {}),
    })
  }

  /** The workspace resolver, with the project folder of an older worktree fork read from its record. */
  readonly workspaceOf: WorkspaceResolver = (cwd, recorded, projectFolder) =>
    this.#registry.workspaceOf(cwd, recorded, projectFolder ?? this.#origins.folderOf(cwd))

  /** What folder paths from clients are relative to. */
  base(): { homeDir: string; base: string } {
    return { homeDir: this.#deps.homeDir, base: this.#deps.startFolder }
  }

  /** A folder named by a client, as a real path (`folder-not-found` when it is not a folder). */
  real(named: string): Promise<string> {
    return realFolder(named, this.base())
  }

  /**
   * A session's directory may not be the data directory or inside it (the agent would edit
   * its own logs), except a worktree the runtime made under `worktrees/`.
   */
  assertOutsideData(cwd: string): void {
    const home = this.#deps.realHome
    if (isInside(cwd, home) && !cwd.startsWith(path.join(home, 'worktrees') + path.sep)) {
      throw new TangentError(
        'invalid-params',
        `${cwd} is inside Tangent's data directory ${home}: a session works in a project folder, not in its own store.`,
        { issues: [{ path: ['cwd'], message: 'inside the data directory' }] },
      )
    }
  }
}
