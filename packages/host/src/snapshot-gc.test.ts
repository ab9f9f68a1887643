import { describe, expect, it } from 'vitest'
import { scheduleSnapshotGc } from './snapshot-gc.js'

describe('scheduleSnapshotGc', () => {
  it('runs gc after the first delay, then every interval, until stopped; failures are reported', async () => {
    let runs = 0
    const reported: unknown[] = []
    let stop: () => void = () => {}
    const done = new Promise<void>((resolve) => {
      const files = {
        gc: async () => {
          runs++
          if (runs === 3) {
            stop()
            resolve()
          }
          if (runs === 2) throw new Error('git gc failed')
          return { bytesBefore: 2, bytesAfter: 1 }
        },
      }
      stop = scheduleSnapshotGc(files, (error) => reported.push(error), { firstDelayMs: 1, intervalMs: 1 })
    })
    await done
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(runs).toBe(3)
    expect(reported).toHaveLength(1)
  })
})
