// What the Host needs from the packages it composes (store-jsonl, files, agent), as
// structural interfaces: the Host's logic depends on these shapes, `start-host.ts`
// plugs in the real JsonlStore, FileState, ModelRegistry and Agent.
import type { Session, SessionEvent, SessionStore } from '@tangent/core'
import type { FileDiff } from '@tangent/protocol'

export interface CatalogEntry {
  id: string
  title: string | null
  cwd: string
  parentSession: string | null
  forkedAt: number | null
  origin: string
  archived: boolean
  eventCount: number
  inheritedEventCount: number
  createdAt: number
  updatedAt: number
  header: Record<string, unknown>
  model: { provider: string; model: string; reasoningEffort?: string } | null
}

/** The JsonlStore surface the Host uses. */
export interface SessionPersistence {
  readonly store: SessionStore
  load(id: string): Promise<Session>
  flush(id?: string): Promise<void>
  list(): Promise<CatalogEntry[]>
  get(id: string): Promise<CatalogEntry | undefined>
  setArchived(id: string, archived: boolean): Promise<CatalogEntry>
  delete(id: string): Promise<{ materialized: string[] }>
  close(): Promise<void>
}

export interface SnapshotResult {
  tree: string
  changed: string[]
  skipped: string[]
}

/** The FileState surface the Host uses. */
export interface FileStatePort {
  snapshot(cwd: string): Promise<SnapshotResult>
  /** Latest `snapshot/taken` tree at or before `seq`, else `baseTree`, else null. */
  treeAt(events: readonly SessionEvent[], seq: number, baseTree?: string | null): string | null
  timeline(session: {
    events: readonly SessionEvent[]
    inheritedEventCount: number
  }): { seq: number; tree: string; changed: string[] }[]
  restore(options: {
    cwd: string
    events: readonly SessionEvent[]
    inheritedEventCount: number
    baseTree?: string | null
    toSeq: number
    force?: boolean
  }): Promise<{ restored: string[]; kept: string[]; undoTree: string; snapshot: SnapshotResult }>
  createWorktree(options: {
    cwd: string
    tree: string | null
    sessionId: string
  }): Promise<{ path: string; kind: 'git-worktree' | 'copy'; branch?: string }>
  removeWorktree(path: string, options?: { force?: boolean }): Promise<{ removed: boolean; reason?: string }>
  diffTrees(a: string | null, b: string | null): Promise<FileDiff[]>
}

export type DeltaKind = 'text' | 'reasoning' | 'tool-input'
export type TurnEndReason = 'completed' | 'aborted' | 'error' | 'max-steps' | 'interrupted'

/** The Agent surface the Host uses. */
export interface AgentPort {
  readonly running: boolean
  prompt(text: string): Promise<{ turnStartSeq: number; turnEndSeq: number; reason: TurnEndReason }>
  abort(): boolean
  setModel(id: string, reasoningEffort?: string): void
  onDelta(listener: (delta: { kind: DeltaKind; text: string }) => void): () => void
}

/** The ModelRegistry surface the Host uses. */
export interface ModelCatalog {
  list(): { id: string; available: boolean; reason?: string }[]
}

/** Makes the live agent of a session (the Host creates them lazily, on first prompt). */
export type AgentFactory = (session: Session) => AgentPort
