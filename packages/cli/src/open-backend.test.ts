// A Host that closes between its health check and the connection (docs/architecture.md §9): the
// command goes on without it when the discovery no longer names a live Host, else it fails.
import { TangentError } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { connectViaDiscovery } from './open-backend.js'

const refused = () => Promise.reject(new TangentError('host-unreachable', 'connect ECONNREFUSED', {}))

/** A discovery read that answers each of `answers` in turn. */
function reads(...answers: (string | null)[]) {
  let calls = 0
  const read = () => Promise.resolve(answers[Math.min(calls++, answers.length - 1)] ?? null)
  return { read, calls: () => calls }
}

describe('connectViaDiscovery', () => {
  it('connects to the Host the discovery names', async () => {
    const { read, calls } = reads('host A')
    expect(await connectViaDiscovery(read, async (host) => `api of ${host}`)).toBe('api of host A')
    expect(calls()).toBe(1)
  })

  it('is null without a discovery, and connects to nothing', async () => {
    let connected = false
    const result = await connectViaDiscovery(reads(null).read, async () => {
      connected = true
    })
    expect([result, connected]).toEqual([null, false])
  })

  it('is null when the Host closed after its health check (the discovery names none any more)', async () => {
    const { read, calls } = reads('host A', null)
    expect(await connectViaDiscovery(read, refused)).toBeNull()
    expect(calls()).toBe(2)
  })

  it('fails when the connection is refused by a Host the discovery still names', async () => {
    const error = await connectViaDiscovery(reads('host A', 'host A').read, refused).catch((e: unknown) => e)
    expect(TangentError.hasCode(error, 'host-unreachable')).toBe(true)
  })

  it('fails on any other error without reading again', async () => {
    const { read, calls } = reads('host A', null)
    const error = await connectViaDiscovery(read, () => Promise.reject(new Error('boom'))).catch(
      (e: unknown) => e,
    )
    expect((error as Error).message).toBe('boom')
    expect(calls()).toBe(1)
  })
})
