// Writes an imported tree's plan (convert.ts) as sessions (docs/architecture.md, "Moving in and
// out"): the main session created, branches forked from it, subtrees as subagent forks, each with
// its import record in the header. Idempotent by those records: a planned session already imported
// with the same last entry is returned as it is; one whose source grew since gets the new entries
// as a fork of it. A source session that continues another (`forkedFrom`, Codex's forks) forks
// that one's import when there is one. Imports run one at a time; a failure part-way deletes what
// this import made.
import { GrammarState, type Session, type SessionPersistence, TangentError } from '@tangent/core'
import { headerMetaFields, headerMetaOf, type ImportRecord } from '../header-meta.js'
import type { WorkspaceFolders } from '../workspace-folders.js'
import type { WorkspaceRegistry } from '../workspaces.js'
import type { WriteAccess } from '../write-access.js'
import {
  agreedBoundary,
  fullEventsOf,
  type ImportPlan,
  type ImportProblem,
  type PlannedEvent,
  planImport,
} from './convert.js'
import type { ImportedTree, ImportSource } from './imported-tree.js'

export interface ImportTreeOptions {
  /**
   * The folder the sessions work in, instead of the one the source recorded (which must then
   * exist here). Without either, the runtime's start folder.
   */
  cwd?: string
}

export interface ImportedSessionRef {
  id: string
  source: ImportSource
  sourceId: string
  /** The session it was forked from (a branch, a subagent, the new entries of a grown source). */
  parentSession?: string
  /** The source's entry where its path branched from its parent's. */
  branchOf?: string
  /** False when an earlier import made it (nothing new was written). */
  created: boolean
}

export interface ImportTreeResult {
  sessions: ImportedSessionRef[]
  /** Lines the reader could not read and entries left out, with why; the rest was imported. */
  problems: ImportProblem[]
}

export interface TreeImportsDeps {
  store: SessionPersistence
  access: WriteAccess
  folders: WorkspaceFolders
  registry: WorkspaceRegistry
  defaultModel: string
  startFolder: string
  machine: string
  load(sessionId: string): Promise<Session>
}

/** A session an earlier import made, as its header records it. */
type ExistingImport = ImportRecord & { id: string; createdAt: number; parentSession?: string }

/** Events appended between two flushes of an imported session. */
const appendsPerFlush = 3000

export class TreeImports {
  readonly #deps: TreeImportsDeps
  /** One import at a time, so two imports of one tree cannot both make it. */
  #queue: Promise<unknown> = Promise.resolve()

  constructor(deps: TreeImportsDeps) {
    this.#deps = deps
  }

