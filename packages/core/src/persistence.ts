// The store contract (docs/architecture.md §4): what the runtime needs from a storage engine.
// Two engines implement it — JSONL files (`@tangent/store-jsonl`, one machine) and PostgreSQL
// (`@tangent/store-postgres`, several Hosts) — and one behaviour suite (test/contract/store.contract.ts)
// runs against both. Types only: core does no I/O.
import type { SessionEvent } from './events.js'
import type { Session, SessionOrigin } from './session.js'
import type { SessionModeId } from './session-modes.js'
import type { SessionStore } from './store.js'

/** A model as a log records it (`model/selection`). */
export interface StoredModelRef {
  provider: string
  model: string
  reasoningEffort?: string | undefined
}

/** One listed session, as the engine's index holds it: listing never reads whole logs. */
export interface StoredSession {
  id: string
  title: string | null
  cwd: string
  parentSession: string | null
  forkedAt: number | null
  origin: SessionOrigin
  archived: boolean
  eventCount: number
  inheritedEventCount: number
  createdAt: number
  updatedAt: number
  /** The header as stored, extra meta included. */
  header: Record<string, unknown>
  model: StoredModelRef | null
  /**
   * The latest `session/mode` (inherited ones count); absent when the log has none or the engine's
   * index predates modes (the summary then says `edit`).
   */
  mode?: SessionModeId | undefined
  /** Set when the chain of parents loops (damaged data): the ids on the loop, in order. */
  parentLoop?: string[] | undefined
}

/** Something the engine skipped, left alone or repaired that a person should know about. */
export interface StoreWarningLike {
  readonly kind: string
  /** A file or a table/row the warning is about. */
  readonly file: string
  readonly message: string
}

/** A change another process made to the shared sessions (PostgreSQL engine; never for JSONL). */
export interface RemoteChange {
  sessionId: string
  kind: 'created' | 'updated' | 'deleted'
}

/** A git object of a snapshot (docs/architecture.md §4, "Where snapshot objects live"). */
export interface SnapshotObject {
  /** The git object id (40 hex): the SHA-1 of `"<type> <size>\0"` followed by `data`. */
  readonly id: string
  readonly type: 'blob' | 'tree'
  /** The object's content without git's header (a tree in git's binary tree format). */
  readonly data: Uint8Array
}

/**
 * Snapshot objects shared by the machines of one store (PostgreSQL), content-addressed: each
 * blob and tree once, whatever the number of sessions and machines. A Host puts the objects of a
 * tree before any event naming the tree is written, so another machine can fetch any tree an
 * event names (docs/architecture.md §4, "Where snapshot objects live").
 */
export interface SnapshotObjectStore {
  /** Of `ids`, those the store holds. */
  has(ids: readonly string[]): Promise<Set<string>>
  /** Stores objects (idempotent: an id already held is skipped). Durable when it resolves. */
  put(objects: readonly SnapshotObject[]): Promise<void>
  /** The objects of `ids` the store holds (others are absent from the answer). */
  get(ids: readonly string[]): Promise<SnapshotObject[]>
  /** Removes objects no session's event or header names (directly or through a tree), older than a grace period; bytes before/after. */
  collect(): Promise<{ removed: number; bytesBefore: number; bytesAfter: number }>
  /** Bytes the objects take: the objects' data, uncompressed (not the table's size on disk). */
  bytes(): Promise<number>
}

export interface SessionPersistence {
  /** `jsonl` or `postgres`. */
  readonly engine: string
  /** Where the sessions live, for messages: a directory, or a database URL without its password. */
  readonly location: string
  readonly readOnly: boolean
  /** The live sessions of this process; the engine persists what is appended to them. */
  readonly store: SessionStore
  /**
   * True when other processes may write the same sessions at the same time (PostgreSQL): each
   * write then needs a claim (`claim`), and changes of others arrive through `onRemoteChange`.
   */
  readonly shared: boolean

  /** The live session, or the one read (and, for a writer, repaired) from storage. */
  load(id: string): Promise<Session>
  /**
   * Optional: the events `fromSeq <= seq < beforeSeq` of a session that is not live in this
   * process, read without loading it (`eventCount`: its length as the caller's index entry says).
   * Null when only a load can answer (the range is not where the store can read it alone, or what
   * it read is not what a load would serve): then load. JSONL reads the log's end, PostgreSQL
   * the session's own rows of the range.
   */
  readEventRange?(
    id: string,
    range: { fromSeq: number; beforeSeq: number; eventCount: number },
  ): Promise<SessionEvent[] | null>
  /** How many of the session's events may be served: all, except those not yet durable after a write failure. */
  servableEventCount(session: Session): number
  /** Resolves when everything appended so far (to `id`, or to every session) is durable. */
  flush(id?: string): Promise<void>
  /** Index entries, oldest first (copies). */
  list(): Promise<StoredSession[]>
  /** The same entries without copies, for a caller that reads them at once and keeps nothing. */
  listView(): Promise<readonly Readonly<StoredSession>[]>
  /** Every listed session's id and stored header, in no order, without copies. */
  headers(): Iterable<{ readonly id: string; readonly header: Readonly<Record<string, unknown>> }>
  get(id: string): Promise<StoredSession | undefined>
  /** Ids of sessions that cannot be listed (no readable header). */
  damaged(): string[]
  warnings(): StoreWarningLike[]
  setArchived(id: string, archived: boolean): Promise<StoredSession>
  /** Deletes a session; every fork of it stays whole (ids of forks whose prefix had to be copied). */
  delete(id: string): Promise<{ materialized: string[] }>
  /** Flushes everything, releases every claim and lock, forgets the live sessions. */
  close(): Promise<void>

  /**
   * Claims the right to append to `id` across processes until `release` (counted: claims nest).
   * A session another live process holds is `session-busy` (naming the holder). JSONL: the data
   * directory's writer lock already makes this process the only writer; a no-op.
   */
  claim(id: string): Promise<void>
  release(id: string): Promise<void>
  /** Hears sessions another process created, changed or deleted. Returns the unsubscribe function. */
  onRemoteChange(listener: (change: RemoteChange) => void): () => void
  /**
   * Where the snapshot objects of the sessions travel between machines (PostgreSQL). Absent
   * (JSONL): they live only in the shadow repository of the data directory.
   */
  readonly snapshotObjects?: SnapshotObjectStore
}
