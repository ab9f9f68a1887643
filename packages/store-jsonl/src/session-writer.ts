// Group commit for one session's log (docs/architecture.md §4.1), on core's GroupCommit: appends
// are queued in memory and written and fsynced in batches; `flush()` resolves once everything
// queued before it is durable.
//
// A failed write or fsync (a full disk, an I/O error) does not lose the queue: the batch
// stays queued, and the next attempt — the next flush, or a retry the writer schedules
// itself — reopens the file, cuts off whatever the failed attempt may have left past the
// last durable byte, and writes the batch again. So once space returns, the log catches
// up with the session in memory by itself; until then every flush rejects.

import { type FileHandle, truncate } from 'node:fs/promises'
import path from 'node:path'
import { GroupCommit, type SessionEvent, TangentError } from '@tangent/core'
import { fsyncDirectory, openFlags, openRegularFile, writeAll } from './durable-fs.js'
import { maxLineBytes } from './line-reader.js'
import { eventLine, oversizedLineBytes } from './log-format.js'

/** Background commits start this long after the first queued append (flush starts one now). */
const commitDelayMs = 10
/** Upper bound of one write call, so a huge backlog does not build one huge string. */
const maxBatchBytes = 4 * 1024 * 1024

export interface SessionWriterOptions {
  file: string
  /** True when the log exists on disk (a loaded session); false: the first commit creates it. */
  exists: boolean
  /** Durable size of an existing log. */
  size?: number
  /** Settled before the first commit: a fork's parent flushed through the boundary. */
  before?: () => Promise<void>
  /** The longest line it writes (default `maxLineBytes`, what a reader accepts); tests lower it. */
  maxLineBytes?: number
}

export class SessionWriter {
  readonly file: string
  #exists: boolean
  /** False until the directory entry of a log this writer created is durable. */
  #entryDurable: boolean
  #size: number
  #before: (() => Promise<void>) | undefined
  readonly #maxLineBytes: number
  #handle: FileHandle | null = null
  /** Lines to write: the header (a string), events, or events already serialised. */
  #queue: (SessionEvent | string | { event: SessionEvent; line: string })[] = []
  /** True when a failed attempt may have left bytes past `#size` in the file. */
  #unclean = false
  readonly #commits: GroupCommit

