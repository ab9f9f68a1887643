// Workspaces: directories that group sessions, persisted in `home/workspaces.json`.
// A path is realpath'd, so one directory is one workspace however it was named.
import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { Workspace } from '@tangent/protocol'
import { z } from 'zod'
import { writeFileAtomic } from './write-file-atomic.js'

const WorkspacesFile = z.object({ version: z.literal(1), workspaces: z.array(Workspace) })

export class WorkspaceRegistry {
  readonly #file: string
  readonly #workspaces: Map<string, Workspace>

  private constructor(file: string, workspaces: Workspace[]) {
    this.#file = file
    this.#workspaces = new Map(workspaces.map((workspace) => [workspace.id, workspace]))
  }

  static async open(home: string): Promise<WorkspaceRegistry> {
    const file = path.join(home, 'workspaces.json')
    let text: string
    try {
      text = await fs.readFile(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new WorkspaceRegistry(file, [])
      throw error
    }
    let parsed: z.infer<typeof WorkspacesFile>
    try {
      parsed = WorkspacesFile.parse(JSON.parse(text))
    } catch (error) {
      throw new TangentError(
        'corrupt-workspaces',
        `${file} is not a valid workspaces file (${error instanceof Error ? error.message.slice(0, 200) : String(error)}). Fix or remove it; sessions are not affected.`,
        { file },
      )
    }
    return new WorkspaceRegistry(file, parsed.workspaces)
  }

  list(): Workspace[] {
    return [...this.#workspaces.values()]
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

  /** The workspace of an existing directory, created on first open. */
  async open(directory: string): Promise<Workspace> {
    const real = await realDirectory(directory)
    for (const workspace of this.#workspaces.values()) if (workspace.path === real) return workspace
    const workspace: Workspace = { id: randomUUID(), path: real, name: path.basename(real) || real }
    this.#workspaces.set(workspace.id, workspace)
    await this.#save()
    return workspace
  }

  async #save(): Promise<void> {
    await writeFileAtomic(this.#file, `${JSON.stringify({ version: 1, workspaces: this.list() }, null, 2)}\n`)
  }
}

/** The realpath of an existing directory, else `invalid-params` naming the problem. */
export async function realDirectory(directory: string, field = 'path'): Promise<string> {
  const fail = (why: string) =>
    new TangentError('invalid-params', `${directory} ${why}: give the path of an existing directory.`, {
      issues: [{ path: [field], message: why }],
    })
  if (!path.isAbsolute(directory)) throw fail('is not an absolute path')
  let real: string
  try {
    real = await fs.realpath(directory)
  } catch {
    throw fail('does not exist')
  }
  const stat = await fs.stat(real)
  if (!stat.isDirectory()) throw fail('is not a directory')
  return real
}
