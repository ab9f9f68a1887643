import { describe, expect, it } from 'vitest'
import { ForkRequests } from './fork-requests.js'

describe('ForkRequests', () => {
  it('runs a fork once per requestId, also for concurrent duplicates', async () => {
    const requests = new ForkRequests()
    let runs = 0
    const fork = async () => {
      runs++
      await new Promise((resolve) => setTimeout(resolve, 5))
      return { sourceId: 's', childId: `child-${runs}`, boundary: 3 }
    }
    const [a, b] = await Promise.all([requests.run('r', fork), requests.run('r', fork)])
    expect(a).toEqual({ sourceId: 's', childId: 'child-1', boundary: 3 })
    expect(b).toBe(a)
    expect(await requests.run('r', fork)).toEqual({ sourceId: 's', childId: 'child-1', boundary: 3 })
    expect(runs).toBe(1)
  })

  it('forgets a failed attempt and a deleted child', async () => {
    const requests = new ForkRequests()
    await expect(requests.run('r', async () => Promise.reject(new Error('no')))).rejects.toThrow('no')
    expect(await requests.run('r', async () => ({ sourceId: 's', childId: 'c', boundary: 1 }))).toEqual({
      sourceId: 's',
      childId: 'c',
      boundary: 1,
    })
    requests.forget('c')
    expect(requests.get('r')).toBeUndefined()
  })

  it('is rebuilt from child headers', () => {
    const requests = ForkRequests.fromHeaders([
      { id: 'child', header: { forkRequestId: 'r1', forkedAt: 7, parentSession: 'parent' } },
      { id: 'plain', header: {} },
    ])
    expect(requests.get('r1')).toEqual({ sourceId: 'parent', childId: 'child', boundary: 7 })
  })

  it('reads the headers on first use, and looks through them again only for a requestId it has not seen', async () => {
    let reads = 0
    const catalog = [
      {
        id: 'old',
        header: { forkRequestId: 'r0', forkedAt: 2, parentSession: 'p' } as Record<string, unknown>,
      },
    ]
    const requests = ForkRequests.fromHeaders(() => {
      reads++
      return catalog
    })
    expect(reads).toBe(0)
    expect(await requests.run('r0', async () => ({ sourceId: 'x', childId: 'new', boundary: 9 }))).toEqual({
      sourceId: 'p',
      childId: 'old',
      boundary: 2,
    })
    expect(reads).toBe(1)
    // Known: no second read.
    expect(requests.get('r0')?.childId).toBe('old')
    expect(reads).toBe(1)
    // Another Host's fork joins the catalog: a retry here finds its child.
    catalog.push({ id: 'theirs', header: { forkRequestId: 'r1', forkedAt: 4, parentSession: 'p' } })
    expect(requests.get('r1')).toEqual({ sourceId: 'p', childId: 'theirs', boundary: 4 })
    expect(reads).toBe(2)
    // A deleted child is forgotten (its header left the catalog with it).
    catalog.splice(0, 1)
    requests.forget('old')
    expect(requests.get('r0')).toBeUndefined()
  })
})