  constructor(options: SessionWriterOptions) {
    this.file = options.file
    this.#exists = options.exists
    this.#entryDurable = options.exists
    this.#size = options.size ?? 0
    this.#before = options.before
    this.#maxLineBytes = options.maxLineBytes ?? maxLineBytes
    this.#commits = new GroupCommit(
      {
        hasWork: () => this.#queue.length > 0,
        commitBatch: () => this.#commitBatch(),
        failure: (error) => this.#failure(error),
        afterFailure: async () => {
          this.#unclean = true
          // The handle may be in any state: the next attempt reopens the file.
          await this.#closeHandle().catch(() => undefined)
        },
        afterDrain: () => this.#closeAfterDrain(),
      },
      { commitDelayMs },
    )
  }

  /** Bytes of the log that are durable. */
  get size(): number {
    return this.#size
  }

  /** True when nothing is queued or being written: the log on disk is the whole session. */
  get idle(): boolean {
    return this.#queue.length === 0 && !this.#commits.committing
  }

  /** The failure of the last commit, while it is not overcome (every flush rejects with it meanwhile). */
  get error(): TangentError | null {
    return this.#commits.error
  }

  /** Events appended but not yet durable (queued, or in a batch not yet fsynced). */
  get undurableEvents(): number {
    let count = 0
    for (const item of this.#queue) if (typeof item !== 'string') count++
    // (a header line is the only string: events come as events, serialised or not)
    return count
  }

  /** True when the failure was never handed to a caller of flush (so someone else must report it). */
  get errorUnreported(): boolean {
    return this.#commits.errorUnreported
  }

  /** Queues a raw line (without its newline: the writer adds it): the header. */
  enqueueLine(line: string): void {
    this.#push(line)
  }

  /** Queues an event the store serialised already (its line, without the newline). */
  enqueueEventLine(event: SessionEvent, line: string): void {
    this.#push({ event, line })
  }

  enqueueEvent(event: SessionEvent): void {
    this.#push(event)
  }

  /**
   * Resolves when everything queued so far is written and fsynced. After a failure it
   * tries once more (the disk may have space again) and rejects if that fails too.
   */
  flush(): Promise<void> {
    return this.#commits.flush()
  }

  /** Waits until the writer is idle or failed; unlike flush it never rejects (failures stay in `error`). */
  settle(): Promise<void> {
    return this.#commits.settle()
  }

  /**
   * Runs `task` while no commit runs (everything queued before is flushed first); commits
   * queued meanwhile wait. Used to replace the log file (materialising a fork).
   */
  exclusive<T>(task: () => Promise<{ result: T; size: number }>): Promise<T> {
    return this.#commits.exclusive(async () => {
      await this.#closeHandle()
      const { result, size } = await task()
      this.#size = size
      this.#exists = true
      this.#entryDurable = true
      return result
    })
  }

  /** Flushes (one more attempt after a failure), then closes the file; no retries after. */
  async close(): Promise<void> {
    await this.#commits.close()
    await this.#closeHandle()
    // Closed with a failure (a full disk): a failed attempt may have left part of a line past the
    // last durable byte. It is cut here, best effort (a cut frees space), so the next open finds
    // the log as it was durable, with no torn tail to set aside; what was not written is reported
    // by the error, not left as a fragment.
    if (this.#unclean && this.#exists) await truncate(this.file, this.#size).catch(() => undefined)
  }

  #push(item: SessionEvent | string | { event: SessionEvent; line: string }): void {
    this.#queue.push(item)
    this.#commits.added()
  }

  /**
   * The file is opened per group commit, not held: a Host touching thousands of sessions must
   * not run out of descriptors, and an open costs little next to an fsync.
   */
  async #closeAfterDrain(): Promise<void> {
    try {
      await this.#closeHandle()
    } catch (error) {
      // Everything was fsynced before: nothing acknowledged is at risk, but it is reported
      // (until the next commit succeeds).
      throw new TangentError(
        'store-write-failed',
        `Closing session log ${this.file} failed: ${(error as Error).message}.`,
        { file: this.file },
        { cause: error },
      )
    }
  }

  #failure(error: unknown): { error: TangentError; permanent: boolean } {
    if (TangentError.isInstance(error) && (error.code === 'session-exists' || error.code === 'corrupt-log')) {
      return { error, permanent: true }
    }
    if (
      TangentError.isInstance(error) &&
      error.code === 'store-write-failed' &&
      error.data.permanent === true
    ) {
      return { error, permanent: true }
    }
    return {
      error: new TangentError(
        'store-write-failed',
        `Writing session log ${this.file} failed: ${(error as Error).message}. The appends since the last successful flush are kept in memory, not yet durable: a running Host writes them again by itself (and on the next flush) once the cause is fixed (disk full? permissions?); a command that ends before then loses them, and the log keeps what was durable.`,
        { file: this.file },
        { cause: error },
      ),
      permanent: false,
    }
  }

  /** The next batch of queued lines, as bytes, and how many queue items it holds. */
  #nextBatch(): { data: Buffer; count: number } {
    let count = 0
    let bytes = 0
    const parts: string[] = []
    while (count < this.#queue.length && bytes < maxBatchBytes) {
      const item = this.#queue[count]!
      const line = typeof item === 'string' ? item : 'line' in item ? item.line : eventLine(item)
      // The store refuses such an event before it is appended (JsonlStore); this is the last guard.
      const limit = this.#maxLineBytes
      const oversized = oversizedLineBytes(line, limit)
      if (oversized !== null) {
        if (count > 0) break // the lines before it are written first
        const seq = typeof item === 'string' ? null : 'line' in item ? item.event.seq : item.seq
        throw new TangentError(
          'store-write-failed',
          `Event ${seq ?? '(header)'} of ${this.file} is ${oversized} bytes as a log line, over the ${limit} bytes a line may hold: it is not written, and neither is anything appended after it. The log holds everything before it.`,
          { file: this.file, seq, permanent: true },
        )
      }
      parts.push(line)
      bytes += line.length + 1
      count++
    }
    // Each line encoded straight into one buffer, its newline a byte after it: joining them first
    // builds (and, for a batch with one non-ASCII line, widens) a string of the whole batch, and a
    // line with "\n" appended is a rope the encoder flattens first — each several times slower.
    // The buffer is sized for the worst case (3 bytes a UTF-16 unit) unless that is large: a
    // batch of one huge line is counted exactly instead.
    let capacity = bytes * 3
    if (bytes > 2 * maxBatchBytes) {
      capacity = 0
      for (const line of parts) capacity += Buffer.byteLength(line) + 1
    }
    const buffer = Buffer.allocUnsafe(capacity)
    let offset = 0
    for (const line of parts) {
      offset += buffer.write(line, offset)
      buffer[offset++] = 10
    }
    return { data: buffer.subarray(0, offset), count }
  }

  /** Writes and fsyncs the next batch; how many queue items it made durable. */
  async #commitBatch(): Promise<number> {
    if (this.#before) {
      await this.#before()
      this.#before = undefined
    }
    const { data, count } = this.#nextBatch()
    if (!this.#handle) {
      try {
        // Never O_CREAT for a log that exists: a log removed behind the store's back must
        // not come back without its header.
        this.#handle = await openRegularFile(this.file, this.#exists ? openFlags.append : openFlags.createNew)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        throw new TangentError(
          'session-exists',
          `Session log ${this.file} already exists on disk: load that session instead of creating it again.`,
          { file: this.file },
        )
      }
      this.#exists = true
    }
    if (this.#unclean) {
      // A failed attempt may have written part of a batch (or written it without a good
      // fsync): back to the last durable byte, then the batch is written again.
      await this.#handle.truncate(this.#size)
      this.#unclean = false
    }
    await writeAll(this.#handle, data, this.file)
    await this.#handle.datasync()
    if (!this.#entryDurable) {
      await fsyncDirectory(path.dirname(this.file))
      this.#entryDurable = true
    }
    this.#queue.splice(0, count)
    this.#size += data.length
    return count
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle
    this.#handle = null
    if (handle) await handle.close()
  }
}
