// Group commit, the part both store engines share (docs/architecture.md §4): appends are queued
// in memory and committed in batches, one batch at a time; `flush()` resolves once everything
// queued before it is durable. A failed batch loses nothing: it stays queued, its error is kept
// (every flush rejects with it meanwhile, after one more attempt of its own), and the writer
// retries by itself with backoff, so once the cause is gone the store catches up unasked. A
// permanent failure (retrying cannot help) stops the writer. The engine decides what a batch is,
// how it is made durable (write + fsync, a transaction) and which failures are permanent.
import type { TangentError } from './errors.js'

/** What one engine's writer supplies. */
export interface GroupCommitEngine {
  /** Whether anything waits to be committed. */
  hasWork(): boolean
  /** Commits the next batch of what waits, removing it; resolves with how many queued items it made durable. */
  commitBatch(): Promise<number>
  /** The error a failed batch leaves (kept, and thrown by flush) and whether retrying can help. */
  failure(error: unknown): { error: TangentError; permanent: boolean }
  /** After a failed batch, before its retry is scheduled (JSONL drops its file handle). Must not throw. */
  afterFailure?(): Promise<void>
  /**
   * After the queue drained. A TangentError it throws is kept as the writer's error (nothing
   * queued is lost: everything was committed) until the next batch succeeds.
   */
  afterDrain?(): Promise<void>
}

export interface GroupCommitTiming {
  /** A background commit starts this long after the first queued item (flush starts one now). */
  commitDelayMs: number
  /** Backoff of the writer's own retries after a failure (default 100 ms doubling to 5 s). */
  firstRetryMs?: number
  maxRetryMs?: number
}

export class GroupCommit {
  readonly #engine: GroupCommitEngine
  readonly #commitDelayMs: number
  readonly #firstRetryMs: number
  readonly #maxRetryMs: number
  #enqueued: number
  #committed = 0
  #running: Promise<void> | null = null
  #timer: NodeJS.Timeout | null = null
  #retryTimer: NodeJS.Timeout | null = null
  #retryMs: number
  #error: TangentError | null = null
  #permanent = false
  #errorReported = false
  #closed = false

  /** `queued`: items queued before the writer exists (a new session's row), not yet scheduled. */
  constructor(engine: GroupCommitEngine, timing: GroupCommitTiming, queued = 0) {
    this.#engine = engine
    this.#commitDelayMs = timing.commitDelayMs
    this.#firstRetryMs = timing.firstRetryMs ?? 100
    this.#maxRetryMs = timing.maxRetryMs ?? 5000
    this.#retryMs = this.#firstRetryMs
    this.#enqueued = queued
  }

  /** The failure of the last batch while it is not overcome (every flush rejects with it meanwhile). */
  get error(): TangentError | null {
    return this.#error
  }

  /** True when the failure was never handed to a caller of flush (so someone else must report it). */
  get errorUnreported(): boolean {
    return this.#error !== null && !this.#errorReported
  }

  /** True while a batch (or an exclusive task) runs. */
  get committing(): boolean {
    return this.#running !== null
  }

  /** Counts `count` items the engine queued and schedules a commit. */
  added(count = 1): void {
    this.#enqueued += count
    this.schedule()
  }

