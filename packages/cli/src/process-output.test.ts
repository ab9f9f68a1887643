import { afterEach, describe, expect, it } from 'vitest'
import { onFirstRead } from './process-output.js'

describe('onFirstRead', () => {
  const original = Object.getOwnPropertyDescriptor(process, 'stderr')
  afterEach(() => {
    if (original) Object.defineProperty(process, 'stderr', original)
  })

  it('sets the stream up on its first read, once, and then leaves Node’s own getter in place', () => {
    const seen: unknown[] = []
    const built = onFirstRead('stderr', (stream) => seen.push(stream))
    expect(built()).toBe(false)
    expect(seen).toEqual([])

    const stream = process.stderr
    expect(built()).toBe(true)
    expect(seen).toEqual([stream])
    expect(process.stderr).toBe(stream)
    expect(seen).toHaveLength(1)
    expect(Object.getOwnPropertyDescriptor(process, 'stderr')?.get).toBe(original?.get)
  })
})