  importTree(tree: ImportedTree, options: ImportTreeOptions = {}): Promise<ImportTreeResult> {
    this.#deps.access.assertWritable('import a session')
    const run = this.#queue.then(() => this.#import(tree, options))
    // The caller gets this import's failure; the next import only waits for it to end.
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    )
    return run
  }

  async #import(tree: ImportedTree, options: ImportTreeOptions): Promise<ImportTreeResult> {
    const { store, access, registry } = this.#deps
    const plan = planImport(tree, { defaultModel: this.#deps.defaultModel, now: Date.now() })
    const cwd = await this.#cwdOf(plan, options)
    const records = this.#existingRecords(plan)
    const workspaceId = registry.workspaceOf(cwd, undefined) ?? undefined
    const machine = store.shared ? this.#deps.machine : undefined
    const idOf = new Map<string, string>()
    const made: string[] = []
    const sessions: ImportedSessionRef[] = []
    const forkBase = await this.#forkBaseOf(tree)
    try {
      for (const planned of plan.sessions) {
        const record = (leaf: string, branchOf?: string): ImportRecord => ({
          source: planned.source,
          sourceId: planned.sourceId,
          key: planned.key,
          leaf,
          ...(branchOf !== undefined ? { branchOf } : {}),
          ...(plan.cwd !== null && plan.cwd !== cwd ? { recordedCwd: plan.cwd } : {}),
        })
        const ref = { source: planned.source, sourceId: planned.sourceId }
        const earlier = records.get(planned.key) ?? []
        const same = earlier.find((found) => found.leaf === planned.leafId)
        if (same) {
          idOf.set(planned.key, same.id)
          sessions.push({
            id: same.id,
            ...ref,
            ...(same.parentSession !== undefined ? { parentSession: same.parentSession } : {}),
            ...(same.branchOf !== undefined ? { branchOf: same.branchOf } : {}),
            created: false,
          })
          continue
        }
        const meta = (extra: Record<string, unknown>) => ({
          cwd,
          createdAt: planned.createdAt,
          ...headerMetaFields({
            ...(workspaceId !== undefined ? { workspaceId } : {}),
            ...(machine !== undefined ? { machine } : {}),
            ...extra,
          }),
        })
        const id = store.store.newId()
        if (earlier.length > 0) {
          // The source grew since: its new entries become a fork of the latest import of this path.
          const base = earlier.at(-1)!
          const source = await this.#deps.load(base.id)
          const wanted = fullEventsOf(plan, planned.key)
          const boundary = agreedBoundary(source.events, wanted)
          await this.#write(
            id,
            made,
            () => {
              const child = store.store.fork(source, boundary, id, {
                meta: meta({
                  files: { mode: 'shared', path: cwd },
                  baseTree: null,
                  imported: record(planned.leafId, base.leaf),
                }),
              })
              const added = wanted.slice(boundary + 1)
              const title = `${planned.title} · continued`.slice(0, 200)
              added.push({ type: 'session/title', data: { title }, time: added.at(-1)?.time ?? Date.now() })
              return { session: child, events: added }
            },
            base.id,
          )
          idOf.set(planned.key, id)
          sessions.push({ id, ...ref, parentSession: base.id, branchOf: base.leaf, created: true })
          continue
        }
        // A source session that continues another one imported here (Codex's fork) forks it.
        const continues =
          !planned.parent && !planned.subagentOf && planned === plan.sessions[0] ? forkBase : null
        const parentId = planned.parent ? idOf.get(planned.parent.key) : continues?.id
        if (planned.parent && parentId === undefined)
          throw new TangentError(
            'internal',
            `Import of ${planned.key}: its parent ${planned.parent.key} was not made.`,
          )
        await this.#write(
          id,
          made,
          async () => {
            let session: Session
            if (planned.parent && parentId !== undefined) {
              const parent = store.store.get(parentId) ?? (await store.load(parentId))
              session = store.store.fork(parent, planned.parent.boundary, id, {
                meta: {
                  ...meta({
                    files: { mode: 'shared', path: cwd },
                    baseTree: null,
                    ...(planned.subagentOf ? { subagentOf: planned.subagentOf } : {}),
                    imported: record(planned.leafId, planned.branchOf),
                  }),
                  ...(planned.subagentOf ? { origin: 'subagent' as const } : {}),
                },
              })
            } else if (continues) {
              const parent = store.store.get(continues.id) ?? (await store.load(continues.id))
              session = store.store.fork(parent, continues.boundary, id, {
                meta: meta({
                  files: { mode: 'shared', path: cwd },
                  baseTree: null,
                  imported: record(planned.leafId),
                }),
              })
            } else session = store.store.create(id, { meta: meta({ imported: record(planned.leafId) }) })
            return { session, events: planned.own }
          },
          parentId,
        )
        idOf.set(planned.key, id)
        sessions.push({
          id,
          ...ref,
          ...(parentId !== undefined ? { parentSession: parentId } : {}),
          ...(planned.branchOf !== undefined ? { branchOf: planned.branchOf } : {}),
          created: true,
        })
      }
    } catch (error) {
      // Children first: nothing of a failed import stays.
      for (const id of made.reverse()) {
        try {
          await access.claimed(id, () => store.delete(id))
        } catch (cleanup) {
          // Never published (its fork or create failed): nothing to delete. Anything else is said.
          if (!TangentError.hasCode(cleanup, 'session-not-found')) throw cleanup
        }
      }
      throw error
    }
    return { sessions, problems: plan.problems }
  }

  /** Makes session `id` (`build` creates or forks it) and appends its events, durable when it resolves. */
  async #write(
    id: string,
    made: string[],
    build: () =>
      | Promise<{ session: Session; events: readonly PlannedEvent[] }>
      | { session: Session; events: readonly PlannedEvent[] },
    parentId: string | undefined,
  ): Promise<void> {
    const { store, access } = this.#deps
    // The child's header points into its parent's log: the parent is durable first.
    if (parentId !== undefined) await store.flush(parentId)
    await access.claimed(id, async () => {
      // Listed before it is built: an append that fails halfway leaves a session to delete.
      made.push(id)
      const { session, events } = await build()
      // Flushed every 3,000 appends (a few MB of lines, about the writer's 4 MiB batch): a long
      // session's lines never wait in memory all at once (they are garbage soon after written),
      // and a 100 MB import is some 35 fsyncs (issue 31's benchmark: 1,000 cost more in fsyncs,
      // one flush at the end a little more in GC).
      for (let from = 0; from < events.length; from += appendsPerFlush) {
        for (let index = from; index < Math.min(from + appendsPerFlush, events.length); index++) {
          const event = events[index]!
          session.append(event.type, event.data, event.time)
        }
        await store.flush(id)
      }
      await store.flush(id)
    })
  }

  /**
   * Where a source session that continues another one (`forkedFrom`: Codex's `codex exec fork`
   * writes a rollout that names its parent and holds only what follows) forks it: the latest
   * import of the parent, after its last completed turn before the fork point — its end when
   * that import holds nothing past the point, else the last turn boundary no later than the
   * fork's first entry (imported events keep the source's times). Null when the parent was not
   * imported here (the session is then imported as a start of its own).
   */
  async #forkBaseOf(tree: ImportedTree): Promise<{ id: string; boundary: number } | null> {
    const from = tree.forkedFrom
    if (!from) return null
    let latest: { id: string; createdAt: number; leaf: string } | null = null
    for (const { id, header } of this.#deps.store.headers()) {
      const imported = headerMetaOf(header).imported
      if (!imported || imported.source !== tree.source || imported.sourceId !== from.sourceId) continue
      if (headerMetaOf(header).subagentOf) continue
      const createdAt = typeof header.createdAt === 'number' ? header.createdAt : 0
      if (!latest || createdAt > latest.createdAt || (createdAt === latest.createdAt && id > latest.id))
        latest = { id, createdAt, leaf: imported.leaf }
    }
    if (!latest) return null
    const parent = await this.#deps.load(latest.id)
    const leafLine = Number(latest.leaf)
    const forkTime = tree.entries.find((entry) => typeof entry.time === 'number')?.time
    const whole = Number.isFinite(leafLine) && leafLine <= from.throughLine
    const grammar = new GrammarState()
    let boundary = -1
    for (const event of parent.events) {
      if (!whole && forkTime !== undefined && event.time > forkTime) break
      grammar.accept(event.seq, event.type, event.data)
      if (grammar.phase === 'idle') boundary = event.seq
    }
    return boundary < 0 ? null : { id: latest.id, boundary }
  }

  /**
   * The recorded folder if it exists here; `options.cwd` over it; the start folder for a source
   * that recorded none. A recorded folder missing here is `folder-not-found`, naming the option.
   */
  async #cwdOf(plan: ImportPlan, options: ImportTreeOptions): Promise<string> {
    const { folders } = this.#deps
    let cwd: string
    if (options.cwd !== undefined) cwd = await folders.real(options.cwd)
    else if (plan.cwd !== null && plan.cwd !== '') {
      try {
        cwd = await folders.real(plan.cwd)
      } catch (error) {
        if (!TangentError.hasCode(error, 'folder-not-found')) throw error
        throw new TangentError(
          'folder-not-found',
          `The ${plan.source} session ${plan.sourceId} worked in ${plan.cwd}, which is not a folder on this machine: import it with a folder of this machine to work in (--cwd DIR).`,
          { path: plan.cwd, resolved: plan.cwd },
        )
      }
    } else cwd = this.#deps.startFolder
    folders.assertOutsideData(cwd)
    return cwd
  }

  /** The sessions earlier imports made of this tree's (and its subtrees') sources, by key, oldest first. */
  #existingRecords(plan: ImportPlan): Map<string, ExistingImport[]> {
    const sourceIds = new Set(plan.sessions.map((session) => session.sourceId))
    const found = new Map<string, ExistingImport[]>()
    for (const { id, header } of this.#deps.store.headers()) {
      const imported = headerMetaOf(header).imported
      if (!imported || imported.source !== plan.source || !sourceIds.has(imported.sourceId)) continue
      const createdAt = typeof header.createdAt === 'number' ? header.createdAt : 0
      const list = found.get(imported.key) ?? []
      const parentSession = typeof header.parentSession === 'string' ? header.parentSession : undefined
      list.push({ ...imported, id, createdAt, ...(parentSession !== undefined ? { parentSession } : {}) })
      found.set(imported.key, list)
    }
    for (const list of found.values())
      list.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
    return found
  }
}
