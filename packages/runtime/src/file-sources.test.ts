import { describe, expect, it } from 'vitest'
import { FileSources } from './file-sources.js'

const never = new AbortController().signal

describe('FileSources', () => {
  it('asks the latest source attached; detached, the one before; none: the disk', async () => {
    const sources = new FileSources({ timeoutMs: 1000 })
    const read = sources.sourceFor('s1')
    expect(await read('/p/a.txt', never)).toEqual({ text: null })
    const detachFirst = sources.attach('s1', async () => 'first')
    const detachSecond = sources.attach('s1', async () => 'second')
    expect(await read('/p/a.txt', never)).toEqual({ text: 'second' })
    // Another session's source is not this one's.
    expect(await sources.sourceFor('s2')('/p/a.txt', never)).toEqual({ text: null })
    detachSecond()
    detachSecond()
    expect(await read('/p/a.txt', never)).toEqual({ text: 'first' })
    detachFirst()
    expect(sources.has('s1')).toBe(false)
    expect(await read('/p/a.txt', never)).toEqual({ text: null })
  })

  it('a silent source: the disk after the timeout, with a note, and the reader is told to stop', async () => {
    const sources = new FileSources({ timeoutMs: 50 })
    let stopped: AbortSignal | undefined
    sources.attach('s1', (_path, signal) => {
      stopped = signal
      return new Promise(() => {})
    })
    const answer = await sources.sourceFor('s1')('/p/a.txt', never)
    expect(answer).toEqual({ text: null, note: expect.stringContaining('did not answer within 50 ms') })
    expect(stopped?.aborted).toBe(true)
  })

  it('an aborted turn stops the wait at once, without a note', async () => {
    const sources = new FileSources({ timeoutMs: 60_000 })
    sources.attach('s1', () => new Promise(() => {}))
    const turn = new AbortController()
    const answer = sources.sourceFor('s1')('/p/a.txt', turn.signal)
    turn.abort()
    expect(await answer).toEqual({ text: null })
  })

  it('a reader that throws, rejects or answers a non-string: the disk, with why', async () => {
    const sources = new FileSources({ timeoutMs: 1000 })
    const read = sources.sourceFor('s1')
    const detach = sources.attach('s1', () => {
      throw new Error('sync\nfailure')
    })
    expect(await read('/p', never)).toEqual({ text: null, note: expect.stringContaining('(sync failure)') })
    detach()
    sources.attach('s1', async () => 42 as never)
    expect(await read('/p', never)).toEqual({ text: null, note: expect.stringContaining('gave no text') })
  })
})
