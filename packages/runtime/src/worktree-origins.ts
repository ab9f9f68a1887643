// The project folder of a worktree fork made before forks recorded it in their header
// (`projectFolder`, docs/architecture.md §7): read from its worktree's record under
// `worktrees/<id>.json` (`sourceCwd`, through forks of forks), once per worktree.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { isInside } from './workspaces.js'

interface OriginRecord {
  root: string
  sourceCwd: string
  kind?: string
  repository?: string
}

export class WorktreeOrigins {
  readonly #directory: string
  readonly #records = new Map<string, OriginRecord | null>()

  /** `realHome`: the data directory's real path (worktrees live in its `worktrees/`). */
  constructor(realHome: string) {
    this.#directory = path.join(realHome, 'worktrees')
  }

  /** The folder outside the data directory that the worktree holding `cwd` was made from, if known. */
  folderOf(cwd: string): string | undefined {
    if (!isInside(cwd, this.#directory)) return undefined
    let folder = cwd
    // A fork of a fork's worktree was made from that worktree: follow the records out.
    for (let depth = 0; depth < 64 && isInside(folder, this.#directory); depth++) {
      if (folder === this.#directory) return undefined
      const record = this.#record(path.relative(this.#directory, folder).split(path.sep)[0] ?? '')
      if (record === null) return undefined
      // A copy's root mirrors its source folder; a git worktree's root mirrors its repository's top.
      const origin =
        record.kind === 'git-worktree' && record.repository ? record.repository : record.sourceCwd
      folder = path.join(origin, path.relative(record.root, folder))
    }
    return isInside(folder, this.#directory) ? undefined : folder
  }

  #record(sessionId: string): OriginRecord | null {
    const cached = this.#records.get(sessionId)
    if (cached !== undefined) return cached
    let record: OriginRecord | null = null
    try {
      const value = JSON.parse(
        readFileSync(path.join(this.#directory, `${sessionId}.json`), 'utf8'),
      ) as unknown
      const { root, sourceCwd, kind, repository } = (value ?? {}) as Record<string, unknown>
      if (typeof root === 'string' && typeof sourceCwd === 'string') {
        record = {
          root,
          sourceCwd,
          ...(typeof kind === 'string' ? { kind } : {}),
          ...(typeof repository === 'string' ? { repository } : {}),
        }
      }
    } catch {
      record = null // no record (removed, or never one): the fork keeps its recorded workspace
    }
    this.#records.set(sessionId, record)
    return record
  }
}
