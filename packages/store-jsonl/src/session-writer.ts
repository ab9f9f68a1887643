// Group commit for one session's log: appends are queued in memory and written and
// fsynced in batches; `flush()` resolves once everything queued before it is durable.
//
// A failed write or fsync (a full disk, an I/O error) does not lose the queue: the batch
// stays queued, and the next attempt — the next flush, or a retry the writer schedules
// itself — reopens the file, cuts off whatever the failed attempt may have left past the
// last durable byte, and writes the batch again. So once space returns, the log catches
// up with the session in memory by itself; until then every flush rejects.

import type { FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { type SessionEvent, TangentError } from '@tangent/core'
import { fsyncDirectory, openFlags, openRegularFile, writeAll } from './durable-fs.js'
import { maxLineBytes } from './line-reader.js'
import { eventLine, oversizedLineBytes } from './log-format.js'

/** Background commits start this long after the first queued append (flush starts one now). */
const commitDelayMs = 10
/** Upper bound of one write call, so a huge backlog does not build one huge string. */
const maxBatchBytes = 4 * 1024 * 1024
/** After a failed commit the writer retries by itself, backing off between these bounds. */
const firstRetryMs = 100
const maxRetryMs = 5000

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
  #enqueued = 0
  #committed = 0
  #running: Promise<void> | null = null
  #timer: NodeJS.Timeout | null = null
  #retryTimer: NodeJS.Timeout | null = null
  #retryMs = firstRetryMs
  #error: TangentError | null = null
  /** True when retrying cannot help (the log exists already, a line over the limit). */
  #permanent = false
  /** True when a failed attempt may have left bytes past `#size` in the file. */
  #unclean = false
  #errorReported = false
  #closed = false

  constructor(options: SessionWriterOptions) {
    this.file = options.file
    this.#exists = options.exists
    this.#entryDurable = options.exists
    this.#size = options.size ?? 0
    this.#before = options.before
    this.#maxLineBytes = options.maxLineBytes ?? maxLineBytes
  }

  /** Bytes of the log that are durable. */
  get size(): number {
    return this.#size
  }

  /** True when nothing is queued or being written: the log on disk is the whole session. */
  get idle(): boolean {
    return this.#queue.length === 0 && this.#running === null
  }

  /** The failure of the last commit, while it is not overcome (every flush rejects with it meanwhile). */
  get error(): TangentError | null {
    return this.#error
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
    return this.#error !== null && !this.#errorReported
  }

  /** Queues a raw line with its newline: the header. */
  enqueueLine(line: string): void {
    this.#push(line)
  }

  /** Queues an event the store serialised already (its line, with the newline). */
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
  async flush(): Promise<void> {
    const target = this.#enqueued
    let attempted = false
    for (;;) {
      if (this.#committed >= target) return
      if (this.#error && (attempted || this.#permanent)) {
        this.#errorReported = true
        throw this.#error
      }
      attempted = true
      await this.#kick()
    }
  }

  /** Waits until the writer is idle or failed; unlike flush it never rejects (failures stay in `error`). */
  async settle(): Promise<void> {
    while (this.#running || (this.#queue.length > 0 && !this.#error)) await this.#kick()
  }

  /**
   * Runs `task` while no commit runs (everything queued before is flushed first); commits
   * queued meanwhile wait. Used to replace the log file (materialising a fork).
   */
  async exclusive<T>(task: () => Promise<{ result: T; size: number }>): Promise<T> {
    await this.flush()
    while (this.#running) await this.#running
    let release = () => {}
    this.#running = new Promise<void>((resolve) => {
      release = resolve
    })
    try {
      await this.#closeHandle()
      const { result, size } = await task()
      this.#size = size
      this.#exists = true
      this.#entryDurable = true
      return result
    } finally {
      this.#running = null
      release()
      if (this.#queue.length > 0) this.#schedule()
    }
  }

  /** Flushes (one more attempt after a failure), then closes the file; no retries after. */
  async close(): Promise<void> {
    this.#clearTimers()
    if (this.#error && !this.#permanent && this.#queue.length > 0) await this.#kick()
    await this.settle()
    this.#closed = true
    this.#clearTimers()
    await this.#closeHandle()
  }

  #push(item: SessionEvent | string | { event: SessionEvent; line: string }): void {
    this.#queue.push(item)
    this.#enqueued++
    this.#schedule()
  }

  #schedule(): void {
    if (this.#closed) return
    // After a failure the retry timer (or the next flush) commits, not every append.
    if (this.#error) {
      this.#scheduleRetry()
      return
    }
    if (this.#timer || this.#running) return
    this.#timer = setTimeout(() => {
      this.#timer = null
      void this.#kick()
    }, commitDelayMs)
  }

  #scheduleRetry(): void {
    if (this.#retryTimer || this.#permanent || this.#closed) return
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null
      if (this.#queue.length > 0) void this.#kick()
    }, this.#retryMs)
    this.#retryTimer.unref() // a retry never keeps the process alive
    this.#retryMs = Math.min(maxRetryMs, this.#retryMs * 2)
  }

  #clearTimers(): void {
    if (this.#timer) clearTimeout(this.#timer)
    if (this.#retryTimer) clearTimeout(this.#retryTimer)
    this.#timer = null
    this.#retryTimer = null
  }

  #kick(): Promise<void> {
    if (this.#running) return this.#running
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    this.#running = this.#drain().finally(() => {
      this.#running = null
    })
    return this.#running
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 && !this.#permanent) {
      try {
        await this.#commitBatch()
        this.#error = null
        this.#errorReported = false
        this.#retryMs = firstRetryMs
      } catch (error) {
        this.#fail(error)
        // The handle may be in any state: the next attempt reopens the file.
        await this.#closeHandle().catch(() => undefined)
        this.#scheduleRetry()
        return
      }
    }
    // The file is opened per group commit, not held: a Host touching thousands of sessions
    // must not run out of descriptors, and an open costs little next to an fsync.
    try {
      await this.#closeHandle()
    } catch (error) {
      // Everything was fsynced before: nothing acknowledged is at risk, but it is reported
      // (until the next commit succeeds).
      this.#error ??= new TangentError(
        'store-write-failed',
        `Closing session log ${this.file} failed: ${(error as Error).message}.`,
        { file: this.file },
        { cause: error },
      )
    }
  }

  #fail(error: unknown): void {
    this.#unclean = true
    if (TangentError.isInstance(error) && (error.code === 'session-exists' || error.code === 'corrupt-log')) {
      this.#error = error
      this.#permanent = true
      return
    }
    if (
      TangentError.isInstance(error) &&
      error.code === 'store-write-failed' &&
      error.data.permanent === true
    ) {
      this.#error = error
      this.#permanent = true
      return
    }
    this.#error = new TangentError(
      'store-write-failed',
      `Writing session log ${this.file} failed: ${(error as Error).message}. The appends since the last successful flush are kept in memory, not yet durable; the store writes them again by itself (and on the next flush) once the cause is fixed (disk full? permissions?).`,
      { file: this.file },
      { cause: error },
    )
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
      bytes += line.length
      count++
    }
    return { data: Buffer.from(parts.join('')), count }
  }

  async #commitBatch(): Promise<void> {
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
    this.#committed += count
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle
    this.#handle = null
    if (handle) await handle.close()
  }
}