  /** Schedules a background commit (after a failure: the writer's retry). */
  schedule(): void {
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
    }, this.#commitDelayMs)
  }

  /**
   * Resolves when everything queued so far is durable. After a failure it tries once more (the
   * cause may be gone) and rejects if that fails too.
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

  /** Waits until idle or failed; unlike flush it never rejects (a failure stays in `error`). */
  async settle(): Promise<void> {
    while (this.#running || (this.#engine.hasWork() && !this.#error)) await this.#kick()
  }

  /**
   * Runs `task` while no batch runs (everything queued before is flushed first); batches queued
   * meanwhile wait for it. JSONL replaces a log file this way (materialising a fork).
   */
  async exclusive<T>(task: () => Promise<T>): Promise<T> {
    await this.flush()
    while (this.#running) await this.#running
    let release = () => {}
    this.#running = new Promise<void>((resolve) => {
      release = resolve
    })
    try {
      return await task()
    } finally {
      this.#running = null
      release()
      if (this.#engine.hasWork()) this.schedule()
    }
  }

  /** One more attempt after a failure, then waits until idle; no commits or retries after. */
  async close(): Promise<void> {
    this.#clearTimers()
    if (this.#error && !this.#permanent && this.#engine.hasWork()) await this.#kick()
    await this.settle()
    this.#closed = true
    this.#clearTimers()
  }

  #scheduleRetry(): void {
    if (this.#retryTimer || this.#permanent || this.#closed) return
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null
      if (this.#engine.hasWork()) void this.#kick()
    }, this.#retryMs)
    this.#retryTimer.unref() // a retry never keeps the process alive
    this.#retryMs = Math.min(this.#maxRetryMs, this.#retryMs * 2)
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
    const engine = this.#engine
    while (engine.hasWork() && !this.#permanent) {
      try {
        this.#committed += await engine.commitBatch()
        this.#error = null
        this.#errorReported = false
        this.#retryMs = this.#firstRetryMs
      } catch (error) {
        const failure = engine.failure(error)
        this.#error = failure.error
        if (failure.permanent) this.#permanent = true
        await engine.afterFailure?.()
        this.#scheduleRetry()
        return
      }
    }
    if (!engine.afterDrain) return
    try {
      await engine.afterDrain()
    } catch (error) {
      this.#error ??= error as TangentError
    }
  }
}

/** What a store engine's writer of one session offers to the store around it. */
export interface SessionCommitWriter {
  flush(): Promise<void>
  close(): Promise<void>
  readonly error: TangentError | null
  readonly errorUnreported: boolean
}

/**
 * A store's writers, one per live session (a Map by session id), and the failures no flush has
 * reported yet: a retired writer's, or the engine's own (a catalog write). Both engines keep
 * their writers here.
 */
export class SessionWriters<W extends SessionCommitWriter> extends Map<string, W> {
  readonly #failures: unknown[] = []

  /**
   * Resolves when the session's appends (or every session's) are durable. Without an id it
   * rejects with the first writer's failure, else with one not reported before.
   */
  async flush(id?: string): Promise<void> {
    if (id !== undefined) {
      await this.get(id)?.flush()
      return
    }
    const results = await Promise.allSettled([...this.values()].map((writer) => writer.flush()))
    const failed = results.find((result) => result.status === 'rejected')
    if (failed) throw failed.reason
    this.throwFailure()
  }

  /**
   * The session left memory (its log stays): its writer drains what is queued, then goes (unless
   * another has replaced it meanwhile); a failure no flush reported is kept for the next.
   */
  retire(id: string): void {
    const writer = this.get(id)
    if (!writer) return
    void writer
      .close()
      .then(() => {
        if (writer.errorUnreported) this.fail(writer.error)
        if (this.get(id) === writer) this.delete(id)
      })
      .catch((error: unknown) => this.fail(error))
  }

  /** Closes every writer; adds to `errors` each one's failure not already there. */
  async closeAll(errors: unknown[]): Promise<void> {
    for (const writer of this.values()) {
      await writer.close()
      if (writer.error && !errors.includes(writer.error)) errors.push(writer.error)
    }
  }

  /** Keeps a failure for the next flush (or close) to report. */
  fail(error: unknown): void {
    this.#failures.push(error)
  }

  get hasFailures(): boolean {
    return this.#failures.length > 0
  }

  /** Throws the oldest failure not reported yet, if any. */
  throwFailure(): void {
    if (this.#failures.length > 0) throw this.#failures.shift()
  }

  /** The failures not reported yet, oldest first; they are reported now. */
  takeFailures(): unknown[] {
    return this.#failures.splice(0)
  }
}
