// Copies sessions between stores (docs/architecture.md §4, "Moving in and out"): JSONL ⇄ PostgreSQL,
// or between two data directories. Lineage and fork points stay: a fork whose parent is copied is
// written as a fork of it (by reference: its own events only), parents before children. Into a
// PostgreSQL store from a data directory, the snapshot trees a session names go into the store's
// snapshot objects before its events, so another machine can fork it with its files; worktrees and
// the local snapshot store stay with the machine that made them.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { isPostgresUrl, type Session, type SessionPersistence, type StoredSession } from '@tangent/core'
import { writeSessionCopy } from './session-copy.js'
import { resolveSessionIdPrefix } from './session-id-prefix.js'
import { openStoreEngine } from './store-engine.js'

export interface MigrateOptions {
  /** Source: a PostgreSQL URL or a data directory (read-only: a Host may keep serving it). */
  from: string
  /** Target: a PostgreSQL URL or a data directory (a JSONL target takes its writer lock). */
  to: string
  /** Only these sessions (and their ancestors, so lineage stays); default every session. */
  ids?: readonly string[]
  /** The machine a PostgreSQL target records as the sessions' (their files are on this one). */
  machine?: string
  onWarning?: (message: string) => void
}

export interface MigrateResult {
  /** Sessions written to the target, parents first. */
  copied: string[]
  /**
   * Into a shared store from a data directory: how many snapshot trees went into its objects, and
   * those the source's snapshot store no longer had (their sessions copy without those files).
   */
  trees?: { uploaded: number; missing: string[] }
  /** Of those, the forks written by reference to a copied parent. */
  forks: string[]
  /** Sessions left alone, and why (already in the target, or unreadable). */
  skipped: { id: string; reason: string }[]
}

export async function migrateSessions(options: MigrateOptions): Promise<MigrateResult> {
  const warn = options.onWarning ?? (() => {})
  const source = await openLocation(options.from, true, warn)
  try {
    const target = await openLocation(options.to, false, warn)
    try {
      return await copyAll(source, target, options)
    } finally {
      await target.close()
    }
  } finally {
    await source.close()
  }
}

function openLocation(location: string, readOnly: boolean, warn: (message: string) => void) {
  const url = isPostgresUrl(location) ? location : undefined
  return openStoreEngine({ url, home: location, readOnly, onWarning: (warning) => warn(warning.message) })
}

async function copyAll(
  source: SessionPersistence,
  target: SessionPersistence,
  options: MigrateOptions,
): Promise<MigrateResult> {
  const entries = await source.list()
  const byId = new Map(entries.map((entry) => [entry.id, entry]))
  const wanted = options.ids ? withAncestors(options.ids, byId) : entries.map((entry) => entry.id)
  const result: MigrateResult = { copied: [], forks: [], skipped: [] }
  const inTarget = new Set((await target.list()).map((entry) => entry.id))
  const trees = await treeUploader(source, target, options)
  if (trees) result.trees = { uploaded: 0, missing: [] }
  for (const id of parentsFirst(wanted, byId)) {
    const entry = byId.get(id)!
    if (inTarget.has(id)) {
      result.skipped.push({ id, reason: 'already in the target' })
      continue
    }
    if (entry.parentLoop !== undefined) {
      result.skipped.push({ id, reason: `its parents loop (${entry.parentLoop.join(' → ')})` })
      continue
    }
    let session: Session
    try {
      session = await source.load(id)
    } catch (error) {
      result.skipped.push({ id, reason: error instanceof Error ? error.message : String(error) })
      continue
    }
    const parent = entry.parentSession
    const byReference = parent !== null && result.copied.includes(parent) && entry.forkedAt !== null
    if (trees && result.trees) {
      // Before the events that name them, as a Host writes them (docs/architecture.md §4.2).
      const uploaded = await trees(session)
      result.trees.uploaded += uploaded.uploaded
      result.trees.missing.push(...uploaded.missing)
    }
    await target.claim(id)
    try {
      writeSessionCopy(target.store, {
        id,
        meta: metaOf(session, options),
        parent: byReference ? { session: await target.load(parent), forkedAt: entry.forkedAt! } : undefined,
        events: session.events,
      })
      await target.flush(id)
      if (entry.archived) await target.setArchived(id, true)
    } finally {
      await target.release(id)
    }
    source.store.dispose(id)
    target.store.dispose(id)
    result.copied.push(id)
    if (byReference) result.forks.push(id)
    inTarget.add(id)
  }
  return result
}

/**
 * Uploads the trees a session names into the target's snapshot objects, from the source data
 * directory's snapshot store; null when there is nothing to do (the target keeps no objects, or the
 * source is no data directory with snapshots).
 */
async function treeUploader(
  source: SessionPersistence,
  target: SessionPersistence,
  options: MigrateOptions,
): Promise<((session: Session) => Promise<{ uploaded: number; missing: string[] }>) | null> {
  const objects = target.snapshotObjects
  if (objects === undefined || isPostgresUrl(options.from) || source.engine !== 'jsonl') return null
  if (!existsSync(path.join(options.from, 'snapshots'))) return null
  const { FileState } = await import('@tangent/files')
  const files = new FileState({ home: options.from, objects })
  return (session) => files.uploadTrees(namedTrees(session), `migrate:${session.id}`)
}

/** The snapshot trees a session names, in order: its header's base tree, then its events' (`tree`, `…Tree`). */
export function namedTrees(session: Session): string[] {
  const trees = new Set<string>()
  const add = (value: unknown) => {
    if (typeof value === 'string' && /^[0-9a-f]{40}$/.test(value)) trees.add(value)
  }
  const walk = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 4) return
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'tree' || key.endsWith('Tree')) add(inner)
      else walk(inner, depth + 1)
    }
  }
  add(session.header.baseTree)
  for (const event of session.events) walk(event.data, 0)
  return [...trees]
}

/** The header fields a copy keeps (lineage is the target's own: it is written as a fork or a root). */
function metaOf(session: Session, options: MigrateOptions): Record<string, unknown> {
  const {
    id: _id,
    isSeeded: _isSeeded,
    inheritedEventCount: _inherited,
    parentSession: _parent,
    forkedAt: _forkedAt,
    ...meta
  } = session.header
  return options.machine !== undefined && isPostgresUrl(options.to) && meta.machine === undefined
    ? { ...meta, machine: options.machine }
    : meta
}

function withAncestors(ids: readonly string[], byId: Map<string, StoredSession>): string[] {
  const wanted = new Set<string>()
  for (const given of ids) {
    // The whole id or a unique prefix of one, as every command takes (session-id-prefix.ts).
    const id = byId.has(given)
      ? given
      : resolveSessionIdPrefix(
          given,
          [...byId.values()].map((entry) => ({ id: entry.id, title: entry.title ?? '' })),
        )
    let current: string | null = id
    while (current !== null && byId.has(current) && !wanted.has(current)) {
      wanted.add(current)
      current = byId.get(current)!.parentSession
    }
  }
  return [...wanted]
}

/** Parents before their children (a parent outside `ids` or missing is simply not waited for). */
function parentsFirst(ids: readonly string[], byId: Map<string, StoredSession>): string[] {
  const wanted = new Set(ids)
  const done = new Set<string>()
  const order: string[] = []
  const visit = (id: string, path: Set<string>) => {
    if (done.has(id) || path.has(id)) return
    path.add(id)
    const parent = byId.get(id)?.parentSession
    if (parent && wanted.has(parent)) visit(parent, path)
    done.add(id)
    order.push(id)
  }
  for (const id of ids) visit(id, new Set())
  return order
}
