// Which session was open last in each workspace (docs/architecture.md §12.6), kept in the
// browser's local storage so it outlives the tab: reopening the page or coming back to a
// workspace shows that session again. Keyed by the Host's data directory, so two Hosts
// served on the same address over time never mix their sessions.

export interface MemoryStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

export class OpenSessionMemory {
  readonly #storage: MemoryStorage | null

  /** `null`: remember nothing (storage the browser refuses). */
  constructor(storage: MemoryStorage | null) {
    this.#storage = storage
  }

  remember(dataDir: string, workspaceId: string, sessionId: string): void {
    this.#use(() => this.#storage?.setItem(keyOf(dataDir, workspaceId), sessionId))
  }

  /** The session open last in the workspace, if any (it may have been deleted since). */
  recall(dataDir: string, workspaceId: string): string | null {
    return this.#use(() => this.#storage?.getItem(keyOf(dataDir, workspaceId))) ?? null
  }

  #use<T>(work: () => T): T | undefined {
    try {
      return work()
    } catch {
      // Storage that is full or blocked (a private window) only costs the memory: the page
      // works as without it, and nothing else reads these keys.
      return undefined
    }
  }
}

function keyOf(dataDir: string, workspaceId: string): string {
  return `tangent.openSession:${dataDir}:${workspaceId}`
}
