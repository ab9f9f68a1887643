import { afterEach, describe, expect, it, vi } from 'vitest'
import { TangentError } from './errors.js'
import {
  GroupCommit,
  type GroupCommitEngine,
  type SessionCommitWriter,
  SessionWriters,
} from './group-commit.js'

/** An engine over an in-memory queue: `fail` makes the next batches throw, `durable` is what committed. */
function memoryEngine(options: { permanent?: (error: unknown) => boolean } = {}) {
  const state = {
    queue: [] as string[],
    durable: [] as string[],
    batches: 0,
    fail: null as Error | null,
    afterFailures: 0,
    drains: 0,
  }
  const engine: GroupCommitEngine = {
    hasWork: () => state.queue.length > 0,
    commitBatch: async () => {
      state.batches++
      await Promise.resolve()
      if (state.fail) throw state.fail
      const batch = state.queue.splice(0, 2) // two a batch, so a backlog takes several
      state.durable.push(...batch)
      return batch.length
    },
    failure: (error) => ({
      error: new TangentError('store-write-failed', (error as Error).message, {}),
      permanent: options.permanent?.(error) ?? false,
    }),
    afterFailure: async () => {
      state.afterFailures++
    },
    afterDrain: async () => {
      state.drains++
    },
  }
  return { state, engine }
}

