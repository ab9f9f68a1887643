// Delete and materialise (docs/architecture.md §4): a session's log goes only after each fork
// that reads its prefix from it has that prefix inline, so every fork stays whole.
import type { SessionStore, SessionWriters } from '@tangent/core'
import type { CatalogRecord } from './catalog-format.js'
import type { CatalogKeeper } from './catalog-keeper.js'
import { entryExists } from './data-dir.js'
import { fsyncDirectory, unlinkIfPresent } from './durable-fs.js'
import { materializeFork } from './materialize.js'
import type { SessionLoader } from './session-loader.js'
import { SessionWriter } from './session-writer.js'
import { isUnreadable, prefixUnreadable, sessionNotFound } from './store-errors.js'
import { archivedMarkerFile, type StorePaths, sessionLogFile, tornFile } from './store-paths.js'

export interface SessionDeleterOptions {
  paths: StorePaths
  store: SessionStore
  writers: SessionWriters<SessionWriter>
  catalog: CatalogKeeper
  /** Its loads in flight finish before a session (or a fork being materialised) is touched. */
  loader: SessionLoader
  maxLineBytes: number
}

export class SessionDeleter {
  readonly #paths: StorePaths
  readonly #store: SessionStore
  readonly #writers: SessionWriters<SessionWriter>
  readonly #catalog: CatalogKeeper
  readonly #loader: SessionLoader
  readonly #maxLineBytes: number
  readonly #deleting = new Set<string>()

  constructor(options: SessionDeleterOptions) {
    this.#paths = options.paths
    this.#store = options.store
    this.#writers = options.writers
    this.#catalog = options.catalog
    this.#loader = options.loader
    this.#maxLineBytes = options.maxLineBytes
  }

  /** True while session `id` is being deleted. */
  has(id: string): boolean {
    return this.#deleting.has(id)
  }

  /**
   * Deletes a session's log. Each direct child that reads its prefix from this log is
   * first rewritten with the prefix inline (atomic replace); then the log is removed.
   */
  async delete(id: string): Promise<{ materialized: string[] }> {
    const file = sessionLogFile(this.#paths, id)
    if (this.#deleting.has(id) || (!this.#store.has(id) && !entryExists(file))) throw sessionNotFound(id)
    this.#deleting.add(id)
    try {
      await this.#loader.settled(id) // a failed load leaves nothing to undo
      this.#store.dispose(id)
      const writer = this.#writers.get(id)
      if (writer) {
        await writer.flush()
        await writer.close()
        this.#writers.delete(id)
      }
      const materialized: string[] = []
      for (const record of [...this.#catalog.known.records()]) {
        if (record.parentSession !== id || record.header.seed !== 'ref') continue
        // A log that cannot be read (its own damage, or a parent's missing) is deleted like any
        // other, but not at the cost of a fork that needs it: that refuses, naming the fork.
        await this.#materialize(record).catch((error: unknown) => {
          if (!isUnreadable(error)) throw error
          const childFile = sessionLogFile(this.#paths, record.id)
          throw prefixUnreadable(id, record.id, record.inheritedEventCount, childFile, error)
        })
        materialized.push(record.id)
      }
      await unlinkIfPresent(file)
      await unlinkIfPresent(archivedMarkerFile(this.#paths, id))
      await unlinkIfPresent(tornFile(this.#paths, id))
      await fsyncDirectory(this.#paths.sessionsDir)
      this.#catalog.known.delete(id)
      this.#catalog.known.findLoops() // deleting one session of a loop of parents ends the loop
      this.#catalog.schedule()
      return { materialized }
    } finally {
      this.#deleting.delete(id)
    }
  }

  async #materialize(record: CatalogRecord): Promise<void> {
    // A load of this child in flight would install its own writer: let it finish first (its
    // failure is its caller's to see). A load that starts now waits for the writer below.
    await this.#loader.settled(record.id)
    let writer = this.#writers.get(record.id)
    if (!writer) {
      writer = new SessionWriter({
        file: sessionLogFile(this.#paths, record.id),
        exists: true,
        maxLineBytes: this.#maxLineBytes,
      })
      this.#writers.set(record.id, writer)
    }
    const done = await writer.exclusive(async () => {
      const result = await materializeFork(this.#paths, record.id)
      if (!result) return { result: null, size: writer.size }
      return { result, size: result.size }
    })
    if (!this.#store.has(record.id) && this.#writers.get(record.id) === writer) {
      await writer.close()
      this.#writers.delete(record.id)
    }
    const current = this.#catalog.known.get(record.id)
    if (done && current) this.#catalog.known.set({ ...current, header: done.header })
  }
}
