// The header fields the runtime adds to a session at create and fork (beyond core's header):
// declared and parsed here only. Reads are tolerant — a field of the wrong shape reads as
// absent — with plain type guards, not zod: session.list reads this for each of 10,000
// sessions, and a zod parse per entry cost more than everything else the list does.
import type { FileMode } from '@tangent/protocol'

export interface SessionHeaderMeta {
  /** The workspace the session was created in or forked into (worktree forks live outside it). */
  workspaceId?: string
  /**
   * The project folder a fork works for when its directory is elsewhere (a worktree): the
   * source's folder, whatever depth of forks. It puts the fork in that folder's workspace.
   */
  projectFolder?: string
  /** The session's directory and how it got it: the parent's (`shared`) or its own (`worktree`). */
  files?: { mode: FileMode; path: string }
  /** The files' tree at the fork point (or at creation); null when none was known. */
  baseTree?: string | null
  /** A worktree fork: the paths its worktree could not be given from the fork point (docs/architecture.md §5). */
  leftOut?: string[]
  /** The fork's requestId, so a retry after a restart finds the same child. */
  forkRequestId?: string
  /** The exploration this session is a branch of, its label, and the check run after its turns. */
  exploration?: { id: string; label: string; check?: string }
  /** A subagent (origin `subagent`): the parent's tool call that spawned it and its depth (1 = a child of a user session). */
  subagentOf?: { callId: string; depth: number }
  /**
   * The machine whose disk holds the session's files (shared PostgreSQL store only,
   * docs/architecture.md §4): only a Host there prompts it or touches its files.
   */
  machine?: string
  /**
   * A session made by an import (imports/import-tree.ts): the source and its session id, the
   * planned session's key (`<sourceId>#<first own entry>`) and the last entry it holds; a second
   * import finds it by these and makes nothing new.
   */
  imported?: ImportRecord
}

export interface ImportRecord {
  source: string
  sourceId: string
  key: string
  leaf: string
  /** The entry its path branched from its parent's at. */
  branchOf?: string
  /** The folder the source recorded, when it was not the session's. */
  recordedCwd?: string
}

export function headerMetaOf(header: Readonly<Record<string, unknown>>): SessionHeaderMeta {
  const meta: SessionHeaderMeta = {}
  const {
    workspaceId,
    projectFolder,
    files,
    baseTree,
    leftOut,
    forkRequestId,
    exploration,
    subagentOf,
    machine,
    imported,
  } = header
  if (typeof workspaceId === 'string') meta.workspaceId = workspaceId
  if (typeof projectFolder === 'string') meta.projectFolder = projectFolder
  const filesMeta = filesOf(files)
  if (filesMeta) meta.files = filesMeta
  if (typeof baseTree === 'string' || baseTree === null) meta.baseTree = baseTree
  if (Array.isArray(leftOut))
    meta.leftOut = leftOut.filter((item): item is string => typeof item === 'string')
  if (typeof forkRequestId === 'string') meta.forkRequestId = forkRequestId
  const branch = explorationOf(exploration)
  if (branch) meta.exploration = branch
  const spawned = subagentOfValue(subagentOf)
  if (spawned) meta.subagentOf = spawned
  if (typeof machine === 'string') meta.machine = machine
  const record = importRecordOf(imported)
  if (record) meta.imported = record
  return meta
}

/** The meta to write into a new header (only the fields that are set). */
export function headerMetaFields(meta: SessionHeaderMeta): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  if (meta.workspaceId !== undefined) fields.workspaceId = meta.workspaceId
  if (meta.projectFolder !== undefined) fields.projectFolder = meta.projectFolder
  if (meta.files !== undefined) fields.files = { mode: meta.files.mode, path: meta.files.path }
  if (meta.baseTree !== undefined) fields.baseTree = meta.baseTree
  if (meta.leftOut !== undefined) fields.leftOut = [...meta.leftOut]
  if (meta.forkRequestId !== undefined) fields.forkRequestId = meta.forkRequestId
  if (meta.exploration !== undefined) fields.exploration = { ...meta.exploration }
  if (meta.subagentOf !== undefined) fields.subagentOf = { ...meta.subagentOf }
  if (meta.machine !== undefined) fields.machine = meta.machine
  if (meta.imported !== undefined) fields.imported = { ...meta.imported }
  return fields
}

function filesOf(value: unknown): SessionHeaderMeta['files'] {
  if (typeof value !== 'object' || value === null) return undefined
  const { mode, path } = value as { mode?: unknown; path?: unknown }
  if ((mode !== 'shared' && mode !== 'worktree') || typeof path !== 'string') return undefined
  return { mode, path }
}

function explorationOf(value: unknown): SessionHeaderMeta['exploration'] {
  if (typeof value !== 'object' || value === null) return undefined
  const { id, label, check } = value as { id?: unknown; label?: unknown; check?: unknown }
  if (typeof id !== 'string' || typeof label !== 'string') return undefined
  return typeof check === 'string' ? { id, label, check } : { id, label }
}

function subagentOfValue(value: unknown): SessionHeaderMeta['subagentOf'] {
  if (typeof value !== 'object' || value === null) return undefined
  const { callId, depth } = value as { callId?: unknown; depth?: unknown }
  if (typeof callId !== 'string' || typeof depth !== 'number' || !Number.isInteger(depth)) return undefined
  return { callId, depth }
}

/** The import record of a header, or undefined when absent or of the wrong shape. */
export function importRecordOf(value: unknown): ImportRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { source, sourceId, key, leaf, branchOf, recordedCwd } = value as Record<string, unknown>
  if (
    typeof source !== 'string' ||
    typeof sourceId !== 'string' ||
    typeof key !== 'string' ||
    typeof leaf !== 'string'
  )
    return undefined
  return {
    source,
    sourceId,
    key,
    leaf,
    ...(typeof branchOf === 'string' ? { branchOf } : {}),
    ...(typeof recordedCwd === 'string' ? { recordedCwd } : {}),
  }
}