function add(commits: GroupCommit, state: { queue: string[] }, ...items: string[]) {
  for (const item of items) {
    state.queue.push(item)
    commits.added()
  }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('GroupCommit', () => {
  it('commits in the background after the delay, and flush resolves once all queued before it is durable', async () => {
    vi.useFakeTimers()
    const { state, engine } = memoryEngine()
    const commits = new GroupCommit(engine, { commitDelayMs: 10 })
    add(commits, state, 'a', 'b', 'c')
    expect(state.batches).toBe(0)
    await vi.advanceTimersByTimeAsync(10)
    expect(state.durable).toEqual(['a', 'b', 'c'])
    expect(state.drains).toBe(1)
    add(commits, state, 'd')
    await commits.flush() // without waiting for the timer
    expect(state.durable).toEqual(['a', 'b', 'c', 'd'])
    expect(commits.committing).toBe(false)
  })

  it('keeps a failed batch queued: flush rejects (after one more try), the writer retries with backoff and catches up', async () => {
    vi.useFakeTimers()
    const { state, engine } = memoryEngine()
    const commits = new GroupCommit(engine, { commitDelayMs: 5, firstRetryMs: 100, maxRetryMs: 400 })
    state.fail = new Error('ENOSPC')
    add(commits, state, 'a')
    await expect(commits.flush()).rejects.toThrow('ENOSPC')
    expect(commits.error?.code).toBe('store-write-failed')
    expect(commits.errorUnreported).toBe(false)
    expect(state.queue).toEqual(['a'])
    expect(state.afterFailures).toBe(1)
    const before = state.batches
    // Appends during the failure wait for the retry, not a batch each.
    add(commits, state, 'b', 'c')
    expect(state.batches).toBe(before)
    await vi.advanceTimersByTimeAsync(100)
    expect(state.batches).toBe(before + 1) // the retry, still failing
    await vi.advanceTimersByTimeAsync(199)
    expect(state.batches).toBe(before + 1) // backing off: 200 ms now
    state.fail = null
    await vi.advanceTimersByTimeAsync(1)
    expect(state.durable).toEqual(['a', 'b', 'c'])
    expect(commits.error).toBeNull()
    await commits.flush()
  })

  it('stops for good after a permanent failure: flush rejects at once, nothing retries', async () => {
    vi.useFakeTimers()
    const { state, engine } = memoryEngine({ permanent: () => true })
    const commits = new GroupCommit(engine, { commitDelayMs: 5 })
    state.fail = new Error('line too long')
    add(commits, state, 'a')
    await expect(commits.flush()).rejects.toThrow('line too long')
    const batches = state.batches
    state.fail = null
    await vi.advanceTimersByTimeAsync(10_000)
    await expect(commits.flush()).rejects.toThrow('line too long')
    expect(state.batches).toBe(batches)
    expect(state.durable).toEqual([])
  })

  it('runs an exclusive task after what was queued, holding later batches until it ends', async () => {
    const { state, engine } = memoryEngine()
    const commits = new GroupCommit(engine, { commitDelayMs: 1 })
    add(commits, state, 'a')
    const order: string[] = []
    let finish = () => {}
    const task = commits.exclusive(async () => {
      order.push(`task sees ${state.durable.join('')}`)
      await new Promise<void>((resolve) => {
        finish = resolve
      })
      return 'done'
    })
    await vi.waitFor(() => expect(order).toEqual(['task sees a']))
    add(commits, state, 'b')
    const flushed = commits.flush().then(() => order.push('b durable'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(state.durable).toEqual(['a'])
    order.push('task ends')
    finish()
    expect(await task).toBe('done')
    await flushed
    expect(order).toEqual(['task sees a', 'task ends', 'b durable'])
  })

  it('keeps an error afterDrain throws until the next batch succeeds; close commits once more and stops', async () => {
    const { state, engine } = memoryEngine()
    let closeFails = true
    engine.afterDrain = async () => {
      if (closeFails) throw new TangentError('store-write-failed', 'close failed', {})
    }
    const commits = new GroupCommit(engine, { commitDelayMs: 1 })
    add(commits, state, 'a')
    await commits.flush()
    expect(commits.error?.message).toBe('close failed')
    closeFails = false
    add(commits, state, 'b')
    await commits.flush()
    expect(commits.error).toBeNull()
    state.fail = new Error('EIO')
    add(commits, state, 'c')
    await commits.settle() // never rejects
    expect(commits.error?.message).toBe('EIO')
    state.fail = null
    await commits.close() // the one more attempt
    expect(state.durable).toEqual(['a', 'b', 'c'])
    add(commits, state, 'd')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(state.durable).toEqual(['a', 'b', 'c']) // closed: nothing scheduled
  })
})

/** A writer whose flush fails with `error` (unreported until a flush hands it out). */
function fakeWriter(name: string, error: TangentError | null = null) {
  const writer = {
    name,
    error,
    errorUnreported: error !== null,
    flushes: 0,
    closed: false,
    async flush() {
      writer.flushes++
      if (writer.error) {
        writer.errorUnreported = false
        throw writer.error
      }
    },
    async close() {
      writer.closed = true
    },
  }
  return writer satisfies SessionCommitWriter
}

describe('SessionWriters', () => {
  it('flushes one session or all; all rejects with a writer failure first, then with one kept from before', async () => {
    const writers = new SessionWriters<ReturnType<typeof fakeWriter>>()
    const full = new TangentError('store-write-failed', 'disk full', {})
    writers.set('a', fakeWriter('a'))
    writers.set('b', fakeWriter('b', full))
    await writers.flush('a')
    expect(writers.get('b')!.flushes).toBe(0)
    await writers.flush('missing') // no writer: nothing to wait for
    const earlier = new Error('catalog write failed')
    writers.fail(earlier)
    await expect(writers.flush()).rejects.toBe(full)
    writers.get('b')!.error = null
    await expect(writers.flush()).rejects.toBe(earlier)
    await writers.flush()
    expect(writers.hasFailures).toBe(false)
  })

  it('retires a writer: it closes and goes, its unreported failure is kept; a writer that replaced it stays', async () => {
    const writers = new SessionWriters<ReturnType<typeof fakeWriter>>()
    const lost = new TangentError('store-write-failed', 'EIO', {})
    const old = fakeWriter('old', lost)
    writers.set('s', old)
    writers.retire('s')
    const replacement = fakeWriter('new')
    writers.set('s', replacement) // the session loaded again before the old writer finished
    writers.retire('nothing') // no writer: nothing happens
    await vi.waitFor(() => expect(writers.hasFailures).toBe(true))
    expect(old.closed).toBe(true)
    expect(writers.get('s')).toBe(replacement)
    expect(writers.takeFailures()).toEqual([lost])
    writers.retire('s')
    await vi.waitFor(() => expect(writers.has('s')).toBe(false))
    expect(writers.hasFailures).toBe(false)
  })

  it('closes every writer, adding each failure not already among the errors', async () => {
    const writers = new SessionWriters<ReturnType<typeof fakeWriter>>()
    const one = new TangentError('store-write-failed', 'one', {})
    const two = new TangentError('store-write-failed', 'two', {})
    writers.set('a', fakeWriter('a', one))
    writers.set('b', fakeWriter('b', two))
    writers.set('c', fakeWriter('c'))
    const errors: unknown[] = [one]
    await writers.closeAll(errors)
    expect(errors).toEqual([one, two])
    expect([...writers.values()].every((writer) => writer.closed)).toBe(true)
  })
})
