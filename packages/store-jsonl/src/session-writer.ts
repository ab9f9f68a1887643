// Group commit for one session's log: appends are queued in memory and written and
// fsynced in batches; `flush()` resolves once everything queued before it is durable.
import { type FileHandle, open } from 'node:fs/promises'
import path from 'node:path'
import { type SessionEvent, TangentError } from '@tangent/core'
import { fsyncDirectory, writeAll } from './durable-fs.js'
import { eventLine } from './log-format.js'

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
}

export class SessionWriter {
  readonly file: string
  #exists: boolean
  #size: number
  #before: (() => Promise<void>) | undefined
  #handle: FileHandle | null = null
  #queue: (SessionEvent | string)[] = []
  #enqueued = 0
  #committed = 0
  #running: Promise<void> | null = null
  #timer: NodeJS.Timeout | null = null
  #error: TangentError | null = null
  #errorReported = false

  constructor(options: SessionWriterOptions) {
    this.file = options.file
    this.#exists = options.exists
    this.#size = options.size ?? 0
    this.#before = options.before
  }

  /** Bytes of the log that are durable. */
  get size(): number {
    return this.#size
  }

  /** True when nothing is queued or being written: the log on disk is the whole session. */
  get idle(): boolean {
    return this.#queue.length === 0 && this.#running === null
  }

  /** The failure that stopped this writer, if any (every later flush rejects with it). */
  get error(): TangentError | null {
    return this.#error
  }

  /** True when the failure was never handed to a caller of flush (so someone else must report it). */
  get errorUnreported(): boolean {
    return this.#error !== null && !this.#errorReported
  }

  /** Queues a raw line (the header, with its newline). */
  enqueueLine(line: string): void {
    this.#push(line)
  }

  enqueueEvent(event: SessionEvent): void {
    this.#push(event)
  }

  /** Resolves when everything queued so far is written and fsynced; rejects on a write failure. */
  async flush(): Promise<void> {
    const target = this.#enqueued
    for (;;) {
      if (this.#error) {
        this.#errorReported = true
        throw this.#error
      }
      if (this.#committed >= target) return
      await this.#kick()
    }
  }

  /** Waits until the writer is idle; unlike flush it never rejects (failures stay in `error`). */
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
      return result
    } finally {
      this.#running = null
      release()
      if (this.#queue.length > 0) this.#schedule()
    }
  }

  /** Flushes, then closes the file. */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    await this.settle()
    await this.#closeHandle()
  }

  #push(item: SessionEvent | string): void {
    if (this.#error) return
    this.#queue.push(item)
    this.#enqueued++
    this.#schedule()
  }

  #schedule(): void {
    if (this.#timer || this.#running) return
    this.#timer = setTimeout(() => {
      this.#timer = null
      void this.#kick()
    }, commitDelayMs)
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
    while (this.#queue.length > 0 && !this.#error) {
      try {
        await this.#commitBatch()
      } catch (error) {
        this.#error =
          error instanceof TangentError && error.code === 'session-exists'
            ? error
            : new TangentError(
                'store-write-failed',
                `Writing session log ${this.file} failed: ${(error as Error).message}. Appends since the last successful flush are not durable; fix the cause (disk full? permissions?) and load the session again.`,
                { file: this.file },
                { cause: error },
              )
      }
    }
    // The file is opened per group commit, not held: a Host touching thousands of sessions
    // must not run out of descriptors, and an open costs little next to an fsync.
    try {
      await this.#closeHandle()
    } catch (error) {
      this.#error ??= new TangentError(
        'store-write-failed',
        `Closing session log ${this.file} failed.`,
        {
          file: this.file,
        },
        { cause: error },
      )
    }
  }

  async #commitBatch(): Promise<void> {
    if (this.#before) {
      await this.#before()
      this.#before = undefined
    }
    let count = 0
    let bytes = 0
    const parts: string[] = []
    while (count < this.#queue.length && bytes < maxBatchBytes) {
      const item = this.#queue[count]!
      const line = typeof item === 'string' ? item : eventLine(item)
      parts.push(line)
      bytes += line.length
      count++
    }
    const data = Buffer.from(parts.join(''))
    const created = !this.#exists
    if (!this.#handle) {
      try {
        this.#handle = await open(this.file, created ? 'wx' : 'a')
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
    await writeAll(this.#handle, data)
    await this.#handle.datasync()
    if (created) await fsyncDirectory(path.dirname(this.file))
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
