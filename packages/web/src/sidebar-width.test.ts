import { describe, expect, it } from 'vitest'
import {
  clampSidebarWidth,
  defaultSidebarWidth,
  maxSidebarWidth,
  minSidebarWidth,
  readSidebarWidth,
  writeSidebarWidth,
} from './sidebar-width.js'

function memoryStorage() {
  const values = new Map<string, string>()
  return {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
  }
}

describe('sidebar width', () => {
  it('stays between the minimum and a maximum that leaves the session 40% of the window', () => {
    expect(clampSidebarWidth(100, 1280)).toBe(minSidebarWidth)
    expect(clampSidebarWidth(400.4, 1280)).toBe(400)
    expect(maxSidebarWidth(1280)).toBe(640)
    expect(maxSidebarWidth(1000)).toBe(600)
    expect(clampSidebarWidth(900, 1000)).toBe(600)
    // A window too small for both: the minimum wins.
    expect(maxSidebarWidth(300)).toBe(minSidebarWidth)
    expect(clampSidebarWidth(Number.NaN, 1280)).toBe(defaultSidebarWidth)
  })

  it('is remembered, and a missing, damaged or blocked value reads as the default', () => {
    const storage = memoryStorage()
    expect(readSidebarWidth(storage)).toBe(defaultSidebarWidth)
    writeSidebarWidth(storage, 412)
    expect(readSidebarWidth(storage)).toBe(412)
    storage.setItem('tangent.sidebarWidth', 'wide')
    expect(readSidebarWidth(storage)).toBe(defaultSidebarWidth)
    expect(readSidebarWidth(null)).toBe(defaultSidebarWidth)
    const blocked = {
      getItem: (): string | null => {
        throw new Error('blocked')
      },
      setItem: () => {
        throw new Error('blocked')
      },
    }
    expect(readSidebarWidth(blocked)).toBe(defaultSidebarWidth)
    expect(() => writeSidebarWidth(blocked, 400)).not.toThrow()
  })
})
