// Workspaces: folders that group sessions, persisted in `home/workspaces.json`. A path is
// realpath'd, so one folder is one workspace however it was named. A session belongs to the
// deepest workspace folder that holds its cwd, whenever either was made (docs/architecture.md §7).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { lazySchema } from '@tangent/core/lazy-zod'
import { Workspace } from '@tangent/protocol'
import type { z } from 'zod'
import { writeFileAtomic } from './write-file-atomic.js'

export const WorkspacesFile = lazySchema((z) =>
  z.object({ version: z.literal(1), workspaces: z.array(Workspace) }),
)

const workspaceKeys: ReadonlySet<string> = new Set(['id', 'path', 'name', 'openedAt'])

/**
 * The fast check of a workspaces file (docs/architecture.md §9): true only for what
 * `WorkspacesFile` accepts as it is (no key it would strip), so reading one loads no zod;
 * anything else goes to the schema, which accepts or says why not.
 */
export function isWorkspacesFile(value: unknown): value is z.infer<typeof WorkspacesFile> {
  if (!isPlainObject(value) || value.version !== 1 || !Array.isArray(value.workspaces)) return false
  if (Object.keys(value).length !== 2) return false
  return value.workspaces.every(
    (workspace) =>
      isPlainObject(workspace) &&
      Object.keys(workspace).every((key) => workspaceKeys.has(key)) &&
      typeof workspace.id === 'string' &&
      typeof workspace.path === 'string' &&
      typeof workspace.name === 'string' &&
      (workspace.openedAt === undefined || Number.isFinite(workspace.openedAt)),
  )
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  )
}

export class WorkspaceRegistry {
  readonly #file: string
  readonly #workspaces: Map<string, Workspace>
  /**
   * Why the file could not be read (`corrupt-workspaces`), for a read-only registry opened over a
   * bad file: it lists no workspaces and refuses every change, so the file is never overwritten.
   */
  readonly problem: TangentError | null

  private constructor(file: string, workspaces: Workspace[], problem: TangentError | null = null) {
    this.#file = file
    this.#workspaces = new Map(workspaces.map((workspace) => [workspace.id, workspace]))
    this.problem = problem
  }

  /**
   * Whose folder contains `cwd` (the deepest), else whose folder contains `projectFolder` (a
   * worktree fork goes with its parent's folder), else `recorded` when it still exists, else null.
   */
  readonly workspaceOf = (
    cwd: string,
    recorded: string | undefined,
    projectFolder?: string | undefined,
  ): string | null => {
    const best =
      this.#deepestHolding(cwd) ?? (projectFolder ? this.#deepestHolding(projectFolder) : undefined)
    if (best !== undefined) return best.id
    return recorded !== undefined && this.#workspaces.has(recorded) ? recorded : null
  }

  #deepestHolding(folder: string): Workspace | undefined {
    let best: Workspace | undefined
    for (const workspace of this.#workspaces.values()) {
      if (!isInside(folder, workspace.path)) continue
      if (best === undefined || workspace.path.length > best.path.length) best = workspace
    }
    return best
  }

  /**
   * Reads `home/workspaces.json`. A file that is not valid throws `corrupt-workspaces`, unless
   * `readOnly`: a command that only reads still runs, over no workspaces, with `problem` set
   * (docs/architecture.md §7).
   */
  static async open(home: string, options: { readOnly?: boolean } = {}): Promise<WorkspaceRegistry> {
    const file = path.join(home, 'workspaces.json')
    let text: string
    try {
      // Synchronous (a small file, read once): a read-only command never loads node:fs/promises.
      text = readFileSync(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new WorkspaceRegistry(file, [])
      throw error
    }
    let parsed: z.infer<typeof WorkspacesFile>
    try {
      const value: unknown = JSON.parse(text)
      parsed = isWorkspacesFile(value) ? value : WorkspacesFile.parse(value)
    } catch (error) {
      const corrupt = new TangentError(
        'corrupt-workspaces',
        `${file} is not a valid workspaces file (${error instanceof Error ? error.message.slice(0, 200) : String(error)}). Fix or remove it; sessions are not affected.`,
        { file },
      )
      if (options.readOnly) return new WorkspaceRegistry(file, [], corrupt)
      throw corrupt
    }
    return new WorkspaceRegistry(file, parsed.workspaces)
  }

  /** Most recently opened first. */
  list(): Workspace[] {
    return [...this.#workspaces.values()].sort((a, b) => (b.openedAt ?? 0) - (a.openedAt ?? 0))
  }

  has(id: string): boolean {
    return this.#workspaces.has(id)
  }

  /** Throws `workspace-not-found`. */
  get(id: string): Workspace {
    const workspace = this.#workspaces.get(id)
    if (!workspace) {
      throw new TangentError(
        'workspace-not-found',
        `Workspace ${id} not found: open its directory with workspace.open.`,
        {
          workspaceId: id,
        },
      )
    }
    return workspace
  }

  /** The workspace of an existing folder (already realpath'd), created on first open; marks it opened now. */
  async open(real: string, at = Date.now()): Promise<Workspace> {
    // Saving would replace the bad file with what little this registry holds: nothing is lost.
    if (this.problem) throw this.problem
    // Strictly after the latest open: two opens in one millisecond still list in the order made.
    const latest = Math.max(0, ...[...this.#workspaces.values()].map((candidate) => candidate.openedAt ?? 0))
    const now = Math.max(at, latest + 1)
    let workspace = [...this.#workspaces.values()].find((candidate) => candidate.path === real)
    workspace = workspace
      ? { ...workspace, openedAt: now }
      : // node:crypto on first use: importing it costs start-up that a command that only reads never needs.
        {
          id: process.getBuiltinModule('node:crypto').randomUUID(),
          path: real,
          name: path.basename(real) || real,
          openedAt: now,
        }
    this.#workspaces.set(workspace.id, workspace)
    await this.#save()
    return workspace
  }

  async #save(): Promise<void> {
    await writeFileAtomic(this.#file, `${JSON.stringify({ version: 1, workspaces: this.list() }, null, 2)}\n`)
  }
}

/** Why `home/workspaces.json` cannot be read (`corrupt-workspaces`), or null: for `tangent doctor`. */
export async function workspacesProblem(home: string): Promise<TangentError | null> {
  return (await WorkspaceRegistry.open(home, { readOnly: true })).problem
}

/** `child` is `folder` or inside it (both real paths). */
export function isInside(child: string, folder: string): boolean {
  if (child === folder) return true
  const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep
  return child.startsWith(prefix)
}
